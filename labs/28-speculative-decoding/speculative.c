/* speculative.c — Day 28: the verification step of speculative decoding, and the model of what it
 * buys.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. acceptance_rate: alpha for one position, the sum of min(p, q) over the vocabulary.
 *   2. verify_draft: for each draft token, accept with probability min(1, p/q); at the first
 *      rejection, draw from norm(max(0, p - q)) and stop; if all are accepted, draw a bonus token
 *      from the target's last row. Its output must be distributed exactly as the target's.
 *   3. expected_tokens_per_call: (1 - alpha^(gamma+1)) / (1 - alpha), and gamma + 1 at alpha = 1.
 *   4. speculative_speedup: that over the cost of a call, gamma x cost_ratio + 1.
 *
 * Rules: plain C and the C library; uniform numbers from llama_random_unit(rng) only, tokens from
 * sample_from() (lab.h). The checks draw hundreds of thousands of tokens through your verify_draft
 * and compare their frequencies with the target's (a chi-square test), count its mean output
 * against your formula, and run the toy Llama greedily with and without a draft: the same tokens.
 *
 * Check:  make check DAY=28        Stuck?  make hint DAY=28
 */
#include "lab.h"

#include <math.h>

/* ---------------------------------------------------------------------------------
 * 1. The verification step */

double acceptance_rate(const float *p, const float *q, int vocab)
{
    // TODO: the probability mass p and q share: sum min(p[i], q[i]) over the vocabulary.
    (void)p, (void)q, (void)vocab;
    return 0;
}

int verify_draft(const float *target, const float *draft, const int *draft_tokens, int gamma, int vocab, uint64_t *rng,
                 float *residual, int *out)
{
    // TODO: for i = 0 .. gamma-1, with p = target row i, q = draft row i, token = draft_tokens[i]:
    //       accept it (out[i] = token) with probability min(1, p[token] / q[token]), one
    //       llama_random_unit(rng) each; at the first rejection, fill residual with
    //       max(0, p - q), normalise it to sum 1, draw out[i] = sample_from(residual, vocab, u) and
    //       return i + 1. If none is rejected, draw out[gamma] from target row gamma (the bonus
    //       token) and return gamma + 1.
    (void)target, (void)draft, (void)draft_tokens, (void)gamma, (void)vocab, (void)rng, (void)residual, (void)out;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 2. The model of the speedup */

double expected_tokens_per_call(double alpha, int gamma)
{
    // TODO: 1 + alpha + alpha^2 + ... + alpha^gamma, in closed form: (1 - alpha^(gamma+1)) / (1 - alpha).
    //       At alpha = 1 that is 0/0: every token is accepted, gamma + 1.
    (void)alpha, (void)gamma;
    return 0;
}

double speculative_speedup(double alpha, int gamma, double cost_ratio)
{
    // TODO: tokens per call over what a call costs in target steps: gamma draft steps of
    //       cost_ratio each, and the one verification step.
    (void)alpha, (void)gamma, (void)cost_ratio;
    return 0;
}
