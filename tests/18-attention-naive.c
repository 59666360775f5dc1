/* 18-attention-naive.c — the checks for day 18. One head of attention, out = softmax(Q K^T /
 * sqrt(d)) V, agrees with a double-precision reference, with and without the causal mask, for
 * head dimensions 1 to 128 and sequence lengths that are not multiples of the 16 x 16 tile
 * (1, 7, 17, 33, 50, 100): the output (relative 1e-4, absolute 1e-5) and the probabilities the
 * softmax leaves in the score matrix, whose rows must sum to 1 over the keys each query may see
 * (so a mask applied after the softmax is caught), with logits up to about +-300 where an
 * unstable softmax overflows, and the shared large-score rows of tests/support/robust.h (base +
 * j/n past both of expf's cliffs). Nothing is left unwritten or written past the end. Offsets
 * are right past 2^31 (row_major_offset on the host: n x n scores pass 2^31 at n = 46 341, which
 * the simulator cannot hold). Counted on the simulator, as bounds that say which way they were
 * missed (a kernel that moves less and is right passes, with a note that it beat the reference):
 * three launches; each kernel stores its output once; kernel 1 loads no more than its dot
 * products for the keys each query may see; the softmax moves at most 16 n^2 bytes (three reads
 * and a write of the matrix); kernel 3 loads each weight and row of V at most once per output
 * warp; the global bytes grow by 4x (3.5 to 4.5) each time n doubles from 64 to 256. The
 * learner's prediction of each kernel's bytes is held against the count at three shapes.
 * Every check runs in a few seconds with the reference and has a .timeout of 60 s. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"
#include "robust.h"

/* {n, d}: n not a multiple of the tile, d from 1 to 128, and one row longer than a softmax block */
static const int shapes[][2] = {{1, 1}, {7, 3}, {17, 16}, {33, 64}, {50, 80}, {100, 128}, {300, 4}};
enum { SHAPES = 7 };
static const double OUT_RELATIVE = 1e-4, OUT_ABSOLUTE = 1e-5, P_RELATIVE = 1e-4, P_ABSOLUTE = 1e-7;

/* Deterministic inputs in [-1, 1], times `spread` for q and k. Each check computes what it expects after the
 * code under test has returned, from inputs made afresh (written over the arrays handed to the driver,
 * whatever became of them), not before: while that code runs there is no answer in memory to copy, and
 * none to make by changing its inputs. */
static float noise(unsigned i) { return (float)(((i * 2654435761u) >> 8) % 20001) / 10000.0f - 1.0f; }

static void fill(float *q, float *k, float *v, int n, int d, float spread)
{
    for (int i = 0; i < n * d; i++)
        q[i] = spread * noise((unsigned)i + 1u), k[i] = spread * noise((unsigned)i + 77777u), v[i] = noise(i + 999u);
}

#define FAILED_RUN "%s attention, n = %d, d = %d: the run ended with the CUDA error \"%s\".%s%s"

/* Runs one shape and compares out and the probabilities with the reference. */
static void check_shape(int n, int d, int causal, float spread, double p_relative)
{
    const char *kind = causal ? "causal" : "non-causal";
    float *q = malloc(sizeof(float) * n * d), *k = malloc(sizeof(float) * n * d), *v = malloc(sizeof(float) * n * d);
    float *out = malloc(sizeof(float) * n * d), *p = malloc(sizeof(float) * n * n);
    fill(q, k, v, n, d, spread);
    char said[1024];
    lab_capture_stderr();
    attention_run run = gpu_attention(q, k, v, out, p, n, d, causal, 0);
    lab_release_stderr(said, sizeof said);
    float *want = malloc(sizeof(float) * n * d), *want_p = malloc(sizeof(float) * n * n);
    fill(q, k, v, n, d, spread);
    attention_reference(q, k, v, want, want_p, n, d, causal);
    cr_assert(run.error == NULL, FAILED_RUN, kind, n, d, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "%s attention, n = %d, d = %d: %lld floats written past the end of scores or "
              "out (the guard after them changed): does every kernel return when its i, j or c is outside the matrix?",
              kind, n, d, run.written_past_end);
    lab_comparison result = lab_compare_floats("P", p, want_p, (size_t)n * n, p_relative, P_ABSOLUTE);
    cr_assert(result.mismatches == 0, "%s attention, n = %d, d = %d: the score matrix after the softmax (P[i * n + j], "
              "query i's weight on key j, each row summing to 1%s) is wrong: %s", kind, n, d,
              causal ? " over j <= i, 0 for j > i" : "", result.message);
    result = lab_compare_floats("out", out, want, (size_t)n * d, OUT_RELATIVE, OUT_ABSOLUTE);
    cr_assert(result.mismatches == 0, "%s attention, n = %d, d = %d: the probabilities are right but out "
              "(out[i * d + c]) is wrong: %s", kind, n, d, result.message);
    free(q), free(k), free(v), free(out), free(want), free(p), free(want_p);
}

static void check_shapes(int causal, float spread, double p_relative)
{
    for (int s = 0; s < SHAPES; s++) check_shape(shapes[s][0], shapes[s][1], causal, spread, p_relative);
}

#define HINT_SCORES "Kernel 1: each score is the dot product of row i of Q and row j of K, scaled, with i from the " \
                    "y coordinates and j from the x ones, and nothing done past the edge of the matrix. Kernel 2 is " \
                    "day 17's three-pass softmax on row blockIdx.x; kernel 3 sums weight times V over every key."
Test(one_token, output_is_v, .timeout = 60,
     .description = "n = 1: the only weight is softmax of one score, exactly 1, so out must equal v, whatever q and "
                    "k are. If not, look at the softmax (its row of one) and at kernel 3.")
{
    check_shape(1, 1, 0, 1, P_RELATIVE);
    check_shape(1, 64, 1, 1, P_RELATIVE);
}
Test(noncausal, shapes, .timeout = 60, .description = HINT_SCORES) { check_shapes(0, 1, P_RELATIVE); }
Test(causal, shapes, .timeout = 60,
     .description = "The causal mask: query i may see keys 0 .. i only. Set scores[i * n + j] = -INFINITY for j > i in "
                    "kernel 1, before the softmax: then exp gives exactly 0 there and each row's weights over "
                    "j <= i sum to 1. Zeroing them after the softmax leaves rows that sum to less than 1.")
{
    check_shapes(1, 1, P_RELATIVE);
}
Test(causal, first_query_sees_only_itself, .timeout = 60,
     .description = "Causal, query 0 sees key 0 alone: its weights must be exactly {1, 0, 0, ...} and out[0] = v[0]. "
                    "Anything else means the mask is missing, or came after the softmax.")
{
    int n = 33, d = 16;
    float q[33 * 16], k[33 * 16], v[33 * 16], out[33 * 16], p[33 * 33];
    fill(q, k, v, n, d, 1);
    attention_run run = gpu_attention(q, k, v, out, p, n, d, 1, 0);
    cr_assert(run.error == NULL, "causal attention, n = %d, d = %d: the CUDA error \"%s\"", n, d, run.error);
    fill(q, k, v, n, d, 1);   /* v afresh: see fill */
    float sum = 0;
    for (int j = 0; j < n; j++) sum += p[j];
    cr_assert(p[0] == 1.0f && sum == 1.0f, "causal, n = %d: query 0's weights are P[0] = %g with a row sum of %g; "
              "want exactly 1 and 1 (keys 1 .. %d are masked out before the softmax)", n, p[0], sum, n - 1);
    for (int c = 0; c < d; c++)
        cr_assert(fabsf(out[c] - v[c]) <= 1e-6f, "causal, n = %d: out[0][%d] = %g, want v[0][%d] = %g", n, c, out[c],
                  c, v[c]);
}
Test(noncausal, large_logits, .timeout = 60,
     .description = "q and k up to +-20: scores up to about +-300, and exp(300) overflows float. Subtract the row's "
                    "max before exp, as day 17's stable softmax does.")
{
    check_shapes(0, 20, 1e-3);
}
Test(causal, large_logits, .timeout = 60,
     .description = "Causal, with scores up to about +-300: the row's max is taken over the unmasked scores (a "
                    "-INFINITY never wins a fmaxf against a number), then exp(s - max) is at most 1.")
{
    check_shapes(1, 20, 1e-3);
}

/* The shared large-score rows (tests/support/robust.h): with d = 1, q_i = 1 and k_j = base + j/n,
 * every row of scores is base + j/n exactly (the scale is 1). */
Test(noncausal, large_scores, .timeout = 60,
     .description = "Every row of scores at base + j/n, for bases 89, 1e4, -110 and -1e4: past expf's overflow "
                    "(above 88.72) and past its underflow to 0 (below -103.97). Only a softmax that subtracts the "
                    "row's max gives finite weights that sum to 1 on all four.")
{
    static const float bases[] = {89.0f, 1e4f, -110.0f, -1e4f};
    enum { N = 100 };
    float q[N], k[N], v[N], out[N], p[N * N];
    double want[N];
    for (int b = 0; b < 4; b++) {
        lab_fill_large_scores(k, N, bases[b]);
        for (int i = 0; i < N; i++) q[i] = 1, v[i] = noise((unsigned)i);
        char said[1024];
        lab_capture_stderr();
        attention_run run = gpu_attention(q, k, v, out, p, N, 1, 0, 0);
        lab_release_stderr(said, sizeof said);
        cr_assert(run.error == NULL, FAILED_RUN, "non-causal", N, 1, run.error, SIMULATOR_SAID(said));
        lab_fill_large_scores(k, N, bases[b]);   /* afresh: see fill */
        lab_softmax_reference(k, N, want);
        for (int i = 0; i < N; i += 33) {
            int where;
            double error = lab_max_abs_error(p + i * N, want, N, &where), allowed = P_RELATIVE * want[N - 1];
            cr_assert(error <= allowed, "non-causal, n = %d, d = 1, every score %g + j/n: P[%d][%d] = %g, want %.9g "
                      "(off by %g, allowed %.2g). Past expf's cliffs (infinite above 88.72, 0 below -103.97) only a "
                      "softmax that subtracts the row's max first stays finite.", N, (double)bases[b], i, where,
                      p[i * N + where], want[where], error, allowed);
        }
    }
}

/* ---------------------------------------------------------------------------------
 * Offsets past 2^31, on the host: the simulator cannot hold an n x n matrix of n = 46 341 (8.6 GB),
 * so the function every kernel finds its floats through is asked directly. */

/* What a wrong offset past 2^31 usually means: the low 32 bits are right, the rest lost (an int
 * product sign-extended into the size_t reads as a negative number). */
static const char *offset_hint(unsigned long long got, unsigned long long want)
{
    if (lab_wrapped_in_32_bits((double)(long long)got, (double)want))
        return ": the low 32 bits are right and the rest are lost. Is the product computed in int (or unsigned) "
               "and widened only after?";
    return "";
}

Test(indices, offsets_past_2_to_the_31, .timeout = 10,
     .description = "row_major_offset(row, column, columns) = row * columns + column, for every int argument: the "
                    "last score of an n x n matrix with n = 46 341 is element 2 147 488 280, past 2^31 - 1 = "
                    "2 147 483 647, the most an int holds. A product of two ints is an int, whatever it is assigned "
                    "to: widen a factor before multiplying, not the result after.")
{
    static const struct { int row, column, columns; unsigned long long want; } cases[] = {
        {0, 5, 7, 5ull},
        {3, 2, 7, 23ull},
        {46339, 46340, 46341, 2147441939ull},            /* row 46 339 ends below 2^31 */
        {46340, 46340, 46341, 2147488280ull},            /* n = 46 341: the first n whose matrix passes 2^31 */
        {65535, 65535, 65536, 4294967295ull},            /* n = 65 536: the last score is 2^32 - 1 */
        {131071, 131071, 131072, 17179869183ull},        /* n = 131 072, a 128K context: 2^34 - 1 */
        {2147483646, 127, 128, 274877906815ull},         /* a tall matrix: 2^31 - 1 rows of d = 128 */
    };
    for (int c = 0; c < 7; c++) {
        size_t got = row_major_offset_on_host(cases[c].row, cases[c].column, cases[c].columns);
        cr_assert((unsigned long long)got == cases[c].want, "row_major_offset(%d, %d, %d) = %llu; want %llu%s",
                  cases[c].row, cases[c].column, cases[c].columns, (unsigned long long)got, cases[c].want,
                  offset_hint((unsigned long long)got, cases[c].want));
    }
}

/* ---------------------------------------------------------------------------------
 * Counted on the simulator. */

static const char *kernel_names[3] = {"kernel 1 (scores)", "kernel 2 (softmax)", "kernel 3 (P V)"};

/* One counted causal run of n x d, checked first. */
static attention_run counted(int n, int d)
{
    float *q = malloc(sizeof(float) * n * d), *k = malloc(sizeof(float) * n * d), *v = malloc(sizeof(float) * n * d);
    float *out = malloc(sizeof(float) * n * d), *want = malloc(sizeof(float) * n * d);
    fill(q, k, v, n, d, 1);
    char said[1024];
    lab_capture_stderr();
    attention_run run = gpu_attention(q, k, v, out, NULL, n, d, 1, 1);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, "causal", n, d, run.error, SIMULATOR_SAID(said));
    fill(q, k, v, n, d, 1);   /* afresh: see fill */
    attention_reference(q, k, v, want, NULL, n, d, 1);
    lab_comparison result = lab_compare_floats("out", out, want, (size_t)n * d, OUT_RELATIVE, OUT_ABSOLUTE);
    cr_assert(result.mismatches == 0, "causal attention, n = %d, d = %d, is not right yet (%s): its counts mean "
              "nothing until it is; the checks above say what is wrong", n, d, result.message);
    free(q), free(k), free(v), free(out), free(want);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

Test(counted, three_kernels, .timeout = 60,
     .description = "The naive attention is three launches (scores, softmax, weighted sum), each with the fewest "
                    "blocks that cover its output, given at the bottom of attention.cu: leave them as they are.")
{
    int n = 64, d = 64;
    attention_run run = counted(n, d);
    cr_assert(run.launches == 3, "%d kernel launches counted; want 3", run.launches);
    double tiles_n = (n + SCORE_TILE - 1) / SCORE_TILE, tiles_d = (d + SCORE_TILE - 1) / SCORE_TILE;
    double blocks[3] = {tiles_n * tiles_n, n, tiles_d * tiles_n};
    for (int k = 0; k < 3; k++)
        cr_assert(run.kernel_blocks[k] == blocks[k], "n = %d, d = %d: %s launched %.0f blocks; want %.0f, the fewest "
                  "that cover its output (whole 16 x 16 tiles for kernels 1 and 3, a row each for kernel 2). The "
                  "launches are given: make reset DAY=18 restores them (your file is backed up).", n, d,
                  kernel_names[k], run.kernel_blocks[k], blocks[k]);
}

/* The loads of the chapter's kernel 1 with the causal mask, for n a multiple of 16 and d of 8:
 * per step of the dot product, a warp (two query rows x 16 keys) loads one sector of Q for each
 * of its rows that has a visible key and one sector of K for each visible key. A tile below the
 * diagonal has 8 warps of 2 + 16 sectors; a tile on it, warp w (rows 2w, 2w + 1) sees keys
 * 0 .. 2w + 1: 2 + 2w + 2 sectors, 88 for the tile; a tile above it, none. */
static double causal_scores_loads(int n, int d)
{
    double tiles = n / SCORE_TILE, below = tiles * (tiles - 1) / 2;
    return 32.0 * d * (below * 8 * 18 + tiles * 88);
}

Test(counted, matrix_stored_twice, .timeout = 60,
     .description = "Counted: kernel 1 stores the n x n scores once (4 n^2 bytes), the softmax stores them once more "
                    "in place, kernel 3 stores out once (4 n d): at most that. Neighbouring lanes (threadIdx.x) must "
                    "write neighbouring floats: j, or c, comes from threadIdx.x.")
{
    int n = 64, d = 64;
    attention_run run = counted(n, d);
    double reference[3] = {4.0 * n * n, 4.0 * n * n, 4.0 * n * d};
    for (int k = 0; k < 3; k++) {
        char what[96];
        snprintf(what, sizeof what, "causal, n = %d, d = %d: %s stores", n, d, kernel_names[k]);
        lab_expect_bytes_at_most(what, run.kernel_store_bytes[k], reference[k],
                       "Each output is written once, 32 bytes to a sector: do neighbouring lanes (threadIdx.x) "
                       "write neighbouring floats, or 16 different rows?");
    }
}
Test(counted, scores_skip_masked_keys, .timeout = 60,
     .description = "Counted, causal, n = d = 64: kernel 1 reads Q and K only for the scores a query may see (j <= i). "
                    "A masked score is -INFINITY whatever the dot product says: computing it anyway gives the right "
                    "output for about twice the loads.")
{
    int n = 64, d = 64;
    attention_run run = counted(n, d);
    char what[96];
    snprintf(what, sizeof what, "causal, n = %d, d = %d: %s loads", n, d, kernel_names[0]);
    lab_expect_bytes_at_most(what, run.kernel_load_bytes[0], causal_scores_loads(n, d),
                   "Near 2 times: are the dot products of the masked scores (j > i) computed, and then replaced by "
                   "-INFINITY? Decide the mask first.");
}
Test(counted, softmax_moves_the_matrix_at_most_four_times, .timeout = 60,
     .description = "Counted: the three-pass softmax reads each row three times (max, sum, output) and writes it "
                    "once: at most 16 n^2 bytes, n = 64. An online softmax (day 17's version 2) reads it twice and "
                    "passes with a note: it beat the reference.")
{
    int n = 64;
    attention_run run = counted(n, 64);
    char what[96];
    snprintf(what, sizeof what, "causal, n = %d: %s loads and stores (%.2f times the matrix's 4 n^2)", n,
             kernel_names[1], (run.kernel_load_bytes[1] + run.kernel_store_bytes[1]) / (4.0 * n * n));
    lab_expect_bytes_at_most(what, run.kernel_load_bytes[1] + run.kernel_store_bytes[1], 16.0 * n * n,
                   "More than three reads and a write of each row: a fourth pass, or an element loaded twice in one "
                   "pass?");
}
Test(counted, output_reads_each_weight_once, .timeout = 60,
     .description = "Counted, n = d = 64: kernel 3's warp (two query rows x 16 columns) loads, for each key j, the two "
                    "weights P[i][j] (a sector each, shared by 16 lanes) and 16 neighbouring floats of row j of V "
                    "(two sectors): at most 4 n^2 d bytes.")
{
    int n = 64, d = 64;
    attention_run run = counted(n, d);
    char what[96];
    snprintf(what, sizeof what, "causal, n = %d, d = %d: %s loads", n, d, kernel_names[2]);
    lab_expect_bytes_at_most(what, run.kernel_load_bytes[2], 4.0 * n * n * d,
                   "Does c come from threadIdx.x (neighbouring lanes, neighbouring floats of V), and is each weight "
                   "read once per key?");
}
Test(counted, bytes_grow_as_n_squared, .timeout = 60,
     .description = "Counted: the score matrix is n x n, and every kernel moves it, or reads rows of K or V once per "
                    "score: the global bytes grow as n^2, 4x when n doubles. If they grow slower something is "
                    "skipped; if faster, something is read more than once per score.")
{
    double previous = 0;
    for (int n = 64; n <= 256; n *= 2) {
        attention_run run = counted(n, 64);
        double total = run.global_load_bytes + run.global_store_bytes;
        if (previous > 0)
            cr_assert(total / previous >= 3.5 && total / previous <= 4.5, "n = %d to %d: the global bytes went from "
                      "%.0f to %.0f, counted, %.2f x; want about 4 x (3.5 to 4.5)", n / 2, n, previous, total,
                      total / previous);
        previous = total;
    }
}

/* ---------------------------------------------------------------------------------
 * The prediction, held against the count. */

/* What the chapter's kernels move without the mask, n and d multiples of 16. */
static double chapter_kernel_bytes(int kernel, int n, int d)
{
    double scores = (double)n * n;
    if (kernel == 1) return 18.0 * scores * d + 4.0 * scores;
    return kernel == 2 ? 16.0 * scores : 4.0 * scores * d + 4.0 * n * d;
}

/* One counted non-causal run: each kernel's bytes into bytes[], or -1s when the run is not right
 * yet or nothing was counted (a GPU). */
static void counted_noncausal(int n, int d, double bytes[3])
{
    float *q = malloc(sizeof(float) * n * d), *k = malloc(sizeof(float) * n * d), *v = malloc(sizeof(float) * n * d);
    float *out = malloc(sizeof(float) * n * d), *want = malloc(sizeof(float) * n * d);
    fill(q, k, v, n, d, 1);
    char said[1024];
    lab_capture_stderr();
    attention_run run = gpu_attention(q, k, v, out, NULL, n, d, 0, 1);
    lab_release_stderr(said, sizeof said);
    fill(q, k, v, n, d, 1);   /* afresh: see fill */
    attention_reference(q, k, v, want, NULL, n, d, 0);
    int right = !run.error && run.counted && run.launches == 3 &&
                lab_compare_floats("out", out, want, (size_t)n * d, OUT_RELATIVE, OUT_ABSOLUTE).mismatches == 0;
    for (int kernel = 0; kernel < 3; kernel++)
        bytes[kernel] = right ? run.kernel_load_bytes[kernel] + run.kernel_store_bytes[kernel] : -1;
    free(q), free(k), free(v), free(out), free(want);
}

/* What a wrong prediction usually means. */
static const char *prediction_hint(int kernel, int n, int d, double predicted)
{
    double scores = (double)n * n;
    if (predicted == 0) return "Nothing predicted yet: the function still returns 0.";
    if (predicted == attention_predicted_kernel_bytes(kernel, 2 * n, d) &&
        predicted == attention_predicted_kernel_bytes(kernel, n, 2 * d))
        return "It predicts the same for other shapes: the bytes grow with n and d.";
    if (kernel == 1 && predicted == 8.0 * scores * d + 4.0 * scores)
        return "That is 8 bytes a score a step, one float of Q and one of K per lane: but memory moves sectors, and "
               "the 16 lanes of a query row read the same float of Q, one sector between them, while each lane's "
               "float of K lies in a sector of its own.";
    if (predicted == chapter_kernel_bytes(kernel, n, d) - (kernel == 3 ? 4.0 * n * d : 4.0 * scores))
        return "That is the loads alone: the kernel also stores its output.";
    return "Follow one warp through one step of its loop: which sectors does it touch? Then count the warps and steps.";
}

Test(prediction, bytes_per_kernel, .timeout = 60,
     .description = "attention_predicted_kernel_bytes: before the simulator counts, say what each kernel moves, loads "
                    "and stores, for one head without the mask, n and d multiples of 16. Checked at (n, d) = (64, 64), "
                    "(32, 16) and (48, 32) against the count of your kernels (where a kernel of yours moved less than "
                    "the chapter's, the chapter's figure is accepted too), and at a 128K context, n = 131 088, "
                    "d = 128, against the chapter's figure: 3.97e13 bytes for kernel 1, past any int.")
{
    static const int predicted_shapes[][2] = {{64, 64}, {32, 16}, {48, 32}};
    for (int s = 0; s < 3; s++) {
        int n = predicted_shapes[s][0], d = predicted_shapes[s][1];
        double counted_bytes[3];
        counted_noncausal(n, d, counted_bytes);
        for (int kernel = 1; kernel <= 3; kernel++) {
            double predicted = attention_predicted_kernel_bytes(kernel, n, d);
            double chapter = chapter_kernel_bytes(kernel, n, d);
            double counted = counted_bytes[kernel - 1];
            char count_text[128] = "your kernels are not right yet, so they were not counted";
            if (counted >= 0)
                snprintf(count_text, sizeof count_text, "the simulator counted %.0f for your kernel", counted);
            int beat = counted >= 0 && counted < chapter;
            cr_assert(predicted == chapter || (beat && predicted == counted), "%s, non-causal, n = %d, d = %d: "
                      "predicted %.0f bytes; %s, and the chapter's kernel moves %.0f. %s", kernel_names[kernel - 1],
                      n, d, predicted, count_text, chapter, prediction_hint(kernel, n, d, predicted));
        }
    }
    int n = 131088, d = 128;   /* a 128K context, rounded up to whole tiles: no simulator could count it */
    for (int kernel = 1; kernel <= 3; kernel++) {
        double predicted = attention_predicted_kernel_bytes(kernel, n, d);
        double chapter = chapter_kernel_bytes(kernel, n, d);
        cr_assert(fabs(predicted - chapter) <= 1e-12 * chapter, "%s, non-causal, n = %d, d = %d: predicted %.0f bytes; "
                  "the chapter's kernel moves %.0f (off by %.0f). At this length an int product overflows and a "
                  "float one rounds: count in double, or in 64-bit integers.", kernel_names[kernel - 1], n, d,
                  predicted, chapter, predicted - chapter);
    }
    cr_assert(attention_predicted_kernel_bytes(0, 64, 64) == -1 && attention_predicted_kernel_bytes(4, 64, 64) == -1,
              "attention_predicted_kernel_bytes(0, 64, 64) = %g and (4, 64, 64) = %g: want -1, the kernels are 1, 2 "
              "and 3", attention_predicted_kernel_bytes(0, 64, 64), attention_predicted_kernel_bytes(4, 64, 64));
}
