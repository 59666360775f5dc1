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
    return n;             /* one add per element */
}

long long flops_saxpy(long long n)
{
    return 2 * n;         /* a multiply and an add per element */
}

long long flops_matmul(long long m, long long n, long long k)
{
    return 2 * m * n * k; /* m·n dot products of k multiply-adds */
}

void matmul_naive(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int p = 0; p < n; p++) sum += a[i * n + p] * b[p * n + j];   /* b walks down a column */
            c[i * n + j] = sum;
        }
}
