/* 23-kernel-fusion.c — the checks for day 23. The given unfused chain (bias add, activation,
 * residual add, RMSNorm) is right without an activation and makes one launch per step; with
 * your activate() it is right for SiLU and the exact GELU, also at +-1e4 where a careless SiLU
 * overflows. The fused kernel agrees with a double-precision reference, both outputs h and y
 * (relative 1e-5, plus 1e-5 of the largest output, for the cancellation of residual + v), on
 * rows of lengths that are not multiples of the block (1, 7, 31, 32, 33, 100, 255, 257, 1000,
 * 4097), with each activation, values near +-1e4, a row whose h is exactly zero, one row alone,
 * the longest row that fits, and rows whose mean square is about eps for four eps values; it
 * agrees with the unfused chain to 1e-6; nothing is left unwritten or written past the end.
 * Counted on the simulator, for 8 rows of 1024 floats: the fused kernel is one launch, the global
 * bytes fall by the chapter's factor, 12 / 6 row transfers with an activation and 10 / 6 without,
 * within 5 %, and your predicted_row_transfers agrees with the counts. Every check has a .timeout. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"
#include "robust.h"

static const int lengths[] = {1, 7, 31, 32, 33, 100, 255, 257, 1000, 4097};
enum { LENGTHS = 10, ROWS = 4, COUNTED_N = 1024, COUNTED_ROWS = 8 };
static const double RELATIVE = 1e-5, EPS = 1e-5;
static const char *activation_names[] = {"no activation", "SiLU", "GELU"};

/* ---------------------------------------------------------------------------------
 * Inputs and outputs of one run. */

typedef enum input_kind { ORDINARY, NEAR_1E4, ZERO_ROW } input_kind;
static const char *kind_names[] = {"x in [-3, 3], residual in [-2, 2]", "x up to +-1e4, residual up to +-1e3",
                                   "row 1's residual = -(x + bias), so its h is exactly 0"};

static float noise(unsigned i) { return (float)(((i * 2654435761u) >> 8) % 16001) / 8000.0f - 1.0f; }   /* [-1, 1] */

typedef struct chain_case {
    chain_inputs in;
    input_kind kind;
    float scale;   /* of x, residual and bias: 1, but for make_eps_case */
    float *x, *residual, *bias, *weight, *h, *y, *want_h, *want_y;   /* want_*: by expected_outputs, after a run */
} chain_case;

/* A case's inputs, from their formulas: make_case fills them before the run, expected_outputs afresh
 * after it. */
static void fill_inputs(const chain_case *c, float *x, float *residual, float *bias, float *weight)
{
    int rows = c->in.rows, n = c->in.n;
    size_t count = (size_t)rows * n;
    for (int i = 0; i < n; i++) bias[i] = noise((unsigned)i + 5u) / 2, weight[i] = 1 + noise((unsigned)i + 9u) / 2;
    for (size_t k = 0; k < count; k++) {
        float value = 3 * noise((unsigned)k + 101u), added = 2 * noise((unsigned)k * 7u + 3u);
        if (c->kind == NEAR_1E4) value *= 3333, added *= 500;
        x[k] = value, residual[k] = added;
    }
    if (c->kind == ZERO_ROW && rows > 1) {   /* multiples of 1/256: x + bias is exact, so residual cancels it exactly */
        for (int i = 0; i < n; i++) bias[i] = roundf(bias[i] * 256) / 256;
        for (int i = 0; i < n; i++) {
            x[n + i] = roundf(x[n + i] * 256) / 256;
            residual[n + i] = -(x[n + i] + bias[i]);
        }
    }
    for (size_t k = 0; k < count; k++) x[k] *= c->scale, residual[k] *= c->scale;
    for (int i = 0; i < n; i++) bias[i] *= c->scale;
}

static chain_case make_case(int rows, int n, int activation, input_kind kind)
{
    chain_case c;
    size_t count = (size_t)rows * n;
    c.kind = kind, c.scale = 1;
    c.x = malloc(sizeof(float) * count), c.residual = malloc(sizeof(float) * count);
    c.h = malloc(sizeof(float) * count), c.y = malloc(sizeof(float) * count);
    c.want_h = NULL, c.want_y = NULL;
    c.bias = malloc(sizeof(float) * n), c.weight = malloc(sizeof(float) * n);
    c.in = (chain_inputs){c.x, c.residual, c.bias, c.weight, rows, n, activation, (float)EPS};
    fill_inputs(&c, c.x, c.residual, c.bias, c.weight);
    return c;
}

/* What h and y must hold, computed after the code under test has returned, by chain_reference on inputs
 * made afresh (fill_inputs), not on the arrays it was given: while it runs there is no answer in memory
 * to copy. */
static void expected_outputs(chain_case *c)
{
    int n = c->in.n;
    size_t count = (size_t)c->in.rows * n;
    float *x = malloc(sizeof(float) * count), *residual = malloc(sizeof(float) * count);
    float *bias = malloc(sizeof(float) * n), *weight = malloc(sizeof(float) * n);
    cr_assert(x && residual && bias && weight, "out of memory");
    fill_inputs(c, x, residual, bias, weight);
    chain_inputs in = c->in;
    in.x = x, in.residual = residual, in.bias = bias, in.weight = weight;
    free(c->want_h), free(c->want_y);
    c->want_h = malloc(sizeof(float) * count), c->want_y = malloc(sizeof(float) * count);
    cr_assert(c->want_h && c->want_y, "out of memory");
    chain_reference(&in, c->want_h, c->want_y);
    free(x), free(residual), free(bias), free(weight);
}

static void free_case(chain_case *c)
{
    free(c->x), free(c->residual), free(c->bias), free(c->weight);
    free(c->h), free(c->y), free(c->want_h), free(c->want_y);
}

static double largest(const float *values, size_t count)
{
    double most = 0;
    for (size_t i = 0; i < count; i++) most = fmax(most, fabs(values[i]));
    return most;
}

#define FAILED_RUN "%s, %s, %d rows of n = %d: the run ended with the CUDA error \"%s\".%s%s"
static const char *variant_names[] = {"the unfused chain", "the fused kernel"};

/* Runs one variant on one case and checks h and y against the reference. */
static void check_case(int fused, chain_case *c, const char *kind_name)
{
    int rows = c->in.rows, n = c->in.n;
    const char *variant = variant_names[fused], *activation = activation_names[c->in.activation];
    size_t count = (size_t)rows * n;
    char said[1024];
    lab_capture_stderr();
    chain_run run = gpu_chain(fused, &c->in, c->h, c->y, 0);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, variant, activation, rows, n, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "%s, %s, %d rows of n = %d: %lld floats written past the end of h or y",
              variant, activation, rows, n, run.written_past_end);
    expected_outputs(c);
    lab_comparison result = lab_compare_floats("h", c->h, c->want_h, count, RELATIVE, RELATIVE * largest(c->want_h, count));
    cr_assert(result.mismatches == 0, "%s, %s, %d rows of n = %d (h[r * n + i] is row r's element i), %s: the "
              "residual stream h = residual + activation(x + bias) is wrong: %s", variant, activation, rows, n,
              kind_name, result.message);
    result = lab_compare_floats("y", c->y, c->want_y, count, RELATIVE, RELATIVE * largest(c->want_y, count));
    cr_assert(result.mismatches == 0, "%s, %s, %d rows of n = %d, %s: h is right, the normalised y is not: %s",
              variant, activation, rows, n, kind_name, result.message);
}

static void check_lengths(int fused, int activation, input_kind kind)
{
    for (int l = 0; l < LENGTHS; l++) {
        chain_case c = make_case(ROWS, lengths[l], activation, kind);
        check_case(fused, &c, kind_names[kind]);
        free_case(&c);
    }
}

/* Both variants on 8 rows of 1024 floats, counted. */
static void counted_pair(int activation, chain_run runs[2])
{
    for (int fused = 0; fused < 2; fused++) {
        chain_case c = make_case(COUNTED_ROWS, COUNTED_N, activation, ORDINARY);
        runs[fused] = gpu_chain(fused, &c.in, c.h, c.y, 1);
        cr_assert(runs[fused].error == NULL, "%s, %s: the CUDA error \"%s\"", variant_names[fused],
                  activation_names[activation], runs[fused].error);
        size_t count = (size_t)COUNTED_ROWS * COUNTED_N;
        expected_outputs(&c);
        lab_comparison h = lab_compare_floats("h", c.h, c.want_h, count, RELATIVE, RELATIVE * largest(c.want_h, count));
        lab_comparison y = lab_compare_floats("y", c.y, c.want_y, count, RELATIVE, RELATIVE * largest(c.want_y, count));
        cr_assert(h.mismatches == 0 && y.mismatches == 0, "%s, %s, is not right yet (%s): its counts mean nothing "
                  "until it is", variant_names[fused], activation_names[activation],
                  h.mismatches ? h.message : y.message);
        free_case(&c);
    }
    if (!runs[0].counted) cr_skip("counted only on the simulator");
}

static void check_factor(int activation, double unfused_transfers)
{
    chain_run runs[2];
    counted_pair(activation, runs);
    double row_bytes = 4.0 * COUNTED_N;
    double unfused = (runs[0].global_load_bytes + runs[0].global_store_bytes) / COUNTED_ROWS / row_bytes;
    double fused = (runs[1].global_load_bytes + runs[1].global_store_bytes) / COUNTED_ROWS / row_bytes;
    double predicted = unfused_transfers / 6, counted = unfused / fused;
    cr_assert(fabs(counted / predicted - 1) <= 0.05, "%s, %d rows of %d floats, counted: the unfused chain moves "
              "%.2f row transfers per row (%.2f loaded, %.2f stored), the fused kernel %.2f (%.2f loaded, %.2f "
              "stored): %.3f times fewer; the chapter predicts %.0f / 6 = %.3f. The fused kernel should read x, bias, "
              "residual and weight once and store h and y once: 4 loads and 2 stores per row.",
              activation_names[activation], COUNTED_ROWS, COUNTED_N, unfused,
              runs[0].global_load_bytes / COUNTED_ROWS / row_bytes,
              runs[0].global_store_bytes / COUNTED_ROWS / row_bytes,
              fused, runs[1].global_load_bytes / COUNTED_ROWS / row_bytes,
              runs[1].global_store_bytes / COUNTED_ROWS / row_bytes, counted, unfused_transfers, predicted);
}

/* ---------------------------------------------------------------------------------
 * The given chain, and your activation through it. */

#define HINT_GIVEN "The unfused chain is given: if it fails without an activation, the driver or the simulator is " \
                   "broken, or fused.cu was edited outside its TODOs (make reset DAY=23 restores it; your file is " \
                   "backed up)."
Test(unfused, without_activation, .timeout = 30, .description = HINT_GIVEN)
{
    check_lengths(0, ACTIVATION_NONE, ORDINARY);
}
Test(unfused, one_launch_per_step, .timeout = 30,
     .description = "Counted: bias add, activation, residual add and RMSNorm are four launches; without an "
                    "activation, three. " HINT_GIVEN)
{
    for (int activation = ACTIVATION_NONE; activation <= ACTIVATION_SILU; activation++) {
        chain_case c = make_case(2, 64, activation, ORDINARY);
        chain_run run = gpu_chain(0, &c.in, c.h, c.y, 1);
        free_case(&c);
        cr_assert(run.error == NULL, "the unfused chain: the CUDA error \"%s\"", run.error);
        if (!run.counted) cr_skip("counted only on the simulator");
        int want = activation == ACTIVATION_NONE ? 3 : 4;
        cr_assert(run.launches == want, "the unfused chain, %s: %d launches counted, want %d",
                  activation_names[activation], run.launches, want);
    }
}

#define HINT_ACTIVATION "activate(): SiLU(v) = v / (1 + expf(-v)), v times the sigmoid of v; GELU(v) = 0.5f * v * " \
                        "(1 + erff(v / sqrt 2)), with 1/sqrt 2 = 0.70710678f. The unfused chain calls your " \
                        "activate(), so these checks test it before the fused kernel does."
Test(activation, silu, .timeout = 30, .description = HINT_ACTIVATION) { check_lengths(0, ACTIVATION_SILU, ORDINARY); }
Test(activation, gelu, .timeout = 30, .description = HINT_ACTIVATION) { check_lengths(0, ACTIVATION_GELU, ORDINARY); }
Test(activation, large_inputs, .timeout = 30,
     .description = "At v = 1e4, expf(v) is infinite: v * expf(v) / (1 + expf(v)) is inf / inf = NaN, while "
                    "v / (1 + expf(-v)) is v / 1 = v; at v = -1e4 it is v / inf = -0, as it should be.")
{
    for (int activation = ACTIVATION_SILU; activation <= ACTIVATION_GELU; activation++) {
        chain_case c = make_case(ROWS, 1000, activation, NEAR_1E4);
        check_case(0, &c, kind_names[NEAR_1E4]);
        free_case(&c);
    }
}

/* ---------------------------------------------------------------------------------
 * The fused kernel. */

#define HINT_FUSED "Fused: one block per row; each thread strides over i = threadIdx.x, + blockDim.x, ... below n. " \
                   "Pass 1: value = residual + activate(x + bias); store it to h and to kept[i]; sum its square. " \
                   "block_sum, mean over n, scale = 1 / sqrtf(mean + eps). Pass 2: y = kept[i] * scale * weight[i]."
Test(fused, without_activation, .timeout = 30, .description = HINT_FUSED)
{
    check_lengths(1, ACTIVATION_NONE, ORDINARY);
}
Test(fused, silu, .timeout = 30, .description = HINT_FUSED) { check_lengths(1, ACTIVATION_SILU, ORDINARY); }
Test(fused, gelu, .timeout = 30, .description = HINT_FUSED) { check_lengths(1, ACTIVATION_GELU, ORDINARY); }
Test(fused, large_values, .timeout = 30,
     .description = "x up to +-1e4: squares up to 1e8, their sum over 4097 elements below 1e12, far from float's "
                    "3e38. An activation that overflows shows here.")
{
    check_lengths(1, ACTIVATION_SILU, NEAR_1E4);
}
Test(fused, zero_row_stays_finite, .timeout = 30,
     .description = "A row whose h is exactly 0: 0 / sqrt(0 + eps) = 0. The norm is of h, after the residual add; "
                    "normalising x + bias and adding the residual afterwards gives a different, nonzero row.")
{
    check_lengths(1, ACTIVATION_NONE, ZERO_ROW);
}
/* A case whose rows are scaled so that mean(h^2) is about eps (h up to about 2 sqrt(eps)), with the
 * eps given: where eps is as large as the mean square, where it is added decides y. */
static chain_case make_eps_case(int n, float eps, int activation)
{
    chain_case c = make_case(ROWS, n, activation, ORDINARY);
    c.scale = sqrtf(eps / 4.4f);   /* an ORDINARY row's mean(h^2) is about 4.4 */
    c.in.eps = eps;
    fill_inputs(&c, c.x, c.residual, c.bias, c.weight);
    return c;
}

Test(fused, eps_where_it_matters, .timeout = 60,
     .description = "Rows whose mean square is about eps, for each of the eps values 1e-5, 1e-6, 1e-2 and 0.5 "
                    "(passed in, never a constant): y = h / sqrt(mean(h^2) + eps) * weight. eps added to the root "
                    "(sqrt(mean) + eps), to n (sum / (n + eps)) or after the reciprocal root (rsqrt(mean) + eps) "
                    "agrees where eps is small beside the mean square, and is off by up to 2x here.")
{
    const int eps_lengths[] = {7, 100, 1000};
    for (int e = 0; e < LAB_EPS_COUNT; e++)
        for (int l = 0; l < 3; l++) {
            chain_case c = make_eps_case(eps_lengths[l], lab_eps_values[e], l == 1 ? ACTIVATION_NONE : ACTIVATION_SILU);
            char kind[160];
            snprintf(kind, sizeof kind, "eps = %g and rows scaled so that mean(h^2) is about eps: y = h / "
                     "sqrt(mean(h^2) + eps) * weight, eps inside the root, beside the mean", (double)lab_eps_values[e]);
            check_case(1, &c, kind);
            free_case(&c);
        }
}

Test(fused, one_row, .timeout = 30, .description = "One row, a decode step of batch 1: a grid of a single block.")
{
    chain_case c = make_case(1, 33, ACTIVATION_GELU, ORDINARY);
    check_case(1, &c, kind_names[ORDINARY]);
    free_case(&c);
}
Test(fused, longest_row, .timeout = 30,
     .description = "kept[] is n floats of dynamic shared memory (the launch's third parameter): a row of "
                    "FUSED_MAX_HIDDEN = 12256 floats fills the 48 KiB a block gets by default, with partial[32].")
{
    chain_case c = make_case(1, FUSED_MAX_HIDDEN, ACTIVATION_SILU, ORDINARY);
    check_case(1, &c, kind_names[ORDINARY]);
    free_case(&c);
}
Test(fused, equals_the_unfused_chain, .timeout = 30,
     .description = "The same arithmetic in the same order: each element's x + bias, activation and residual add "
                    "round alike, and each thread sums the same squares. The fused outputs should equal the "
                    "chain's to float rounding (1e-6); more means a step is done differently.")
{
    chain_case c = make_case(8, 4096, ACTIVATION_SILU, ORDINARY);
    size_t count = (size_t)8 * 4096;
    float *chain_h = malloc(sizeof(float) * count), *chain_y = malloc(sizeof(float) * count);
    /* the fused kernel first: the chain's outputs, what it is held to, are not in memory while it runs */
    chain_run fused = gpu_chain(1, &c.in, c.h, c.y, 0), unfused = gpu_chain(0, &c.in, chain_h, chain_y, 0);
    cr_assert(unfused.error == NULL && fused.error == NULL, "the CUDA error \"%s\"",
              unfused.error ? unfused.error : fused.error);
    lab_comparison h = lab_compare_floats("h", c.h, chain_h, count, 1e-6, 1e-6 * largest(chain_h, count));
    cr_assert(h.mismatches == 0, "fused h against the unfused chain's h, 8 rows of 4096, SiLU: %s", h.message);
    lab_comparison y = lab_compare_floats("y", c.y, chain_y, count, 1e-6, 1e-6 * largest(chain_y, count));
    cr_assert(y.mismatches == 0, "fused y against the unfused chain's y, 8 rows of 4096, SiLU: %s", y.message);
    free(chain_h), free(chain_y);
    free_case(&c);
}
Test(fused, one_launch, .timeout = 30,
     .description = "Counted: the fused chain is one kernel launch, whatever the activation.")
{
    chain_run runs[2];
    counted_pair(ACTIVATION_GELU, runs);
    cr_assert(runs[1].launches == 1, "the fused kernel: %d launches counted, want 1", runs[1].launches);
}
Test(fused, bytes_fall_by_the_predicted_factor, .timeout = 30,
     .description = "Counted: with an activation the chain moves 12 row transfers per row (3 + 2 + 3 + 4), the "
                    "fused kernel 6 (x, bias, residual, weight in; h, y out): 2x fewer bytes, within 5 %. More "
                    "bytes in the fused kernel mean h is read back from global memory, recomputed from the "
                    "inputs, or an intermediate is stored.")
{
    check_factor(ACTIVATION_SILU, 12);
}
Test(fused, bytes_fall_without_activation, .timeout = 30,
     .description = "Counted: without an activation the chain is 10 row transfers (3 + 3 + 4) and the fused "
                    "kernel still 6: 10 / 6 = 1.67x fewer bytes, within 5 %.")
{
    check_factor(ACTIVATION_NONE, 10);
}
Test(fused, predicted_row_transfers, .timeout = 60,
     .description = "Your predicted_row_transfers, made by reading the kernels, against the simulator's counts for "
                    "8 rows of 1024 floats: loads plus stores per row, in rows of n floats, within 5 %, for the chain "
                    "and the fused kernel, with and without an activation; -1 for an activation that does not exist.")
{
    cr_assert(predicted_row_transfers(0, ACTIVATIONS) == -1 && predicted_row_transfers(1, -1) == -1,
              "predicted_row_transfers(0, ACTIVATIONS) = %d and (1, -1) = %d; want -1 for an activation that does not "
              "exist", predicted_row_transfers(0, ACTIVATIONS), predicted_row_transfers(1, -1));
    const int activations[2] = {ACTIVATION_NONE, ACTIVATION_SILU};
    int predictions[2][2];   /* all made before anything is counted: no count is in memory while it predicts */
    for (int a = 0; a < 2; a++)
        for (int fused = 0; fused < 2; fused++) predictions[a][fused] = predicted_row_transfers(fused, activations[a]);
    for (int a = 0; a < 2; a++) {
        chain_run runs[2];
        counted_pair(activations[a], runs);
        for (int fused = 0; fused < 2; fused++) {
            int predicted = predictions[a][fused];
            double counted = (runs[fused].global_load_bytes + runs[fused].global_store_bytes) / COUNTED_ROWS /
                             (4.0 * COUNTED_N);
            cr_assert(predicted > 0 && fabs(counted / predicted - 1) <= 0.05, "%s, %s: you predicted %d row transfers "
                      "per row, the simulator counted %.2f (%.2f loaded, %.2f stored). Count, kernel by kernel, each "
                      "row of n floats read from or written to global memory (a row read twice counts twice)%s",
                      variant_names[fused], activation_names[activations[a]], predicted, counted,
                      runs[fused].global_load_bytes / COUNTED_ROWS / (4.0 * COUNTED_N),
                      runs[fused].global_store_bytes / COUNTED_ROWS / (4.0 * COUNTED_N),
                      predicted == 0 ? ": still 0, is it written yet?" : ".");
        }
    }
}

Test(fused, rejects_what_does_not_fit, .timeout = 10,
     .description = "Given launcher: n above FUSED_MAX_HIDDEN would overflow the 48 KiB of shared memory, and an "
                    "unknown activation is an error: both return cudaErrorInvalidValue without launching.")
{
    cr_assert(chain_fused(NULL, NULL, NULL, NULL, NULL, NULL, 1, FUSED_MAX_HIDDEN + 1, 1e-5f, 0) ==
              cudaErrorInvalidValue, "chain_fused with n = FUSED_MAX_HIDDEN + 1 should return cudaErrorInvalidValue");
    cr_assert(chain_fused(NULL, NULL, NULL, NULL, NULL, NULL, 1, 64, 1e-5f, ACTIVATIONS) == cudaErrorInvalidValue,
              "chain_fused with activation %d should return cudaErrorInvalidValue", ACTIVATIONS);
}
