/* counters.c — what the engine counts as it runs (llama_session.counters) and the KV cache a lab
 * plugs in (llama_session.kv_hooks):
 *   - a prefill and a decode step count the FLOPs and bytes of the formulas in llama.h,
 *     exactly, for FP32 and INT8 weights and a grouped-query shape;
 *   - a plain-array KV cache given as hooks produces the logits of the engine's own cache,
 *     on one thread and on two, and the engine really uses it (a cache that stores every key
 *     at position 0 changes the logits);
 *   - a tracer (llama_session.trace) sees every part of a step, properly nested, and changes nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"

static char error[512];

static void build(llama_transformer *t, const char *shape, uint64_t seed)
{
    llama_config c;
    cr_assert(llama_named_shape(shape, &c, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(t, &c, seed, error, sizeof error) == 0, "%s", error);
}

/* ----------------------------------------------------------------------------------
 * The counters, against the formulas written out here */

typedef struct {
    double layer_matrix, kv_dim, head_dim;   /* parameters of one layer's matrices */
} Widths;

static Widths widths_of(const llama_config *c)
{
    double dim = c->dim, kv = llama_kv_dim_of(c), hidden = c->hidden_dim;
    return (Widths){2 * dim * dim + 2 * kv * dim + 3 * hidden * dim, kv, llama_head_dim_of(c)};
}

/* bytes of `values` weights stored in the model's format */
static double stored(const llama_transformer *t, double values)
{
    return t->format == WEIGHTS_INT8 ? values + 4.0 * values / t->group_size : 4.0 * values;
}

static void expect_counts(const llama_transformer *t, const llama_counters *got, int first_position, int rows, int logit_rows)
{
    const llama_config *c = &t->config;
    Widths w = widths_of(c);
    double layers = c->n_layers, classifier = (double)c->vocab_size * c->dim;
    double attended = 0;   /* positions attended by all rows together */
    for (int r = 0; r < rows; r++) attended += first_position + r + 1;
    double flops = rows * 2.0 * layers * w.layer_matrix + logit_rows * 2.0 * classifier;
    double weights = stored(t, layers * w.layer_matrix + classifier) + stored(t, (double)rows * c->dim);
    cr_expect_eq(got->steps, 1);
    cr_expect_eq(got->rows, rows);
    cr_expect_eq(got->matmul_flops, flops, "matmul FLOPs %.0f, expected %.0f", got->matmul_flops, flops);
    cr_expect_eq(got->attention_flops, 4.0 * w.head_dim * attended * c->n_heads * layers, "attention FLOPs %.0f",
                 got->attention_flops);
    cr_expect_eq(got->weight_bytes, weights, "weight bytes %.0f, expected %.0f", got->weight_bytes, weights);
    cr_expect_eq(got->kv_write_bytes, 8.0 * w.kv_dim * rows * layers);
    cr_expect_eq(got->kv_read_bytes, 8.0 * w.kv_dim * attended * layers);
}

static void count_prefill_then_decode(llama_transformer *t)
{
    enum { PROMPT = 10 };
    int tokens[PROMPT + 1];
    for (int i = 0; i <= PROMPT; i++) tokens[i] = (7 * i + 3) % t->config.vocab_size;
    llama_session s;
    cr_assert(llama_build_session(&s, t, 1, PROMPT + 1, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&s, 0, tokens, PROMPT, error, sizeof error), "%s", error);
    expect_counts(t, &s.counters, 0, PROMPT, 1);
    memset(&s.counters, 0, sizeof s.counters);
    cr_assert(llama_decode_batch(&s, (int[]){0}, &tokens[PROMPT], 1, error, sizeof error), "%s", error);
    expect_counts(t, &s.counters, PROMPT, 1, 1);
    llama_free_session(&s);
}

Test(counters, prefill_and_decode_count_the_formulas_fp32_gqa, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 5);   /* 6 query heads sharing 2 KV heads; untied classifier */
    count_prefill_then_decode(&t);
    llama_free_transformer(&t);
}

Test(counters, prefill_and_decode_count_the_formulas_int8_tied, .timeout = 30)
{
    llama_transformer t;
    build(&t, "260K", 5);   /* tied classifier: the embedding is read as the classifier too */
    cr_assert(llama_quantize_transformer(&t, llama_int8_group_size(&t.config, 64), error, sizeof error) == 0, "%s", error);
    count_prefill_then_decode(&t);
    llama_free_transformer(&t);
}

Test(counters, a_batch_of_decodes_counts_each_sequence_at_its_own_position, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 6);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 2, 8, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&s, 0, (int[]){1, 2, 3}, 3, error, sizeof error), "%s", error);
    memset(&s.counters, 0, sizeof s.counters);
    cr_assert(llama_decode_batch(&s, (int[]){0, 1}, (int[]){4, 5}, 2, error, sizeof error), "%s", error);
    /* sequence 0 attends 4 positions, sequence 1 (empty) 1 position */
    const llama_config *c = &t.config;
    double kv = llama_kv_dim_of(c);
    cr_expect_eq(s.counters.kv_read_bytes, 8.0 * kv * (4 + 1) * c->n_layers);
    cr_expect_eq(s.counters.attention_flops, 4.0 * llama_head_dim_of(c) * (4 + 1) * c->n_heads * c->n_layers);
    llama_free_session(&s);
    llama_free_transformer(&t);
}

/* ----------------------------------------------------------------------------------
 * A KV cache of the test's own, plugged in as hooks */

typedef struct {
    const llama_config *config;
    int capacity, batch;
    float *keys, *values;   /* (batch, layers, capacity, kv_dim) */
    int stores;
    int always_position_zero;   /* a broken cache: every key lands at position 0 */
} PlainCache;

static float *slot_of(PlainCache *cache, float *base, int sequence, int layer, int position)
{
    size_t layers = (size_t)cache->config->n_layers, kv_dim = (size_t)llama_kv_dim_of(cache->config);
    return base + (((size_t)sequence * layers + (size_t)layer) * (size_t)cache->capacity + (size_t)position) * kv_dim;
}

static void plain_store(void *state, int sequence, int layer, int position, const float *key, const float *value)
{
    PlainCache *cache = state;
    if (cache->always_position_zero) position = 0;
    size_t kv_dim = (size_t)llama_kv_dim_of(cache->config);
    memcpy(slot_of(cache, cache->keys, sequence, layer, position), key, kv_dim * sizeof(float));
    memcpy(slot_of(cache, cache->values, sequence, layer, position), value, kv_dim * sizeof(float));
    __atomic_fetch_add(&cache->stores, 1, __ATOMIC_RELAXED);
}

static void plain_attend(void *state, float *out, const float *query, int sequence, int layer, int head, int length,
                         float *scores)
{
    PlainCache *cache = state;
    const llama_config *c = cache->config;
    int head_dim = llama_head_dim_of(c), kv_head = head / (c->n_heads / c->n_kv_heads);
    float max = -INFINITY, sum = 0;
    for (int p = 0; p < length; p++) {
        const float *key = slot_of(cache, cache->keys, sequence, layer, p) + (size_t)kv_head * head_dim;
        float dot = 0;
        for (int i = 0; i < head_dim; i++) dot += query[i] * key[i];
        scores[p] = dot / sqrtf((float)head_dim);
        max = fmaxf(max, scores[p]);
    }
    for (int p = 0; p < length; p++) sum += scores[p] = expf(scores[p] - max);
    for (int i = 0; i < head_dim; i++) out[i] = 0;
    for (int p = 0; p < length; p++) {
        const float *value = slot_of(cache, cache->values, sequence, layer, p) + (size_t)kv_head * head_dim;
        for (int i = 0; i < head_dim; i++) out[i] += scores[p] / sum * value[i];
    }
}

static PlainCache plain_cache(const llama_config *c, int batch, int capacity)
{
    size_t floats = (size_t)batch * c->n_layers * capacity * llama_kv_dim_of(c);
    return (PlainCache){c, capacity, batch, calloc(floats, sizeof(float)), calloc(floats, sizeof(float)), 0, 0};
}

/* Greedy generation of `steps` tokens after a prompt, with the engine's cache or the hooks';
 * returns the largest difference of any logit from the engine's own. */
static double largest_difference(llama_transformer *t, int threads, int broken, int *stores)
{
    enum { PROMPT = 5, STEPS = 20 };
    int vocab = t->config.vocab_size, prompt[PROMPT] = {1, 9, 4, 33, 2};
    llama_session own, hooked;
    cr_assert(llama_build_session(&own, t, 1, PROMPT + STEPS, threads, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&hooked, t, 1, PROMPT + STEPS, threads, error, sizeof error) == 0, "%s", error);
    PlainCache cache = plain_cache(&t->config, 1, PROMPT + STEPS);
    cache.always_position_zero = broken;
    hooked.kv_hooks = (llama_kv_hooks){&cache, plain_store, plain_attend};
    const float *a = llama_prefill(&own, 0, prompt, PROMPT, error, sizeof error);
    const float *b = llama_prefill(&hooked, 0, prompt, PROMPT, error, sizeof error);
    double largest = 0;
    for (int step = 0; step < STEPS; step++) {
        cr_assert(a && b, "%s", error);
        for (int i = 0; i < vocab; i++) largest = fmax(largest, fabs((double)a[i] - b[i]));
        int next = llama_argmax(a, vocab);   /* both continue with the engine's own token */
        if (step == STEPS - 1) break;
        a = llama_decode_batch(&own, (int[]){0}, &next, 1, error, sizeof error);
        b = llama_decode_batch(&hooked, (int[]){0}, &next, 1, error, sizeof error);
    }
    *stores = cache.stores;
    free(cache.keys), free(cache.values);
    llama_free_session(&own), llama_free_session(&hooked);
    return largest;
}

Test(kv_hooks, a_cache_of_ones_own_gives_the_engines_logits, .timeout = 60)
{
    llama_transformer t;
    build(&t, "tiny", 8);
    int stores;
    double difference = largest_difference(&t, 1, 0, &stores);
    cr_expect_lt(difference, 1e-4, "the hooked cache's logits differ by %g", difference);
    cr_expect_eq(stores, (5 + 19) * t.config.n_layers, "store() was called %d times", stores);
    difference = largest_difference(&t, 2, 0, &stores);
    cr_expect_lt(difference, 1e-4, "on two threads the hooked cache's logits differ by %g", difference);
    llama_free_transformer(&t);
}

Test(kv_hooks, the_engine_really_uses_the_hooks, .timeout = 60)
{
    llama_transformer t;
    build(&t, "tiny", 8);
    int stores;
    double difference = largest_difference(&t, 1, 1, &stores);
    cr_expect_gt(difference, 1e-2, "a cache storing every key at position 0 gave the engine's logits (%g): "
                 "the hooks are not used", difference);
    llama_free_transformer(&t);
}

/* ----------------------------------------------------------------------------------
 * A tracer: the events of a step, in order */

typedef struct {
    char events[512][40];   /* "+name/rows" for begin, "-name/rows" for end */
    int count, depth, deepest, unbalanced;
    const char *open[16];
} EventLog;

static void log_event(EventLog *log, char sign, const char *name, int rows)
{
    if (log->count < 512) snprintf(log->events[log->count++], sizeof log->events[0], "%c%s/%d", sign, name, rows);
}
static void on_begin(void *state, const char *name, int rows)
{
    EventLog *log = state;
    log_event(log, '+', name, rows);
    if (log->depth < 16) log->open[log->depth] = name;
    log->depth++;
    if (log->depth > log->deepest) log->deepest = log->depth;
}
static void on_end(void *state, const char *name, int rows)
{
    EventLog *log = state;
    log_event(log, '-', name, rows);
    log->depth--;
    if (log->depth < 0 || log->depth >= 16 || strcmp(log->open[log->depth], name) != 0) log->unbalanced++;
}

Test(trace, a_step_is_seen_whole_and_nested, .timeout = 30)
{
    llama_transformer t;
    build(&t, "tiny", 11);   /* 2 layers */
    int vocab = t.config.vocab_size, prompt[3] = {4, 8, 15};
    llama_session traced, plain;
    cr_assert(llama_build_session(&traced, &t, 1, 8, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&plain, &t, 1, 8, 1, error, sizeof error) == 0, "%s", error);
    static EventLog log;
    memset(&log, 0, sizeof log);
    traced.trace = (llama_trace_hooks){&log, on_begin, on_end};
    const float *a = llama_prefill(&traced, 0, prompt, 3, error, sizeof error);
    cr_assert(a, "%s", error);
    const char *parts[] = {"attention_norm", "qkv", "rope_and_cache", "attention", "output_projection", "ffn_norm", "ffn"};
    char want[64][40];
    int n = 0;
    snprintf(want[n++], 40, "+step/3");
    snprintf(want[n++], 40, "+embedding/3");
    snprintf(want[n++], 40, "-embedding/3");
    for (int l = 0; l < 2; l++) {
        snprintf(want[n++], 40, "+layer/3");
        for (int p = 0; p < 7; p++) snprintf(want[n++], 40, "+%s/3", parts[p]), snprintf(want[n++], 40, "-%s/3", parts[p]);
        snprintf(want[n++], 40, "-layer/3");
    }
    snprintf(want[n++], 40, "+classifier/1");
    snprintf(want[n++], 40, "-classifier/1");
    snprintf(want[n++], 40, "-step/3");
    cr_assert_eq(log.count, n, "%d events for a 3-token prefill of 2 layers, want %d", log.count, n);
    for (int i = 0; i < n; i++) cr_assert_str_eq(log.events[i], want[i], "event %d", i);
    cr_expect_eq(log.unbalanced, 0);
    cr_expect_eq(log.depth, 0);
    cr_expect_eq(log.deepest, 3);
    const float *b = llama_prefill(&plain, 0, prompt, 3, error, sizeof error);
    cr_assert(b, "%s", error);
    cr_expect(memcmp(a, b, vocab * sizeof(float)) == 0, "tracing changed the logits");
    llama_free_session(&traced), llama_free_session(&plain);
    llama_free_transformer(&t);
}
