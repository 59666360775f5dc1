/* speculate.c — Day 28 driver: the draft-and-verify loop on the toy Llama (lib/llama), with your
 * verify_draft deciding which draft tokens stay. Do not edit.
 *
 * One round, with `last` the newest token (emitted, not yet in either model's cache):
 *   1. the draft catches up on the tokens it has not seen (llama_prefill), then proposes
 *      d_1 .. d_gamma, one decode step each, each drawn from its row q_i;
 *   2. the target scores [last, d_1 .. d_gamma] in one forward step (llama_prefill_rows: the
 *      logits after every row, the weights read once);
 *   3. verify_draft keeps d_1 .. d_a and adds one token. Both models forget the rejected tail
 *      (llama_truncate_sequence). */
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GAMMA = 16 };

void probabilities_of(const float *logits, int vocab, float temperature, float *probabilities)
{
    if (temperature == 0.0f) {
        for (int i = 0; i < vocab; i++) probabilities[i] = 0.0f;
        probabilities[llama_argmax(logits, vocab)] = 1.0f;
        return;
    }
    float largest = logits[0];
    for (int i = 1; i < vocab; i++) largest = fmaxf(largest, logits[i]);
    double sum = 0;
    for (int i = 0; i < vocab; i++) sum += probabilities[i] = expf((logits[i] - largest) / temperature);
    for (int i = 0; i < vocab; i++) probabilities[i] = (float)(probabilities[i] / sum);
}

int greedy_generate(const llama_transformer *t, const int *prompt, int n, int count, int *out, char *error, size_t error_size)
{
    llama_session s;
    if (llama_build_session(&s, t, 1, n + count, 1, error, error_size) != 0) return -1;
    const float *logits = llama_prefill(&s, 0, prompt, n, error, error_size);
    for (int i = 0; logits && i < count; i++) {
        out[i] = llama_argmax(logits, t->config.vocab_size);
        if (i + 1 < count) logits = llama_decode_batch(&s, (int[]){0}, &out[i], 1, error, error_size);
    }
    llama_free_session(&s);
    return logits ? 0 : -1;
}

/* the buffers of one generation */
typedef struct generation {
    llama_session target, draft;
    int *tokens;               /* the prompt, then what is emitted */
    float *p, *q, *residual;   /* (gamma + 1) target rows, gamma draft rows */
    int *draft_tokens, *emitted;
} generation;

static void free_generation(generation *g)
{
    if (g->target.transformer) llama_free_session(&g->target);
    if (g->draft.transformer) llama_free_session(&g->draft);
    free(g->tokens), free(g->p), free(g->q), free(g->residual), free(g->draft_tokens), free(g->emitted);
}

/* 1. gamma draft tokens after tokens[0 .. length-1]; the draft's cache holds *draft_length of them */
static int propose(generation *g, int length, int *draft_length, int gamma, float temperature, uint64_t *rng,
                   speculative_stats *stats, char *error, size_t error_size)
{
    int vocab = g->draft.transformer->config.vocab_size;
    const float *logits = llama_prefill(&g->draft, 0, g->tokens + *draft_length, length - *draft_length, error, error_size);
    stats->draft_steps++;
    for (int i = 0; logits && i < gamma; i++) {
        probabilities_of(logits, vocab, temperature, g->q + (size_t)i * vocab);
        g->draft_tokens[i] = sample_from(g->q + (size_t)i * vocab, vocab, llama_random_unit(rng));
        if (i + 1 < gamma) {
            logits = llama_decode_batch(&g->draft, (int[]){0}, &g->draft_tokens[i], 1, error, error_size);
            stats->draft_steps++;
        }
    }
    *draft_length = length + gamma - 1;
    stats->drafted += gamma;
    return logits ? 0 : -1;
}

/* 2. the target's gamma + 1 rows for [last, d_1 .. d_gamma] in one step; its sequence 0 holds
 * tokens[0 .. length-2] */
static int score(generation *g, int length, int gamma, float temperature, speculative_stats *stats, char *error,
                 size_t error_size)
{
    int rows[MAX_GAMMA + 1];
    rows[0] = g->tokens[length - 1];
    for (int k = 1; k <= gamma; k++) rows[k] = g->draft_tokens[k - 1];
    llama_counters before = g->target.counters;
    const float *logits = llama_prefill_rows(&g->target, 0, rows, gamma + 1, error, error_size);
    if (!logits) return -1;
    stats->target_calls += g->target.counters.steps - before.steps;
    stats->target_weight_bytes += g->target.counters.weight_bytes - before.weight_bytes;
    int vocab = g->target.transformer->config.vocab_size;
    for (int i = 0; i <= gamma; i++)
        probabilities_of(logits + (size_t)i * vocab, vocab, temperature, g->p + (size_t)i * vocab);
    return 0;
}

int speculative_generate(const llama_transformer *target, const llama_transformer *draft, const int *prompt, int n, int gamma,
                         float temperature, uint64_t seed, int count, int *out, speculative_stats *stats, char *error,
                         size_t error_size)
{
    memset(stats, 0, sizeof *stats);
    int vocab = target->config.vocab_size, capacity = n + count + gamma + 1;
    if (n < 1 || count < 1 || gamma < 0 || gamma > MAX_GAMMA) {
        snprintf(error, error_size, "a prompt of %d tokens, %d to generate, gamma %d: want n >= 1, count >= 1, "
                 "0 <= gamma <= %d", n, count, gamma, MAX_GAMMA);
        return -1;
    }
    if (gamma > 0 && (!draft || draft->config.vocab_size != vocab)) {
        snprintf(error, error_size, "the draft model must share the target's vocabulary of %d tokens", vocab);
        return -1;
    }
    generation g = {0};
    uint64_t rng = llama_seed_generator(seed);
    int status = -1;
    if (llama_build_session(&g.target, target, 1, capacity, 1, error, error_size) != 0) goto done;
    if (gamma > 0 && llama_build_session(&g.draft, draft, 1, capacity, 1, error, error_size) != 0) goto done;
    g.tokens = malloc((size_t)capacity * sizeof(int));
    g.p = malloc((size_t)(gamma + 1) * vocab * sizeof(float));
    g.q = malloc((size_t)(gamma + 1) * vocab * sizeof(float));
    g.residual = malloc((size_t)vocab * sizeof(float));
    g.draft_tokens = malloc((size_t)(gamma + 1) * sizeof(int));
    g.emitted = malloc((size_t)(gamma + 1) * sizeof(int));
    if (!g.tokens || !g.p || !g.q || !g.residual || !g.draft_tokens || !g.emitted) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    memcpy(g.tokens, prompt, (size_t)n * sizeof(int));
    /* the target's context holds every token but the newest */
    if (n > 1 && !llama_prefill(&g.target, 0, prompt, n - 1, error, error_size)) goto done;
    int length = n, draft_length = 0;
    while (length < n + count) {
        if (gamma > 0 && propose(&g, length, &draft_length, gamma, temperature, &rng, stats, error, error_size) != 0) goto done;
        if (score(&g, length, gamma, temperature, stats, error, error_size) != 0) goto done;
        int emitted = verify_draft(g.p, g.q, g.draft_tokens, gamma, vocab, &rng, g.residual, g.emitted);
        if (emitted < 1 || emitted > gamma + 1) {
            snprintf(error, error_size, "verify_draft returned %d for gamma %d: it emits 1 to gamma + 1 tokens", emitted,
                     gamma);
            goto done;
        }
        int accepted = emitted - 1;
        for (int i = 0; i < emitted; i++)
            if (g.emitted[i] < 0 || g.emitted[i] >= vocab) {
                snprintf(error, error_size, "verify_draft emitted token %d, outside the vocabulary 0 .. %d", g.emitted[i],
                         vocab - 1);
                goto done;
            }
        stats->accepted += accepted, stats->emitted += emitted;
        stats->verified += accepted < gamma ? accepted + 1 : gamma;
        /* the target keeps tokens[0 .. length-2], last and d_1 .. d_accepted */
        if (llama_truncate_sequence(&g.target, 0, length + accepted, error, error_size) != 0) goto done;
        if (gamma > 0) {   /* the draft holds the context and d_1 .. d_gamma-1: it keeps d_1 .. d_accepted */
            draft_length = length + (accepted < gamma ? accepted : gamma - 1);
            if (llama_truncate_sequence(&g.draft, 0, draft_length, error, error_size) != 0) goto done;
        }
        for (int i = 0; i < emitted && length < n + count; i++) g.tokens[length++] = g.emitted[i];
    }
    memcpy(out, g.tokens + n, (size_t)count * sizeof(int));
    stats->draft_weight_bytes = gamma > 0 ? g.draft.counters.weight_bytes : 0;
    status = 0;
done:
    free_generation(&g);
    return status;
}
