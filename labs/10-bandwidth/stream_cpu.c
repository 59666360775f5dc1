/* stream_cpu.c — Day 10: STREAM's four kernels in C, the loops the driver times on this CPU.
 *
 * What you write today: the four loops of lab.h, each over n elements:
 *   copy   c[i] = a[i]
 *   scale  b[i] = q * c[i]
 *   add    c[i] = a[i] + b[i]
 *   triad  a[i] = b[i] + q * c[i]
 *
 * Rules: plain C; one pass over the arrays, front to back, as STREAM does: no memcpy, no
 * threads, no intrinsics. The checks compare every element, and count, page by page, how many
 * times each loop walks each array (driver/sweeps.c): a loop that walks an array twice moves
 * its bytes twice. STREAM_LOOP_AS_WRITTEN, given on copy, keeps the compiler from turning the
 * copy loop into a call to memcpy: keep it.
 *
 * Check:  make check DAY=10        Stuck?  make hint DAY=10
 */
#include "lab.h"

// TODO (each function): STREAM's kernel, its line of lab.h for elements 0 .. n-1.
//       Contract: n >= 0; the output is the array on the left of the line, the inputs are
//       left unchanged; q is the parameter (the checks do not use STREAM's 3); each array
//       walked once, front to back; nothing before a[0] or past a[n - 1] touched.
//       Idea: a memory-bound loop takes the time of the bytes it moves, and one pass moves
//       the fewest: what STREAM counts, plus the write-allocate read.

STREAM_LOOP_AS_WRITTEN void cpu_stream_copy(const double *a, double *c, size_t n)
{
    // TODO: copy
}

void cpu_stream_scale(double q, const double *c, double *b, size_t n)
{
    // TODO: scale
}

void cpu_stream_add(const double *a, const double *b, double *c, size_t n)
{
    // TODO: add
}

void cpu_stream_triad(double q, const double *b, const double *c, double *a, size_t n)
{
    // TODO: triad
}
