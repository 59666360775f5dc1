/* 18-attention-naive.c — the checks for day 18. One head of attention, out = softmax(Q K^T /
 * sqrt(d)) V, agrees with a double-precision reference, with and without the causal mask, for
 * head dimensions 1 to 128 and sequence lengths that are not multiples of the 16 x 16 tile
 * (1, 7, 17, 33, 50, 100): the output (relative 1e-4, absolute 1e-5) and the probabilities the
 * softmax leaves in the score matrix, whose rows must sum to 1 over the keys each query may see
 * (so a mask applied after the softmax is caught), with logits up to about +-300 where an
 * unstable softmax overflows. Nothing is left unwritten or written past the end. Counted on the
 * simulator: three launches; the n x n matrix is stored exactly twice (scores, then the
 * softmax), the softmax kernel moves exactly 16 n^2 bytes (three reads and a write of the
 * matrix), and the global bytes grow by 4x (3.5 to 4.5) each time n doubles from 64 to 256.
 * Every check runs in a few seconds with the reference and has a .timeout of 60 s. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

static const int shapes[][2] = {{1, 1}, {7, 3}, {17, 16}, {33, 64}, {50, 80}, {100, 128}};   /* {n, d} */
enum { SHAPES = 6 };
static const double OUT_RELATIVE = 1e-4, OUT_ABSOLUTE = 1e-5, P_RELATIVE = 1e-4, P_ABSOLUTE = 1e-7;

/* Deterministic inputs in [-1, 1], times `spread` for q and k. */
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
    float *out = malloc(sizeof(float) * n * d), *want = malloc(sizeof(float) * n * d);
    float *p = malloc(sizeof(float) * n * n), *want_p = malloc(sizeof(float) * n * n);
    fill(q, k, v, n, d, spread);
    attention_reference(q, k, v, want, want_p, n, d, causal);
    char said[1024];
    lab_capture_stderr();
    attention_run run = gpu_attention(q, k, v, out, p, n, d, causal, 0);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, kind, n, d, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "%s attention, n = %d, d = %d: %lld floats written past the end of scores or "
              "out (the guard after them changed): does every kernel return when its i, j or c is outside the matrix?",
              kind, n, d, run.written_past_end);
    lab_comparison result = lab_compare_floats("P", p, want_p, (size_t)n * n, p_relative, P_ABSOLUTE);
    cr_assert(result.mismatches == 0, "%s attention, n = %d, d = %d: the score matrix after the softmax (P[i * n + j], "
              "query i's weight on key j, each row summing to 1%s) is wrong: %s", kind, n, d,
              causal ? " over j <= i, 0 for j > i" : "", result.message);
    result = lab_compare_floats("out", out, want, (size_t)n * d, OUT_RELATIVE, OUT_ABSOLUTE);
    cr_assert(result.mismatches == 0, "%s attention, n = %d, d = %d: the probabilities are right but out (out[i * d + c]) "
              "is wrong: %s", kind, n, d, result.message);
    free(q), free(k), free(v), free(out), free(want), free(p), free(want_p);
}

static void check_shapes(int causal, float spread, double p_relative)
{
    for (int s = 0; s < SHAPES; s++) check_shape(shapes[s][0], shapes[s][1], causal, spread, p_relative);
}

#define HINT_SCORES "Kernel 1: scores[i * n + j] = (sum over c of q[i * d + c] * k[j * d + c]) * scale, with i from " \
                    "blockIdx.y and threadIdx.y, j from blockIdx.x and threadIdx.x, and a return when i or j is " \
                    "n or more. Kernel 2 is day 17's three-pass softmax on row blockIdx.x; kernel 3 sums " \
                    "P[i * n + j] * v[j * d + c] over every j."
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

/* ---------------------------------------------------------------------------------
 * Counted on the simulator. */

/* One counted causal run of n x d, checked first. */
static attention_run counted(int n, int d)
{
    float *q = malloc(sizeof(float) * n * d), *k = malloc(sizeof(float) * n * d), *v = malloc(sizeof(float) * n * d);
    float *out = malloc(sizeof(float) * n * d), *want = malloc(sizeof(float) * n * d);
    fill(q, k, v, n, d, 1);
    attention_reference(q, k, v, want, NULL, n, d, 1);
    char said[1024];
    lab_capture_stderr();
    attention_run run = gpu_attention(q, k, v, out, NULL, n, d, 1, 1);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, "causal", n, d, run.error, SIMULATOR_SAID(said));
    lab_comparison result = lab_compare_floats("out", out, want, (size_t)n * d, OUT_RELATIVE, OUT_ABSOLUTE);
    cr_assert(result.mismatches == 0, "causal attention, n = %d, d = %d, is not right yet (%s): its counts mean "
              "nothing until it is; the checks above say what is wrong", n, d, result.message);
    free(q), free(k), free(v), free(out), free(want);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

Test(counted, three_kernels, .timeout = 60,
     .description = "The naive attention is three launches (scores, softmax, weighted sum), given at the bottom of "
                    "attention.cu: leave them as they are.")
{
    attention_run run = counted(64, 64);
    cr_assert(run.launches == 3, "%d kernel launches counted; want 3", run.launches);
}
Test(counted, matrix_stored_twice, .timeout = 60,
     .description = "Counted: kernel 1 stores the n x n scores once (4 n^2 bytes), the softmax stores them once more "
                    "in place, kernel 3 stores out once (4 n d). Neighbouring lanes (threadIdx.x) must write "
                    "neighbouring floats: j, or c, comes from threadIdx.x.")
{
    int n = 64, d = 64;
    attention_run run = counted(n, d);
    double want[3] = {4.0 * n * n, 4.0 * n * n, 4.0 * n * d};
    const char *names[3] = {"kernel 1 (scores)", "kernel 2 (softmax)", "kernel 3 (P V)"};
    for (int i = 0; i < 3; i++)
        cr_assert(run.kernel_store_bytes[i] == want[i], "n = %d, d = %d: %s stored %.0f bytes, counted; want exactly "
                  "%.0f (each output written once, 32 bytes to a sector)", n, d, names[i], run.kernel_store_bytes[i],
                  want[i]);
}
Test(counted, softmax_moves_the_matrix_four_times, .timeout = 60,
     .description = "Counted: the three-pass softmax reads each row three times (max, sum, output) and writes it "
                    "once: 16 n^2 bytes, n = 64. More means an extra pass or a second load of one element.")
{
    int n = 64;
    attention_run run = counted(n, 64);
    double got = run.kernel_load_bytes[1] + run.kernel_store_bytes[1];
    cr_assert(got == 16.0 * n * n, "n = %d: the softmax kernel moved %.0f bytes, counted (%.2f times the matrix's "
              "4 n^2); want exactly %.0f", n, got, got / (4.0 * n * n), 16.0 * n * n);
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
