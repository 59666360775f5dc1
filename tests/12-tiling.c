/* 12-tiling.c — the checks for day 12. The tiled kernel, for tiles of 8, 16 and 32, and the two
 * CPU matmuls agree with a double-precision reference within the rounding bound of a k-long dot
 * product (it grows with k), on shapes that are not multiples of any tile or block, including
 * 1 x 1 x 1 and shapes thinner than a tile; the kernel writes nothing outside C, and the CPU
 * matmuls touch nothing past the end of A, B or C (a guard page follows each). Counted on the
 * simulator, at N = 64: each tile size cuts the floats loaded from global memory to 2 N^3 / T
 * (within 10 %), C is stored once, the tile loads are coalesced and the tiles have no bank
 * conflicts. Measured on this CPU, side by side, best of 3 at N = 512: the blocked matmul and
 * the loop order are each at least twice as fast as the naive loop, and (where the CPU has AVX2)
 * the blocked one is at least 1.5 times the loop order. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

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
    float *a, *b, *c, *want;
    double tolerance;
} problem;

static problem make_problem(shape s)
{
    problem p = {s, guarded_floats((size_t)s.m * s.k), guarded_floats((size_t)s.k * s.n),
                 guarded_floats((size_t)s.m * s.n), malloc(sizeof(float) * s.m * s.n), 0};
    fill_matrix(p.a, (size_t)s.m * s.k, 11), fill_matrix(p.b, (size_t)s.k * s.n, 12);
    p.tolerance = matmul_reference(p.a, p.b, p.want, s.m, s.n, s.k);
    lab_poison(p.c, sizeof(float) * s.m * s.n);
    return p;
}

static void free_problem(problem *p)
{
    free_guarded(p->a, (size_t)p->s.m * p->s.k), free_guarded(p->b, (size_t)p->s.k * p->s.n);
    free_guarded(p->c, (size_t)p->s.m * p->s.n), free(p->want);
}

/* ---------------------------------------------------------------------------------
 * The tiled kernel: right, then counted. */

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
    lab_comparison result = lab_compare_floats("c", p->c, p->want, (size_t)p->s.m * p->s.n, 0, p->tolerance);
    cr_assert(result.mismatches == 0, "tile %d, C (%d x %d) = A (%d x %d) B (%d x %d)%s: %s; allowed error %.2g (the "
              "rounding bound of a %d-long dot product)", tile, p->s.m, p->s.n, p->s.m, p->s.k, p->s.k, p->s.n, why,
              result.message, p->tolerance, p->s.k);
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

Test(tiled, global_loads_fall_by_the_tile, .timeout = 60,
     .description = "Counted: with TILE x TILE tiles, each float a block loads from global memory is used by TILE "
                    "threads, so the loads fall from 2 N^3 (the naive kernel's) to 2 N^3 / TILE. Global memory is "
                    "read only to fill the tiles: one element of A and one of B per thread per step, and the inner "
                    "loop reads shared memory alone. Launch the kernel whose TILE was asked for.")
{
    double n3 = (double)COUNTED_N * COUNTED_N * COUNTED_N;
    for (int t = 0; t < 3; t++) {
        int tile = tile_sizes[t];
        matmul_run run = counted(tile);
        double predicted = 2 * n3 / tile;
        cr_assert(run.global_floats_loaded >= 0.9 * predicted && run.global_floats_loaded <= 1.1 * predicted,
                  "tile %d, N = %d: %.0f floats loaded from global memory; want 2 N^3 / %d = %.0f within 10 %% "
                  "(%.2f times that now; the naive kernel loads 2 N^3 = %.0f)", tile, COUNTED_N,
                  run.global_floats_loaded, tile, predicted, run.global_floats_loaded / predicted, 2 * n3);
    }
}

Test(tiled, each_output_stored_once, .timeout = 60,
     .description = "Counted: C is written once per element, after the last step along k; the running sum stays "
                    "in a register until then.")
{
    for (int t = 0; t < 3; t++) {
        matmul_run run = counted(tile_sizes[t]);
        cr_assert(run.global_floats_stored == (double)COUNTED_N * COUNTED_N, "tile %d, N = %d: %.0f floats stored "
                  "to global memory; want one per element of C, %d", tile_sizes[t], COUNTED_N,
                  run.global_floats_stored, COUNTED_N * COUNTED_N);
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
                  "neighbouring floats)", tile_sizes[t], COUNTED_N, sectors);
    }
}

Test(tiled, no_bank_conflicts, .timeout = 60,
     .description = "Counted: in the inner loop a warp reads one word of A's tile (a broadcast) and a row of B's "
                    "tile (32 banks), and stores a row of each tile: 1 wavefront per shared request, no padding "
                    "needed. Index the tiles [row][column], as the threads are laid out.")
{
    for (int t = 0; t < 3; t++) {
        matmul_run run = counted(tile_sizes[t]);
        cr_assert(run.shared_wavefronts_per_request == 1.0, "tile %d, N = %d: %.2f wavefronts per shared request; "
                  "want exactly 1", tile_sizes[t], COUNTED_N, run.shared_wavefronts_per_request);
    }
}

/* ---------------------------------------------------------------------------------
 * The CPU matmuls: right, then timed. */

static void check_cpu(const char *name, cpu_matmul function)
{
    for (int s = 0; s < CPU_SHAPES; s++) {
        problem p = make_problem(cpu_shapes[s]);
        function(p.a, p.b, p.c, p.s.m, p.s.n, p.s.k);
        lab_comparison result = lab_compare_floats("c", p.c, p.want, (size_t)p.s.m * p.s.n, 0, p.tolerance);
        cr_assert(result.mismatches == 0, "%s, C (%d x %d) = A (%d x %d) B (%d x %d): %s; allowed error %.2g (the "
                  "rounding bound of a %d-long dot product)", name, p.s.m, p.s.n, p.s.m, p.s.k, p.s.k, p.s.n,
                  result.message, p.tolerance, p.s.k);
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
