/* 07-reduction.c — the checks for day 07: every version sums ints exactly and floats within
 * the rounding bound of its order of summation, for sizes that are not multiples of a
 * block (1, 31, 1000, 4097, 2^20 + 3) and blocks of 128, 256 and 512 threads; and, counted
 * on the simulator, each step changes what the chapter says it changes: version 2 diverges
 * less than version 1 but has bank conflicts, version 3 has none, version 4 halves the
 * barriers per element, the shuffle tail of version 5 cuts them again, and version 6 is one
 * launch with one atomic per block. A run that the simulator stops (a race, a shuffle some
 * lanes never reach, an access past the end) fails with the simulator's own message.
 * Time is bounded: the reference passes each check in a few seconds, so every check has a
 * .timeout of 20 s or less, and the sizes run smallest first, so that a wrong loop (one that
 * never ends, or strides too short) fails in seconds, on the first size it gets wrong. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

static const int sizes[] = {1, 31, 1000, 4097, (1 << 20) + 3};
static const int block_sizes[] = {128, 256, 512};
enum { SIZES = 5, BLOCK_SIZES = 3, METRICS_N = (1 << 16) + 3 };

/* Whole numbers in [-1000, 1000]: a million of them sum exactly in an int. */
static int int_value(int i) { return (int)(((unsigned)i * 2654435761u) >> 8 & 0xffffff) % 2001 - 1000; }
/* Floats in [-1, 1], most of them not exactly representable sums of each other. Each check computes
 * the sum it expects after the code under test has returned, from these formulas (int_value,
 * float_value), not from the array that code was given: while it runs there is no answer to copy. */
static float float_value(int i) { return (float)((((unsigned)i * 2654435761u) >> 8) % 2000001) / 1e6f - 1.0f; }

/* ---------------------------------------------------------------------------------
 * The simulator reports a stopped launch on stderr; the checks quote it (capture.h). */

#define FAILED_RUN "version %d, n = %d, blocks of %d threads: the run ended with the CUDA error \"%s\".%s%s"

/* ---------------------------------------------------------------------------------
 * Sums: exact for ints; for floats within the bound of the order each version sums in. */

static void check_ints(int version)
{
    int n_max = sizes[SIZES - 1];
    int *x = malloc(sizeof(int) * n_max);
    for (int i = 0; i < n_max; i++) x[i] = int_value(i);
    for (int s = 0; s < SIZES; s++)
        for (int b = 0; b < BLOCK_SIZES; b++) {
            int n = sizes[s], threads = block_sizes[b], got;
            char said[1024];
            lab_capture_stderr();
            reduce_run run = gpu_reduce_int(version, x, n, threads, 0, &got);
            lab_release_stderr(said, sizeof said);
            cr_assert(run.error == NULL, FAILED_RUN, version, n, threads, run.error, SIMULATOR_SAID(said));
            long long exact = 0;
            for (int i = 0; i < n; i++) exact += int_value(i);
            int want = (int)exact;
            lab_comparison result = lab_compare_ints("sum", &got, &want, 1);
            cr_assert(result.mismatches == 0, "version %d, n = %d, blocks of %d threads: %s", version, n, threads,
                      result.message);
        }
    free(x);
}

/* Rounding: an element that passes through d additions carries at most d roundings of
 * u = 2^-24 each, so |error| <= d u sum|x| / (1 - d u) (Higham, "Accuracy and Stability of
 * Numerical Algorithms", ch. 4). d is the depth of the version's order of summing. */
static double depth_of(int version, int n, int threads)
{
    if (version == 6) {
        int blocks = reduce_blocks(6, n, threads);
        if (blocks < 1) blocks = (n + threads - 1) / threads;
        double per_thread = ceil((double)n / ((double)blocks * threads));
        return per_thread + log2(threads) + blocks;   /* the loop, the block's tree, the chain of atomics */
    }
    int per_block = version >= 4 ? 2 * threads : threads, passes = 0;
    for (int count = n; count > 1 || passes == 0; count = (count + per_block - 1) / per_block) passes++;
    return passes * log2(per_block);                  /* each pass is a tree of log2(per_block) levels */
}

/* The allowed error of `version` summing float_value(0 .. n-1); *want gets the exact sum. */
static double float_bound(int version, int n, int threads, double *want, double *depth)
{
    double exact = 0, magnitudes = 0, u = ldexp(1.0, -24);
    for (int i = 0; i < n; i++) exact += float_value(i), magnitudes += fabs(float_value(i));
    *want = exact;
    *depth = depth_of(version, n, threads);
    return *depth * u * magnitudes / (1 - *depth * u) + fabs(exact) * u;   /* + rounding the sum to float */
}

static void check_floats(int version)
{
    int n_max = sizes[SIZES - 1];
    float *x = malloc(sizeof(float) * n_max);
    for (int i = 0; i < n_max; i++) x[i] = float_value(i);
    for (int s = 0; s < SIZES; s++)
        for (int b = 0; b < BLOCK_SIZES; b++) {
            int n = sizes[s], threads = block_sizes[b];
            float got;
            char said[1024];
            lab_capture_stderr();
            reduce_run run = gpu_reduce_float(version, x, n, threads, 0, &got);
            lab_release_stderr(said, sizeof said);
            cr_assert(run.error == NULL, FAILED_RUN, version, n, threads, run.error, SIMULATOR_SAID(said));
            double exact, depth, bound = float_bound(version, n, threads, &exact, &depth);
            float want = (float)exact;
            lab_comparison result = lab_compare_floats("sum", &got, &want, 1, 0, bound);
            cr_assert(result.mismatches == 0, "version %d, n = %d, blocks of %d threads: %s; allowed: %.3g (%g "
                      "additions deep)", version, n, threads, result.message, bound, depth);
        }
    free(x);
}

/* ---------------------------------------------------------------------------------
 * What the simulator counts: one float run of METRICS_N elements. */

/* Counts are only worth reading for a version that sums right: check the sum first. */
static reduce_run counted(int version, int threads)
{
    static float *x;
    if (!x) {
        x = malloc(sizeof(float) * METRICS_N);
        for (int i = 0; i < METRICS_N; i++) x[i] = float_value(i);
    }
    float got;
    char said[1024];
    lab_capture_stderr();
    reduce_run run = gpu_reduce_float(version, x, METRICS_N, threads, 1, &got);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, version, METRICS_N, threads, run.error, SIMULATOR_SAID(said));
    double exact, depth, bound = float_bound(version, METRICS_N, threads, &exact, &depth);
    float want = (float)exact;
    lab_comparison result = lab_compare_floats("sum", &got, &want, 1, 0, bound);
    cr_assert(result.mismatches == 0, "version %d is not right yet (n = %d, blocks of %d threads: %s): its counts "
              "mean nothing until it is; the checks above say what is wrong", version, METRICS_N, threads,
              result.message);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

/* ---------------------------------------------------------------------------------
 * The checks, in the order of the lab. */

/* Global traffic: every version reads each element once (4 bytes, in whole 32-byte sectors) and
 * stores ONE sum per block, a sector each; the later passes add a few percent. A version whose
 * every thread (or every warp) stores the block's sum writes the same word again and again: a
 * GPU lets that pass, the counted sectors do not. 1.15 x 4n leaves room for the later passes. */
static void check_one_store_per_block(int version)
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run run = counted(version, block_sizes[b]);
        double floor = 4.0 * METRICS_N;
        cr_assert(run.global_bytes <= 1.15 * floor, "version %d, blocks of %d threads: %.0f bytes of global traffic "
                  "counted (%.2f per element) for %d floats of 4 bytes; want at most 1.15 x 4 per element: read each "
                  "element once, and store one sum per block, from one thread", version, block_sizes[b],
                  run.global_bytes, run.global_bytes / METRICS_N, METRICS_N);
    }
}

#define HINT_ONE_STORE "Counted: the block's sum is one number, stored once, by one thread. Every thread storing the " \
                       "same value to the same word gives the right answer and many times the stores."
#define HINT_GIVEN "Versions 1 and 2 are given: if they fail, the driver or the simulator is broken, or the file " \
                   "was edited outside its TODOs (make reset DAY=07 restores it; your file is backed up)."

Test(version1, int_exact, .timeout = 20, .description = HINT_GIVEN) { check_ints(1); }
Test(version1, float_within_rounding_bound, .timeout = 20, .description = HINT_GIVEN) { check_floats(1); }
Test(version2, int_exact, .timeout = 20, .description = HINT_GIVEN) { check_ints(2); }
Test(version2, float_within_rounding_bound, .timeout = 20, .description = HINT_GIVEN) { check_floats(2); }
Test(version1, one_store_per_block, .timeout = 15, .description = HINT_GIVEN) { check_one_store_per_block(1); }
Test(version2, one_store_per_block, .timeout = 15, .description = HINT_GIVEN) { check_one_store_per_block(2); }

Test(version2, less_divergent_than_version1, .timeout = 15,
     .description = "Counted: version 1's busy threads (t % 2s == 0) are spread over every warp, so its warps "
                    "step through the branch with few lanes; version 2's are the first threads of the block.")
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run v1 = counted(1, block_sizes[b]), v2 = counted(2, block_sizes[b]);
        cr_assert(v1.simt_efficiency < v2.simt_efficiency - 0.1, "blocks of %d threads: SIMT efficiency %.3f for "
                  "version 1 and %.3f for version 2; want version 1 at least 0.1 lower", block_sizes[b],
                  v1.simt_efficiency, v2.simt_efficiency);
    }
}

Test(version2, has_bank_conflicts, .timeout = 15,
     .description = "Counted: version 2's lanes touch words 2s apart, so several fall in one bank (up to "
                    "blockDim.x / 32 at once). Versions 1 and 2 are given: if this fails, see the hint above.")
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run v2 = counted(2, block_sizes[b]);
        cr_assert(v2.shared_wavefronts_per_request > 1.5 && v2.max_bank_conflict_ways >= 4,
                  "blocks of %d threads: %.2f wavefronts per shared request, worst %u-way; want more than 1.5 "
                  "and at least 4-way", block_sizes[b], v2.shared_wavefronts_per_request, v2.max_bank_conflict_ways);
    }
}

#define HINT_SEQUENTIAL "Sequential addressing: at each step the busy threads are the FIRST ones of the block, and " \
                        "each adds a partner that far away; the distance halves every step. Each step reads what " \
                        "the one before wrote, and threads past n contribute nothing."
Test(version3, int_exact, .timeout = 20, .description = HINT_SEQUENTIAL) { check_ints(3); }
Test(version3, float_within_rounding_bound, .timeout = 20, .description = HINT_SEQUENTIAL) { check_floats(3); }
Test(version3, no_bank_conflicts, .timeout = 15,
     .description = "Counted: in sequential addressing lane k of a warp touches word k + s, consecutive words in "
                    "32 different banks: one wavefront per shared request.")
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run v3 = counted(3, block_sizes[b]);
        cr_assert(v3.shared_load_wavefronts_per_request == 1.0 && v3.shared_store_wavefronts_per_request == 1.0 &&
                  v3.max_bank_conflict_ways == 1, "blocks of %d threads: %.2f wavefronts per shared load, %.2f per "
                  "store, worst %u-way; want exactly 1, 1 and 1-way", block_sizes[b],
                  v3.shared_load_wavefronts_per_request, v3.shared_store_wavefronts_per_request,
                  v3.max_bank_conflict_ways);
    }
}

Test(version3, one_store_per_block, .timeout = 15, .description = HINT_ONE_STORE) { check_one_store_per_block(3); }

#define HINT_LOAD "First add during load: each block now covers twice as many elements, each thread adding its " \
                  "two while loading. Near the end of the array the two elements of a pair are in range " \
                  "independently of each other."
Test(version4, int_exact, .timeout = 20, .description = HINT_LOAD) { check_ints(4); }
Test(version4, float_within_rounding_bound, .timeout = 20, .description = HINT_LOAD) { check_floats(4); }
Test(version4, half_the_barriers_per_element, .timeout = 15,
     .description = "Counted: a block of version 4 does version 3's barriers for twice the elements. Count the "
                    "barriers your kernel passes per block: only those the data needs.")
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run v2 = counted(2, block_sizes[b]), v4 = counted(4, block_sizes[b]);
        cr_assert(v4.barriers_per_element <= 0.55 * v2.barriers_per_element, "blocks of %d threads: %.5f "
                  "barriers per element for version 4, %.5f for versions 2 and 3; want at most 0.55 of theirs",
                  block_sizes[b], v4.barriers_per_element, v2.barriers_per_element);
    }
}

Test(version4, one_store_per_block, .timeout = 15, .description = HINT_ONE_STORE) { check_one_store_per_block(4); }

#define HINT_SHUFFLE "The shuffle tail: shared memory and barriers until one warp's worth of partial sums is left, " \
                     "then the last steps inside that warp with shuffles, which every lane named in the mask must " \
                     "reach; one lane writes the block's sum. The simulator's message, when there is one, says " \
                     "which lane and line went wrong."
Test(version5, int_exact, .timeout = 20, .description = HINT_SHUFFLE) { check_ints(5); }
Test(version5, float_within_rounding_bound, .timeout = 20, .description = HINT_SHUFFLE) { check_floats(5); }
Test(version5, fewer_barriers_with_the_shuffle_tail, .timeout = 15,
     .description = "Counted: the last steps run in one warp, ordered by the shuffles themselves, so they need no "
                    "barrier: where does your shared-memory loop stop?")
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run v2 = counted(2, block_sizes[b]), v5 = counted(5, block_sizes[b]);
        cr_assert(v5.barriers_per_element <= 0.25 * v2.barriers_per_element, "blocks of %d threads: %.5f "
                  "barriers per element for version 5, %.5f for versions 2 and 3; want at most a quarter of theirs "
                  "(version 4 has half)", block_sizes[b], v5.barriers_per_element, v2.barriers_per_element);
    }
}

Test(version5, one_store_per_block, .timeout = 15, .description = HINT_ONE_STORE) { check_one_store_per_block(5); }

#define HINT_ATOMIC "Version 6: the result must start from zero before the one launch; a grid sized to the GPU " \
                    "means each thread covers many elements, stepping so that no two threads meet and none is " \
                    "missed; then the block reduces as version 5 does, and adds its total once."
Test(version6, int_exact, .timeout = 20, .description = HINT_ATOMIC) { check_ints(6); }
Test(version6, float_within_rounding_bound, .timeout = 20, .description = HINT_ATOMIC) { check_floats(6); }
Test(version6, one_atomic_per_block, .timeout = 15,
     .description = "Counted: add the block's total once, from one thread after the block's reduction; an atomic "
                    "per thread makes every thread of the grid queue on the same word.")
{
    for (int b = 0; b < BLOCK_SIZES; b++) {
        reduce_run v6 = counted(6, block_sizes[b]);
        cr_assert(v6.launches == 1, "blocks of %d threads: %d launches; want one, with no second pass",
                  block_sizes[b], v6.launches);
        cr_assert(v6.atomics == v6.first_grid_blocks, "blocks of %d threads: %.0f atomics for %d blocks; want one "
                  "per block", block_sizes[b], v6.atomics, v6.first_grid_blocks);
    }
}

Test(version6, a_grid_sized_to_the_gpu, .timeout = 5,
     .description = "reduce_blocks(6, ...): as many blocks as the GPU can hold at once (cudaGetDeviceProperties "
                    "knows its SMs and their threads), but never more than n needs. The message shows the numbers.")
{
    struct cudaDeviceProp properties;   /* "struct": CUDA's header declares no typedef for C */
    cr_assert(cudaGetDeviceProperties(&properties, 0) == cudaSuccess, "cudaGetDeviceProperties failed");
    for (int s = 0; s < SIZES; s++)
        for (int b = 0; b < BLOCK_SIZES; b++) {
            int n = sizes[s], threads = block_sizes[b], got = reduce_blocks(6, n, threads);
            int resident = properties.multiProcessorCount * (properties.maxThreadsPerMultiProcessor / threads);
            int needed = (n + threads - 1) / threads, want = needed < resident ? needed : resident;
            cr_assert(got == want, "reduce_blocks(6, %d, %d) = %d, want %d: the GPU holds %d SMs x %d blocks of %d "
                      "threads at once, and one element per thread needs %d blocks", n, threads, got, want,
                      properties.multiProcessorCount, properties.maxThreadsPerMultiProcessor / threads, threads,
                      needed);
        }
}
