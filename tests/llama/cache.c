/* cache.c — the KV cache and the ways into the engine agree with one another:
 *   - decoding token by token with the cache gives the logits of recomputing from scratch
 *     (a prefill of the whole prefix) and of the double-precision reference;
 *   - a sequence decoded in a batch, beside others at other positions, gets the logits it
 *     gets alone; so does a prefill cut into steps, and a run on two threads;
 *   - grouped-query attention equals multi-head attention with each KV head repeated;
 *   - a forked sequence continues exactly as its parent, a truncated one as if it had never been longer;
 *   - every row's logits of llama_prefill_rows equal a prefill of the prefix it follows;
 *   - the cache's size is the book's formula; a new session's cache is zero, on large pages.
 * "Equal" is bit for bit where the engine is built to make it so (matmul.h: every output is
 * summed in one order whatever the number of rows; threads split outputs, not sums). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"
#include "reference.h"

static char error[512];

static void build(llama_transformer *t, const char *shape, uint64_t seed)
{
    llama_config c;
    cr_assert(llama_named_shape(shape, &c, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(t, &c, seed, error, sizeof error) == 0, "%s", error);
}

static void random_tokens(int *tokens, int n, int vocab, uint64_t seed)
{
    uint64_t state = llama_seed_generator(seed);
    for (int i = 0; i < n; i++) tokens[i] = (int)(llama_random_u32(&state) % (uint32_t)vocab);
}

static float *copy_logits(const float *logits, int count, int vocab)
{
    float *copy = malloc((size_t)count * vocab * sizeof(float));
    memcpy(copy, logits, (size_t)count * vocab * sizeof(float));
    return copy;
}

/* ----------------------------------------------------------------------------------
 * Cached decode = recomputation */

Test(cache, cached_decode_equals_recomputing_from_scratch, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 3);
    int vocab = t.config.vocab_size, n = 30, tokens[30];
    random_tokens(tokens, n, vocab, 4);
    llama_session cached;
    cr_assert(llama_build_session(&cached, &t, 1, n, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&cached, 0, tokens, 1, error, sizeof error), "%s", error);
    double *expected = malloc((size_t)n * vocab * sizeof(double));
    reference_forward(&t, tokens, n, expected);
    for (int p = 1; p < n; p++) {
        float *step = copy_logits(llama_decode_batch(&cached, (int[]){0}, &tokens[p], 1, error, sizeof error), 1, vocab);
        /* from scratch: a fresh session computes the whole prefix 0..p again */
        llama_session fresh;
        cr_assert(llama_build_session(&fresh, &t, 1, n, 1, error, sizeof error) == 0, "%s", error);
        const float *recomputed = llama_prefill(&fresh, 0, tokens, p + 1, error, sizeof error);
        cr_assert(recomputed, "%s", error);
        cr_assert(memcmp(step, recomputed, (size_t)vocab * sizeof(float)) == 0,
                  "position %d: the cached decode step and a recomputation from scratch differ", p);
        double largest, difference = max_difference(step, expected + (size_t)p * vocab, vocab, &largest);
        cr_assert(difference <= 1e-5 * largest, "position %d: cached logits differ from double by %g", p, difference);
        free(step);
        llama_free_session(&fresh);
    }
    cr_assert(cached.cache.length[0] == n, "the cache holds %d tokens after %d", cached.cache.length[0], n);
    free(expected);
    llama_free_session(&cached);
    llama_free_transformer(&t);
}

Test(cache, a_prefill_cut_into_steps_equals_one_token_at_a_time, .timeout = 60)
{
    /* a prompt longer than LLAMA_MAX_STEP_ROWS is prefilled in several steps */
    llama_config c = {.dim = 32, .hidden_dim = 48, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2, .vocab_size = 50,
                     .seq_len = LLAMA_MAX_STEP_ROWS + 90, .shared_classifier = 1};
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 5, error, sizeof error) == 0, "%s", error);
    int n = c.seq_len, *tokens = malloc(n * sizeof(int));
    random_tokens(tokens, n, c.vocab_size, 6);
    llama_session chunked, stepwise;
    cr_assert(llama_build_session(&chunked, &t, 1, n, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&stepwise, &t, 1, n, 1, error, sizeof error) == 0, "%s", error);
    float *all_at_once = copy_logits(llama_prefill(&chunked, 0, tokens, n, error, sizeof error), 1, c.vocab_size);
    const float *logits = NULL;
    for (int p = 0; p < n; p++) logits = llama_decode_batch(&stepwise, (int[]){0}, &tokens[p], 1, error, sizeof error);
    cr_assert(logits && memcmp(all_at_once, logits, c.vocab_size * sizeof(float)) == 0,
              "a %d-token prefill in steps of %d rows differs from decoding token by token", n, LLAMA_MAX_STEP_ROWS);
    free(all_at_once), free(tokens);
    llama_free_session(&chunked), llama_free_session(&stepwise);
    llama_free_transformer(&t);
}

/* ----------------------------------------------------------------------------------
 * Batched decode = each sequence alone */

Test(cache, batched_decode_equals_each_sequence_alone, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 8);
    enum { SEQUENCES = 5, STEPS = 6 };
    int vocab = t.config.vocab_size, lengths[SEQUENCES] = {1, 9, 4, 17, 2}, order[SEQUENCES] = {3, 0, 4, 1, 2};
    int prompts[SEQUENCES][20], next[SEQUENCES][STEPS];
    for (int i = 0; i < SEQUENCES; i++) {
        random_tokens(prompts[i], lengths[i], vocab, 100 + i);
        random_tokens(next[i], STEPS, vocab, 200 + i);
    }
    /* the batch: all prompts in one prefill, then decode steps with the sequences listed in
     * a scrambled order (each at its own position) */
    llama_session batch;
    cr_assert(llama_build_session(&batch, &t, SEQUENCES, 24, 1, error, sizeof error) == 0, "%s", error);
    const int *rows[SEQUENCES];
    int sequences[SEQUENCES], batch_lengths[SEQUENCES];
    for (int i = 0; i < SEQUENCES; i++) sequences[i] = order[i], rows[i] = prompts[order[i]], batch_lengths[i] = lengths[order[i]];
    float *batch_prefill = copy_logits(llama_prefill_batch(&batch, sequences, rows, batch_lengths, SEQUENCES, error, sizeof error),
                                       SEQUENCES, vocab);
    float *batch_steps[STEPS];
    for (int step = 0; step < STEPS; step++) {
        int tokens[SEQUENCES];
        for (int i = 0; i < SEQUENCES; i++) tokens[i] = next[order[i]][step];
        const float *logits = llama_decode_batch(&batch, sequences, tokens, SEQUENCES, error, sizeof error);
        cr_assert(logits, "%s", error);
        batch_steps[step] = copy_logits(logits, SEQUENCES, vocab);
    }
    /* each alone, in a session of its own */
    for (int i = 0; i < SEQUENCES; i++) {
        int sequence = order[i];
        llama_session alone;
        cr_assert(llama_build_session(&alone, &t, 1, 24, 1, error, sizeof error) == 0, "%s", error);
        const float *logits = llama_prefill(&alone, 0, prompts[sequence], lengths[sequence], error, sizeof error);
        cr_assert(memcmp(logits, batch_prefill + (size_t)i * vocab, vocab * sizeof(float)) == 0,
                  "sequence %d: its prompt's logits differ between the batch and alone", sequence);
        for (int step = 0; step < STEPS; step++) {
            logits = llama_decode_batch(&alone, (int[]){0}, &next[sequence][step], 1, error, sizeof error);
            cr_assert(memcmp(logits, batch_steps[step] + (size_t)i * vocab, vocab * sizeof(float)) == 0,
                      "sequence %d (prompt of %d tokens), decode step %d: the batch and alone differ", sequence,
                      lengths[sequence], step);
        }
        llama_free_session(&alone);
    }
    for (int step = 0; step < STEPS; step++) free(batch_steps[step]);
    free(batch_prefill);
    llama_free_session(&batch);
    llama_free_transformer(&t);
}

Test(cache, a_forked_sequence_continues_as_its_parent, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 9);
    int vocab = t.config.vocab_size, prompt[7], next[3] = {5, 17, 40};
    random_tokens(prompt, 7, vocab, 300);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 3, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&s, 0, prompt, 7, error, sizeof error), "%s", error);
    cr_assert(llama_fork_sequence(&s, 0, 2, error, sizeof error) == 0, "%s", error);
    cr_expect_eq(s.cache.length[2], 7);
    cr_expect(llama_fork_sequence(&s, 0, 2, error, sizeof error) != 0 && strstr(error, "holds 7 tokens"),
              "forking into a sequence that is not empty must be refused: %s", error);
    cr_expect(llama_fork_sequence(&s, 0, 3, error, sizeof error) != 0, "sequence 3 does not exist");
    for (int step = 0; step < 3; step++) {
        float *parent = copy_logits(llama_decode_batch(&s, (int[]){0}, &next[step], 1, error, sizeof error), 1, vocab);
        const float *child = llama_decode_batch(&s, (int[]){2}, &next[step], 1, error, sizeof error);
        cr_assert(child, "%s", error);
        cr_assert(memcmp(parent, child, vocab * sizeof(float)) == 0, "step %d: the fork and its parent differ", step);
        free(parent);
    }
    llama_free_session(&s);
    llama_free_transformer(&t);
}

Test(cache, a_truncated_sequence_continues_as_if_never_longer, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 10);
    int vocab = t.config.vocab_size, tokens[9];
    random_tokens(tokens, 9, vocab, 400);
    llama_session a, b;
    cr_assert(llama_build_session(&a, &t, 1, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&b, &t, 1, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&a, 0, tokens, 9, error, sizeof error), "%s", error);   /* 9 tokens, then back to 5 */
    cr_assert(llama_truncate_sequence(&a, 0, 5, error, sizeof error) == 0, "%s", error);
    cr_expect(llama_truncate_sequence(&a, 0, 6, error, sizeof error) != 0 && strstr(error, "holds 5 tokens"),
              "a sequence cannot be cut to more than it holds: %s", error);
    cr_assert(llama_prefill(&b, 0, tokens, 5, error, sizeof error), "%s", error);
    int next = 3;
    float *after_cut = copy_logits(llama_decode_batch(&a, (int[]){0}, &next, 1, error, sizeof error), 1, vocab);
    const float *never_longer = llama_decode_batch(&b, (int[]){0}, &next, 1, error, sizeof error);
    cr_assert(never_longer, "%s", error);
    cr_expect(memcmp(after_cut, never_longer, vocab * sizeof(float)) == 0, "a sequence cut back to 5 tokens and one "
              "that only ever held 5 give different logits for the same next token");
    free(after_cut);
    llama_free_session(&a), llama_free_session(&b);
    llama_free_transformer(&t);
}

Test(cache, every_rows_logits_equal_a_prefill_of_its_prefix, .timeout = 60)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    c.seq_len = 700;   /* room for a prompt longer than one step of 512 rows */
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 12, error, sizeof error) == 0, "%s", error);
    enum { N = 600 };
    int vocab = c.vocab_size, *tokens = malloc(N * sizeof(int));
    random_tokens(tokens, N, vocab, 500);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 1, N, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&s, 0, tokens, 3, error, sizeof error), "%s", error);   /* some context first */
    const float *rows = llama_prefill_rows(&s, 0, tokens + 3, N - 3, error, sizeof error);
    cr_assert(rows, "%s", error);
    cr_expect_eq(s.cache.length[0], N);
    const int checked[] = {0, 1, 250, 511, 512, N - 4};   /* rows of both steps, either side of the boundary */
    for (int k = 0; k < 6; k++) {
        int row = checked[k];
        llama_session fresh;
        cr_assert(llama_build_session(&fresh, &t, 1, N, 1, error, sizeof error) == 0, "%s", error);
        const float *want = llama_prefill(&fresh, 0, tokens, 3 + row + 1, error, sizeof error);
        cr_assert(want, "%s", error);
        cr_expect(memcmp(rows + (size_t)row * vocab, want, vocab * sizeof(float)) == 0,
                  "row %d of llama_prefill_rows differs from a prefill of the %d tokens it follows", row, 3 + row + 1);
        llama_free_session(&fresh);
    }
    llama_free_session(&s);
    free(tokens);
    llama_free_transformer(&t);
}

Test(cache, two_threads_equal_one, .timeout = 30)
{
    llama_transformer t;
    build(&t, "260K", 9);
    int vocab = t.config.vocab_size, tokens[40];
    random_tokens(tokens, 40, vocab, 10);
    llama_session one, two;
    cr_assert(llama_build_session(&one, &t, 2, 40, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&two, &t, 2, 40, 2, error, sizeof error) == 0, "%s", error);
    for (int sequence = 0; sequence < 2; sequence++) {
        float *a = copy_logits(llama_prefill(&one, sequence, tokens, 30 + sequence, error, sizeof error), 1, vocab);
        const float *b = llama_prefill(&two, sequence, tokens, 30 + sequence, error, sizeof error);
        cr_assert(memcmp(a, b, vocab * sizeof(float)) == 0, "sequence %d: prefill on 2 threads differs from 1", sequence);
        free(a);
    }
    for (int step = 0; step < 5; step++) {
        int sequences[2] = {0, 1}, next[2] = {tokens[step], tokens[step + 1]};
        float *a = copy_logits(llama_decode_batch(&one, sequences, next, 2, error, sizeof error), 2, vocab);
        const float *b = llama_decode_batch(&two, sequences, next, 2, error, sizeof error);
        cr_assert(memcmp(a, b, 2 * vocab * sizeof(float)) == 0, "decode step %d on 2 threads differs from 1", step);
        free(a);
    }
    llama_free_session(&one), llama_free_session(&two);
    llama_free_transformer(&t);
}

Test(cache, a_batch_larger_than_one_step_equals_its_halves, .timeout = 30)
{
    /* more sequences than LLAMA_MAX_STEP_ROWS: the step is cut in two, transparently */
    llama_transformer t;
    build(&t, "tiny", 14);
    enum { COUNT = LLAMA_MAX_STEP_ROWS + 40 };
    int vocab = t.config.vocab_size, *sequences = malloc(COUNT * sizeof(int)), *tokens = malloc(COUNT * sizeof(int));
    random_tokens(tokens, COUNT, vocab, 15);
    for (int i = 0; i < COUNT; i++) sequences[i] = i;
    llama_session whole, halves;
    cr_assert(llama_build_session(&whole, &t, COUNT, 4, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&halves, &t, COUNT, 4, 1, error, sizeof error) == 0, "%s", error);
    for (int step = 0; step < 3; step++) {
        const float *all = llama_decode_batch(&whole, sequences, tokens, COUNT, error, sizeof error);
        cr_assert(all, "%s", error);
        float *first = copy_logits(llama_decode_batch(&halves, sequences, tokens, COUNT / 2, error, sizeof error), COUNT / 2, vocab);
        const float *second = llama_decode_batch(&halves, sequences + COUNT / 2, tokens + COUNT / 2, COUNT - COUNT / 2, error, sizeof error);
        cr_assert(second, "%s", error);
        cr_assert(memcmp(all, first, (size_t)(COUNT / 2) * vocab * sizeof(float)) == 0 &&
                  memcmp(all + (size_t)(COUNT / 2) * vocab, second, (size_t)(COUNT - COUNT / 2) * vocab * sizeof(float)) == 0,
                  "step %d: a decode of %d sequences differs from its two halves", step, COUNT);
        free(first);
        for (int i = 0; i < COUNT; i++) tokens[i] = (tokens[i] * 7 + 3) % vocab;
    }
    cr_assert(whole.cache.length[COUNT - 1] == 3 && halves.cache.length[0] == 3);
    free(sequences), free(tokens);
    llama_free_session(&whole), llama_free_session(&halves);
    llama_free_transformer(&t);
}

/* ----------------------------------------------------------------------------------
 * GQA = MHA with repeated KV heads */

Test(cache, grouped_query_equals_multi_head_with_repeated_kv_heads, .timeout = 30)
{
    llama_transformer gqa, mha;
    build(&gqa, "tiny", 11);      /* 6 query heads share 2 KV heads: 3 per group */
    build(&mha, "tiny-mha", 12);  /* the same shape with 6 KV heads */
    const llama_config *c = &gqa.config;
    cr_assert(c->n_kv_heads < c->n_heads && mha.config.n_kv_heads == c->n_heads && mha.config.dim == c->dim);
    int head_dim = llama_head_dim_of(c), group = c->n_heads / c->n_kv_heads, dim = c->dim;
    /* copy every weight of the GQA model into the MHA model, repeating KV head h / group
     * as KV head h */
    memcpy((float *)mha.token_embedding.fp32, gqa.token_embedding.fp32, (size_t)c->vocab_size * dim * sizeof(float));
    memcpy((float *)mha.classifier.fp32, gqa.classifier.fp32, (size_t)c->vocab_size * dim * sizeof(float));
    memcpy((float *)mha.rms_final, gqa.rms_final, dim * sizeof(float));
    for (int l = 0; l < c->n_layers; l++) {
        llama_layer_weights *g = &gqa.layers[l], *m = &mha.layers[l];
        memcpy((float *)m->rms_attention, g->rms_attention, dim * sizeof(float));
        memcpy((float *)m->rms_ffn, g->rms_ffn, dim * sizeof(float));
        memcpy((float *)m->wq.fp32, g->wq.fp32, (size_t)dim * dim * sizeof(float));
        memcpy((float *)m->wo.fp32, g->wo.fp32, (size_t)dim * dim * sizeof(float));
        memcpy((float *)m->w1.fp32, g->w1.fp32, (size_t)c->hidden_dim * dim * sizeof(float));
        memcpy((float *)m->w2.fp32, g->w2.fp32, (size_t)c->hidden_dim * dim * sizeof(float));
        memcpy((float *)m->w3.fp32, g->w3.fp32, (size_t)c->hidden_dim * dim * sizeof(float));
        for (int h = 0; h < c->n_heads; h++) {
            size_t rows = (size_t)head_dim * dim * sizeof(float);
            memcpy((float *)m->wk.fp32 + (size_t)h * head_dim * dim, g->wk.fp32 + (size_t)(h / group) * head_dim * dim, rows);
            memcpy((float *)m->wv.fp32 + (size_t)h * head_dim * dim, g->wv.fp32 + (size_t)(h / group) * head_dim * dim, rows);
        }
    }
    int tokens[30];
    random_tokens(tokens, 30, c->vocab_size, 13);
    llama_session a, b;
    cr_assert(llama_build_session(&a, &gqa, 1, 30, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&b, &mha, 1, 30, 1, error, sizeof error) == 0, "%s", error);
    float *x = copy_logits(llama_prefill(&a, 0, tokens, 20, error, sizeof error), 1, c->vocab_size);
    cr_assert(memcmp(x, llama_prefill(&b, 0, tokens, 20, error, sizeof error), c->vocab_size * sizeof(float)) == 0,
              "after the prompt, GQA and MHA with repeated KV heads differ");
    for (int p = 20; p < 30; p++) {
        memcpy(x, llama_decode_batch(&a, (int[]){0}, &tokens[p], 1, error, sizeof error), c->vocab_size * sizeof(float));
        cr_assert(memcmp(x, llama_decode_batch(&b, (int[]){0}, &tokens[p], 1, error, sizeof error), c->vocab_size * sizeof(float)) == 0,
                  "position %d: GQA and MHA with repeated KV heads differ", p);
    }
    free(x);
    llama_free_session(&a), llama_free_session(&b);
    llama_free_transformer(&gqa), llama_free_transformer(&mha);
}

/* ----------------------------------------------------------------------------------
 * The size formula */

Test(cache, size_is_the_books_formula, .timeout = 10)
{
    /* Llama-2-7B: 2 x 32 layers x 32 KV heads x 128 x 2 bytes (FP16) x 4096 tokens = 2 GiB */
    cr_assert(llama_kv_cache_bytes(32, 32, 128, 2, 4096, 1) == 2147483648LL, "Llama-2-7B, 4096 FP16 tokens: %lld bytes",
              (long long)llama_kv_cache_bytes(32, 32, 128, 2, 4096, 1));
    /* Llama-2-70B's 8 KV heads: an eighth of the multi-head size per layer */
    cr_assert(llama_kv_cache_bytes(80, 8, 128, 2, 1, 1) == 327680, "Llama-2-70B: %lld bytes a token",
              (long long)llama_kv_cache_bytes(80, 8, 128, 2, 1, 1));
    /* a session allocates exactly the formula's bytes */
    llama_transformer t;
    build(&t, "tiny", 1);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 3, 17, 1, error, sizeof error) == 0, "%s", error);
    const llama_config *c = &t.config;
    int64_t formula = llama_kv_cache_bytes(c->n_layers, c->n_kv_heads, llama_head_dim_of(c), 4, 17, 3);
    int64_t allocated = 2 * (int64_t)s.cache.batch * c->n_layers * s.cache.capacity * s.cache.kv_dim * (int64_t)sizeof(float);
    cr_assert(allocated == formula && formula == 2 * 2 * 2 * 8 * 4 * 17 * 3, "session: %lld bytes, formula %lld",
              (long long)allocated, (long long)formula);
    cr_assert(llama_kv_bytes_per_token(c, 4) * 17 * 3 == formula);
    cr_assert(s.activation_bytes == llama_activation_bytes_of(c, 3, 17, 1));
    llama_free_session(&s);
    llama_free_transformer(&t);
}

Test(cache, starts_zeroed_on_large_pages, .timeout = 10)
{
    /* forward.c writes the cache through when it makes it (zeros, as calloc gave), so that no
     * decode step takes the page faults of its first writes; on large pages, fewer of them */
    llama_transformer t;
    build(&t, "tiny", 1);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 3, 17, 1, error, sizeof error) == 0, "%s", error);
    size_t floats = (size_t)s.cache.batch * t.config.n_layers * s.cache.capacity * s.cache.kv_dim;
    cr_assert((uintptr_t)s.cache.keys % (2u << 20) == 0 && (uintptr_t)s.cache.values % (2u << 20) == 0,
              "the KV cache starts %zu and %zu bytes into a 2 MiB page", (size_t)((uintptr_t)s.cache.keys % (2u << 20)),
              (size_t)((uintptr_t)s.cache.values % (2u << 20)));
    for (size_t i = 0; i < floats; i++)
        cr_assert(s.cache.keys[i] == 0.0f && s.cache.values[i] == 0.0f, "a new session's cache holds %g and %g at float %zu",
                  s.cache.keys[i], s.cache.values[i], i);
    llama_free_session(&s);
    llama_free_transformer(&t);
}
