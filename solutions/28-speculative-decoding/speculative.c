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
    double alpha = 0;
    for (int i = 0; i < vocab; i++) alpha += fminf(p[i], q[i]);
    return alpha;
}

int verify_draft(const float *target, const float *draft, const int *draft_tokens, int gamma, int vocab, uint64_t *rng,
                 float *residual, int *out)
{
    for (int i = 0; i < gamma; i++) {
        const float *p = target + (size_t)i * vocab, *q = draft + (size_t)i * vocab;
        int token = draft_tokens[i];
        /* u < p/q accepts with probability min(1, p/q); q(token) > 0, since the draft drew it */
        if (llama_random_unit(rng) * q[token] < p[token]) {
            out[i] = token;
            continue;
        }
        /* rejected: what p has beyond q, renormalised, so that both paths together give p */
        double total = 0;
        for (int v = 0; v < vocab; v++) total += residual[v] = fmaxf(0.0f, p[v] - q[v]);
        for (int v = 0; v < vocab; v++) residual[v] = (float)(residual[v] / total);
        out[i] = sample_from(residual, vocab, llama_random_unit(rng));
        return i + 1;
    }
    /* every draft token kept: the target's row after the last one gives one more for free */
    out[gamma] = sample_from(target + (size_t)gamma * vocab, vocab, llama_random_unit(rng));
    return gamma + 1;
}

/* ---------------------------------------------------------------------------------
 * 2. The model of the speedup */

double expected_tokens_per_call(double alpha, int gamma)
{
    if (alpha == 1.0) return gamma + 1;   /* the geometric sum's 0/0: every token accepted */
    return (1.0 - pow(alpha, gamma + 1)) / (1.0 - alpha);
}

double speculative_speedup(double alpha, int gamma, double cost_ratio)
{
    return expected_tokens_per_call(alpha, gamma) / (gamma * cost_ratio + 1.0);
}

/* ---------------------------------------------------------------------------------
 * 3. What a draft step costs, and the draft length worth using */

double draft_cost_ratio(speculative_step draft, speculative_step target, double per_kernel_s)
{
    /* a step ends when its bytes have crossed the bus and when its launches have been paid: the
     * later of the two, on both sides of the ratio */
    double draft_s = fmax(draft.memory_s, draft.kernels * per_kernel_s);
    double target_s = fmax(target.memory_s, target.kernels * per_kernel_s);
    return draft_s / target_s;
}

int best_draft_length(double alpha, double cost_ratio, int max_gamma)
{
    /* plain decoding is the bar to beat: speedup 1 at gamma 0 */
    int best = 0;
    double best_speedup = 1.0;
    for (int gamma = 1; gamma <= max_gamma; gamma++) {
        double speedup = speculative_speedup(alpha, gamma, cost_ratio);
        if (speedup > best_speedup) best = gamma, best_speedup = speedup;
    }
    return best;
}
