/* 11-shared-memory.c — the checks for day 11: the bank model agrees with what the simulator
 * counts (broadcasts, strides, partial warps, random patterns); the learner's prediction of a
 * tile's wavefronts agrees with the count for every row length from 32 to 64 words; every
 * transpose is exact for square, non-square and non-multiple-of-32 shapes, writes nothing past
 * its output, and runs clean on the simulator (a tile read before its __syncthreads() is a race
 * the simulator stops); and, counted on the simulator, each version changes what the chapter
 * says it changes: the naive version's stores take 32 sectors per request; the tiles move no
 * more sectors than the matrix has; the unpadded tile's column reads are 32-way bank conflicts;
 * the padded and swizzled tiles need one wavefront per request, whatever conflict-free padding
 * or swizzle they use. */
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

/* The requests of agrees_with_the_simulator, drawn from `seed`: 1 to 32 lanes, words spread wide or crowded
 * into a few. Returns the seed after the draw, so a pattern can be made again from the seed it started at. */
static unsigned random_pattern(int pattern, unsigned seed, int *words, int *lanes)
{
    seed = seed * 1664525u + 1013904223u;
    *lanes = 1 + (int)(seed >> 8) % 32;
    int step = pattern % 2 ? 1 : 32 / (1 + pattern % 5);   /* words 1, 32, 16, 10, 8 or 6 apart */
    int spread = pattern % 3 == 0 ? PROBE_WORDS / step : pattern % 3 == 1 ? 4 * 32 / step : 8;   /* 8: repeats */
    for (int lane = 0; lane < *lanes; lane++) {
        seed = seed * 1664525u + 1013904223u;
        words[lane] = (int)((seed >> 8) % (unsigned)spread) * step;
    }
    return seed;
}

Test(bank_model, agrees_with_the_simulator, .timeout = 30,
     .description = "Counted: 300 random requests (1 to 32 lanes, words spread wide or crowded into a few, "
                    "repeats allowed), each run on the simulator, whose count your model must match. " HINT_MODEL)
{
    unsigned seed = 11;
    for (int pattern = 0; pattern < 300; pattern++) {
        int words[32], lanes;
        unsigned start = seed;
        seed = random_pattern(pattern, seed, words, &lanes);
        int got = bank_conflict_ways(words, lanes);
        /* counted after your model has returned, on the pattern made afresh: it must have left words[] as it was */
        int pattern_words[32];
        random_pattern(pattern, start, pattern_words, &lanes);
        cr_assert(memcmp(words, pattern_words, sizeof(int) * (size_t)lanes) == 0, "pattern %d: bank_conflict_ways "
                  "changed word_of_lane[]: it only reads it", pattern);
        int counted = counted_bank_conflict_ways(words, lanes);
        if (counted < 0) cr_skip("counted only on the simulator");
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
 * The prediction: a tile's wavefronts, before the simulator counts them */

Test(prediction, tile_wavefronts_match_the_count, .timeout = 30,
     .description = "Counted: for rows of 32 to 64 words, one block writes a 32 x 32 tile by rows and reads it by "
                    "columns on the simulator; your predicted_tile_wavefronts must say the count first. A tile is "
                    "32 row writes and 32 column reads, a warp-wide request each; a column's words are a row "
                    "apart.")
{
    for (int row_words = TILE; row_words <= PROBE_MAX_ROW_WORDS; row_words++) {
        int predicted = predicted_tile_wavefronts(row_words);   /* first: the count is not yet made */
        int counted = counted_tile_wavefronts(row_words);
        if (counted < 0) cr_skip("counted only on the simulator");
        if (predicted == counted) continue;
        const char *why = predicted == counted - TILE ? " You left out the 32 row writes (one wavefront each)."
                          : predicted * TILE == counted - TILE ? " That is one column read: a tile has 32 of them, "
                                                                 "and 32 row writes."
                          : predicted == TILE + TILE * (row_words % 2 ? 1 : 32) ? " Right for odd rows and for 32, "
                            "not for this one: how many of a column's words share a bank when rows are this long?"
                          : "";
        cr_assert_fail("rows %d words long (a tile[32][%d]): you predict %d wavefronts per tile, the simulator counts "
                       "%d.%s", row_words, row_words, predicted, counted, why);
    }
}

Test(prediction, refuses_rows_shorter_than_the_tile, .timeout = 10,
     .description = "predicted_tile_wavefronts refuses a row shorter than the tile (it cannot hold one of its rows) "
                    "with -1, and answers for rows longer than the simulator's probe by the same rule.")
{
    static const int too_short[] = {31, 16, 1, 0, -33};
    for (int k = 0; k < 5; k++) {
        int got = predicted_tile_wavefronts(too_short[k]);
        cr_assert(got == -1, "rows of %d words cannot hold a row of a 32-wide tile: you predict %d; want -1",
                  too_short[k], got);
    }
    static const int long_rows[] = {1024, 1025, 1040};
    static const int want[] = {1056, 64, 544};
    for (int k = 0; k < 3; k++) {
        int got = predicted_tile_wavefronts(long_rows[k]);
        cr_assert(got == want[k], "rows of %d words: you predict %d wavefronts per tile; want %d (only the row "
                  "length modulo 32 decides the banks)", long_rows[k], got, want[k]);
    }
}

/* ---------------------------------------------------------------------------------
 * The transposes: exact for every shape */

static const int shapes[][2] = {{1, 1}, {1, 45}, {45, 1}, {32, 32}, {31, 33}, {33, 31},
                                {64, 96}, {100, 257}, {257, 100}, {3, 1000}};
enum { SHAPES = 10 };

/* Every element distinct, none a small integer: a misplaced element names where it came from. The expected
 * transpose is made from this after the kernel has returned, not from the input it was given: while it runs
 * there is no answer in memory to copy. */
static float element(int row, int cols, int col) { return (float)((size_t)row * cols + col) + 0.5f; }

/* Runs version on a rows x cols matrix and asserts the result is the exact transpose. */
static transpose_run run_checked(int version, int rows, int cols, int count_metrics)
{
    size_t n = (size_t)rows * cols;
    float *in = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) in[(size_t)r * cols + c] = element(r, cols, c);
    lab_poison(got, n * sizeof(float));
    char said[1500];
    lab_capture_stderr();
    transpose_run run = gpu_transpose(version, in, got, rows, cols, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "version %d, %d x %d: the run ended with the CUDA error \"%s\".%s%s", version, rows,
              cols, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "version %d, %d x %d: %lld words written after the end of the %d x %d "
              "output: a bound is checked against the wrong dimension, or out is indexed with the wrong row length "
              "(its rows hold `rows` elements)", version, rows, cols, run.written_past_end, cols, rows);
    size_t written = 0;
    for (size_t i = 0; i < n; i++) written += !lab_float_is_poison(got[i]);
    cr_assert(written > 0, "version %d, %d x %d: out is untouched, not one of its %zu elements written: is the "
              "kernel's body still empty, or does every thread fail its bounds check?", version, rows, cols, n);
    float *want = malloc(n * sizeof(float));   /* made after the run, from element(): see element */
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) want[(size_t)c * rows + r] = element(r, cols, c);
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

/* Whole tiles: one block per tile, each element read once and written once, at most one
 * warp-wide request per 32 of them (on the global side, and on the tile's for versions 2-4). */
static void check_each_element_moved_once(int version, const transpose_run *run)
{
    int tiles = (COUNTED_ROWS / TILE) * (COUNTED_COLS / TILE);
    unsigned long long warp_rows = (unsigned long long)COUNTED_ROWS * COUNTED_COLS / 32;
    cr_assert(run->blocks == tiles, "version %d, %d x %d: %d blocks; want %d, one per %d x %d tile", version,
              COUNTED_ROWS, COUNTED_COLS, run->blocks, tiles, TILE, TILE);
    cr_assert(run->global_load_requests <= warp_rows && run->global_store_requests <= warp_rows,
              "version %d, %d x %d: %llu global load requests and %llu store requests; want at most %llu each: each "
              "element read once and written once, 32 to a request (a loop that runs past the tile moves elements "
              "another block owns)", version, COUNTED_ROWS, COUNTED_COLS, run->global_load_requests,
              run->global_store_requests, warp_rows);
    if (version == 1) return;
    cr_assert(run->shared_load_requests <= warp_rows && run->shared_store_requests <= warp_rows,
              "version %d, %d x %d: %llu shared load requests and %llu store requests; want at most %llu each: every "
              "element goes through the tile once", version, COUNTED_ROWS, COUNTED_COLS, run->shared_load_requests,
              run->shared_store_requests, warp_rows);
}

/* The tiles move the matrix in whole sectors: no more sectors each way than its bytes / 32. */
static void check_coalesced(int version)
{
    transpose_run run = counted(version, COUNTED_ROWS, COUNTED_COLS);
    check_each_element_moved_once(version, &run);
    double fewest = (double)COUNTED_ROWS * COUNTED_COLS * sizeof(float) / 32;
    double loaded = run.global_load_sectors_per_request * (double)run.global_load_requests;
    double stored = run.global_store_sectors_per_request * (double)run.global_store_requests;
    cr_assert(loaded <= fewest && stored <= fewest,
              "version %d, %d x %d: %.0f sectors loaded and %.0f stored (%.2f and %.2f per request); want at most "
              "%.0f each way, the matrix's bytes / 32: %.1fx the fewest. A side that moves more sectors walks down "
              "columns: read in and write out along rows, threadIdx.x along the fastest index of each", version,
              COUNTED_ROWS, COUNTED_COLS, loaded, stored, run.global_load_sectors_per_request,
              run.global_store_sectors_per_request, fewest, (loaded > stored ? loaded : stored) / fewest);
}

/* What a column read's n-way conflict usually means, for the message. */
static const char *conflict_cause(int version, unsigned ways)
{
    if (ways <= 1) return "";
    if (ways == 32) return version == 3 ? " A column still sits in one bank: are the tile's rows longer than 32 "
                                          "words? (The padding goes on the last dimension, not on the rows.)"
                                        : " A column still sits in one bank: is every access to the tile swizzled?";
    return version == 3 ? " A column covers only some of the banks: the rows are an even number of words long."
                        : " A column covers only some of the banks: is the swizzle keyed by the element's whole row "
                          "in the tile (0 to 31), not part of it or threadIdx.y?";
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
        cr_assert(run.shared_load_wavefronts_per_request <= 1 && run.shared_store_wavefronts_per_request <= 1 &&
                  run.max_bank_conflict_ways <= 1, "version %d, %d x %d: %.2f wavefronts per shared load (the tile's "
                  "columns), %.2f per store (its rows), worst request %u-way; want at most 1, 1 and 1-way.%s",
                  version, rows, cols, run.shared_load_wavefronts_per_request,
                  run.shared_store_wavefronts_per_request, run.max_bank_conflict_ways,
                  conflict_cause(version, run.max_bank_conflict_ways));
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
     .description = "The padded tile is version 2 with longer rows; the indexing does not change. "
                    HINT_SHAPES) { check_shapes(3); }

Test(version3, loads_and_stores_coalesced, .timeout = 10,
     .description = "Counted: the padding changes shared memory only; global memory still moves rows.")
{
    check_coalesced(3);
}

Test(version3, no_bank_conflicts, .timeout = 10,
     .description = "Counted: rows one word longer than the tile put the 32 elements of a column in 32 different "
                    "banks. Your predicted_tile_wavefronts says which row lengths do, and which do not.")
{
    check_conflict_free(3);
}

Test(version4, exact_for_every_shape, .timeout = 10,
     .description = "The swizzled tile stores element (r, c) at column swizzled_column(r, c) of row r: the write and "
                    "the read must both go through the same mapping, or elements land in each other's places. "
                    HINT_SHAPES)
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
     .description = "Counted: the swizzle keeps each row a permutation of the 32 columns and sends the 32 elements of "
                    "a column to 32 different columns, so a row and a column each cover all 32 banks once (XOR with "
                    "the row does; so does any mapping with both properties). The write and the read must both be "
                    "swizzled, keyed by the element's row in the tile.")
{
    check_conflict_free(4);
}
