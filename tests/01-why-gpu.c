/* 01-why-gpu.c — the checks for day 01: vector_add and saxpy are exact for sizes that are
 * smaller than, equal to, one over and far beyond a block; nothing is written past the
 * end; the FLOP counts are exact; matmul_naive agrees with a double-precision reference.
 * Every output is poisoned first (compare.h), so an element never written fails. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "compare.h"
#include "lab.h"

#define HINT_INDEX "One thread per element: i = blockIdx.x * blockDim.x + threadIdx.x, and write only when " \
                   "i < n. The launcher needs (n + threads - 1) / threads blocks to cover every element."
#define HINT_BOUNDS "Threads of the last block with i >= n must do nothing: guard the write with if (i < n). And " \
                    "every i below n needs its own thread: i = blockIdx.x * blockDim.x + threadIdx.x, not threadIdx.x alone."

/* Values whose sums and products are exact in float, so the expected result is exact. */
static float value(int i, int salt) { return (float)((i * 7 + salt) % 1001) - 500.0f; }

static void check_vector_add(int n)
{
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    float *c = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) a[i] = value(i, 1), b[i] = value(i, 2), want[i] = a[i] + b[i];
    lab_poison(c, sizeof(float) * n);
    gpu_run run = gpu_vector_add(a, b, c, n);
    cr_assert(run.error == NULL, "n = %d: the run ended with the CUDA error \"%s\"", n, run.error);
    comparison result = lab_compare_floats("c", c, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = %d: %s", n, result.message);
    cr_assert(run.written_past_end == 0, "n = %d: the kernel wrote %lld elements at or past c[%d], "
              "outside the array", n, run.written_past_end, n);
    free(a), free(b), free(c), free(want);
}

Test(vector_add, n_1, .timeout = 20, .description = HINT_INDEX) { check_vector_add(1); }
Test(vector_add, n_31, .timeout = 20, .description = HINT_INDEX) { check_vector_add(31); }
Test(vector_add, n_32, .timeout = 20, .description = HINT_INDEX) { check_vector_add(32); }
Test(vector_add, n_33, .timeout = 20, .description = HINT_INDEX) { check_vector_add(33); }
Test(vector_add, n_1000003, .timeout = 60, .description = HINT_INDEX) { check_vector_add(1000003); }
Test(vector_add, no_write_past_end, .timeout = 20, .description = HINT_BOUNDS)
{
    for (int n = 1; n <= 300; n += 37) check_vector_add(n);
}

static void check_saxpy(int n, float alpha)
{
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) x[i] = value(i, 3), y[i] = value(i, 4), want[i] = alpha * x[i] + y[i];
    gpu_run run = gpu_saxpy(alpha, x, y, n);
    cr_assert(run.error == NULL, "n = %d: the run ended with the CUDA error \"%s\"", n, run.error);
    comparison result = lab_compare_floats("y", y, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = %d, alpha = %g: %s", n, alpha, result.message);
    cr_assert(run.written_past_end == 0, "n = %d: the kernel wrote %lld elements at or past y[%d]", n,
              run.written_past_end, n);
    free(x), free(y), free(want);
}

Test(saxpy, small_sizes, .timeout = 20, .description = HINT_INDEX)
{
    int sizes[] = {1, 31, 32, 33};
    for (int i = 0; i < 4; i++) check_saxpy(sizes[i], 2.0f);
}
Test(saxpy, n_1000003, .timeout = 60, .description = HINT_INDEX) { check_saxpy(1000003, -3.0f); }

Test(flops, vector_add_and_saxpy, .timeout = 5,
     .description = "vector_add does one add per element; saxpy one multiply and one add per element.")
{
    cr_assert(flops_vector_add(1000) == 1000, "flops_vector_add(1000) = %lld, want 1000", flops_vector_add(1000));
    cr_assert(flops_saxpy(1000) == 2000, "flops_saxpy(1000) = %lld, want 2000", flops_saxpy(1000));
}

Test(flops, matmul, .timeout = 5,
     .description = "C(m x n) = A(m x k) B(k x n) has m*n outputs, each a dot product of k multiplies and k "
                    "adds: 2*m*n*k FLOPs (count in long long: 2*4096^3 overflows an int).")
{
    struct { long long m, n, k, want; } cases[] = {
        {1, 1, 1, 2}, {2, 3, 4, 48}, {1, 4096, 11008, 90177536}, {4096, 4096, 4096, 137438953472LL},
    };
    for (int i = 0; i < 4; i++) {
        long long got = flops_matmul(cases[i].m, cases[i].n, cases[i].k);
        cr_assert(got == cases[i].want, "flops_matmul(%lld, %lld, %lld) = %lld, want %lld", cases[i].m,
                  cases[i].n, cases[i].k, got, cases[i].want);
    }
}

static void check_matmul(int n)
{
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n);
    float *c = malloc(sizeof(float) * n * n), *want = malloc(sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++) a[i] = value(i, 5) / 500.0f, b[i] = value(i, 6) / 250.0f;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int p = 0; p < n; p++) sum += (double)a[i * n + p] * b[p * n + j];
            want[i * n + j] = (float)sum;
        }
    lab_poison(c, sizeof(float) * n * n);
    matmul_naive(a, b, c, n);
    comparison result = lab_compare_floats("c", c, want, (size_t)n * n, 1e-4, 1e-4);
    cr_assert(result.mismatches == 0, "n = %d: %s", n, result.message);
    free(a), free(b), free(c), free(want);
}

#define HINT_MATMUL "Row-major: element (i, j) of an n x n matrix is at [i * n + j]. c[i][j] is the sum over " \
                    "p of a[i][p] * b[p][j]; start each sum at zero."
Test(matmul_naive, n_1, .timeout = 10, .description = HINT_MATMUL) { check_matmul(1); }
Test(matmul_naive, n_7, .timeout = 10, .description = HINT_MATMUL) { check_matmul(7); }
Test(matmul_naive, n_64, .timeout = 10, .description = HINT_MATMUL) { check_matmul(64); }
