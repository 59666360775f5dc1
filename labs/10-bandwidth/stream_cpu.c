/* stream_cpu.c — Day 10: STREAM's four kernels in C, the loops the driver times on this CPU.
 *
 * What you write today: the four loops of lab.h, each over n elements:
 *   copy   c[i] = a[i]
 *   scale  b[i] = q * c[i]
 *   add    c[i] = a[i] + b[i]
 *   triad  a[i] = b[i] + q * c[i]
 *
 * Rules: plain C; one pass over the arrays, front to back, as STREAM does: no memcpy, no
 * threads, no intrinsics. The driver compares the triad's bandwidth with memcpy's over the
 * same memory, so a loop that does more (or slower) work than the line above shows.
 *
 * Check:  make check DAY=10        Stuck?  make hint DAY=10
 */
#include "lab.h"

// TODO: each function is one loop over i from 0 to n - 1 and one line of lab.h. Mark the
//       pointers restrict (const double *restrict a, ...): the arrays never overlap, and
//       saying so lets the compiler vectorise the loop without checking.

void cpu_stream_copy(const double *a, double *c, size_t n)
{
    // TODO: c[i] = a[i]
}

void cpu_stream_scale(double q, const double *c, double *b, size_t n)
{
    // TODO: b[i] = q * c[i]
}

void cpu_stream_add(const double *a, const double *b, double *c, size_t n)
{
    // TODO: c[i] = a[i] + b[i]
}

void cpu_stream_triad(double q, const double *b, const double *c, double *a, size_t n)
{
    // TODO: a[i] = b[i] + q * c[i]
}
