/* 11-shared-memory.c — the checks for day 11: the bank model agrees with what the simulator
 * counts (broadcasts, strides, partial warps, random patterns); every transpose is exact for
 * square, non-square and non-multiple-of-32 shapes, writes nothing past its output, and runs
 * clean on the simulator (a tile read before its __syncthreads() is a race the simulator stops);
 * and, counted on the simulator, each version changes what the chapter says it changes: the
 * naive version's stores take 32 sectors per request, the tiles' take 4; the unpadded tile's
 * column reads are 32-way bank conflicts; the padded and swizzled tiles need one wavefront per
 * request. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

/* ---------------------------------------------------------------------------------
 * The bank model */

static int ways_of_stride(int stride, int lanes)
{
    int words[32];
    for (int lane = 0; lane < 32; lane++) words[lane] = lane * stride;
    return bank_conflict_ways(words, lanes);
}

#define HINT_MODEL "The bank model: a word's bank is its word index modulo 32; a request needs as many passes " \
                   "as its busiest bank has different words. Work the failing pattern out on paper."

Test(bank_model, one_word_for_every_lane_is_a_broadcast, .timeout = 10,
     .description = "Every lane reading one and the same word is a broadcast: the bank delivers that word once, "
                    "to all of them. Count words, not lanes.")
{
    int words[32];
    for (int word = 0; word < 70; word += 23) {
        for (int lane = 0; lane < 32; lane++) words[lane] = word;
        int got = bank_conflict_ways(words, 32);
        cr_assert(got == 1, "32 lanes all reading word %d: your model says %d wavefronts; want 1 (a broadcast)", word,
                  got);
    }
}

Test(bank_model, strided_words, .timeout = 10, .description = HINT_MODEL)
{
    static const int strides[] = {1, 2, 3, 4, 8, 16, 31, 32, 33, 48, 64, 96};
    static const int want[] = {1, 2, 1, 4, 8, 16, 1, 32, 1, 16, 32, 32};
    for (int k = 0; k < 12; k++) {
        int got = ways_of_stride(strides[k], 32);
        cr_assert(got == want[k], "lane k reads word k x %d: your model says %d wavefronts; want %d (lanes 0 and 1 "
                  "read words 0 and %d, in banks 0 and %d)", strides[k], got, want[k], strides[k], strides[k] % 32);
    }
}

Test(bank_model, a_shared_word_is_delivered_once, .timeout = 10,
     .description = "Lanes that read the same word share one delivery, even when other words of that bank are "
                    "read too: a bank's passes are its distinct words.")
{
    int words[32];
    for (int lane = 0; lane < 32; lane++) words[lane] = (lane / 2) * 32;   /* pairs of lanes on one word */
    int got = bank_conflict_ways(words, 32);
    cr_assert(got == 16, "lanes 2i and 2i+1 both read word 32 x i (16 words, all in bank 0): your model says %d; "
              "want 16", got);
    for (int lane = 0; lane < 32; lane++) words[lane] = lane % 2 ? lane * 32 : 0;   /* half broadcast */
    got = bank_conflict_ways(words, 32);
    cr_assert(got == 17, "the even lanes read word 0, each odd lane k reads word 32 x k (all in bank 0): your "
              "model says %d; want 17 (16 words of the odd lanes and word 0)", got);
}

Test(bank_model, only_the_lanes_given, .timeout = 10,
     .description = "bank_conflict_ways(words, lanes) looks at word_of_lane[0 .. lanes-1] only: a partial warp "
                    "(the edge of a matrix) has fewer lanes, and fewer words can collide.")
{
    static const int lanes[] = {0, 1, 5, 8, 31};
    for (int k = 0; k < 5; k++) {
        int got = ways_of_stride(32, lanes[k]), want = lanes[k];
        cr_assert(got == want, "lanes = %d, lane k reading word 32 x k: your model says %d; want %d", lanes[k], got,
                  want);
    }
}

Test(bank_model, agrees_with_the_simulator, .timeout = 30,
     .description = "Counted: 300 random requests (1 to 32 lanes, words spread wide or crowded into a few, "
                    "repeats allowed), each run on the simulator, whose count your model must match. " HINT_MODEL)
{
    unsigned seed = 11;
    for (int pattern = 0; pattern < 300; pattern++) {
        int words[32];
        seed = seed * 1664525u + 1013904223u;
        int lanes = 1 + (int)(seed >> 8) % 32;
        int step = pattern % 2 ? 1 : 32 / (1 + pattern % 5);   /* words 1, 32, 16, 10, 8 or 6 apart */
        int spread = pattern % 3 == 0 ? PROBE_WORDS / step : pattern % 3 == 1 ? 4 * 32 / step : 8;   /* 8: repeats */
        for (int lane = 0; lane < lanes; lane++) {
            seed = seed * 1664525u + 1013904223u;
            words[lane] = (int)((seed >> 8) % (unsigned)spread) * step;
        }
        int counted = counted_bank_conflict_ways(words, lanes);
        if (counted < 0) cr_skip("counted only on the simulator");
        int got = bank_conflict_ways(words, lanes);
        if (got != counted) {
            char listing[400] = "";
            for (int lane = 0; lane < lanes && strlen(listing) < sizeof listing - 12; lane++)
                snprintf(listing + strlen(listing), sizeof listing - strlen(listing), "%d ", words[lane]);
            cr_assert_fail("pattern %d, %d lanes reading words %s: the simulator counts %d wavefronts, your model "
                           "says %d", pattern, lanes, listing, counted, got);
        }
    }
}

/* ---------------------------------------------------------------------------------
 * The transposes: exact for every shape */

static const int shapes[][2] = {{1, 1}, {1, 45}, {45, 1}, {32, 32}, {31, 33}, {33, 31},
                                {64, 96}, {100, 257}, {257, 100}, {3, 1000}};
enum { SHAPES = 10 };

/* Every element distinct, none a small integer: a misplaced element names where it came from. */
static float element(int row, int cols, int col) { return (float)((size_t)row * cols + col) + 0.5f; }

/* Runs version on a rows x cols matrix and asserts the result is the exact transpose. */
static transpose_run run_checked(int version, int rows, int cols, int count_metrics)
{
    size_t n = (size_t)rows * cols;
    float *in = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) in[(size_t)r * cols + c] = want[(size_t)c * rows + r] = element(r, cols, c);
    lab_poison(got, n * sizeof(float));
    char said[1500];
    lab_capture_stderr();
    transpose_run run = gpu_transpose(version, in, got, rows, cols, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "version %d, %d x %d: the run ended with the CUDA error \"%s\".%s%s", version, rows,
              cols, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "version %d, %d x %d: %lld words written after the end of the %d x %d "
              "output: a bound is checked against the wrong dimension", version, rows, cols, run.written_past_end,
              cols, rows);
    lab_comparison result = lab_compare_floats("out", got, want, n, 0, 0);
    if (result.mismatches) {
        size_t i = result.first_mismatch;
        cr_assert_fail("version %d, %d x %d (out is %d x %d): %zu of %zu elements wrong; out[%zu][%zu] should be "
                       "in[%zu][%zu] = %.1f. %s", version, rows, cols, cols, rows, result.mismatches, n, i / rows,
                       i % rows, i % rows, i / rows, (double)want[i], result.message);
    }
    free(in), free(want), free(got);
    return run;
}

static void check_shapes(int version)
{
    for (int s = 0; s < SHAPES; s++) run_checked(version, shapes[s][0], shapes[s][1], 0);
}

/* What the simulator counted, for a version that is already exact on that shape. */
static transpose_run counted(int version, int rows, int cols)
{
    transpose_run run = run_checked(version, rows, cols, 1);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

/* 96 x 64: whole tiles, so every request is a full warp and the efficiencies are exact. */
enum { COUNTED_ROWS = 96, COUNTED_COLS = 64, EDGE_ROWS = 100, EDGE_COLS = 70 };

/* Whole tiles: one block per tile, and each element read once and written once, 32 to a request. */
static void check_each_element_moved_once(int version, const transpose_run *run)
{
    int tiles = (COUNTED_ROWS / TILE) * (COUNTED_COLS / TILE);
    unsigned long long warp_rows = (unsigned long long)COUNTED_ROWS * COUNTED_COLS / 32;
    cr_assert(run->blocks == tiles, "version %d, %d x %d: %d blocks; want %d, one per %d x %d tile", version,
              COUNTED_ROWS, COUNTED_COLS, run->blocks, tiles, TILE, TILE);
    cr_assert(run->global_load_requests == warp_rows && run->global_store_requests == warp_rows,
              "version %d, %d x %d: %llu global load requests and %llu store requests; want %llu and %llu: each "
              "element read once and written once, by warps of 32 lanes (a loop that runs past the tile writes "
              "elements another block owns)", version, COUNTED_ROWS, COUNTED_COLS, run->global_load_requests,
              run->global_store_requests, warp_rows, warp_rows);
    if (version == 1) return;
    cr_assert(run->shared_load_requests == warp_rows && run->shared_store_requests == warp_rows,
              "version %d, %d x %d: %llu shared load requests and %llu store requests; want %llu each: every element "
              "goes through the tile once", version, COUNTED_ROWS, COUNTED_COLS, run->shared_load_requests,
              run->shared_store_requests, warp_rows);
}

static void check_coalesced(int version)
{
    transpose_run run = counted(version, COUNTED_ROWS, COUNTED_COLS);
    check_each_element_moved_once(version, &run);
    cr_assert(run.global_load_sectors_per_request == 4 && run.global_store_sectors_per_request == 4,
              "version %d, %d x %d: %.2f sectors per global load request and %.2f per store; want 4 and 4 (a warp "
              "moving 32 consecutive floats, 128 bytes). Read in and write out along rows, threadIdx.x along the "
              "fastest index of each", version, COUNTED_ROWS, COUNTED_COLS, run.global_load_sectors_per_request,
              run.global_store_sectors_per_request);
}

static void check_conflict_free(int version)
{
    int shapes_counted[2][2] = {{COUNTED_ROWS, COUNTED_COLS}, {EDGE_ROWS, EDGE_COLS}};
    for (int s = 0; s < 2; s++) {
        int rows = shapes_counted[s][0], cols = shapes_counted[s][1];
        transpose_run run = counted(version, rows, cols);
        cr_assert(run.shared_load_requests > 0 && run.shared_store_requests > 0, "version %d, %d x %d: %llu shared "
                  "loads and %llu shared stores; the tile should be written and read in shared memory", version,
                  rows, cols, run.shared_load_requests, run.shared_store_requests);
        cr_assert(run.shared_load_wavefronts_per_request == 1 && run.shared_store_wavefronts_per_request == 1 &&
                  run.max_bank_conflict_ways == 1, "version %d, %d x %d: %.2f wavefronts per shared load (the tile's "
                  "columns), %.2f per store (its rows), worst request %u-way; want 1, 1 and 1-way", version, rows,
                  cols, run.shared_load_wavefronts_per_request, run.shared_store_wavefronts_per_request,
                  run.max_bank_conflict_ways);
    }
}

#define HINT_GIVEN "Version 1 is given: if it fails, the driver or the simulator is broken, or the file was edited " \
                   "outside its TODOs (make reset DAY=11 restores it; your file is backed up)."
#define HINT_SHAPES "Edge tiles hang over the matrix: check each global access against the matrix it touches " \
                    "(in is rows x cols, out is cols x rows), and let every thread reach the barrier."

Test(version1, exact_for_every_shape, .timeout = 10, .description = HINT_GIVEN) { check_shapes(1); }

Test(version1, stores_are_strided, .timeout = 10,
     .description = "Counted: the naive transpose reads rows (4 sectors per request) and writes columns: 32 lanes "
                    "rows x 4 bytes apart, 32 sectors per request, 12.5 % of each sector used. " HINT_GIVEN)
{
    transpose_run run = counted(1, COUNTED_ROWS, COUNTED_COLS);
    check_each_element_moved_once(1, &run);
    cr_assert(run.global_load_sectors_per_request == 4 && run.global_store_sectors_per_request == 32,
              "%.2f sectors per load request, %.2f per store; want 4 and 32", run.global_load_sectors_per_request,
              run.global_store_sectors_per_request);
    cr_assert(run.global_load_efficiency == 1 && run.global_store_efficiency == 0.125,
              "global efficiency %.3f for loads, %.3f for stores; want 1 and 0.125", run.global_load_efficiency,
              run.global_store_efficiency);
}

Test(version2, exact_for_every_shape, .timeout = 10,
     .description = "The shared tile: read a tile of in by rows, wait for the whole block, write the tile's columns "
                    "as rows of out at the mirrored block. " HINT_SHAPES) { check_shapes(2); }

Test(version2, loads_and_stores_coalesced, .timeout = 10,
     .description = "Counted: through the tile, both sides of global memory move rows of 32 floats.")
{
    check_coalesced(2);
}

Test(version2, column_reads_are_32_way_conflicts, .timeout = 10,
     .description = "Counted: version 2 is the plain 32 x 32 tile, kept to show the cost: a row of 32 floats is "
                    "exactly 32 banks, so a column sits in one bank, and reading it takes 32 passes. Padding and "
                    "swizzling are versions 3 and 4.")
{
    transpose_run run = counted(2, COUNTED_ROWS, COUNTED_COLS);
    cr_assert(run.shared_load_wavefronts_per_request == 32 && run.max_bank_conflict_ways == 32,
              "%d x %d: %.2f wavefronts per shared load, worst request %u-way; want 32 and 32 (lane k reads "
              "element k of a column of an unpadded 32 x 32 tile)", COUNTED_ROWS, COUNTED_COLS,
              run.shared_load_wavefronts_per_request, run.max_bank_conflict_ways);
    cr_assert(run.shared_store_wavefronts_per_request == 1, "%.2f wavefronts per shared store; want 1 (writing rows "
              "of the tile is conflict-free)", run.shared_store_wavefronts_per_request);
}

Test(version3, exact_for_every_shape, .timeout = 10,
     .description = "The padded tile is version 2 with one spare word per row; the indexing does not change. "
                    HINT_SHAPES) { check_shapes(3); }

Test(version3, loads_and_stores_coalesced, .timeout = 10,
     .description = "Counted: the padding changes shared memory only; global memory still moves rows.")
{
    check_coalesced(3);
}

Test(version3, no_bank_conflicts, .timeout = 10,
     .description = "Counted: with rows of 33 words, element k of a column is 33 x k words in, so the 32 lanes land "
                    "in 32 different banks. One extra word a row, not more: work out where 34 puts them.")
{
    check_conflict_free(3);
}

Test(version4, exact_for_every_shape, .timeout = 10,
     .description = "The swizzled tile stores element (r, c) at column c XOR r of row r: the write and the read "
                    "must both go through the same mapping, or elements land in each other's places. " HINT_SHAPES)
{
    check_shapes(4);
}

Test(version4, loads_and_stores_coalesced, .timeout = 10,
     .description = "Counted: the swizzle changes where a word sits in the tile, not which global element a thread "
                    "moves.")
{
    check_coalesced(4);
}

Test(version4, no_bank_conflicts, .timeout = 10,
     .description = "Counted: XOR with the row number is a permutation of the 32 columns, different for each row, "
                    "so a row and a column each cover all 32 banks once. Both the write and the read must be "
                    "swizzled by the row index of the element in the tile.")
{
    check_conflict_free(4);
}
