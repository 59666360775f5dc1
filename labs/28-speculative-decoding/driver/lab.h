/* lab.h — Day 28: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * Speculative decoding (Leviathan, Kalman and Matias, ICML 2023; Chen et al., DeepMind 2023): a
 * small draft model proposes gamma tokens one after another, and the large target model scores
 * all of them in ONE forward step. The verification step then keeps a prefix of the draft and
 * adds one token of the target's, so that every call of the target emits 1 to gamma + 1 tokens,
 * distributed exactly as if the target had sampled them one at a time:
 *
 *   draft:   q_1 -> d_1,  q_2 -> d_2,  ...,  q_gamma -> d_gamma       (gamma cheap steps)
 *   target:  one step over [last, d_1, ..., d_gamma] gives p_1, ..., p_gamma, p_gamma+1
 *   verify:  for i = 1 .. gamma: accept d_i with probability min(1, p_i(d_i) / q_i(d_i));
 *            at the first rejection emit a token drawn from norm(max(0, p_i - q_i)) and stop;
 *            if all gamma are accepted, emit a bonus token drawn from p_gamma+1.
 *
 * Distributions are rows of `vocab` floats that sum to 1. target holds gamma + 1 rows (row i is
 * p_i+1 in the notation above: row 0 scores d_1, row gamma is the bonus row); draft holds gamma
 * rows (row i is q_i+1, from which d_i+1 was drawn). */
#ifndef DAY28_LAB_H
#define DAY28_LAB_H

#include <stdint.h>

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- speculative.c (yours): 1. the verification step ---- */

/* alpha: the probability that the verification accepts a token drawn from q when the target's row
 * is p (1 when p = q, 0 when they share no token; the chapter derives it from the acceptance rule). */
double acceptance_rate(const float *p, const float *q, int vocab);

/* Verifies the draft tokens draft_tokens[0 .. gamma-1] (gamma >= 0; gamma = 0 is plain sampling
 * from target row 0). Writes the emitted tokens to out (room for gamma + 1): the accepted prefix
 * of the draft, then the one token of the target's (the resampled one after a rejection, or the
 * bonus). Returns how many it wrote, 1 .. gamma + 1. Uniform numbers come from
 * llama_random_unit(rng), tokens from sample_from(); residual is `vocab` floats of scratch. */
int verify_draft(const float *target, const float *draft, const int *draft_tokens, int gamma, int vocab, uint64_t *rng,
                 float *residual, int *out);

/* ---- speculative.c (yours): 2. the model of the speedup ---- */

/* Expected tokens one target call emits when each draft token is accepted with probability
 * alpha, independently, in closed form: 1 at alpha = 0 or gamma = 0, gamma + 1 at alpha = 1. */
double expected_tokens_per_call(double alpha, int gamma);

/* Walltime speedup over plain decoding when a draft step costs cost_ratio target steps and the
 * verification step costs one (decode is memory-bound: gamma + 1 rows read the weights once):
 * expected tokens per call over what a call costs, in target steps. */
double speculative_speedup(double alpha, int gamma, double cost_ratio);

/* One forward step of a model at batch 1, as the cost model sees it: the time its bytes take to
 * cross the memory bus (weights once, the KV cache), and the kernels it launches. */
typedef struct speculative_step {
    double memory_s;   /* bytes / bandwidth, seconds (>= 0) */
    int kernels;       /* kernels launched per step (>= 0) */
} speculative_step;

/* The draft's cost ratio c: the time of one draft step over the time of one target step, when a
 * step takes at least its memory time and at least `kernels` x per_kernel_s (each kernel of a step
 * costs at least a launch, or a graph node: a small model is launch-bound, and its c is a floor).
 * per_kernel_s >= 0; 0 gives the ratio of memory times alone. The target's step must take more
 * than 0 s. */
double draft_cost_ratio(speculative_step draft, speculative_step target, double per_kernel_s);

/* The draft length worth using: the gamma in 1 .. max_gamma whose speculative_speedup(alpha,
 * gamma, cost_ratio) is the largest, or 0 when none of them is above 1 (plain decoding is then at
 * least as fast). alpha in [0, 1], cost_ratio >= 0, max_gamma >= 1. */
int best_draft_length(double alpha, double cost_ratio, int max_gamma);

/* ---- helpers (driver) ---- */

/* The token a uniform number u in [0, 1) selects from a row of probabilities: the first index
 * whose cumulative probability exceeds u (inverse-CDF sampling, as llama2.c's sample_mult does).
 * When rounding leaves the total below u it returns the last index: the row must sum to 1. */
static inline int sample_from(const float *probabilities, int n, float u)
{
    float cumulative = 0.0f;
    for (int i = 0; i < n; i++) {
        cumulative += probabilities[i];
        if (u < cumulative) return i;
    }
    return n - 1;
}

/* ---- speculate.c (driver): the draft-and-verify loop on the toy Llama ---- */

/* What a generation did. */
typedef struct speculative_stats {
    int64_t target_calls;      /* target forward steps that verify a draft (the prompt's prefill aside) */
    int64_t emitted;           /* tokens those calls emitted (the last call's may pass `count`) */
    int64_t draft_steps;       /* draft forward steps */
    int64_t drafted;           /* draft tokens proposed */
    int64_t verified;          /* ... and tested by verify_draft (those after a rejection are not) */
    int64_t accepted;          /* ... and kept */
    double target_weight_bytes;   /* weight bytes of the verifying steps, as the engine counted them */
    double draft_weight_bytes;    /* ... of every draft step */
} speculative_stats;

/* Generates `count` tokens after `prompt` (n tokens) with the target model, drafting gamma tokens
 * per target call with `draft` (the same vocabulary) and keeping them through verify_draft.
 * temperature 0: greedy (each row a one-hot at its argmax); otherwise softmax(logits / T).
 * gamma = 0 is plain decoding with the target. Returns 0, or -1 with the reason in error. */
int speculative_generate(const llama_transformer *target, const llama_transformer *draft, const int *prompt, int n, int gamma,
                         float temperature, uint64_t seed, int count, int *out, speculative_stats *stats, char *error,
                         size_t error_size);

/* Plain greedy decoding with one model: the reference the greedy special case must equal. */
int greedy_generate(const llama_transformer *t, const int *prompt, int n, int count, int *out, char *error, size_t error_size);

/* A row of probabilities from logits: one-hot at the argmax for temperature 0, else softmax(logits / T). */
void probabilities_of(const float *logits, int vocab, float temperature, float *probabilities);

#ifdef __cplusplus
}
#endif

#endif
