/* 01-why-gpu.c — hidden tests for day 01, as an instructor keeps them in HIDDEN=: Criterion tests
 * built against the lab exactly like tests/01-why-gpu.c. tests/grader/run grades with them to check
 * hidden tests, their visibility and the rubric beside them (01-why-gpu.rubric). Every description
 * carries HIDDEN-DETAIL so that the tests can tell whether a hidden test's text was shown. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "compare.h"
#include "lab.h"

Test(vector_add, n_257, .timeout = 20, .description = "HIDDEN-DETAIL: one block of 256 and one thread more")
{
    int n = 257;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    float *c = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = (float)(3 * i), want[i] = a[i] + b[i];
    lab_poison(c, sizeof(float) * n);
    gpu_run run = gpu_vector_add(a, b, c, n);
    cr_assert(run.error == NULL, "n = 257: the run ended with the CUDA error \"%s\"", run.error);
    lab_comparison result = lab_compare_floats("c", c, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = 257: %s", result.message);
    free(a), free(b), free(c), free(want);
}

Test(flops, matmul_odd_sizes, .timeout = 5, .description = "HIDDEN-DETAIL: 2*m*n*k for sizes that are not powers of two")
{
    cr_assert(flops_matmul(3, 5, 7) == 210, "HIDDEN-DETAIL flops_matmul(3, 5, 7) = %lld, want 210", flops_matmul(3, 5, 7));
}
