/* 17-softmax-norm.c — the checks for day 17. The online merge keeps the empty state empty and
 * rescales what it combines. Each softmax version agrees with a double-precision reference
 * (relative 3e-5) on rows of lengths that are not multiples of 32, some shorter than a block
 * (1, 7, 31, 32, 33, 100, 255, 257, 1000, 4097): ordinary logits, logits near +1e4 and -1e4
 * (where exp overflows and underflows), the shared large-score rows of tests/support/robust.h
 * (base + i/n past both of expf's cliffs), rows whose entries are all equal, and -inf masks
 * (every other entry, all but one, all of a row, the second half); no output is NaN or
 * infinite, none is left unwritten, none is written past the end. RMSNorm agrees with its
 * reference (relative 1e-5) for every eps of lab_eps_values, on ordinary rows, on values near
 * +-1e4, on a row of zeros and on small rows where eps decides the answer; a hard-coded eps is
 * named. Counted on the simulator, for rows of 1024 floats, as bounds: at most 16 n global bytes
 * per row for three passes, 12 n for two and 8 n for one (a row's read is 4 n bytes, its write
 * 4 n), and the one-pass kernel reads its kept row from shared memory once; a kernel that moves
 * less passes, with a note that it beat the reference. The learner's prediction of those bytes
 * is held against the count at three lengths. What the launches refuse, they refuse without
 * launching. On the simulator no kernel may read memory nothing wrote (its initcheck): shared memory
 * starts every block as NaN there, which fmaxf passes over, so a block max that reads one slot past
 * the warps' partials would otherwise pass. Every check runs in a few seconds with the reference and
 * has a .timeout of 30 s. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"
#include "robust.h"

/* The simulator's initcheck (lib/sim/README.md), on before any allocation; nvcc's runs ignore it. */
__attribute__((constructor)) static void report_reads_of_unwritten_memory(void) { setenv("SIM_INITCHECK", "1", 1); }

static const int lengths[] = {1, 7, 31, 32, 33, 100, 255, 257, 1000, 4097};
enum { LENGTHS = 10, ROWS = 4, COUNTED_N = 1024, COUNTED_ROWS = 8 };
static const double SOFTMAX_RELATIVE = 3e-5, RMSNORM_RELATIVE = 1e-5, TINY = 1e-30;

/* ---------------------------------------------------------------------------------
 * Inputs: four rows of one kind for a length n. */

typedef enum row_kind { ORDINARY, NEAR_1E4, ALL_EQUAL, MASKED } row_kind;

static float noise(unsigned i) { return (float)(((i * 2654435761u) >> 8) % 16001) / 1000.0f - 8.0f; }   /* [-8, 8] */

/* Each check computes what it expects after the code under test has returned, from inputs made afresh
 * from their formulas (written over the arrays handed to the driver, whatever became of them), not
 * before: while that code runs there is no answer in memory to copy, and none to make by changing its
 * inputs. */
static void fill_rows(float *x, int n, row_kind kind)
{
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < n; i++) {
            float value = noise((unsigned)(r * n + i) + 11u), *slot = &x[r * n + i];
            switch (kind) {
            case ORDINARY: *slot = value; break;
            case NEAR_1E4:   /* above 88.72 expf overflows; below -103.97 it underflows to 0 */
                *slot = r == 0 ? 1e4f + value : r == 1 ? -1e4f + value : r == 2 ? (i % 2 ? 1e4f : -1e4f) + value
                                                                           : value * 1250;   /* +-1e4 wide */
                break;
            case ALL_EQUAL: *slot = r == 0 ? 0.0f : r == 1 ? 100.0f : r == 2 ? -100.0f : 1e4f; break;
            case MASKED:
                *slot = r == 0 ? (i % 2 ? -INFINITY : value)         /* every other entry masked */
                      : r == 1 ? (i == n - 1 ? value : -INFINITY)    /* all but the last */
                      : r == 2 ? -INFINITY                           /* the whole row: zeros out */
                               : (i > n / 2 ? -INFINITY : value);    /* causal: the second half */
                break;
            }
        }
}

static const char *kind_names[] = {"ordinary logits in [-8, 8]",
                                   ("logits near +1e4 (row 0), near -1e4 (row 1), alternating (row 2), "
                                    "spread +-1e4 (row 3)"),
                                   "all-equal rows: 0, 100, -100, 1e4 (rows 0-3)",
                                   ("-inf masks: every other entry (row 0), all but the last (row 1), the whole row "
                                    "(row 2, which must come out all zeros), the second half (row 3)")};

/* ---------------------------------------------------------------------------------
 * Softmax: every length, one kind of row. */

#define FAILED_RUN "%s, %d rows of n = %d: the run ended with the CUDA error \"%s\".%s%s"
static const char *version_names[] = {"version 0 (naive)", "version 1 (three passes)", "version 2 (two passes)",
                                      "version 3 (one pass)"};

static void check_softmax(int version, row_kind kind)
{
    for (int l = 0; l < LENGTHS; l++) {
        int n = lengths[l];
        float *x = malloc(sizeof(float) * ROWS * n), *y = malloc(sizeof(float) * ROWS * n);
        fill_rows(x, n, kind);
        char said[1024];
        lab_capture_stderr();
        row_run run = gpu_softmax(version, x, y, ROWS, n, 0);
        lab_release_stderr(said, sizeof said);
        float *want = malloc(sizeof(float) * ROWS * n);
        fill_rows(x, n, kind);
        softmax_reference(x, want, ROWS, n);
        cr_assert(run.error == NULL, FAILED_RUN, version_names[version], ROWS, n, run.error, SIMULATOR_SAID(said));
        cr_assert(run.written_past_end == 0, "%s, %d rows of n = %d: %lld floats written past the end of y (the "
                  "guard after the last row changed): is a loop bound n, and a row's start r * n?",
                  version_names[version], ROWS, n, run.written_past_end);
        lab_comparison result = lab_compare_floats("y", y, want, (size_t)ROWS * n, SOFTMAX_RELATIVE, TINY);
        int negative_row_zero = kind == NEAR_1E4, positive_row_written = 0;   /* a max of 0, not the row's */
        for (int i = 0; i < n; i++) negative_row_zero &= y[n + i] == 0.0f, positive_row_written |= y[i] > 0.0f;
        negative_row_zero &= positive_row_written;
        cr_assert(result.mismatches == 0, "%s, %d rows of n = %d (y[r * n + i] is row r's element i), %s: %s%s",
                  version_names[version], ROWS, n, kind_names[kind], result.message,
                  negative_row_zero ? ". Row 1, near -1e4, came out all zeros: a max that starts, or is padded, at 0 "
                                      "instead of -INFINITY makes every exp(x - 0) underflow" : "");
        free(x), free(y), free(want);
    }
}

/* One counted run of COUNTED_ROWS rows of COUNTED_N ordinary logits, checked first. */
static row_run counted_softmax(int version)
{
    int count = COUNTED_ROWS * COUNTED_N;
    float *x = malloc(sizeof(float) * count), *y = malloc(sizeof(float) * count), *want = malloc(sizeof(float) * count);
    for (int i = 0; i < count; i++) x[i] = noise((unsigned)i);
    char said[1024];
    lab_capture_stderr();
    row_run run = gpu_softmax(version, x, y, COUNTED_ROWS, COUNTED_N, 1);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, version_names[version], COUNTED_ROWS, COUNTED_N, run.error,
              SIMULATOR_SAID(said));
    for (int i = 0; i < count; i++) x[i] = noise((unsigned)i);   /* afresh: see fill_rows */
    softmax_reference(x, want, COUNTED_ROWS, COUNTED_N);
    lab_comparison result = lab_compare_floats("y", y, want, (size_t)count, SOFTMAX_RELATIVE, TINY);
    cr_assert(result.mismatches == 0, "%s is not right yet (%d rows of n = %d: %s): its counts mean nothing until "
              "it is; the checks above say what is wrong", version_names[version], COUNTED_ROWS, COUNTED_N,
              result.message);
    free(x), free(y), free(want);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}


/* At most `transfers` row-sized transfers per row: (transfers - 1) reads of 4 n bytes and one write. */
static void check_row_transfers(int version, int transfers, const char *if_more)
{
    row_run run = counted_softmax(version);
    double row_bytes = 4.0 * COUNTED_N, loads = run.global_load_bytes / COUNTED_ROWS,
           stores = run.global_store_bytes / COUNTED_ROWS;
    char what[128];
    snprintf(what, sizeof what, "%s, stores per row of %d floats", version_names[version], COUNTED_N);
    lab_expect_bytes_at_most(what, stores, row_bytes,
                             "Each output is written once, by lanes that write neighbouring floats.");
    snprintf(what, sizeof what, "%s, loads per row of %d floats (%.2f reads of the row)", version_names[version],
             COUNTED_N, loads / row_bytes);
    lab_expect_bytes_at_most(what, loads, (transfers - 1) * row_bytes, if_more);
}

/* ---------------------------------------------------------------------------------
 * The online merge, on the host. */

static void expect_state(const char *what, running_softmax got, float max, float sum)
{
    int same_max = got.max == max || (isinf(max) && isinf(got.max) && (max < 0) == (got.max < 0));
    cr_assert(same_max && fabs((double)got.sum - sum) <= 1e-6 * fabs(sum) + 1e-30, "%s: got {max %g, sum %g}, want "
              "{max %g, sum %g}", what, got.max, got.sum, max, sum);
}

Test(merge, empty_stays_empty, .timeout = 5,
     .description = "The empty state is {max -inf, sum 0}: merging two of them must give it back, not NaN. "
                    "exp(-inf - (-inf)) is exp(NaN): when the merged max is -inf there is nothing to rescale.")
{
    running_softmax empty = {-INFINITY, 0}, one = {3, 1};
    expect_state("merge(empty, empty)", softmax_merge_on_host(empty, empty), -INFINITY, 0);
    expect_state("merge({3, 1}, empty)", softmax_merge_on_host(one, empty), 3, 1);
    expect_state("merge(empty, {3, 1})", softmax_merge_on_host(empty, one), 3, 1);
}

Test(merge, rescales_the_smaller_max, .timeout = 5,
     .description = "merge(a, b): the new max is the larger one, and each sum is rescaled to it: "
                    "sum_a * exp(max_a - max) + sum_b * exp(max_b - max). Neither sum is ever multiplied by "
                    "exp of something positive.")
{
    running_softmax a = {0, 1}, b = {1, 1}, c = {2, 3}, huge = {1e4f, 1}, tiny = {-1e4f, 5};
    expect_state("merge({0, 1}, {1, 1})", softmax_merge_on_host(a, b), 1, (float)(exp(-1.0) + 1));
    expect_state("merge({1, 1}, {0, 1})", softmax_merge_on_host(b, a), 1, (float)(exp(-1.0) + 1));
    expect_state("merge({2, 3}, {2, 3})", softmax_merge_on_host(c, c), 2, 6);
    expect_state("merge({1e4, 1}, {-1e4, 5})", softmax_merge_on_host(huge, tiny), 1e4f, 1);
    expect_state("merge({-1e4, 5}, {1e4, 1})", softmax_merge_on_host(tiny, huge), 1e4f, 1);
}

#define HINT_GIVEN "Version 0 is given: if it fails on ordinary rows, the driver or the simulator is broken, or " \
                   "softmax.cu was edited outside its TODOs (make reset DAY=17 restores it; your file is backed up)."
Test(version0, ordinary_rows, .timeout = 30, .description = HINT_GIVEN) { check_softmax(0, ORDINARY); }
Test(version0, overflows_on_large_logits, .timeout = 30,
     .description = "Version 0 is given to show the failure the others avoid: expf(89) is infinite in float (its "
                    "largest value is expf(88.72)), and inf / inf is NaN. This check expects the NaN; if it fails, "
                    "version 0 was changed.")
{
    int n = 100;
    float x[100], y[100];
    lab_fill_large_scores(x, n, 89.0f);
    row_run run = gpu_softmax(0, x, y, 1, n, 0);
    cr_assert(run.error == NULL, "version 0: the CUDA error \"%s\"", run.error);
    cr_assert(isnan(y[0]), "version 0 on logits 89 .. 90: y[0] = %g, expected NaN (inf / inf)", y[0]);
}

/* The shared large-score rows (tests/support/robust.h): base + i/n, for bases past expf's
 * overflow (88.72) and past its underflow to 0 (-103.97). Without the max subtracted these rows
 * are inf / inf or 0 / 0. */
static void check_large_scores(int version)
{
    static const float bases[] = {89.0f, 1e4f, -110.0f, -1e4f};
    static const int large_lengths[] = {1, 33, 1000};
    enum { BASES = 4 };
    for (int l = 0; l < 3; l++) {
        int n = large_lengths[l];
        float *x = malloc(sizeof(float) * BASES * n), *y = malloc(sizeof(float) * BASES * n);
        double *want = malloc(sizeof(double) * n);
        for (int r = 0; r < BASES; r++) lab_fill_large_scores(x + r * n, n, bases[r]);
        char said[1024];
        lab_capture_stderr();
        row_run run = gpu_softmax(version, x, y, BASES, n, 0);
        lab_release_stderr(said, sizeof said);
        cr_assert(run.error == NULL, FAILED_RUN, version_names[version], BASES, n, run.error, SIMULATOR_SAID(said));
        for (int r = 0; r < BASES; r++) {
            lab_fill_large_scores(x + r * n, n, bases[r]);   /* afresh: see fill_rows */
            lab_softmax_reference(x + r * n, n, want);
            int where;
            double error = lab_max_abs_error(y + r * n, want, n, &where), allowed = SOFTMAX_RELATIVE * want[n - 1];
            cr_assert(error <= allowed, "%s, one row of n = %d scores %g + i/n: y[%d] = %g, want %.9g (off by %g, "
                      "allowed %.2g). Past expf's cliffs (infinite above 88.72, 0 below -103.97) only a softmax "
                      "that subtracts the row's max first stays finite.", version_names[version], n,
                      (double)bases[r], where, y[r * n + where], want[where], error, allowed);
        }
        free(x), free(y), free(want);
    }
}

#define HINT_THREE "Three passes: the row's max (block_max), then the sum of exp(x - max) (block_sum), then each " \
                   "output exp(x - max) / sum. Every thread strides by blockDim.x from threadIdx.x, so rows shorter " \
                   "than the block leave threads with nothing, and they still take part in the reductions."
#define HINT_MASK "-inf entries: exp(-inf - max) = 0, fine while max is finite. A row of -inf has max = -inf, and " \
                  "-inf - (-inf) is NaN: such a row must come out all zeros (see softmax_output)."
Test(version1, ordinary_rows, .timeout = 30, .description = HINT_THREE) { check_softmax(1, ORDINARY); }
Test(version1, logits_near_1e4, .timeout = 30,
     .description = "Subtract the row's max before exp: then every exp is at most exp(0) = 1 and cannot overflow, "
                    "and the largest is exactly 1, so the sum cannot underflow to 0 either.")
{
    check_softmax(1, NEAR_1E4);
    check_large_scores(1);
}
Test(version1, all_equal_rows, .timeout = 30,
     .description = "An all-equal row is 1/n everywhere, whatever the value: exp(100) alone overflows float "
                    "(its limit is exp(88.7)), so only a max-subtracted exp gets 1/n.")
{
    check_softmax(1, ALL_EQUAL);
}
Test(version1, masked_entries, .timeout = 30, .description = HINT_MASK) { check_softmax(1, MASKED); }
Test(version1, reads_the_row_at_most_three_times, .timeout = 30,
     .description = "Counted: three passes read the row at most three times from global memory (max, sum, output) "
                    "and write it once: at most 16 n bytes per row. A version that reads less and is still right "
                    "passes, with a note.")
{
    check_row_transfers(1, 4, "More than three reads: a fourth pass over the row, or one element loaded twice in "
                        "a pass?");
}

#define HINT_ONLINE "Two passes: each thread keeps a running_softmax over its elements (start {-inf, 0}; each " \
                    "element x merges in as {x, 1}), block_merge combines the threads, then one write pass. The " \
                    "merge must rescale the smaller max's sum: see the merge checks."
Test(version2, ordinary_rows, .timeout = 30, .description = HINT_ONLINE) { check_softmax(2, ORDINARY); }
Test(version2, logits_near_1e4, .timeout = 30,
     .description = "The online state never holds exp of anything positive: a new, larger max rescales the old "
                    "sum by exp(old max - new max) <= 1. Near 1e4 a sum kept as plain sum of exp(x) overflows.")
{
    check_softmax(2, NEAR_1E4);
    check_large_scores(2);
}
Test(version2, all_equal_rows, .timeout = 30, .description = HINT_ONLINE) { check_softmax(2, ALL_EQUAL); }
Test(version2, masked_entries, .timeout = 30,
     .description = "Threads whose elements are all -inf (or that have none, when n < blockDim.x) hold the empty "
                    "state {-inf, 0}; merging two of them must not make NaN (merge checks), and an all-masked row "
                    "comes out all zeros.")
{
    check_softmax(2, MASKED);
}
Test(version2, reads_the_row_at_most_twice, .timeout = 30,
     .description = "Counted: the max and the sum come from ONE read (online), the outputs from a second: at most "
                    "12 n bytes per row.")
{
    check_row_transfers(2, 3, "A third read: are the max and the sum taken in separate passes, as in version 1? "
                        "The online state takes both in one.");
}

#define HINT_ONE_PASS "One pass: version 2, but each element read is also stored in kept[] (dynamic shared " \
                      "memory, n floats), and the output pass reads kept[i] instead of x: the row crosses from " \
                      "global memory once."
Test(version3, ordinary_rows, .timeout = 30, .description = HINT_ONE_PASS) { check_softmax(3, ORDINARY); }
Test(version3, logits_near_1e4, .timeout = 30, .description = HINT_ONE_PASS)
{
    check_softmax(3, NEAR_1E4);
    check_large_scores(3);
}
Test(version3, all_equal_rows, .timeout = 30, .description = HINT_ONE_PASS) { check_softmax(3, ALL_EQUAL); }
Test(version3, masked_entries, .timeout = 30, .description = HINT_MASK) { check_softmax(3, MASKED); }
Test(version3, reads_the_row_once, .timeout = 30,
     .description = "Counted: one read of the row from global memory and one write: 8 n bytes per row, the least "
                    "a softmax can move. The second look at each element comes from shared memory.")
{
    check_row_transfers(3, 2, "A second read from global memory: does the output pass read x instead of kept[]?");
}
Test(version3, reads_the_kept_row_once, .timeout = 30,
     .description = "Counted: the online max and sum need no second look at the row, so kept[] is read once, by "
                    "the output pass (4 n bytes from shared memory, plus the block's reduction). Reading it for a "
                    "separate max and sum is three passes again, on chip.")
{
    row_run run = counted_softmax(3);
    double per_row = run.shared_load_bytes / COUNTED_ROWS, allowed = 4.0 * COUNTED_N + 4096;
    cr_assert(per_row <= allowed, "version 3: %.0f bytes read from shared memory per row of %d floats, counted "
              "(%.2f times the row); want at most %.0f: the row once, and the reduction's partials",
              per_row, COUNTED_N, per_row / (4.0 * COUNTED_N), allowed);
}
Test(version3, longest_row, .timeout = 30,
     .description = "The kept row is n floats of dynamic shared memory, the launch's third parameter: a row of "
                    "ONE_PASS_MAX_LENGTH = 12224 floats fills the 48 KiB a block gets by default, with the 256 bytes "
                    "of partial results. Size the launch's shared memory by n, not by the largest row.")
{
    int n = ONE_PASS_MAX_LENGTH;
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) x[i] = noise((unsigned)i * 7u);
    char said[1024];
    lab_capture_stderr();
    row_run run = gpu_softmax(3, x, y, 1, n, 0);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, version_names[3], 1, n, run.error, SIMULATOR_SAID(said));
    for (int i = 0; i < n; i++) x[i] = noise((unsigned)i * 7u);   /* afresh: see fill_rows */
    softmax_reference(x, want, 1, n);
    lab_comparison result = lab_compare_floats("y", y, want, (size_t)n, SOFTMAX_RELATIVE, TINY);
    cr_assert(result.mismatches == 0, "version 3, one row of n = %d: %s", n, result.message);
    free(x), free(y), free(want);
}

/* ---------------------------------------------------------------------------------
 * RMSNorm. */

typedef enum norm_kind { NORM_ORDINARY, NORM_LARGE, NORM_ZERO_ROW, NORM_SMALL } norm_kind;
static const char *norm_kind_names[] = {"values in [-2, 2]", "values up to +-1e4", "row 1 all zeros",
                                        "values near 1e-3, where eps is most of mean(x^2)"};

/* Rows of `kind`, every value of x times `scale`. */
static void fill_norm_rows(float *x, float *weight, int rows, int n, norm_kind kind, float scale)
{
    for (int i = 0; i < n; i++) weight[i] = 0.5f + (noise((unsigned)i + 5u) + 8) / 16;   /* [0.5, 1.5] */
    for (int i = 0; i < rows * n; i++) {
        float value = noise((unsigned)i + 99u) / 4;   /* [-2, 2] */
        x[i] = scale * (kind == NORM_LARGE ? value * 5e3f : kind == NORM_SMALL ? value * 5e-4f
                        : kind == NORM_ZERO_ROW && i / n == 1 ? 0 : value);
    }
}

/* Runs RMSNorm on ROWS rows of n, x and weight as fill_norm_rows(kind, scale) made them; *result gets the
 * comparison with the reference for `eps`, computed from x and weight made afresh (see fill_rows). */
static row_run run_rmsnorm(float *x, float *weight, float *y, int n, norm_kind kind, float scale, float eps,
                           lab_comparison *result)
{
    char said[1024];
    lab_capture_stderr();
    row_run run = gpu_rmsnorm(x, weight, y, ROWS, n, eps, 0);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, "rmsnorm", ROWS, n, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "rmsnorm, %d rows of n = %d: %lld floats written past the end of y",
              ROWS, n, run.written_past_end);
    float *want = malloc(sizeof(float) * ROWS * n);
    fill_norm_rows(x, weight, ROWS, n, kind, scale);
    rmsnorm_reference(x, weight, want, ROWS, n, eps);
    *result = lab_compare_floats("y", y, want, (size_t)ROWS * n, RMSNORM_RELATIVE, TINY);
    free(want);
    return run;
}

/* When y is what another eps of lab_eps_values gives, not eps number `given`, the sentence that says
 * so; else "". */
static const char *eps_hint(const float *x, const float *weight, const float *y, int n, int given)
{
    static char text[160];
    float *as_if = malloc(sizeof(float) * ROWS * n);
    *text = 0;
    for (int other = 0; other < LAB_EPS_COUNT && !*text; other++) {
        if (other == given || lab_eps_values[other] == lab_eps_values[given]) continue;
        rmsnorm_reference(x, weight, as_if, ROWS, n, lab_eps_values[other]);
        if (lab_compare_floats("y", y, as_if, (size_t)ROWS * n, RMSNORM_RELATIVE, TINY).mismatches == 0)
            snprintf(text, sizeof text, ". y is what eps = %g gives, not eps = %g: is eps hard-coded instead of "
                     "taken from the argument?", (double)lab_eps_values[other], (double)lab_eps_values[given]);
    }
    free(as_if);
    return text;
}

/* Every length, every eps of lab_eps_values (tests/support/robust.h), one kind of row. */
static void check_rmsnorm(norm_kind kind)
{
    for (int l = 0; l < LENGTHS; l++) {
        int n = lengths[l];
        float *x = malloc(sizeof(float) * ROWS * n), *y = malloc(sizeof(float) * ROWS * n);
        float *weight = malloc(sizeof(float) * n);
        fill_norm_rows(x, weight, ROWS, n, kind, 1);
        for (int e = 0; e < LAB_EPS_COUNT; e++) {
            lab_comparison result;
            run_rmsnorm(x, weight, y, n, kind, 1, lab_eps_values[e], &result);
            cr_assert(result.mismatches == 0, "rmsnorm, %d rows of n = %d, eps = %g (y[r * n + i] is row r's element "
                      "i), %s: %s%s", ROWS, n, (double)lab_eps_values[e], norm_kind_names[kind], result.message,
                      eps_hint(x, weight, y, n, e));
        }
        free(x), free(y), free(weight);
    }
}

#define HINT_RMSNORM "RMSNorm: the mean of the squares is their sum over the n elements divided by n (not by " \
                     "blockDim.x), eps goes inside the square root, and each output is multiplied by its weight."
Test(rmsnorm, ordinary_rows, .timeout = 30, .description = HINT_RMSNORM) { check_rmsnorm(NORM_ORDINARY); }
Test(rmsnorm, large_values, .timeout = 30, .description = HINT_RMSNORM) { check_rmsnorm(NORM_LARGE); }
Test(rmsnorm, zero_row_stays_finite, .timeout = 30,
     .description = "A row of zeros: 0 / sqrt(0 + eps) = 0. Without eps (or with eps outside the root, "
                    "1 / (sqrt(0) + eps) is finite but wrong elsewhere) it is 0 / 0 = NaN.")
{
    check_rmsnorm(NORM_ZERO_ROW);
}
Test(rmsnorm, eps_inside_the_root, .timeout = 30,
     .description = "Small values: mean(x^2) is about 3e-7 here, so eps decides the answer, and "
                    "1 / sqrt(mean + eps) differs greatly from 1 / (sqrt(mean) + eps).")
{
    check_rmsnorm(NORM_SMALL);
}
Test(rmsnorm, uses_the_eps_it_is_given, .timeout = 30,
     .description = "eps is an argument: Llama 2 uses 1e-5, other models 1e-6, and the checks pass 1e-2 and 0.5 "
                    "as well (lab_eps_values). A kernel that writes 1e-5 where it should write eps is right for "
                    "one model only.")
{
    enum { N = 300 };
    float *x = malloc(sizeof(float) * ROWS * N), *y = malloc(sizeof(float) * ROWS * N);
    float *weight = malloc(sizeof(float) * N);
    const float scale = 0.03f;   /* mean(x^2) about 1.2e-3: every eps changes y */
    fill_norm_rows(x, weight, ROWS, N, NORM_ORDINARY, scale);
    for (int e = 0; e < LAB_EPS_COUNT; e++) {
        lab_comparison result;
        run_rmsnorm(x, weight, y, N, NORM_ORDINARY, scale, lab_eps_values[e], &result);
        cr_assert(result.mismatches == 0, "rmsnorm, %d rows of n = %d, eps = %g, values near 0.03: %s%s", ROWS, N,
                  (double)lab_eps_values[e], result.message, eps_hint(x, weight, y, N, e));
    }
    free(x), free(y), free(weight);
}
Test(rmsnorm, one_row, .timeout = 30,
     .description = "One row, as in a decode step of batch 1: a grid of a single block.")
{
    enum { N = 33 };
    float x[N], weight[N], y[N], want[N], eps = lab_eps_values[LAB_EPS_COUNT - 1];
    for (int i = 0; i < N; i++) x[i] = noise((unsigned)i + 7u) / 4, weight[i] = 1 + noise((unsigned)i) / 32;
    row_run run = gpu_rmsnorm(x, weight, y, 1, N, eps, 0);
    cr_assert(run.error == NULL, "rmsnorm of 1 row of n = %d: the CUDA error \"%s\"", N, run.error);
    for (int i = 0; i < N; i++) x[i] = noise((unsigned)i + 7u) / 4, weight[i] = 1 + noise((unsigned)i) / 32;
    rmsnorm_reference(x, weight, want, 1, N, eps);   /* from x and weight afresh: see fill_rows */
    lab_comparison result = lab_compare_floats("y", y, want, N, RMSNORM_RELATIVE, TINY);
    cr_assert(result.mismatches == 0, "rmsnorm of 1 row of n = %d, eps = %g: %s", N, (double)eps, result.message);
}

Test(rmsnorm, reads_and_writes, .timeout = 30,
     .description = "Counted: the sum of squares reads the row, the output pass reads it again with the weights "
                    "and writes it: at most 16 n bytes per row (the weights are shared by all rows).")
{
    int count = COUNTED_ROWS * COUNTED_N;
    float *x = malloc(sizeof(float) * count), *y = malloc(sizeof(float) * count), *want = malloc(sizeof(float) * count);
    float *weight = malloc(sizeof(float) * COUNTED_N);
    for (int i = 0; i < COUNTED_N; i++) weight[i] = 1.0f + noise((unsigned)i) / 16;
    for (int i = 0; i < count; i++) x[i] = noise((unsigned)i + 3u);
    row_run run = gpu_rmsnorm(x, weight, y, COUNTED_ROWS, COUNTED_N, 1e-5f, 1);
    cr_assert(run.error == NULL, "rmsnorm: the CUDA error \"%s\"", run.error);
    for (int i = 0; i < COUNTED_N; i++) weight[i] = 1.0f + noise((unsigned)i) / 16;   /* afresh: see fill_rows */
    for (int i = 0; i < count; i++) x[i] = noise((unsigned)i + 3u);
    rmsnorm_reference(x, weight, want, COUNTED_ROWS, COUNTED_N, 1e-5f);
    lab_comparison result = lab_compare_floats("y", y, want, (size_t)count, RMSNORM_RELATIVE, TINY);
    cr_assert(result.mismatches == 0, "rmsnorm is not right yet (%s): its counts mean nothing until it is",
              result.message);
    free(x), free(y), free(want), free(weight);
    if (!run.counted) cr_skip("counted only on the simulator");
    double per_row = (run.global_load_bytes + run.global_store_bytes) / COUNTED_ROWS;
    char what[128];
    snprintf(what, sizeof what, "rmsnorm, global bytes per row of %d floats (%.2f row transfers)", COUNTED_N,
             per_row / (4.0 * COUNTED_N));
    lab_expect_bytes_at_most(what, per_row, 16.0 * COUNTED_N,
                             "The reference reads x twice, the weights once and writes y "
                             "once: is an element loaded twice in one pass?");
}

/* ---------------------------------------------------------------------------------
 * The prediction, held against the count. */

static const int chapter_row_transfers[SOFTMAX_VERSIONS] = {3, 4, 3, 2};   /* reads and the one write */

/* The bytes per row version `version` moved on `rows` rows of n ordinary logits, counted; -1 when
 * the version is not right yet or nothing was counted (a GPU). */
static double counted_bytes_per_row(int version, int rows, int n)
{
    float *x = malloc(sizeof(float) * rows * n), *y = malloc(sizeof(float) * rows * n);
    float *want = malloc(sizeof(float) * rows * n);
    for (int i = 0; i < rows * n; i++) x[i] = noise((unsigned)i * 3u);
    lab_capture_stderr();
    row_run run = gpu_softmax(version, x, y, rows, n, 1);
    char said[1024];
    lab_release_stderr(said, sizeof said);
    for (int i = 0; i < rows * n; i++) x[i] = noise((unsigned)i * 3u);   /* afresh: see fill_rows */
    softmax_reference(x, want, rows, n);
    int right = !run.error &&
                lab_compare_floats("y", y, want, (size_t)rows * n, SOFTMAX_RELATIVE, TINY).mismatches == 0;
    free(x), free(y), free(want);
    return right && run.counted ? (run.global_load_bytes + run.global_store_bytes) / rows : -1;
}

/* What a wrong prediction usually means. */
static const char *prediction_hint(double predicted, double chapter, int transfers, double predicted_twice_as_long)
{
    double row = chapter / transfers;
    if (predicted == 0) return "Nothing predicted yet: the function still returns 0.";
    if (predicted == predicted_twice_as_long)
        return "It predicts the same for rows twice as long: the bytes of a row grow with its length n.";
    if (predicted == row * (transfers - 1)) return "That is the reads alone: the outputs are written too.";
    if (predicted * 4 == chapter) return "That is floats, not bytes: a float is 4 bytes.";
    if (predicted == row * (transfers + 1)) return "One transfer too many: which pass does the chapter's version skip?";
    return "Count the passes that read the row from global memory, and the one that writes it.";
}

Test(prediction, bytes_per_row, .timeout = 30,
     .description = "softmax_predicted_bytes_per_row: before the simulator counts, say what each version moves per "
                    "row, loads and stores, for rows of n floats with n a multiple of 8 (each row on its own "
                    "sectors). Checked at n = 256, 1000 and 2048 against the count of your kernel (version 0's is "
                    "given); where your kernel moved less than the chapter's, the chapter's figure is accepted too.")
{
    static const int predicted_lengths[] = {256, 1000, 2048};
    for (int l = 0; l < 3; l++) {
        int n = predicted_lengths[l];
        for (int v = 0; v < SOFTMAX_VERSIONS; v++) {
            double predicted = softmax_predicted_bytes_per_row(v, n), counted = counted_bytes_per_row(v, 4, n);
            double chapter = chapter_row_transfers[v] * 4.0 * n;   /* after both: see fill_rows */
            char count_text[128] = "your kernel is not right yet, so it was not counted";
            if (counted >= 0)
                snprintf(count_text, sizeof count_text, "the simulator counted %.0f for your kernel", counted);
            int beat = counted >= 0 && counted < chapter;
            cr_assert(predicted == chapter || (beat && predicted == counted), "%s, rows of n = %d floats: predicted "
                      "%.0f bytes per row (%.3f row transfers); %s, and the chapter's version moves %.0f (%d transfers "
                      "of the row's 4 n bytes). %s", version_names[v], n, predicted, predicted / (4.0 * n), count_text,
                      chapter, chapter_row_transfers[v],
                      prediction_hint(predicted, chapter, chapter_row_transfers[v],
                                      softmax_predicted_bytes_per_row(v, 2 * n)));
        }
    }
    cr_assert(softmax_predicted_bytes_per_row(SOFTMAX_VERSIONS, 1024) == -1 &&
              softmax_predicted_bytes_per_row(-1, 1024) == -1, "softmax_predicted_bytes_per_row(%d, 1024) = %g and "
              "(-1, 1024) = %g: want -1 for versions that do not exist", SOFTMAX_VERSIONS,
              softmax_predicted_bytes_per_row(SOFTMAX_VERSIONS, 1024), softmax_predicted_bytes_per_row(-1, 1024));
}

/* ---------------------------------------------------------------------------------
 * The contract of the launches (given): what they refuse, they refuse before launching. */

Test(contract, refuses_without_launching, .timeout = 30,
     .description = "softmax_rows returns cudaErrorInvalidValue, and launches nothing, for a version "
                    "that does not exist and for a one-pass row longer than ONE_PASS_MAX_LENGTH (its kept row would "
                    "not fit the block's shared memory). These lines are given: if this fails, they were changed.")
{
    int long_n = ONE_PASS_MAX_LENGTH + 1;
    float *x = calloc((size_t)long_n, sizeof(float)), *y = malloc(sizeof(float) * long_n);
    struct { int version, n; const char *what; } refused[] = {
        {SOFTMAX_VERSIONS, 64, "version 4, which does not exist"},
        {-1, 64, "version -1"},
        {SOFTMAX_ONE_PASS, long_n, "version 3 on a row of ONE_PASS_MAX_LENGTH + 1 floats"},
    };
    for (int c = 0; c < 3; c++) {
        lab_capture_stderr();
        row_run run = gpu_softmax(refused[c].version, x, y, 1, refused[c].n, 1);
        char said[1024];
        lab_release_stderr(said, sizeof said);
        cr_assert(run.error != NULL, "softmax_rows, %s: it ran without an error; want cudaErrorInvalidValue",
                  refused[c].what);
        cr_assert(!run.counted || run.launches == 0, "softmax_rows, %s: refused, but %d launches were counted: a "
                  "refusal launches nothing", refused[c].what, run.launches);
    }
    free(x), free(y);
}
