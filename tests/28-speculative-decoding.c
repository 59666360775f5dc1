/* 28-speculative-decoding.c — the checks for day 28, in the order of lab.h: the acceptance rate by
 * hand; the verification step on rows where its answer is certain (identical rows keep every draft
 * token, a token the target never emits is always rejected, one-hot rows are greedy decoding);
 * then the property that makes speculative decoding exact, measured: hundreds of thousands of calls
 * of your verify_draft, whose tokens at every position must be distributed as the target's row
 * (a chi-square test, fixed seeds, failing only below a p-value of 1e-6: the solution's lowest is
 * 0.12; the planted mistakes give p-values below 1e-77, or thousands of tokens the target never
 * emits); the mean number of tokens a call emits against
 * (1 - alpha^(gamma+1)) / (1 - alpha), within 6 standard errors; the formulas by hand; the draft's
 * cost ratio with its launch floor, and the best draft length, on the chapter's H200 pair; and last the
 * toy Llama, where greedy speculative decoding with either of two drafts must give exactly the
 * tokens of plain greedy decoding, and sampling with an INT8 draft must save target calls. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "robust.h"

enum { V = 8, MAX_GAMMA = 8 };
static char error[512];

/* the rows the driver prints (section 1): alpha = 0.65; token 4 only through the residual, token 7
 * proposed by the draft but never the target's */
static const float p_hand[V] = {0.30f, 0.25f, 0.15f, 0.10f, 0.10f, 0.05f, 0.05f, 0.00f};
static const float q_hand[V] = {0.10f, 0.40f, 0.15f, 0.05f, 0.00f, 0.05f, 0.05f, 0.20f};

static void expect_near(const char *call, double got, double want, double tolerance, const char *idea)
{
    cr_assert(fabs(got - want) <= tolerance, "%s = %.9g, want %.9g%s. %s", call, got, want,
              got == 0 && want != 0 ? " (still 0: is it written yet?)" : isnan(got) ? " (NaN)" : "", idea);
}

/* ---------------------------------------------------------------------------------
 * The acceptance rate */

Test(acceptance, hand_counted, .timeout = 10,
     .description = "alpha = sum over the vocabulary of min(p, q): the mass the two rows share.")
{
    expect_near("acceptance_rate(p, q) of the driver's rows", acceptance_rate(p_hand, q_hand, V), 0.65, 1e-6,
                "By hand: 0.10 + 0.25 + 0.15 + 0.05 + 0 + 0.05 + 0.05 + 0 = 0.65, the smaller of the two per token.");
    expect_near("acceptance_rate(p, p)", acceptance_rate(p_hand, p_hand, V), 1.0, 1e-6,
                "A draft equal to the target is always accepted.");
    const float a[4] = {0.5f, 0.5f, 0, 0}, b[4] = {0, 0, 0.25f, 0.75f};
    expect_near("acceptance_rate of rows with no token in common", acceptance_rate(a, b, 4), 0.0, 1e-9,
                "Nothing shared, nothing accepted.");
}

Test(acceptance, a_real_vocabulary, .timeout = 10,
     .description = "Llama 3's 128 256 tokens, p = q uniform: alpha = 1 within 1e-6. A float running sum of 128 256 "
                    "terms of 7.8e-6 drifts by far more; sum in double.")
{
    enum { LLAMA3_VOCAB = 128256 };
    float *row = malloc(sizeof(float) * LLAMA3_VOCAB);
    cr_assert(row != NULL);
    for (int i = 0; i < LLAMA3_VOCAB; i++) row[i] = 1.0f / LLAMA3_VOCAB;
    double alpha = acceptance_rate(row, row, LLAMA3_VOCAB);
    free(row);
    expect_near("acceptance_rate(p, p) over 128 256 tokens", alpha, 1.0, 1e-6,
                "Identical rows share all their mass. Is the sum kept in a float? Over a vocabulary this long each "
                "addition rounds to the sum's precision, 6e-8, and the errors pile up.");
}

/* ---------------------------------------------------------------------------------
 * The verification step where the answer is certain */

/* What a check expects exists only once the code under test has returned: a constant written in the check, or
 * computed from inputs that code must have left as they were (fingerprint, before and after: a draft rewritten
 * to match what was emitted is caught); never held in a local it could read off its caller's stack. */
/* gamma draft tokens drawn from the draft rows, then one verify_draft */
static int one_call(const float *p_rows, const float *q_rows, int gamma, int vocab, uint64_t *rng, int *draft, int *out)
{
    float residual[64];
    for (int i = 0; i < gamma; i++) draft[i] = sample_from(q_rows + i * vocab, vocab, llama_random_unit(rng));
    for (int i = 0; i <= gamma; i++) out[i] = -1;
    uint64_t inputs = lab_fingerprint(draft, sizeof *draft * (size_t)gamma, 1);
    int emitted = verify_draft(p_rows, q_rows, draft, gamma, vocab, rng, residual, out);
    cr_assert(lab_fingerprint(draft, sizeof *draft * (size_t)gamma, 1) == inputs,
              "verify_draft with gamma = %d changed the draft tokens it was given: it only reads them", gamma);
    cr_assert(emitted >= 1 && emitted <= gamma + 1, "verify_draft with gamma = %d returned %d: it emits 1 to gamma + 1 "
              "tokens (the kept prefix of the draft, then one of the target's)%s", gamma, emitted,
              emitted == 0 && gamma == 0 ? "; with no draft the one token is drawn from target row 0, as the bonus is "
                                           "(or is verify_draft not written yet?)"
              : emitted == 0 ? "; 0: is it written yet?"
              : emitted == gamma ? "; all kept, the bonus token from the target's row gamma is missing" : "");
    for (int i = 0; i < emitted; i++)
        cr_assert(out[i] >= 0 && out[i] < vocab, "verify_draft returned %d but out[%d] = %d, not a token of the "
                  "vocabulary 0 .. %d", emitted, i, out[i], vocab - 1);
    return emitted;
}

static void repeat(const float *p, const float *q, int rows, float *p_rows, float *q_rows)
{
    for (int i = 0; i < rows; i++) memcpy(p_rows + i * V, p, sizeof(float) * V), memcpy(q_rows + i * V, q, sizeof(float) * V);
}

Test(verify, identical_rows_keep_every_draft_token, .timeout = 10,
     .description = "When q = p the ratio p/q is 1 everywhere: every draft token is kept, and the call emits gamma + 1 "
                    "(the bonus token from the target's last row).")
{
    float p_rows[(MAX_GAMMA + 1) * V], q_rows[(MAX_GAMMA + 1) * V];
    repeat(p_hand, p_hand, MAX_GAMMA + 1, p_rows, q_rows);
    uint64_t rng = llama_seed_generator(1);
    int draft[MAX_GAMMA + 1], out[MAX_GAMMA + 1];
    for (int gamma = 1; gamma <= MAX_GAMMA; gamma++)
        for (int k = 0; k < 200; k++) {
            int emitted = one_call(p_rows, q_rows, gamma, V, &rng, draft, out);
            cr_assert(emitted == gamma + 1, "p = q, gamma = %d: verify_draft emitted %d tokens, want %d (each accepted "
                      "with probability min(1, p/q) = 1, then the bonus)", gamma, emitted, gamma + 1);
            for (int i = 0; i < gamma; i++)
                cr_assert(out[i] == draft[i], "p = q: out[%d] = %d, but the draft token %d was accepted and must be "
                          "emitted as it is", i, out[i], draft[i]);
            cr_assert(p_hand[out[gamma]] > 0, "the bonus token %d has target probability 0: draw it from the target's "
                      "row gamma", out[gamma]);
        }
}

Test(verify, a_token_the_target_never_emits_is_rejected, .timeout = 10,
     .description = "A draft token with p = 0 is accepted with probability min(1, 0/q) = 0: the call stops there and "
                    "emits a token of max(0, p - q) instead, never one the target cannot emit.")
{
    float p_rows[2 * V], q_rows[2 * V];
    repeat(p_hand, q_hand, 2, p_rows, q_rows);
    uint64_t rng = llama_seed_generator(2);
    int draft[2] = {7}, out[2];
    float residual[V + 4];   /* V floats of scratch, then a guard verify_draft must leave alone */
    for (int k = 0; k < 2000; k++) {
        out[0] = out[1] = -1;
        for (int g = V; g < V + 4; g++) residual[g] = 12345.0f;
        int emitted = verify_draft(p_rows, q_rows, draft, 1, V, &rng, residual, out);
        for (int g = V; g < V + 4; g++)
            cr_assert(residual[g] == 12345.0f, "verify_draft wrote residual[%d], past its %d floats", g, V);
        cr_assert(emitted == 1, "draft token 7 (p = 0, q = 0.2): verify_draft emitted %d tokens, want 1 (rejected, "
                  "then one token drawn from max(0, p - q))", emitted);
        cr_assert(out[0] == 0 || out[0] == 3 || out[0] == 4, "after rejecting token 7 verify_draft emitted %d; "
                  "max(0, p - q) is nonzero only for tokens 0, 3 and 4 (0.20, 0.05, 0.10)", out[0]);
    }
}

Test(verify, one_hot_rows_are_greedy_decoding, .timeout = 10,
     .description = "Temperature 0 makes every row one-hot: a draft token equal to the target's argmax is kept, the "
                    "first one that differs is replaced by the target's argmax, and nothing after it is emitted.")
{
    enum { G = 4 };
    const int target_argmax[G + 1] = {3, 5, 1, 6, 2}, draft_argmax[G] = {3, 5, 0, 6};
    float p_rows[(G + 1) * V] = {0}, q_rows[G * V] = {0};
    for (int i = 0; i <= G; i++) p_rows[i * V + target_argmax[i]] = 1;
    for (int i = 0; i < G; i++) q_rows[i * V + draft_argmax[i]] = 1;
    uint64_t rng = llama_seed_generator(3);
    int out[G + 1];
    float residual[V];
    for (int k = 0; k < 100; k++) {
        for (int i = 0; i <= G; i++) out[i] = -1;
        int emitted = verify_draft(p_rows, q_rows, draft_argmax, G, V, &rng, residual, out);
        cr_assert(emitted >= 1 && emitted <= G + 1, "greedy rows, gamma = %d: verify_draft returned %d; it emits 1 to "
                  "gamma + 1 tokens", G, emitted);
        cr_assert(emitted == 3 && out[0] == 3 && out[1] == 5 && out[2] == 1,
                  "greedy rows: target argmaxes 3 5 1 6 2, draft 3 5 0 6: want 3 tokens, 3 5 1 (two kept, the third "
                  "replaced by the target's 1); got %d tokens starting %d %d %d", emitted, out[0], out[1], out[2]);
    }
    int all[G] = {3, 5, 1, 6};
    for (int i = 0; i < G; i++) memset(q_rows + i * V, 0, sizeof(float) * V), q_rows[i * V + all[i]] = 1;
    for (int i = 0; i <= G; i++) out[i] = -1;
    int emitted = verify_draft(p_rows, q_rows, all, G, V, &rng, residual, out);
    cr_assert(emitted == G + 1 && out[G] == 2, "greedy rows, the draft equal to the target: want all 4 kept and the "
              "bonus token 2 (the argmax of the target's row 4); got %d tokens, the last %d", emitted, out[emitted - 1]);
}

/* ---------------------------------------------------------------------------------
 * The output is distributed as the target's: a chi-square test */

/* the regularized upper incomplete gamma function Q(a, x) (Numerical Recipes' gammq) */
static double upper_gamma_q(double a, double x)
{
    if (x <= 0) return 1;
    double log_prefix = -x + a * log(x) - lgamma(a);
    if (x < a + 1) {   /* series for P */
        double term = 1 / a, sum = term;
        for (int n = 1; n < 1000 && fabs(term) > fabs(sum) * 1e-15; n++) term *= x / (a + n), sum += term;
        return 1 - sum * exp(log_prefix);
    }
    double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;   /* continued fraction for Q (Lentz) */
    for (int i = 1; i < 1000; i++) {
        double an = -i * (i - a);
        b += 2, d = an * d + b, c = b + an / c;
        if (fabs(d) < 1e-300) d = 1e-300;
        if (fabs(c) < 1e-300) c = 1e-300;
        d = 1 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1) < 1e-15) break;
    }
    return exp(log_prefix) * h;
}

/* Counts against a row of probabilities: a token of probability 0 must never appear; the others
 * give a chi-square statistic, whose p-value must exceed 1e-6. */
static void expect_distributed_as(const long *counts, const float *p, long total, const char *what)
{
    char table[512];
    int at = 0;
    for (int v = 0; v < V; v++)
        at += snprintf(table + at, sizeof table - (size_t)at, " %d: %.4f/%.4f", v, (double)counts[v] / (double)total, p[v]);
    double chi = 0;
    int bins = 0;
    for (int v = 0; v < V; v++) {
        if (p[v] == 0) {
            cr_assert(counts[v] == 0, "%s: token %d has target probability 0 but came out %ld times in %ld. Frequency/"
                      "target per token:%s", what, v, counts[v], total, table);
            continue;
        }
        double expected = p[v] * (double)total;
        chi += (counts[v] - expected) * (counts[v] - expected) / expected, bins++;
    }
    double p_value = upper_gamma_q((bins - 1) / 2.0, chi / 2);
    cr_assert(p_value > 1e-6, "%s are not distributed as the target's row: chi-square %.1f on %d degrees of freedom, "
              "p-value %.2g (below 1e-6: not chance). Frequency/target per token:%s", what, chi, bins - 1, p_value, table);
}

Test(distribution, gamma_0_is_sampling_the_target, .timeout = 20,
     .description = "With no draft token, verify_draft draws its one token from the target's row 0: 200 000 draws, "
                    "their frequencies against p (chi-square).")
{
    enum { N = 200000 };
    uint64_t rng = llama_seed_generator(4);
    long counts[V] = {0};
    int out[1];
    for (long k = 0; k < N; k++) counts[one_call(p_hand, q_hand, 0, V, &rng, NULL, out) ? out[0] : 0]++;
    expect_distributed_as(counts, p_hand, N, "gamma = 0: the tokens verify_draft emits");
}

Test(distribution, first_token_is_the_targets, .timeout = 20,
     .description = "gamma = 1, a draft token from q, then your verification: accepted with min(1, p/q), else redrawn "
                    "from norm(max(0, p - q)). The first token out must be distributed as p, not q (200 000 calls).")
{
    enum { N = 200000 };
    uint64_t rng = llama_seed_generator(5);
    long counts[V] = {0};
    int draft[1], out[2];
    float p_rows[2 * V], q_rows[2 * V];
    repeat(p_hand, q_hand, 2, p_rows, q_rows);
    for (long k = 0; k < N; k++) {
        one_call(p_rows, q_rows, 1, V, &rng, draft, out);
        counts[out[0]]++;
    }
    expect_distributed_as(counts, p_hand, N, "gamma = 1: the first tokens verify_draft emits");
}

/* four different (p, q) rows: row i's token must follow p_i at every position, the bonus too */
static const float p_rows4[4 * V] = {
    0.30f, 0.25f, 0.15f, 0.10f, 0.10f, 0.05f, 0.05f, 0.00f,
    0.05f, 0.05f, 0.10f, 0.40f, 0.00f, 0.20f, 0.10f, 0.10f,
    0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f,
    0.00f, 0.50f, 0.00f, 0.20f, 0.10f, 0.00f, 0.10f, 0.10f,
};
static const float q_rows3[3 * V] = {
    0.10f, 0.40f, 0.15f, 0.05f, 0.00f, 0.05f, 0.05f, 0.20f,
    0.20f, 0.05f, 0.10f, 0.35f, 0.10f, 0.00f, 0.10f, 0.10f,
    0.40f, 0.00f, 0.10f, 0.10f, 0.10f, 0.10f, 0.10f, 0.10f,
};

Test(distribution, every_position_is_the_targets, .timeout = 30,
     .description = "gamma = 3 with a different (p, q) at each position: the token at position i (when the call "
                    "emits one there) must follow target row i, the bonus token row 3 (200 000 calls, chi-square "
                    "per position).")
{
    enum { N = 200000, G = 3 };
    uint64_t rng = llama_seed_generator(6);
    long counts[G + 1][V] = {{0}}, present[G + 1] = {0};
    int draft[G], out[G + 1];
    for (long k = 0; k < N; k++) {
        int emitted = one_call(p_rows4, q_rows3, G, V, &rng, draft, out);
        for (int i = 0; i < emitted; i++) counts[i][out[i]]++, present[i]++;
    }
    for (int i = 0; i <= G; i++) {
        char what[160];
        snprintf(what, sizeof what, "the tokens at position %d (%ld calls reached it%s)", i, present[i],
                 i == G ? ": the bonus, from target row 3" : "");
        cr_assert(present[i] > 1000, "%s: too few to test; is every accepted token emitted?", what);
        expect_distributed_as(counts[i], p_rows4 + i * V, present[i], what);
    }
}

/* ---------------------------------------------------------------------------------
 * The mean accepted length, counted, against the formula */

/* target rows with nothing on the last token, draft rows alpha p + (1 - alpha) there: alpha exactly */
static void rows_with_alpha(double alpha, float *p_rows, float *q_rows, int rows)
{
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < V; i++) {
            float p = i < V - 1 ? (float)((i + 1) / 28.0) : 0.0f;
            p_rows[r * V + i] = p, q_rows[r * V + i] = i < V - 1 ? (float)(alpha * p) : (float)(1 - alpha);
        }
}

static void expect_mean_length(double alpha, int gamma, uint64_t seed)
{
    enum { N = 100000 };
    float p_rows[(MAX_GAMMA + 1) * V], q_rows[(MAX_GAMMA + 1) * V];
    rows_with_alpha(alpha, p_rows, q_rows, MAX_GAMMA + 1);
    uint64_t rng = llama_seed_generator(seed);
    int draft[MAX_GAMMA + 1], out[MAX_GAMMA + 1];
    double sum = 0, squares = 0;
    for (long k = 0; k < N; k++) {
        int emitted = one_call(p_rows, q_rows, gamma, V, &rng, draft, out);
        sum += emitted, squares += (double)emitted * emitted;
    }
    double mean = sum / N, error_of_mean = sqrt((squares / N - mean * mean) / N);
    double want = (1 - pow(alpha, gamma + 1)) / (1 - alpha);
    cr_assert(fabs(mean - want) <= 6 * error_of_mean + 1e-9, "alpha %.2f, gamma %d: your verify_draft emitted %.4f "
              "tokens a call on average over %d calls, want (1 - alpha^(gamma+1)) / (1 - alpha) = %.4f (more than 6 "
              "standard errors, %.4f, away). Each draft token is kept with probability alpha, independently, with a "
              "fresh uniform number; the first rejection ends the call with one token.", alpha, gamma, mean, N, want,
              6 * error_of_mean);
}

Test(mean_length, matches_the_formula, .timeout = 30,
     .description = "Rows built to share exactly alpha: the mean number of tokens a call emits, over 100 000 calls, "
                    "equals 1 + alpha + ... + alpha^gamma within 6 standard errors.")
{
    expect_mean_length(0.8, 4, 7);
    expect_mean_length(0.5, 2, 8);
    expect_mean_length(0.9, 8, 9);
}

/* ---------------------------------------------------------------------------------
 * The formulas */

Test(formula, expected_tokens_hand_counted, .timeout = 10,
     .description = "(1 - alpha^(gamma+1)) / (1 - alpha): 1 + 0.8 + 0.64 + 0.512 + 0.4096 = 3.3616 at alpha 0.8, "
                    "gamma 4; 1 at alpha 0 or gamma 0.")
{
    expect_near("expected_tokens_per_call(0.8, 4)", expected_tokens_per_call(0.8, 4), 3.3616, 1e-9,
                "The bonus token counts: gamma + 1 terms, alpha^0 to alpha^gamma.");
    expect_near("expected_tokens_per_call(0, 5)", expected_tokens_per_call(0, 5), 1, 1e-12,
                "Everything rejected: the call still emits the target's own token.");
    expect_near("expected_tokens_per_call(0.7, 0)", expected_tokens_per_call(0.7, 0), 1, 1e-12,
                "No draft: plain decoding, one token a call.");
}

Test(formula, alpha_1_is_gamma_plus_1, .timeout = 10,
     .description = "At alpha = 1 the closed form is 0/0; the sum it stands for is gamma + 1.")
{
    expect_near("expected_tokens_per_call(1, 5)", expected_tokens_per_call(1.0, 5), 6, 1e-9,
                "Treat alpha = 1 apart: every draft token and the bonus, gamma + 1.");
    expect_near("expected_tokens_per_call(0.999999, 5)", expected_tokens_per_call(0.999999, 5), 6, 1e-4,
                "Just below 1 the closed form must approach gamma + 1.");
}

Test(formula, speedup_hand_counted, .timeout = 10,
     .description = "Speedup = tokens per call / (gamma x c + 1): the draft's gamma steps at c each, plus the one "
                    "verifying step of the target.")
{
    expect_near("speculative_speedup(0.8, 4, 0.05)", speculative_speedup(0.8, 4, 0.05), 3.3616 / 1.2, 1e-9,
                "3.3616 tokens for 4 x 0.05 + 1 = 1.2 target steps.");
    expect_near("speculative_speedup(0.8, 4, 0)", speculative_speedup(0.8, 4, 0), 3.3616, 1e-9,
                "A free draft: the speedup is the tokens per call.");
    expect_near("speculative_speedup(1, 3, 1)", speculative_speedup(1.0, 3, 1), 1, 1e-9,
                "A draft as slow as the target, always right: 4 tokens for 4 steps, no gain.");
    expect_near("speculative_speedup(0.5, 8, 0.25)", speculative_speedup(0.5, 8, 0.25), (1 - pow(0.5, 9)) / 0.5 / 3,
                1e-9, "A long draft that is mostly rejected costs more than it saves: below 1.");
}

/* ---------------------------------------------------------------------------------
 * What a draft step costs: bytes, and a floor of launches */

/* the chapter's H200 pair (driver section 4): Llama-2-70B in INT8, Llama-2-7B and stories110M in
 * FP16, memory time and kernels per decode step, and day 24's 5 us a launch */
static const speculative_step target_70b = {15.22e-3, 1205}, draft_7b = {2.774e-3, 485}, draft_110m = {4.71e-5, 185};
#define LAUNCH 5e-6

static void expect_ratio(const char *call, double got, double want, const char *floor_ignored, const char *idea)
{
    cr_assert(fabs(got - want) <= 1e-9 * want, "%s = %.6g, want %.6g%s. %s", call, got, want,
              got == 0 ? " (still 0: is it written yet?)" : isnan(got) ? " (NaN)" : got < want ? floor_ignored
              : " (too dear: are the launches added to the bytes? a step takes the later of the two, not their sum)",
              idea);
}

Test(cost, a_memory_bound_draft_keeps_its_bytes_ratio, .timeout = 10,
     .description = "Llama-2-7B drafting for Llama-2-70B on an H200: 485 launches of 5 us are 2.43 ms, less than the "
                    "2.77 ms its bytes take, so c is the memory times' ratio, 0.182.")
{
    expect_ratio("draft_cost_ratio(7B, 70B, 5 us)", draft_cost_ratio(draft_7b, target_70b, LAUNCH), 2.774 / 15.22,
                 " (too cheap)", "Both steps are memory-bound: the launches hide behind the bytes.");
    expect_ratio("draft_cost_ratio(7B, 70B, 0)", draft_cost_ratio(draft_7b, target_70b, 0), 2.774 / 15.22,
                 " (too cheap)", "No per-kernel cost: the ratio of the memory times.");
}

Test(cost, a_launch_bound_draft_costs_its_launches, .timeout = 10,
     .description = "stories110M drafting for Llama-2-70B: its bytes take 0.047 ms, its 185 launches 0.925 ms; "
                    "c = 0.925 / 15.22 = 0.0608, not the bytes' 0.0031.")
{
    expect_ratio("draft_cost_ratio(110M, 70B, 5 us)", draft_cost_ratio(draft_110m, target_70b, LAUNCH),
                 185 * 5e-6 / 15.22e-3,
                 " (too cheap: is the floor of kernels x per_kernel_s left out? the bytes ratio holds only while "
                 "the draft is memory-bound)",
                 "A small draft's step is its launches: 185 x 5 us.");
    expect_ratio("draft_cost_ratio(110M, 70B, 0)", draft_cost_ratio(draft_110m, target_70b, 0), 4.71e-5 / 15.22e-3,
                 " (too cheap)", "With no per-kernel cost the bytes alone set both steps.");
}

Test(cost, the_target_has_a_floor_too, .timeout = 10,
     .description = "A target of 2000 kernels and 4 ms of bytes takes 10 ms at 5 us a launch: a memory-bound draft "
                    "of 2 ms costs 0.2 of it, not 0.5.")
{
    const speculative_step target = {4e-3, 2000}, draft = {2e-3, 100};
    double got = draft_cost_ratio(draft, target, LAUNCH);
    cr_assert(fabs(got - 0.2) <= 1e-9, "draft_cost_ratio = %.6g, want 0.2%s. The same rule prices both steps: the "
              "target's 2000 launches take 10 ms, more than its 4 ms of bytes.", got,
              fabs(got - 0.5) <= 1e-9 ? " (0.5: the target's floor is left out)" : "");
}

/* ---------------------------------------------------------------------------------
 * The best draft length */

/* the speedup by the sum itself, so that a message does not lean on the code it judges; 1 at gamma 0 */
static double speedup_by_sum(double alpha, int gamma, double c)
{
    double tokens = 0, kept = 1;
    for (int i = 0; i <= gamma; i++) tokens += kept, kept *= alpha;
    return tokens / (gamma * c + 1);
}

/* got: what best_draft_length(alpha, c, max_gamma) returned */
static void expect_best(int got, double alpha, double c, int max_gamma, int want, const char *idea)
{
    cr_assert(got == want, "best_draft_length(%g, %g, %d) = %d, want %d (speedup %.4f there, %s%.4f at yours). %s",
              alpha, c, max_gamma, got, want, speedup_by_sum(alpha, want, c),
              got < 0 || got > max_gamma ? "outside 0 .. max_gamma, " : "",
              got >= 0 && got <= max_gamma ? speedup_by_sum(alpha, got, c) : NAN, idea);
}

/* best_draft_length runs in the argument list, before expect_best is entered: `want`, a constant of the call, is
 * not held in a local while it runs */
#define EXPECT_BEST(alpha, c, max_gamma, want, idea) \
    expect_best(best_draft_length(alpha, c, max_gamma), alpha, c, max_gamma, want, idea)

Test(best_gamma, at_the_peak_of_the_speedup, .timeout = 10,
     .description = "The chapter's H200 pair: alpha 0.8 at c 0.182 gives gamma 4 (1.94x); alpha 0.6 gives 2; a draft "
                    "of c 0.05 gives 8; c 0.0031 gives 18; a launch-bound c of 0.0608 gives 7.")
{
    EXPECT_BEST(0.8, 0.1822, 16, 4, "Tokens per call saturate while a call's cost grows by c a draft step: a peak.");
    EXPECT_BEST(0.6, 0.181, 16, 2, "A worse draft: the peak moves left.");
    EXPECT_BEST(0.8, 0.05, 16, 8, "A cheaper draft: the peak moves right.");
    EXPECT_BEST(0.8, 0.0031, 32, 18, "The bytes-only c of a 110M draft would ask for 18 draft tokens...");
    EXPECT_BEST(0.8, 0.0608, 32, 7, "... its launch floor for 7.");
}

Test(best_gamma, a_peak_by_a_hair, .timeout = 10,
     .description = "Near a tie the larger speedup still wins: alpha 0.5 at c = 1/12 - 1e-9 puts gamma 3 above "
                    "gamma 2 by 7e-10 of the speedup, alpha 0.7 at c 0.13245434886484253 puts gamma 4 above 3 by "
                    "5e-10: keep the speedups in double.")
{
    const char *idea = "Rounded to a float, the two speedups are equal and the first is kept.";
    EXPECT_BEST(0.5, 0.08333333233333333, 16, 3, idea);
    EXPECT_BEST(0.7, 0.13245434886484253, 16, 4, idea);
}

Test(best_gamma, every_length_when_the_draft_is_perfect_and_cheap, .timeout = 10,
     .description = "alpha 1 and c 0.1: (gamma + 1) / (0.1 gamma + 1) grows with gamma, so the longest allowed "
                    "draft wins, max_gamma itself; with max_gamma 1, gamma 1.")
{
    EXPECT_BEST(1.0, 0.1, 12, 12, "max_gamma is one of the lengths to try.");
    EXPECT_BEST(1.0, 0.1, 1, 1, "One length allowed, and it helps.");
    EXPECT_BEST(0.8, 0.0, 20, 20, "A free draft: every extra draft token adds alpha^gamma and costs nothing.");
}

Test(best_gamma, none_when_no_draft_beats_plain_decoding, .timeout = 10,
     .description = "0 when no draft length gives a speedup above 1: alpha 0.5 at c 0.6; alpha = c = 0.5, where "
                    "gamma 1 gives exactly 1 (no gain) and longer drafts less; alpha 0 at c 0.")
{
    EXPECT_BEST(0.5, 0.6, 16, 0, "A draft step dearer than the fraction of its tokens kept (c > alpha) never pays.");
    EXPECT_BEST(0.5, 0.5, 16, 0, "Exactly 1 is no gain: plain decoding is as fast and simpler.");
    EXPECT_BEST(0.0, 0.0, 16, 0, "A draft that is never right: 1 token a call, whatever it costs.");
}

/* ---------------------------------------------------------------------------------
 * The toy Llama: the greedy special case */

static void build(llama_transformer *t, int layers, int int8)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    if (layers) c.n_layers = layers;
    cr_assert(llama_build_transformer_generated(t, &c, 28, error, sizeof error) == 0, "%s", error);
    if (int8) cr_assert(llama_quantize_transformer(t, llama_int8_group_size(&c, 64), error, sizeof error) == 0, "%s", error);
}

Test(engine, greedy_equals_plain_greedy, .timeout = 60,
     .description = "Temperature 0 on the toy Llama: speculative decoding with a layer-skipping draft and with an "
                    "INT8 draft, gamma 1 to 8, gives token for token what plain greedy decoding of the target gives.")
{
    enum { PROMPT = 4, COUNT = 24 };
    llama_transformer target, drafts[2];
    build(&target, 0, 0), build(&drafts[0], 1, 0), build(&drafts[1], 0, 1);
    const char *names[2] = {"the one-layer draft", "the INT8 draft"};
    int prompt[PROMPT] = {1, 42, 7, 90}, plain[COUNT], fast[2][MAX_GAMMA + 1][COUNT];
    for (int d = 0; d < 2; d++)
        for (int gamma = 1; gamma <= MAX_GAMMA; gamma++) {
            speculative_stats stats;
            cr_assert(speculative_generate(&target, &drafts[d], prompt, PROMPT, gamma, 0.0f, 1, COUNT, fast[d][gamma],
                                           &stats, error, sizeof error) == 0,
                      "%s, gamma %d: %s", names[d], gamma, error);
            cr_assert(stats.target_calls <= COUNT, "%s, gamma %d: %lld target calls for %d tokens", names[d], gamma,
                      (long long)stats.target_calls, COUNT);
        }
    /* plain greedy decoding only now that every call of verify_draft has returned */
    cr_assert(greedy_generate(&target, prompt, PROMPT, COUNT, plain, error, sizeof error) == 0, "%s", error);
    for (int d = 0; d < 2; d++)
        for (int gamma = 1; gamma <= MAX_GAMMA; gamma++) {
            int first = 0;
            while (first < COUNT && fast[d][gamma][first] == plain[first]) first++;
            cr_assert(first == COUNT, "%s, gamma %d: token %d is %d, plain greedy decoding gives %d. With one-hot rows "
                      "your verification must keep a draft token only where it is the target's argmax, and emit the "
                      "target's argmax where it is not", names[d], gamma, first, fast[d][gamma][first], plain[first]);
        }
    llama_free_transformer(&target), llama_free_transformer(&drafts[0]), llama_free_transformer(&drafts[1]);
}

Test(engine, an_int8_draft_saves_target_calls, .timeout = 60,
     .description = "Sampled at temperature 1 with the target's INT8 copy as the draft (it agrees almost always), gamma "
                    "4: 48 tokens take at most 32 target calls (about 10 if each call keeps most of its draft).")
{
    enum { PROMPT = 4, COUNT = 24 };
    llama_transformer target, draft;
    build(&target, 0, 0), build(&draft, 0, 1);
    int prompt[PROMPT] = {3, 14, 15, 92}, out[COUNT];
    speculative_stats stats;
    int64_t calls = 0, emitted = 0;
    for (int k = 0; k < 2; k++) {
        cr_assert(speculative_generate(&target, &draft, prompt, PROMPT, 4, 1.0f, 100 + k, COUNT, out, &stats, error,
                                       sizeof error) == 0, "%s", error);
        calls += stats.target_calls, emitted += stats.emitted;
    }
    cr_assert(calls <= 2 * COUNT / 3, "%lld target calls for %d tokens: with a draft that agrees with the target ~98%% of "
              "the time, gamma 4 should emit about 4.8 tokens a call. Is an accepted token emitted?", (long long)calls,
              2 * COUNT);
    llama_free_transformer(&target), llama_free_transformer(&draft);
}
