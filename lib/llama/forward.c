/* forward.c — running the model: sessions (KV cache and activation buffers), the forward
 * step over a set of token rows, and the three ways in: llama_prefill, llama_prefill_batch and
 * llama_decode_batch.
 *
 * One step function serves prefill and decode alike. A step is a list of rows, each a
 * token of some sequence at some position; every layer first writes the keys and values of
 * all rows into the cache and then lets each row attend to its own sequence's positions
 * 0 .. its position. For a chunk of one prompt that is causal attention within the chunk;
 * for a decode batch it is each sequence attending to its own history. The matrix
 * multiplications see `rows` rows either way: matrix-vector work at one row, matrix-matrix
 * work as rows grow. Each step adds what it computed and moved to the session's counters, and
 * a lab's own KV cache (llama_session.kv_hooks) can take the place of the engine's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocks.h"
#include "matmul.h"
#include "quantize.h"
#include "runq_arithmetic.h"
#include "threads.h"
#include "weights.h"

/* ----------------------------------------------------------------------------------
 * Sessions */

static double physical_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page_size > 0 ? (double)pages * (double)page_size : 1e18;
}

/* Activations start on a cache line, so that a row whose size is a multiple of 64 bytes
 * (the 15M, 42M and 110M shapes; not 260K's hidden rows of 172 floats) never has a vector
 * load straddle two lines, as it would 16 bytes past a line, where malloc puts them. */
static float *line_aligned_floats(size_t count)
{
    enum { LINE = 64 };
    size_t bytes = (count * sizeof(float) + LINE - 1) / LINE * LINE;
    return aligned_alloc(LINE, bytes ? bytes : LINE);
}

int llama_build_session(llama_session *s, const llama_transformer *t, int batch, int capacity, int threads, char *error, size_t error_size)
{
    memset(s, 0, sizeof *s);
    const llama_config *c = &t->config;
    if (batch < 1 || capacity < 1 || threads < 1) {
        snprintf(error, error_size, "a session needs batch >= 1, capacity >= 1 token and threads >= 1 (got %d, %d, %d)",
                 batch, capacity, threads);
        return -1;
    }
    if (capacity > c->seq_len) {
        snprintf(error, error_size, "a context of %d tokens does not fit: the model's seq_len is %d", capacity, c->seq_len);
        return -1;
    }
    int64_t kv_bytes = llama_kv_cache_bytes(c->n_layers, c->n_kv_heads, llama_head_dim_of(c), (int)sizeof(float), capacity, batch);
    int64_t activation_bytes = llama_activation_bytes_of(c, batch, capacity, threads);
    double memory = physical_memory_bytes();
    if ((double)(kv_bytes + activation_bytes + t->weights_bytes) > memory) {
        snprintf(error, error_size, "a batch of %d sequences of %d tokens does not fit: its FP32 KV cache is %.2f GB "
                 "(2 x %d layers x %d kv heads x %d head_dim x 4 bytes x %d tokens x %d), activations %.2f GB and "
                 "weights %.2f GB, but this machine has %.2f GB", batch, capacity, kv_bytes * 1e-9, c->n_layers,
                 c->n_kv_heads, llama_head_dim_of(c), capacity, batch, activation_bytes * 1e-9, t->weights_bytes * 1e-9,
                 memory * 1e-9);
        return -1;
    }
    s->transformer = t;
    s->threads = threads;
    /* which path a quantized matrix's many rows take is measured now, not in a timed step */
    llama_matmul_dequantizes(t->format, MATMUL_MANY_ROWS, NULL);
    s->max_rows = llama_step_rows_of(batch, capacity);
    int kv_dim = llama_kv_dim_of(c);
    size_t rows = (size_t)s->max_rows;
    s->cache = (llama_kv_cache){.batch = batch, .capacity = capacity, .kv_dim = kv_dim};
    /* The KV cache on large pages, written through once now: zeroed as calloc would, and
     * without the page faults a step took on first writing each page of its new positions
     * (llama.cpp clears its KV buffer when it makes it, too). */
    size_t cache_bytes = (size_t)kv_bytes / 2;
    s->cache.keys = llama_allocate_large_pages(cache_bytes);
    s->cache.values = llama_allocate_large_pages(cache_bytes);
    if (s->cache.keys) memset(s->cache.keys, 0, cache_bytes);
    if (s->cache.values) memset(s->cache.values, 0, cache_bytes);
    s->cache.length = calloc((size_t)batch, sizeof(int));
    s->x = line_aligned_floats(rows * (size_t)c->dim);
    s->xb = line_aligned_floats(rows * (size_t)c->dim);
    s->xb2 = line_aligned_floats(rows * (size_t)c->dim);
    s->q = line_aligned_floats(rows * (size_t)c->dim);
    s->k = line_aligned_floats(rows * (size_t)kv_dim);
    s->v = line_aligned_floats(rows * (size_t)kv_dim);
    s->hb = line_aligned_floats(rows * (size_t)c->hidden_dim);
    s->hb2 = line_aligned_floats(rows * (size_t)c->hidden_dim);
    s->scores = line_aligned_floats((size_t)threads * (size_t)capacity);
    s->logits = line_aligned_floats((size_t)batch * (size_t)c->vocab_size);
    s->row_sequence = malloc(rows * sizeof(int));
    s->row_position = malloc(rows * sizeof(int));
    s->row_token = malloc(rows * sizeof(int));
    s->activation_bytes = activation_bytes;
    s->pool = threads > 1 ? llama_build_thread_pool(threads) : NULL;
    if (!s->cache.keys || !s->cache.values || !s->cache.length || !s->x || !s->xb || !s->xb2 || !s->q || !s->k ||
        !s->v || !s->hb || !s->hb2 || !s->scores || !s->logits || !s->row_sequence || !s->row_position ||
        !s->row_token || (threads > 1 && !s->pool)) {
        snprintf(error, error_size, "out of memory (or threads) for a session: KV cache %.2f GB, activations %.2f GB, %d threads",
                 kv_bytes * 1e-9, activation_bytes * 1e-9, threads);
        llama_free_session(s);
        return -1;
    }
    return 0;
}

int llama_set_int8_activations(llama_session *s, int on, char *error, size_t error_size)
{
    const llama_transformer *t = s->transformer;
    const llama_config *c = &t->config;
    if (on && t->format != WEIGHTS_INT8) {
        snprintf(error, error_size, "INT8 activations need INT8 weights (runq.c multiplies INT8 by INT8): quantize the "
                 "model or load a version-2 checkpoint (tools/llama --weights int8)");
        return -1;
    }
    s->int8_activations = on != 0;
    if (!on || s->xq) return 0;
    size_t widest = (size_t)(c->hidden_dim > c->dim ? c->hidden_dim : c->dim), values = (size_t)s->max_rows * widest;
    s->xq = malloc(values);
    s->xq_scales = malloc(values / (size_t)t->group_size * sizeof(float));
    if (!s->xq || !s->xq_scales) {
        free(s->xq), free(s->xq_scales);
        s->xq = NULL, s->xq_scales = NULL, s->int8_activations = 0;
        snprintf(error, error_size, "out of memory for INT8 activations (%.2f MB)", values * (1 + 4.0 / t->group_size) * 1e-6);
        return -1;
    }
    s->activation_bytes += (int64_t)values + 4 * (int64_t)(values / (size_t)t->group_size);
    return 0;
}

void llama_free_session(llama_session *s)
{
    if (!s) return;
    llama_free_thread_pool(s->pool);
    free(s->xq);
    free(s->xq_scales);
    free(s->cache.keys);
    free(s->cache.values);
    free(s->cache.length);
    free(s->x);
    free(s->xb);
    free(s->xb2);
    free(s->q);
    free(s->k);
    free(s->v);
    free(s->hb);
    free(s->hb2);
    free(s->scores);
    free(s->logits);
    free(s->row_logits);
    free(s->row_sequence);
    free(s->row_position);
    free(s->row_token);
    memset(s, 0, sizeof *s);
}

void llama_reset_sequence(llama_session *s, int sequence)
{
    if (sequence >= 0 && sequence < s->cache.batch) s->cache.length[sequence] = 0;
}

/* Where the keys (or values) of one sequence and layer start. */
static float *cache_at(const llama_session *s, float *base, int sequence, int layer)
{
    const llama_kv_cache *cache = &s->cache;
    size_t layers = (size_t)s->transformer->config.n_layers;
    return base + (((size_t)sequence * layers + (size_t)layer) * (size_t)cache->capacity) * (size_t)cache->kv_dim;
}

int llama_truncate_sequence(llama_session *s, int sequence, int length, char *error, size_t error_size)
{
    if (sequence < 0 || sequence >= s->cache.batch) {
        snprintf(error, error_size, "sequence %d does not exist: the session holds sequences 0 to %d", sequence,
                 s->cache.batch - 1);
        return -1;
    }
    if (length < 0 || length > s->cache.length[sequence]) {
        snprintf(error, error_size, "sequence %d holds %d tokens: it cannot be cut to %d", sequence,
                 s->cache.length[sequence], length);
        return -1;
    }
    s->cache.length[sequence] = length;   /* positions from `length` on are overwritten as tokens come */
    return 0;
}

int llama_fork_sequence(llama_session *s, int parent, int child, char *error, size_t error_size)
{
    llama_kv_cache *cache = &s->cache;
    if (parent < 0 || child < 0 || parent >= cache->batch || child >= cache->batch || parent == child) {
        snprintf(error, error_size, "cannot fork sequence %d into %d: the session holds sequences 0 to %d, and the two "
                 "must differ", parent, child, cache->batch - 1);
        return -1;
    }
    if (cache->length[child] != 0) {
        snprintf(error, error_size, "cannot fork into sequence %d: it holds %d tokens (llama_reset_sequence empties it)",
                 child, cache->length[child]);
        return -1;
    }
    if (!s->kv_hooks.store)
        for (int l = 0; l < s->transformer->config.n_layers; l++) {
            size_t bytes = (size_t)cache->length[parent] * (size_t)cache->kv_dim * sizeof(float);
            memcpy(cache_at(s, cache->keys, child, l), cache_at(s, cache->keys, parent, l), bytes);
            memcpy(cache_at(s, cache->values, child, l), cache_at(s, cache->values, parent, l), bytes);
        }
    cache->length[child] = cache->length[parent];
    return 0;
}

/* ----------------------------------------------------------------------------------
 * The parallel parts of a step: matrix multiplications (threads split the outputs) and
 * attention (threads split the row x head pairs) */

typedef struct {
    float *out;
    const float *x;
    int rows;
    const llama_weight_matrix *weights;
} MatmulJob;

typedef struct {
    MatmulJob jobs[3];         /* products of the same x */
    int count;
    const int8_t *xq;          /* that x quantized, when the session has INT8 activations */
    const float *xq_scales;
} MatmulJobs;

/* bytes of `rows` rows of a weight matrix as stored */
static double stored_bytes(const llama_weight_matrix *w, int rows)
{
    double values = (double)rows * w->cols;
    if (w->format == WEIGHTS_INT4) return values / 2 + 5.0 * values / w->group_size;
    return w->format == WEIGHTS_INT8 ? values + 4.0 * values / w->group_size : 4.0 * values;
}

static void count_matmul(llama_counters *counters, const MatmulJob *job)
{
    counters->matmul_flops += 2.0 * job->rows * (double)job->weights->rows * job->weights->cols;
    counters->weight_bytes += stored_bytes(job->weights, job->weights->rows);
}

static void run_matmul_jobs(void *context, int thread, int threads)
{
    MatmulJobs *jobs = context;
    for (int j = 0; j < jobs->count; j++) {
        const MatmulJob *job = &jobs->jobs[j];
        int first, last;
        llama_share_of(job->weights->rows, MATMUL_OUTPUT_TILE, thread, threads, &first, &last);
        if (first >= last) continue;
        if (jobs->xq) llama_runq_matmul(job->out, jobs->xq, jobs->xq_scales, job->rows, job->weights, first, last);
        else llama_matmul(job->out, job->x, job->rows, job->weights, first, last);
    }
}

/* out = x . W^T for up to three independent products of the same x at once (one wake-up
 * of the pool); with INT8 activations x is quantized first, once for all of them */
static void multiply(llama_session *s, int count, MatmulJob a, MatmulJob b, MatmulJob c)
{
    MatmulJobs jobs = {{a, b, c}, count, NULL, NULL};
    for (int j = 0; j < count; j++) count_matmul(&s->counters, &jobs.jobs[j]);
    if (s->int8_activations) {
        llama_runq_quantize(s->xq, s->xq_scales, a.x, a.rows, a.weights->cols, a.weights->group_size);
        jobs.xq = s->xq, jobs.xq_scales = s->xq_scales;
    }
    llama_run_parallel(s->pool, run_matmul_jobs, &jobs);
}

typedef struct {
    llama_session *session;
    int layer, rows;
} AttentionJob;

static void run_attention(void *context, int thread, int threads)
{
    AttentionJob *job = context;
    llama_session *s = job->session;
    const llama_config *c = &s->transformer->config;
    int head_dim = llama_head_dim_of(c), kv_dim = llama_kv_dim_of(c), heads_per_kv_head = c->n_heads / c->n_kv_heads;
    float *scores = s->scores + (size_t)thread * (size_t)s->cache.capacity;
    int first, last;
    llama_share_of(job->rows * c->n_heads, 1, thread, threads, &first, &last);
    for (int pair = first; pair < last; pair++) {
        int row = pair / c->n_heads, head = pair % c->n_heads, kv_head = head / heads_per_kv_head;
        int sequence = s->row_sequence[row], length = s->row_position[row] + 1;
        float *out = s->xb + (size_t)row * c->dim + (size_t)head * head_dim;
        const float *query = s->q + (size_t)row * c->dim + (size_t)head * head_dim;
        if (s->kv_hooks.attend) {
            s->kv_hooks.attend(s->kv_hooks.state, out, query, sequence, job->layer, head, length, scores);
            continue;
        }
        size_t head_offset = (size_t)kv_head * (size_t)head_dim;
        (s->int8_activations ? llama_runq_attend : llama_attend)(
            out, query, cache_at(s, s->cache.keys, sequence, job->layer) + head_offset,
            cache_at(s, s->cache.values, sequence, job->layer) + head_offset, length, kv_dim, head_dim, scores);
    }
}

/* ----------------------------------------------------------------------------------
 * One forward step over `rows` rows (s->row_sequence/position/token). The rows listed in
 * logit_rows get logits, written to logits_out (one vocab_size row each, in list order). */

/* The step's attention in the counters: each row attends its sequence's positions 0 .. its
 * own, with every query head (FLOPs) and reads each KV head's keys and values once (bytes). */
static void count_attention(llama_session *s, int rows)
{
    const llama_config *c = &s->transformer->config;
    double head_dim = llama_head_dim_of(c), kv_dim = llama_kv_dim_of(c);
    for (int r = 0; r < rows; r++) {
        double length = s->row_position[r] + 1.0;
        s->counters.attention_flops += 4.0 * head_dim * length * c->n_heads * c->n_layers;
        s->counters.kv_read_bytes += 2.0 * 4.0 * kv_dim * length * c->n_layers;
        s->counters.kv_write_bytes += 2.0 * 4.0 * kv_dim * c->n_layers;
    }
}

/* The tracer's calls (llama_session.trace), when one is plugged in */
static void trace_begin(const llama_session *s, const char *name, int rows)
{
    if (s->trace.begin) s->trace.begin(s->trace.state, name, rows);
}
static void trace_end(const llama_session *s, const char *name, int rows)
{
    if (s->trace.end) s->trace.end(s->trace.state, name, rows);
}
/* TRACED(s, "qkv", rows) { ... }: the statement between the tracer's begin and end, so that the
 * step below reads as the maths it does (nothing inside one may return or break out of it) */
#define TRACED(s, name, rows) \
    for (int traced_once_ = (trace_begin(s, name, rows), 1); traced_once_; traced_once_ = 0, trace_end(s, name, rows))

static void forward_step(llama_session *s, int rows, const int *logit_rows, int logit_count, float *logits_out)
{
    const llama_transformer *t = s->transformer;
    const llama_config *c = &t->config;
    int dim = c->dim, kv_dim = llama_kv_dim_of(c), hidden = c->hidden_dim, head_dim = llama_head_dim_of(c), half = head_dim / 2;
    /* INT8 activations: runq.c's arithmetic in every block, not only the multiplications */
    int runq = s->int8_activations;
    void (*rmsnorm)(float *, const float *, const float *, int) = runq ? llama_runq_rmsnorm : llama_rmsnorm;
    void (*swiglu)(float *, const float *, int) = runq ? llama_runq_swiglu : llama_swiglu;

    TRACED(s, "step", rows) {
        TRACED(s, "embedding", rows)
            for (int r = 0; r < rows; r++) llama_dequantize_row(s->x + (size_t)r * dim, &t->token_embedding, s->row_token[r]);
        s->counters.steps++;
        s->counters.rows += rows;
        s->counters.weight_bytes += stored_bytes(&t->token_embedding, rows);
        count_attention(s, rows);

        for (int l = 0; l < c->n_layers; l++) TRACED(s, "layer", rows) {
            const llama_layer_weights *w = &t->layers[l];

            /* attention: norm, project to q k v, rotate, cache, attend, project back, add */
            TRACED(s, "attention_norm", rows)
                for (int r = 0; r < rows; r++) rmsnorm(s->xb + (size_t)r * dim, s->x + (size_t)r * dim, w->rms_attention, dim);
            TRACED(s, "qkv", rows)
                multiply(s, 3, (MatmulJob){s->q, s->xb, rows, &w->wq}, (MatmulJob){s->k, s->xb, rows, &w->wk},
                         (MatmulJob){s->v, s->xb, rows, &w->wv});
            TRACED(s, "rope_and_cache", rows)
                for (int r = 0; r < rows; r++) {
                    int position = s->row_position[r];
                    const float *angle_cos = t->rope_cos + (size_t)position * half, *angle_sin = t->rope_sin + (size_t)position * half;
                    if (runq) {
                        llama_runq_rope(s->q + (size_t)r * dim, s->k + (size_t)r * kv_dim, dim, kv_dim, head_dim, position);
                    } else {
                        llama_rope(s->q + (size_t)r * dim, dim, head_dim, angle_cos, angle_sin);
                        llama_rope(s->k + (size_t)r * kv_dim, kv_dim, head_dim, angle_cos, angle_sin);
                    }
                    if (s->kv_hooks.store) {
                        s->kv_hooks.store(s->kv_hooks.state, s->row_sequence[r], l, position, s->k + (size_t)r * kv_dim,
                                          s->v + (size_t)r * kv_dim);
                        continue;
                    }
                    size_t slot = (size_t)position * (size_t)kv_dim, bytes = (size_t)kv_dim * sizeof(float);
                    memcpy(cache_at(s, s->cache.keys, s->row_sequence[r], l) + slot, s->k + (size_t)r * kv_dim, bytes);
                    memcpy(cache_at(s, s->cache.values, s->row_sequence[r], l) + slot, s->v + (size_t)r * kv_dim, bytes);
                }
            TRACED(s, "attention", rows) {
                AttentionJob attention = {s, l, rows};
                llama_run_parallel(s->pool, run_attention, &attention);
            }
            TRACED(s, "output_projection", rows) {
                multiply(s, 1, (MatmulJob){s->xb2, s->xb, rows, &w->wo}, (MatmulJob){0}, (MatmulJob){0});
                for (int r = 0; r < rows; r++) llama_add_into(s->x + (size_t)r * dim, s->xb2 + (size_t)r * dim, dim);
            }

            /* MLP: norm, gate and up projections, SwiGLU, down projection, add */
            TRACED(s, "ffn_norm", rows)
                for (int r = 0; r < rows; r++) rmsnorm(s->xb + (size_t)r * dim, s->x + (size_t)r * dim, w->rms_ffn, dim);
            TRACED(s, "ffn", rows) {
                multiply(s, 2, (MatmulJob){s->hb, s->xb, rows, &w->w1}, (MatmulJob){s->hb2, s->xb, rows, &w->w3},
                         (MatmulJob){0});
                for (int r = 0; r < rows; r++) swiglu(s->hb + (size_t)r * hidden, s->hb2 + (size_t)r * hidden, hidden);
                multiply(s, 1, (MatmulJob){s->xb2, s->hb, rows, &w->w2}, (MatmulJob){0}, (MatmulJob){0});
                for (int r = 0; r < rows; r++) llama_add_into(s->x + (size_t)r * dim, s->xb2 + (size_t)r * dim, dim);
            }
        }

        /* the classifier, only for the rows whose next token is wanted */
        if (logit_count > 0) TRACED(s, "classifier", logit_count) {
            for (int k = 0; k < logit_count; k++)
                rmsnorm(s->xb + (size_t)k * dim, s->x + (size_t)logit_rows[k] * dim, t->rms_final, dim);
            multiply(s, 1, (MatmulJob){logits_out, s->xb, logit_count, &t->classifier}, (MatmulJob){0}, (MatmulJob){0});
        }
    }
}

/* ----------------------------------------------------------------------------------
 * The ways in: checks first, then rows packed into steps of at most max_rows */

static int check_sequence(const llama_session *s, int sequence, int64_t adding, char *error, size_t error_size)
{
    if (sequence < 0 || sequence >= s->cache.batch) {
        snprintf(error, error_size, "sequence %d does not exist: the session holds sequences 0 to %d", sequence,
                 s->cache.batch - 1);
        return -1;
    }
    if (adding < 1) {
        snprintf(error, error_size, "sequence %d: nothing to add (%lld tokens)", sequence, (long long)adding);
        return -1;
    }
    if (s->cache.length[sequence] + adding > s->cache.capacity) {
        snprintf(error, error_size, "sequence %d would hold %lld tokens, but the session was built for %d per sequence",
                 sequence, (long long)(s->cache.length[sequence] + adding), s->cache.capacity);
        return -1;
    }
    return 0;
}

static int check_tokens(const llama_session *s, const int *tokens, int n, char *error, size_t error_size)
{
    int vocab = s->transformer->config.vocab_size;
    for (int i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= vocab) {
            snprintf(error, error_size, "token %d (at index %d) is outside the vocabulary 0 .. %d", tokens[i], i, vocab - 1);
            return -1;
        }
    return 0;
}

/* A sequence may appear once in a call: its rows' positions are counted from its length. */
static int check_distinct(const llama_session *s, const int *sequences, int count, char *error, size_t error_size)
{
    unsigned char *seen = calloc((size_t)s->cache.batch, 1);
    if (!seen) {
        snprintf(error, error_size, "out of memory checking the %d sequences of a call", count);
        return -1;
    }
    int repeated = -1;
    for (int i = 0; i < count && repeated < 0; i++) {
        if (seen[sequences[i]]) repeated = sequences[i];
        seen[sequences[i]] = 1;
    }
    free(seen);
    if (repeated >= 0) snprintf(error, error_size, "sequence %d appears twice in one call", repeated);
    return repeated >= 0 ? -1 : 0;
}

const float *llama_prefill_batch(llama_session *s, const int *sequences, const int *const *tokens, const int *lengths, int count,
                           char *error, size_t error_size)
{
    if (count < 1 || count > s->cache.batch) {
        snprintf(error, error_size, "prefill of %d sequences: the session holds 1 to %d", count, s->cache.batch);
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        if (check_sequence(s, sequences[i], lengths[i], error, error_size) != 0) return NULL;
        if (check_tokens(s, tokens[i], lengths[i], error, error_size) != 0) return NULL;
    }
    if (check_distinct(s, sequences, count, error, error_size) != 0) return NULL;
    int vocab = s->transformer->config.vocab_size;
    int rows = 0, logit_rows[LLAMA_MAX_STEP_ROWS], logit_count = 0, first_logit = 0;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < lengths[i]; k++) {
            int sequence = sequences[i];
            s->row_sequence[rows] = sequence;
            s->row_position[rows] = s->cache.length[sequence] + k;
            s->row_token[rows] = tokens[i][k];
            if (k == lengths[i] - 1) logit_rows[logit_count++] = rows;
            rows++;
            int last_row = i == count - 1 && k == lengths[i] - 1;
            if (rows == s->max_rows || last_row) {
                forward_step(s, rows, logit_rows, logit_count, s->logits + (size_t)first_logit * vocab);
                first_logit += logit_count;
                rows = logit_count = 0;
            }
        }
    for (int i = 0; i < count; i++) s->cache.length[sequences[i]] += lengths[i];
    return s->logits;
}

const float *llama_prefill(llama_session *s, int sequence, const int *tokens, int n, char *error, size_t error_size)
{
    return llama_prefill_batch(s, &sequence, &tokens, &n, 1, error, error_size);
}

const float *llama_prefill_rows(llama_session *s, int sequence, const int *tokens, int n, char *error, size_t error_size)
{
    if (check_sequence(s, sequence, n, error, error_size) != 0 || check_tokens(s, tokens, n, error, error_size) != 0)
        return NULL;
    size_t vocab = (size_t)s->transformer->config.vocab_size;
    if (n > s->row_logit_capacity) {
        float *grown = realloc(s->row_logits, (size_t)n * vocab * sizeof(float));
        if (!grown) {
            snprintf(error, error_size, "out of memory for the logits of %d rows (%.1f MB)", n, n * vocab * 4e-6);
            return NULL;
        }
        s->row_logits = grown, s->row_logit_capacity = n;
    }
    int logit_rows[LLAMA_MAX_STEP_ROWS];
    for (int first = 0; first < n; first += s->max_rows) {   /* every row gets logits, step by step */
        int rows = n - first < s->max_rows ? n - first : s->max_rows;
        for (int r = 0; r < rows; r++) {
            s->row_sequence[r] = sequence;
            s->row_position[r] = s->cache.length[sequence] + first + r;
            s->row_token[r] = tokens[first + r];
            logit_rows[r] = r;
        }
        forward_step(s, rows, logit_rows, rows, s->row_logits + (size_t)first * vocab);
    }
    s->cache.length[sequence] += n;
    return s->row_logits;
}

const float *llama_decode_batch(llama_session *s, const int *sequences, const int *tokens, int count, char *error, size_t error_size)
{
    if (count < 1 || count > s->cache.batch) {
        snprintf(error, error_size, "a decode step of %d sequences: the session holds 1 to %d", count, s->cache.batch);
        return NULL;
    }
    for (int i = 0; i < count; i++)
        if (check_sequence(s, sequences[i], 1, error, error_size) != 0) return NULL;
    if (check_distinct(s, sequences, count, error, error_size) != 0) return NULL;
    const int *token_rows[LLAMA_MAX_STEP_ROWS];
    int ones[LLAMA_MAX_STEP_ROWS];
    for (int start = 0; start < count; start += LLAMA_MAX_STEP_ROWS) {   /* a batch beyond one step's rows */
        int n = count - start < LLAMA_MAX_STEP_ROWS ? count - start : LLAMA_MAX_STEP_ROWS;
        for (int i = 0; i < n; i++) token_rows[i] = tokens + start + i, ones[i] = 1;
        float *saved = s->logits;   /* each part writes its own rows of the logits */
        s->logits += (size_t)start * s->transformer->config.vocab_size;
        const float *result = llama_prefill_batch(s, sequences + start, token_rows, ones, n, error, error_size);
        s->logits = saved;
        if (!result) return NULL;
    }
    return s->logits;
}
