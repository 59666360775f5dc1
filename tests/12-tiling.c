/* 12-tiling.c — the checks for day 12. The learner's prediction of the floats a tiled kernel loads
 * from global memory equals what the simulator counts, for the naive kernel and every tile size, on
 * shapes that are not multiples of a tile, and holds past 2^31. The tiled kernel, for tiles of 8,
 * 16 and 32, and the two CPU matmuls agree with a double-precision reference within the rounding
 * bound of a k-long dot product (it grows with k), on shapes that are not multiples of any tile or
 * block, including 1 x 1 x 1 and shapes thinner than a tile; the kernel writes nothing outside C,
 * and the CPU matmuls touch nothing past the end of A, B or C (a guard page follows each). A C
 * that comes out NaN is told apart: never written, added to while it held its poison, or NaN
 * made by the arithmetic from a value read before it was written. Counted on the simulator, as
 * bounds: one block per tile of C, no more steps along k than it takes, no more global floats
 * loaded than a tile of that size needs, C stored once, coalesced tile loads, no bank conflicts.
 * Measured on this CPU, side by side, best of 3 at N = 512: the blocked matmul and the loop order
 * are each at least twice as fast as the naive loop, and (where the CPU has AVX2) the blocked one
 * is at least 1.5 times the loop order. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"
#include "robust.h"

typedef struct shape { int m, n, k; } shape;
/* Awkward on purpose: thinner than a tile, one over a tile, k longer than the CPU's 256-deep
 * slices, n wider than a 1024-wide one, rows in no multiple of 6 or 96. */
static const shape gpu_shapes[] = {{1, 1, 1}, {5, 3, 2}, {64, 64, 64}, {33, 47, 70}, {17, 80, 9}, {70, 19, 129}};
static const shape cpu_shapes[] = {{1, 1, 1}, {7, 5, 3}, {64, 64, 64}, {37, 45, 300}, {1, 100, 20}, {100, 1, 20},
                                   {200, 130, 600}, {97, 1030, 33}};
enum { GPU_SHAPES = 6, CPU_SHAPES = 8, COUNTED_N = 64, TIMED_N = 512, TIMING_REPEATS = 3 };
static const int tile_sizes[] = {8, 16, 32};

/* ---------------------------------------------------------------------------------
 * Inputs and the reference. */

/* Host arrays that end right at an inaccessible page, so a CPU matmul that reads or writes even
 * one float past the end of A, B or C crashes (and the check fails) instead of passing unseen:
 * adding a zero past the end changes no value, but it is still a write outside the matrix. */
static float *guarded_floats(size_t count)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = count * sizeof(float);
    size_t rounded = (bytes + page - 1) / page * page;
    char *base = mmap(NULL, rounded + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(base != MAP_FAILED, "mmap failed: out of memory?");
    mprotect(base + rounded, page, PROT_NONE);
    return (float *)(base + rounded - bytes);
}

static void free_guarded(float *x, size_t count)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = count * sizeof(float);
    size_t rounded = (bytes + page - 1) / page * page;
    munmap((char *)x + bytes - rounded, rounded + page);
}

typedef struct problem {
    shape s;
    float *a, *b, *c, *want;   /* want and tolerance: expect_product, once the code under test has returned */
    double tolerance;
} problem;

enum { SEED_A = 11, SEED_B = 12 };

static problem make_problem(shape s)
{
    problem p = {s, guarded_floats((size_t)s.m * s.k), guarded_floats((size_t)s.k * s.n),
                 guarded_floats((size_t)s.m * s.n), NULL, 0};
    fill_matrix(p.a, (size_t)s.m * s.k, SEED_A), fill_matrix(p.b, (size_t)s.k * s.n, SEED_B);
    lab_poison(p.c, sizeof(float) * s.m * s.n);
    return p;
}

/* What C must hold and the error allowed, computed after the code under test has returned, from A and B
 * made afresh (the same seeds), not from the arrays it was given: while it runs there is no answer in
 * memory to copy, and changing A or B changes no answer. */
static void expect_product(problem *p)
{
    size_t a_count = (size_t)p->s.m * p->s.k, b_count = (size_t)p->s.k * p->s.n;
    float *a = malloc(sizeof(float) * a_count), *b = malloc(sizeof(float) * b_count);
    free(p->want);
    p->want = malloc(sizeof(float) * p->s.m * p->s.n);
    cr_assert(a && b && p->want, "out of memory");
    fill_matrix(a, a_count, SEED_A), fill_matrix(b, b_count, SEED_B);
    p->tolerance = matmul_reference(a, b, p->want, p->s.m, p->s.n, p->s.k);
    free(a), free(b);
}

static void free_problem(problem *p)
{
    free_guarded(p->a, (size_t)p->s.m * p->s.k), free_guarded(p->b, (size_t)p->s.k * p->s.n);
    free_guarded(p->c, (size_t)p->s.m * p->s.n), free(p->want);
}

/* ---------------------------------------------------------------------------------
 * The tiled kernel: right, then counted. */

/* What a tile x tile kernel must load from global memory, exactly: each element of A once per
 * tile column of C (the blocks of its band of rows), each element of B once per tile row. */
static double reference_global_floats(int tile, int m, int n, int k)
{
    return (double)m * k * ((n + tile - 1) / tile) + (double)k * n * ((m + tile - 1) / tile);
}

static size_t nan_elements(const float *x, size_t count, size_t *first)
{
    size_t nans = 0;
    for (size_t i = count; i-- > 0;)
        if (x[i] != x[i]) nans++, *first = i;
    return nans;
}

/* C holds NaNs where A and B are finite. A counted run says whether the kernel stored them (so
 * the NaN came out of its arithmetic) or left them as the driver's poison; fails saying which. */
static void explain_nan(int tile, problem *p, size_t nans, size_t first_nan, const char *compared)
{
    size_t elements = (size_t)p->s.m * p->s.n;
    char said[1024];
    lab_capture_stderr();
    matmul_run again = gpu_matmul(tile, p->a, p->b, p->c, p->s.m, p->s.n, p->s.k, 1);
    lab_release_stderr(said, sizeof said);
    char shape[160];
    snprintf(shape, sizeof shape, "tile %d, C (%d x %d) = A (%d x %d) B (%d x %d)", tile, p->s.m, p->s.n, p->s.m,
             p->s.k, p->s.k, p->s.n);
    if (!again.counted || again.error) cr_assert_fail("%s: %s", shape, compared);
    if (again.global_floats_stored == 0)
        cr_assert_fail("%s: %s (counted: your kernel stored nothing to C: is its body still empty, or its grid?)",
                       shape, compared);
    if (again.global_floats_stored < (double)elements)
        cr_assert_fail("%s: %s (counted: your kernel stored %.0f floats for the %zu elements of C: some were never "
                       "written)", shape, compared, again.global_floats_stored, elements);
    double needed = reference_global_floats(tile > 0 ? tile : 1, p->s.m, p->s.n, p->s.k);
    if (again.global_floats_loaded >= needed + (double)elements)
        cr_assert_fail("%s: %zu of %zu elements of C are NaN, c[%zu] the first (want %.9g). Your kernel stored every "
                       "element, but it also loaded %.0f floats from global memory where the tiles need %.0f: it read "
                       "C before storing it (c[...] += sum), and C held the driver's poison, NaN. Store the sum; "
                       "C's old contents are not part of the product.", shape, nans, elements, first_nan,
                       (double)p->want[first_nan], again.global_floats_loaded, needed);
    cr_assert_fail("%s: %zu of %zu elements of C are NaN, c[%zu] the first (want %.9g), though your kernel stored "
                   "every element (counted: %.0f stores) and A and B are finite: the NaN came out of the arithmetic, "
                   "from a value read before it was written. Usually a tile element past an edge of A or B left "
                   "unset instead of zeroed (shared memory starts as garbage: NaN on the simulator, a stale value "
                   "from the last tile on a GPU), or a sum not started at zero.", shape, nans, elements, first_nan,
                   (double)p->want[first_nan], again.global_floats_stored);
}

/* Runs tile on p (counted or not) and fails with what went wrong. */
static matmul_run run_tiled(int tile, problem *p, int count)
{
    const char *why = count ? " (the counts mean nothing until the kernel is right: the tile*_right checks say "
                              "more)" : "";
    char said[1024];
    lab_capture_stderr();
    matmul_run run = gpu_matmul(tile, p->a, p->b, p->c, p->s.m, p->s.n, p->s.k, count);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "tile %d, m = %d, n = %d, k = %d%s: the run ended with the CUDA error \"%s\".%s%s",
              tile, p->s.m, p->s.n, p->s.k, why, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_outside == 0, "tile %d, m = %d, n = %d, k = %d: %lld floats written outside C (in the guard "
              "regions before and after it): a thread outside the matrix wrote", tile, p->s.m, p->s.n, p->s.k,
              run.written_outside);
    size_t elements = (size_t)p->s.m * p->s.n, first_nan = 0;
    expect_product(p);
    lab_comparison result = lab_compare_floats("c", p->c, p->want, elements, 0, p->tolerance);
    if (result.mismatches == 0) return run;
    char compared[800];
    snprintf(compared, sizeof compared, "%s; allowed error %.2g (the rounding bound of a %d-long dot product)%s",
             result.message, p->tolerance, p->s.k, why);
    size_t nans = nan_elements(p->c, elements, &first_nan);
    if (nans) explain_nan(tile, p, nans, first_nan, compared);
    cr_assert_fail("tile %d, C (%d x %d) = A (%d x %d) B (%d x %d): %s", tile, p->s.m, p->s.n, p->s.m, p->s.k, p->s.k,
                   p->s.n, compared);
    return run;
}

static void check_tiled(int tile)
{
    for (int s = 0; s < GPU_SHAPES; s++) {
        problem p = make_problem(gpu_shapes[s]);
        run_tiled(tile, &p, 0);
        free_problem(&p);
    }
}

/* The counts of each tile size at N = COUNTED_N, once per test. */
static matmul_run counted(int tile)
{
    problem p = make_problem((shape){COUNTED_N, COUNTED_N, COUNTED_N});
    matmul_run run = run_tiled(tile, &p, 1);
    free_problem(&p);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

#define HINT_TILED "A block of TILE x TILE threads computes a TILE x TILE tile of C, walking along k one TILE-wide " \
                   "step at a time: each thread copies one element of A's tile and one of B's into shared memory, " \
                   "the block waits, each thread adds TILE products from the tiles, the block waits again. Where a " \
                   "tile hangs over an edge of A or B, store a zero; a thread outside C writes nothing."
Test(tiled, tile8_right, .timeout = 60, .description = HINT_TILED) { check_tiled(8); }
Test(tiled, tile16_right, .timeout = 60, .description = HINT_TILED) { check_tiled(16); }
Test(tiled, tile32_right, .timeout = 60, .description = HINT_TILED) { check_tiled(32); }

Test(tiled, other_tiles_refused, .timeout = 10,
     .description = "matmul_tiled takes tiles of 8, 16 and 32 only; for any other it launches nothing and returns "
                    "cudaErrorInvalidValue, as a CUDA library does for an argument it does not support.")
{
    const int others[] = {0, 1, 4, 12, 24, 64};
    for (int i = 0; i < 6; i++) {
        cudaError_t error = matmul_tiled(others[i], NULL, NULL, NULL, 16, 16, 16);
        cudaGetLastError();
        cr_assert(error == cudaErrorInvalidValue, "matmul_tiled(%d, ...) returned \"%s\"; want \"%s\"", others[i],
                  cudaGetErrorString(error), cudaGetErrorString(cudaErrorInvalidValue));
    }
}

/* Counted runs on a shape that is a multiple of every tile and on one that is a multiple of none. */
static const shape counted_shapes[] = {{COUNTED_N, COUNTED_N, COUNTED_N}, {33, 47, 70}};
enum { COUNTED_SHAPES = 2 };

static matmul_run counted_on(int tile, shape s)
{
    problem p = make_problem(s);
    matmul_run run = run_tiled(tile, &p, 1);
    free_problem(&p);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

Test(tiled, global_loads_fall_by_the_tile, .timeout = 60,
     .description = "Counted: with TILE x TILE tiles, each float a block loads from global memory is used by TILE "
                    "threads, so the loads fall from 2 m n k (the naive kernel's) to about 2 m n k / TILE: each "
                    "element of A once per tile column of C, each of B once per tile row. A bound: a kernel may "
                    "load less, not more. Global memory is read only to fill the tiles, and the inner loop reads "
                    "shared memory alone.")
{
    for (int c = 0; c < COUNTED_SHAPES; c++)
        for (int t = 0; t < 3; t++) {
            int tile = tile_sizes[t];
            shape s = counted_shapes[c];
            matmul_run run = counted_on(tile, s);
            double most = reference_global_floats(tile, s.m, s.n, s.k), naive = 2.0 * s.m * s.n * s.k;
            cr_assert(run.global_floats_loaded <= most, "tile %d, m = %d, n = %d, k = %d: %.0f floats loaded from "
                      "global memory; want at most %.0f, each element of A once per tile column of C and each of B "
                      "once per tile row: %.2fx that (the naive kernel loads %.0f). More means a float loaded twice "
                      "by a block, a block with no tile of C to compute, or global reads in the inner loop", tile,
                      s.m, s.n, s.k, run.global_floats_loaded, most, run.global_floats_loaded / most, naive);
        }
}

Test(tiled, one_block_per_tile_of_c, .timeout = 60,
     .description = "Counted: the grid has one block for each TILE x TILE tile of C, x across its n columns and y "
                    "down its m rows, rounded up at the edges; the tile asked for is the tile launched.")
{
    shape s = counted_shapes[1];
    for (int t = 0; t < 3; t++) {
        int tile = tile_sizes[t];
        matmul_run run = counted_on(tile, s);
        unsigned want_x = (unsigned)(s.n + tile - 1) / tile, want_y = (unsigned)(s.m + tile - 1) / tile;
        cr_assert(run.grid[0] == want_x && run.grid[1] == want_y, "tile %d, C %d x %d: a grid of %u x %u blocks of "
                  "%u x %u threads; want %u x %u, one block per %d x %d tile of C (x across the %d columns, y down "
                  "the %d rows). Is the tile asked for the tile launched?", tile, s.m, s.n, run.grid[0],
                  run.grid[1], run.block[0], run.block[1], want_x, want_y, tile, tile, s.n, s.m);
    }
}

Test(tiled, steps_cover_k_once, .timeout = 60,
     .description = "Counted: each block walks along k in ceil(k / TILE) steps, two barriers each; a step past the "
                    "end loads nothing and adds zeros, but every thread still waits at its barriers and reads a "
                    "whole tile from shared memory for nothing.")
{
    for (int c = 0; c < COUNTED_SHAPES; c++)
        for (int t = 0; t < 3; t++) {
            int tile = tile_sizes[t];
            shape s = counted_shapes[c];
            matmul_run run = counted_on(tile, s);
            double blocks = (double)run.grid[0] * run.grid[1], steps = (s.k + tile - 1) / tile;
            cr_assert(run.barriers <= 2 * blocks * steps, "tile %d, m = %d, n = %d, k = %d: %.0f barriers completed "
                      "by %.0f blocks, %.2f each; want at most %.0f each, two for each of ceil(k / %d) = %.0f steps. "
                      "Does the loop along k run one step past the end (<= for <), or wait more than twice a step?",
                      tile, s.m, s.n, s.k, run.barriers, blocks, run.barriers / blocks, 2 * steps, tile, steps);
        }
}

Test(tiled, each_output_stored_once, .timeout = 60,
     .description = "Counted: C is written once per element, after the last step along k; the running sum stays "
                    "in a register until then.")
{
    for (int t = 0; t < 3; t++) {
        matmul_run run = counted(tile_sizes[t]);
        cr_assert(run.global_floats_stored <= (double)COUNTED_N * COUNTED_N, "tile %d, N = %d: %.0f floats stored "
                  "to global memory, %.1f per element of C; want at most one per element, %d: is C written inside "
                  "the loop along k?", tile_sizes[t], COUNTED_N, run.global_floats_stored,
                  run.global_floats_stored / ((double)COUNTED_N * COUNTED_N), COUNTED_N * COUNTED_N);
    }
}

Test(tiled, tile_loads_coalesced, .timeout = 60,
     .description = "Counted: threadIdx.x runs along a row, so the lanes of a warp should load neighbouring floats "
                    "of a row of A and of B (day 09): 4 sectors per request. Let x pick the column inside the "
                    "tile and y the row, for the loads as for C.")
{
    for (int t = 0; t < 3; t++) {
        matmul_run run = counted(tile_sizes[t]);
        double sectors = run.global_load_sectors / run.global_load_requests;
        cr_assert(sectors <= 4.0, "tile %d, N = %d: %.2f sectors per global load request; want at most 4 (32 "
                  "neighbouring floats): do the lanes of a warp load down a column?", tile_sizes[t], COUNTED_N,
                  sectors);
    }
}

Test(tiled, no_bank_conflicts, .timeout = 60,
     .description = "Counted: in the inner loop a warp reads one word of A's tile (a broadcast) and a row of B's "
                    "tile (32 banks), and stores a row of each tile: 1 wavefront per shared request, no padding "
                    "needed. Index the tiles [row][column], as the threads are laid out.")
{
    for (int t = 0; t < 3; t++) {
        matmul_run run = counted(tile_sizes[t]);
        cr_assert(run.shared_wavefronts_per_request <= 1.0, "tile %d, N = %d: %.2f wavefronts per shared request; "
                  "want at most 1 (day 11): are the tiles indexed [column][row], a warp's words a tile row apart?",
                  tile_sizes[t], COUNTED_N, run.shared_wavefronts_per_request);
    }
}

/* ---------------------------------------------------------------------------------
 * The prediction: global floats loaded, before the simulator counts them. */

Test(prediction, global_floats_match_the_count, .timeout = 60,
     .description = "Counted: your predicted_global_floats(tile, m, n, k) must say, before the simulator counts "
                    "it, how many floats the naive kernel (tile 1) and your tiled kernels load from global memory, "
                    "on shapes that are multiples of no tile. Count, for one element of A, how many blocks load "
                    "it; then for one of B.")
{
    static const shape shapes[] = {{64, 64, 64}, {33, 47, 70}, {70, 19, 129}, {5, 3, 2}};
    static const int kernels[] = {NAIVE_KERNEL, 8, 16, 32};
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++) {
            int tile = kernels[t], reuse = tile == NAIVE_KERNEL ? 1 : tile;
            /* predicted first: the simulator's count is not yet in memory while your code runs */
            long long predicted = predicted_global_floats(reuse, shapes[s].m, shapes[s].n, shapes[s].k);
            matmul_run run = counted_on(tile, shapes[s]);
            if ((double)predicted == run.global_floats_loaded) continue;
            double lazy = 2.0 * shapes[s].m * shapes[s].n * shapes[s].k / reuse;
            cr_assert_fail("tile %d, m = %d, n = %d, k = %d: you predict %lld floats loaded from global memory; the "
                           "simulator counts %.0f for %s.%s", reuse, shapes[s].m, shapes[s].n, shapes[s].k, predicted,
                           run.global_floats_loaded, tile == NAIVE_KERNEL ? "the naive kernel" : "your kernel",
                           (double)predicted == floor(lazy) || (double)predicted == ceil(lazy)
                               ? " That is 2 m n k / T, exact only when m and n are multiples of T: a tile that "
                                 "hangs over an edge makes a block that loads all of the band it does hold."
                               : "");
        }
}

Test(prediction, counts_past_2_31, .timeout = 10,
     .description = "predicted_global_floats counts in 64 bits (2 N^3 passes 2^31 at N = 1024) and refuses a tile "
                    "or a size below 1 with -1.")
{
    static const struct { int tile, m, n, k; long long want; } cases[] = {
        {1, 4096, 4096, 4096, 137438953472LL}, {32, 4096, 4096, 4096, 4294967296LL}, {8, 100, 100, 100, 260000},
        {16, 1, 1, 1, 2},   {32, 1, 100000, 100000, 10312500000LL},
        {0, 8, 8, 8, -1},   {-8, 8, 8, 8, -1}, {8, 0, 8, 8, -1}, {8, 8, -1, 8, -1}, {8, 8, 8, 0, -1}};
    for (int c = 0; c < 10; c++) {
        long long got = predicted_global_floats(cases[c].tile, cases[c].m, cases[c].n, cases[c].k);
        int wrapped = cases[c].want > INT_MAX && got <= INT_MAX;
        cr_assert(got == cases[c].want, "predicted_global_floats(%d, %d, %d, %d) = %lld; want %lld%s", cases[c].tile,
                  cases[c].m, cases[c].n, cases[c].k, got, cases[c].want,
                  cases[c].want < 0 ? " (refused)"
                  : wrapped ? " (the count fits no int: computed in int, a product wraps around before it is widened)"
                            : "");
    }
}

/* ---------------------------------------------------------------------------------
 * The CPU matmuls: right, then timed. */

/* C came out with NaNs where A and B are finite. Runs the function again on a C filled with a
 * finite value instead of the poison, and fails saying what that shows: C added to without being
 * zeroed, elements never written, or NaN made by the arithmetic. */
static void explain_cpu_nan(const char *name, cpu_matmul function, problem *p, size_t nans, size_t first_nan,
                            const char *compared)
{
    enum { LEFT_OVER = 3 };   // what C holds before the second run
    size_t elements = (size_t)p->s.m * p->s.n, left_alone = 0, added_to = 0;
    for (size_t i = 0; i < elements; i++) p->c[i] = LEFT_OVER;
    function(p->a, p->b, p->c, p->s.m, p->s.n, p->s.k);
    for (size_t i = 0; i < elements; i++) {
        left_alone += p->c[i] == LEFT_OVER;
        added_to += fabs(p->c[i] - (p->want[i] + LEFT_OVER)) <= p->tolerance + 1e-6;
    }
    char shape[160];
    snprintf(shape, sizeof shape, "%s, C (%d x %d) = A (%d x %d) B (%d x %d)", name, p->s.m, p->s.n, p->s.m, p->s.k,
             p->s.k, p->s.n);
    if (added_to == elements)
        cr_assert_fail("%s: %zu of %zu elements of C are NaN, c[%zu] the first. Run again on a C that held %d "
                       "everywhere, every element came out as the product plus %d: C is added to without being set to "
                       "zero first, and the driver's C holds NaN", shape, nans, elements, first_nan, LEFT_OVER,
                       LEFT_OVER);
    if (left_alone)
        cr_assert_fail("%s: %s (run again on a C that held %d everywhere, %zu elements still held it: never "
                       "written)", shape, compared, LEFT_OVER, left_alone);
    cr_assert_fail("%s: %zu of %zu elements of C are NaN, c[%zu] the first (want %.9g), and stay NaN when C starts "
                   "finite, while A and B are finite: the NaN comes out of the arithmetic, from a value read before "
                   "it was written. A packed panel's padding past an edge left unset (malloc'd memory is garbage), "
                   "or an accumulator not started at zero?", shape, nans, elements, first_nan,
                   (double)p->want[first_nan]);
}

static void check_cpu(const char *name, cpu_matmul function)
{
    for (int s = 0; s < CPU_SHAPES; s++) {
        problem p = make_problem(cpu_shapes[s]);
        function(p.a, p.b, p.c, p.s.m, p.s.n, p.s.k);
        size_t elements = (size_t)p.s.m * p.s.n, first_nan = 0;
        expect_product(&p);
        lab_comparison result = lab_compare_floats("c", p.c, p.want, elements, 0, p.tolerance);
        if (result.mismatches) {
            char compared[700];
            snprintf(compared, sizeof compared, "%s; allowed error %.2g (the rounding bound of a %d-long dot product)",
                     result.message, p.tolerance, p.s.k);
            size_t nans = nan_elements(p.c, elements, &first_nan);
            if (nans) explain_cpu_nan(name, function, &p, nans, first_nan, compared);
            cr_assert_fail("%s, C (%d x %d) = A (%d x %d) B (%d x %d): %s", name, p.s.m, p.s.n, p.s.m, p.s.k, p.s.k,
                           p.s.n, compared);
        }
        free_problem(&p);
    }
}

#define HINT_LOOP_ORDER "Same sums, another order: put the loop over j innermost, so that it walks a row of B and a " \
                        "row of C. C is then built up a little at a time, so it must start at zero."
Test(cpu, loop_order_right, .timeout = 30, .description = HINT_LOOP_ORDER)
{
    check_cpu("matmul_loop_order", matmul_loop_order);
}

#define HINT_BLOCKED "Each level of blocking has a last, partial block: a slice of k shorter than KC, fewer than MC " \
                     "rows, fewer than NC columns, a panel with fewer than MR rows or NR columns. Slices of k add " \
                     "into C (which starts at zero); only the valid rows and columns of a micro-kernel's result " \
                     "are added to C. A crash here is a read or write past the end of A, B or C."
Test(cpu, blocked_right, .timeout = 30, .description = HINT_BLOCKED) { check_cpu("matmul_blocked", matmul_blocked); }

/* The two functions' best times at TIMED_N, side by side; a wrong candidate fails first. */
static void time_against(const char *name, cpu_matmul candidate, cpu_matmul baseline, double *candidate_seconds,
                         double *baseline_seconds)
{
    check_cpu(name, candidate);
    /* The answer is checked above; the caches and vector units these ratios measure only on a real machine. */
    char what[160];
    snprintf(what, sizeof what, "%s's speed", name);
    lab_skip_timing_under_emulator(what);
    cpu_matmul functions[2] = {candidate, baseline};
    double seconds[2];
    cpu_time_side_by_side(functions, 2, TIMED_N, TIMING_REPEATS, seconds);
    *candidate_seconds = seconds[0], *baseline_seconds = seconds[1];
}

Test(cpu, loop_order_twice_naive, .timeout = 60,
     .description = "Measured at N = 512: the naive order walks a column of B, one cache line per multiply-add; "
                    "with j innermost the loop streams rows, which the compiler vectorises.")
{
    double mine, naive;
    time_against("matmul_loop_order", matmul_loop_order, cpu_matmul_naive, &mine, &naive);
    cr_assert(naive >= 2 * mine, "N = %d: matmul_loop_order took %.4f s, the naive loop %.4f s (%.1f times as long); "
              "want the naive loop at least twice as long", TIMED_N, mine, naive, naive / mine);
}

Test(cpu, blocked_twice_naive, .timeout = 60,
     .description = "Measured at N = 512: blocked for the caches, with a register-blocked micro-kernel, the "
                    "multiply beats the naive loop many times over.")
{
    double mine, naive;
    time_against("matmul_blocked", matmul_blocked, cpu_matmul_naive, &mine, &naive);
    cr_assert(naive >= 2 * mine, "N = %d: matmul_blocked took %.4f s, the naive loop %.4f s (%.1f times as long); "
              "want the naive loop at least twice as long", TIMED_N, mine, naive, naive / mine);
}

Test(cpu, blocked_beats_loop_order, .timeout = 60,
     .description = "Measured at N = 512, on CPUs with AVX2: the micro-kernel's MR x NR accumulator must stay in "
                    "registers (fixed sizes, fully known to the compiler) and be vectorised, so that each float "
                    "loaded is used several times; then the blocked multiply is several times the loop order.")
{
#if defined(__x86_64__)
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        cr_skip("this CPU has no AVX2: the given wrapper falls back to 4-wide SSE, where blocking gains little");
#endif
    check_cpu("matmul_loop_order", matmul_loop_order);
    double mine, loop_order;
    time_against("matmul_blocked", matmul_blocked, matmul_loop_order, &mine, &loop_order);
    cr_assert(loop_order >= 1.5 * mine, "N = %d: matmul_blocked took %.4f s, matmul_loop_order %.4f s (%.2f times as "
              "long); want matmul_loop_order at least 1.5 times as long", TIMED_N, mine, loop_order,
              loop_order / mine);
}
