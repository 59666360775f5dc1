/* flops.c — Day 01: counting floating-point operations, and the loop a GPU replaces.
 *
 * What you write today:
 *   1. The FLOP count of vector_add, saxpy and a matrix multiply C(m×n) = A(m×k) · B(k×n).
 *      Count one multiply and one add as two FLOPs, as every datasheet does.
 *   2. matmul_naive: C = A · B for square n×n row-major matrices, as three nested loops.
 *      The driver times it to measure this CPU's GFLOP/s.
 *
 * Rules: plain C; no libraries; keep matmul_naive naive (no blocking or threads: day 12
 * makes it fast, and today's point is the gap to a GPU).
 *
 * Check:  make check DAY=01        Stuck?  make hint DAY=01
 */
#include "lab.h"

long long flops_vector_add(long long n)
{
    // TODO: how many floating-point operations does c[i] = a[i] + b[i] cost for n elements?
    (void)n;
    return 0;
}

long long flops_saxpy(long long n)
{
    // TODO: y[i] = alpha * x[i] + y[i]
    (void)n;
    return 0;
}

long long flops_matmul(long long m, long long n, long long k)
{
    // TODO: each of the m·n outputs is a dot product of length k.
    (void)m, (void)n, (void)k;
    return 0;
}

void matmul_naive(const float *a, const float *b, float *c, int n)
{
    // TODO: c[i*n + j] = sum over p of a[i*n + p] * b[p*n + j]. Accumulate in a float
    //       local variable and store it once.
    (void)a, (void)b, (void)c, (void)n;
}
