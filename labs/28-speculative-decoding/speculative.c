/* speculative.c — Day 28: the verification step of speculative decoding, and the model of what it
 * buys.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. acceptance_rate: alpha, the probability that one position keeps the draft's token.
 *   2. verify_draft: keep a prefix of the draft, then add one token of the target's, so that what
 *      comes out is distributed exactly as the target's rows. The chapter proves which rule does it.
 *   3. expected_tokens_per_call and speculative_speedup: what a call emits on average, and what
 *      that buys once the draft's steps are paid for. Derive both; the chapter shows the way.
 *   4. draft_cost_ratio: c, with the floor a small model hits (launches, not bytes), and
 *      best_draft_length: the gamma at the peak of the speedup, or none.
 *
 * Rules: plain C and the C library; uniform numbers from llama_random_unit(rng) only, tokens from
 * sample_from() (lab.h). The checks draw hundreds of thousands of tokens through your verify_draft
 * and compare their frequencies with the target's (a chi-square test), count its mean output
 * against your formula, price draft steps that are memory-bound and launch-bound, and run the toy
 * Llama greedily with and without a draft: the same tokens.
 *
 * Check:  make check DAY=28        Stuck?  make hint DAY=28
 */
#include "lab.h"

#include <math.h>

/* ---------------------------------------------------------------------------------
 * 1. The verification step */

double acceptance_rate(const float *p, const float *q, int vocab)
{
    // TODO: the probability that a token drawn from q is kept by the verification when the target's
    //       row is p: 1 when p = q, 0 when they share no token. Idea: a token is drawn and then kept;
    //       write down the probability of both for one token x, and add over the vocabulary.
    (void)p, (void)q, (void)vocab;
    return 0;
}

int verify_draft(const float *target, const float *draft, const int *draft_tokens, int gamma, int vocab, uint64_t *rng,
                 float *residual, int *out)
{
    // TODO: the verification step (lab.h has the rows' layout). Keep draft tokens in order while
    //       each passes its test, one fresh uniform number per test; at the first that fails, end the
    //       call with one replacement token and stop; if none fails, end it with the bonus token.
    //       Contract: 1 .. gamma + 1 tokens written to out and returned; nothing written past
    //       residual[vocab - 1]. Idea: the chapter's rejection sampling: the token kept plus the
    //       token replaced must together come out with exactly the target's probabilities.
    (void)target, (void)draft, (void)draft_tokens, (void)gamma, (void)vocab, (void)rng, (void)residual, (void)out;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 2. The model of the speedup */

double expected_tokens_per_call(double alpha, int gamma)
{
    // TODO: the mean number of tokens one call emits when each draft token is kept with
    //       probability alpha, independently, and the call always adds one of the target's.
    //       Contract: 1 at alpha = 0 or gamma = 0, gamma + 1 at alpha = 1, finite for every alpha
    //       in [0, 1]. Idea: with what probability does a call keep at least i draft tokens?
    (void)alpha, (void)gamma;
    return 0;
}

double speculative_speedup(double alpha, int gamma, double cost_ratio)
{
    // TODO: plain decoding's time per token over speculative decoding's, both in target steps.
    //       Idea: a call pays gamma draft steps of cost_ratio each and one verification step, which
    //       costs one target step because gamma + 1 rows read the weights once.
    (void)alpha, (void)gamma, (void)cost_ratio;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 3. What a draft step costs, and the draft length worth using */

double draft_cost_ratio(speculative_step draft, speculative_step target, double per_kernel_s)
{
    // TODO: c = one draft step's time over one target step's. Contract (lab.h): a step takes at
    //       least its memory time, and at least its launches; per_kernel_s = 0 leaves the memory
    //       times alone. Idea: the weight-bytes ratio is right only while both steps are
    //       memory-bound; a small draft's kernels move so few bytes that launches set its time.
    (void)draft, (void)target, (void)per_kernel_s;
    return 0;
}

int best_draft_length(double alpha, double cost_ratio, int max_gamma)
{
    // TODO: the draft length with the largest speedup, 1 .. max_gamma, or 0 when no draft length
    //       beats plain decoding. Idea: tokens per call saturate while a call's cost grows linearly
    //       in gamma, so the speedup has a peak; and a draft slower than it is right (c >= alpha at
    //       gamma = 1) never helps.
    (void)alpha, (void)cost_ratio, (void)max_gamma;
    return 0;
}
