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

/* restrict promises the compiler that the arrays do not overlap, so it may vectorise
 * without checking at run time. */
STREAM_LOOP_AS_WRITTEN void cpu_stream_copy(const double *restrict a, double *restrict c, size_t n)
{
    for (size_t i = 0; i < n; i++) c[i] = a[i];
}

void cpu_stream_scale(double q, const double *restrict c, double *restrict b, size_t n)
{
    for (size_t i = 0; i < n; i++) b[i] = q * c[i];
}

void cpu_stream_add(const double *restrict a, const double *restrict b, double *restrict c, size_t n)
{
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}

void cpu_stream_triad(double q, const double *restrict b, const double *restrict c, double *restrict a, size_t n)
{
    for (size_t i = 0; i < n; i++) a[i] = b[i] + q * c[i];
}
