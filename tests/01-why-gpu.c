/* 01-why-gpu.c — the checks for day 01: vector_add and saxpy are exact for sizes that are
 * smaller than, equal to, one over and far beyond a block; nothing is written past the
 * end; on the simulator, the launch gives each element a thread of its own and has no idle block; the
 * FLOP counts are exact; matmul_naive agrees with a double-precision reference and writes nothing
 * past the end of c (the host buffers are guarded as the device ones are). Every output is poisoned
 * first (compare.h), so an element never written fails. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lab.h"

#define HINT_INDEX "Every element i < n needs a thread of its own, and which element a thread takes must come from " \
                   "where the thread sits in the WHOLE grid (its block and its place in the block), not in its block " \
                   "alone. The grid must reach the last element. make hint DAY=01 goes step by step."
#define HINT_BOUNDS "The last block usually hangs over the end of the array, and its spare threads run the kernel " \
                    "too: nothing may be written at or past element n."
#define HINT_LAUNCH "Today's rule is one element per thread: the launch itself provides a thread for every element " \
                    "(looping over elements inside a kernel is day 02's grid-stride loop), and launches no block " \
                    "that has no element at all. Compare the blocks x threads you launch with n."

/* Values whose sums and products are exact in float, so the expected result is exact. Each check
 * computes what it expects after the code under test has returned, from these formulas, not from the
 * arrays that code was given: while it runs there is no answer in memory to copy. */
static float value(int i, int salt) { return (float)((i * 7 + salt) % 1001) - 500.0f; }

/* One element per thread (the rule of today's lab): on the simulator, which counts the launches, the
 * threads launched cover n, and the last block launched holds at least one element. */
static void check_launch_shape(const char *kernel, int n, gpu_run run)
{
    if (!run.counted) return;   /* a real GPU counts nothing here; Nsight Systems shows the launches */
    cr_assert(run.launches >= 1, "%s, n = %d: no kernel was launched", kernel, n);
    cr_assert(run.threads >= n, "%s, n = %d: the launch had %lld block(s) of up to %d threads = %lld threads for %d "
              "elements. Today each element gets its own thread: a loop inside the kernel is not the exercise",
              kernel, n, run.blocks, run.threads_per_block, run.threads, n);
    cr_assert(run.threads - n < run.threads_per_block, "%s, n = %d: %lld blocks of %d threads = %lld threads, a whole "
              "block (%lld threads) more than the %d elements need: one block fewer covers them all", kernel, n,
              run.blocks, run.threads_per_block, run.threads, run.threads - n, n);
}

static void check_vector_add(int n)
{
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n), *c = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) a[i] = value(i, 1), b[i] = value(i, 2);
    lab_poison(c, sizeof(float) * n);
    gpu_run run = gpu_vector_add(a, b, c, n);
    cr_assert(run.error == NULL, "n = %d: the run ended with the CUDA error \"%s\"", n, run.error);
    float *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) want[i] = value(i, 1) + value(i, 2);
    lab_comparison result = lab_compare_floats("c", c, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = %d: %s", n, result.message);
    cr_assert(run.written_past_end == 0, "n = %d: the kernel wrote %lld elements at or past c[%d], "
              "outside the array", n, run.written_past_end, n);
    check_launch_shape("vector_add", n, run);
    free(a), free(b), free(c), free(want);
}

Test(vector_add, n_1, .timeout = 20, .description = HINT_INDEX) { check_vector_add(1); }
Test(vector_add, n_31, .timeout = 20, .description = HINT_INDEX) { check_vector_add(31); }
Test(vector_add, n_32, .timeout = 20, .description = HINT_INDEX) { check_vector_add(32); }
Test(vector_add, n_33, .timeout = 20, .description = HINT_INDEX) { check_vector_add(33); }
Test(vector_add, n_256, .timeout = 20, .description = HINT_LAUNCH) { check_vector_add(256); }
Test(vector_add, n_1024, .timeout = 20, .description = HINT_LAUNCH) { check_vector_add(1024); }
Test(vector_add, n_5000, .timeout = 20, .description = HINT_LAUNCH) { check_vector_add(5000); }
Test(vector_add, n_1000003, .timeout = 60, .description = HINT_INDEX) { check_vector_add(1000003); }
Test(vector_add, no_write_past_end, .timeout = 20, .description = HINT_BOUNDS)
{
    for (int n = 1; n <= 300; n += 37) check_vector_add(n);
}

static void check_saxpy(int n, float alpha)
{
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) x[i] = value(i, 3), y[i] = value(i, 4);
    gpu_run run = gpu_saxpy(alpha, x, y, n);
    cr_assert(run.error == NULL, "n = %d: the run ended with the CUDA error \"%s\"", n, run.error);
    float *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) want[i] = alpha * value(i, 3) + value(i, 4);
    lab_comparison result = lab_compare_floats("y", y, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = %d, alpha = %g: %s", n, alpha, result.message);
    cr_assert(run.written_past_end == 0, "n = %d: the kernel wrote %lld elements at or past y[%d]", n,
              run.written_past_end, n);
    check_launch_shape("saxpy", n, run);
    free(x), free(y), free(want);
}

Test(saxpy, small_sizes, .timeout = 20, .description = HINT_INDEX)
{
    int sizes[] = {1, 31, 32, 33};
    for (int i = 0; i < 4; i++) check_saxpy(sizes[i], 2.0f);
}
Test(saxpy, n_1000003, .timeout = 60, .description = HINT_INDEX) { check_saxpy(1000003, -3.0f); }
Test(saxpy, launch_covers_n, .timeout = 20, .description = HINT_LAUNCH)
{
    int sizes[] = {256, 1024, 5000};
    for (int i = 0; i < 3; i++) check_saxpy(sizes[i], 0.5f);
}

Test(flops, vector_add_and_saxpy, .timeout = 5,
     .description = "Count what one element costs, operation by operation, then multiply by the elements.")
{
    cr_assert(flops_vector_add(1000) == 1000, "flops_vector_add(1000) = %lld, want 1000", flops_vector_add(1000));
    cr_assert(flops_saxpy(1000) == 2000, "flops_saxpy(1000) = %lld, want 2000", flops_saxpy(1000));
}

Test(flops, matmul, .timeout = 5,
     .description = "Count the outputs of C, then what each output costs (a multiply and an add are two FLOPs, as "
                    "datasheets count them). Large shapes need more than 32 bits on the way.")
{
    static const struct { long long m, n, k, want; } cases[] = {   /* not on the stack (value above says why) */
        {1, 1, 1, 2}, {2, 3, 4, 48}, {1, 4096, 11008, 90177536}, {4096, 4096, 4096, 137438953472LL},
    };
    for (int i = 0; i < 4; i++) {
        long long got = flops_matmul(cases[i].m, cases[i].n, cases[i].k);
        cr_assert(got == cases[i].want, "flops_matmul(%lld, %lld, %lld) = %lld, want %lld", cases[i].m,
                  cases[i].n, cases[i].k, got, cases[i].want);
    }
}

/* Host buffers, like the device ones of run.cu: each is followed by GUARD sentinel floats, so a loop
 * bound that runs one row or one element too far reads sentinels (not someone else's memory) and a
 * store past the end of c shows as a changed sentinel. */
enum { GUARD = 4096 };
static const unsigned char SENTINEL = 0x5a;

static float *guarded(size_t n)
{
    float *p = malloc(sizeof(float) * (n + GUARD));
    cr_assert(p, "out of memory");
    memset(p + n, SENTINEL, sizeof(float) * GUARD);
    return p;
}

static long long guard_changed(const float *p, size_t n)
{
    const unsigned char *bytes = (const unsigned char *)(p + n);
    long long changed = 0;
    for (size_t i = 0; i < sizeof(float) * GUARD; i += sizeof(float))
        changed += bytes[i] != SENTINEL || bytes[i + 1] != SENTINEL || bytes[i + 2] != SENTINEL ||
                   bytes[i + 3] != SENTINEL;
    return changed;
}

static void check_matmul(int n)
{
    size_t nn = (size_t)n * n;
    float *a = guarded(nn), *b = guarded(nn), *c = guarded(nn);
    for (int i = 0; i < n * n; i++) a[i] = value(i, 5) / 500.0f, b[i] = value(i, 6) / 250.0f;
    lab_poison(c, sizeof(float) * nn);
    matmul_naive(a, b, c, n);
    float *want = malloc(sizeof(float) * nn);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int p = 0; p < n; p++) sum += (double)(value(i * n + p, 5) / 500.0f) * (value(p * n + j, 6) / 250.0f);
            want[i * n + j] = (float)sum;
        }
    long long past_end = guard_changed(c, nn);
    cr_assert(past_end == 0, "n = %d: matmul_naive wrote %lld floats at or past c[%d * %d], outside the matrix: "
              "does a loop run one step too far?", n, past_end, n, n);
    cr_assert(guard_changed(a, nn) == 0 && guard_changed(b, nn) == 0, "n = %d: matmul_naive wrote into a or b, "
              "which are its inputs", n);
    lab_comparison result = lab_compare_floats("c", c, want, nn, 1e-4, 1e-4);
    cr_assert(result.mismatches == 0, "n = %d: %s", n, result.message);
    free(a), free(b), free(c), free(want);
}

#define HINT_MATMUL "Row-major storage: element (i, j) of an n x n matrix sits at one index made of i, j and n. Each " \
                    "element of c is the dot product of a row of a and a column of b, begun from zero, and nothing " \
                    "outside c's n x n elements may be written."
Test(matmul_naive, n_1, .timeout = 10, .description = HINT_MATMUL) { check_matmul(1); }
Test(matmul_naive, n_2, .timeout = 10, .description = HINT_MATMUL) { check_matmul(2); }
Test(matmul_naive, n_7, .timeout = 10, .description = HINT_MATMUL) { check_matmul(7); }
Test(matmul_naive, n_64, .timeout = 10, .description = HINT_MATMUL) { check_matmul(64); }
