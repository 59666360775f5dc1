/* kv_cache.c — Day 20: the KV cache of the toy Llama's decode step, and the formula for its size.
 *
 * What you write today, in the order of lab.h (whose comments fix the layout and the contract):
 *   1. kv_cache_bytes: the bytes of the cache of a row of data/models.csv, for any number of
 *      tokens and sequences; then kv_cache_passes_weights_at, your prediction of the context at
 *      which a decode step reads more bytes of cache than of weights.
 *   2. kv_cache_offset: where the row of one token of one layer of one sequence starts.
 *   3. kv_cache_append: a token's key and value, copied to their row, at the next free position
 *      only; any other position is refused with a message, and nothing changes.
 *   4. kv_cache_attend: one query head over the positions 0 .. length-1 of the cache: scores,
 *      a softmax that subtracts the max, the weighted sum of the values.
 *
 * Rules: plain C and the C library (memcpy, snprintf, expf), not lib/llama, whose own cache and
 * formula are what the checks compare yours with. Sizes and offsets in int64_t or size_t: a
 * 70B model's cache passes 2^31 bytes at 6554 tokens. The driver plugs 3 and 4 into the engine:
 * with them the toy Llama generates 128 tokens that must equal, logit for logit, what it
 * computes without a cache. The engine calls 4 from several threads at once.
 *
 * Check:  make check DAY=20        Stuck?  make hint DAY=20
 */
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * The size formula */

int64_t kv_cache_bytes(const kv_model *m, int bytes_per_element, int64_t tokens, int64_t batch)
{
    /* a key and a value, per layer, per K/V head, head_dim elements, for every token of every sequence */
    return 2 * (int64_t)m->layers * m->kv_heads * m->head_dim * bytes_per_element * tokens * batch;
}

int64_t kv_cache_passes_weights_at(const kv_model *m, int bytes_per_element, double weight_bytes, int64_t batch)
{
    int64_t per_token = kv_cache_bytes(m, bytes_per_element, 1, batch);   /* every sequence's, all layers */
    if (!(weight_bytes > 0) || per_token <= 0) return -1;
    /* the weights are read once, the caches grow: the first context past weight_bytes */
    return (int64_t)floor(weight_bytes / (double)per_token) + 1;
}

/* ---------------------------------------------------------------------------------
 * The cache */

static size_t kv_dim_of(const kv_cache *c) { return (size_t)c->kv_heads * (size_t)c->head_dim; }

size_t kv_cache_offset(const kv_cache *c, int sequence, int layer, int position)
{
    size_t row = ((size_t)sequence * (size_t)c->layers + (size_t)layer) * (size_t)c->capacity + (size_t)position;
    return row * kv_dim_of(c);
}

int kv_cache_append(kv_cache *c, int sequence, int layer, int position, const float *key, const float *value,
                    char *error, size_t error_size)
{
    if (sequence < 0 || sequence >= c->batch) {
        snprintf(error, error_size, "sequence %d does not exist: the cache holds sequences 0 to %d", sequence,
                 c->batch - 1);
        return -1;
    }
    if (layer < 0 || layer >= c->layers) {
        snprintf(error, error_size, "layer %d does not exist: the cache holds layers 0 to %d", layer, c->layers - 1);
        return -1;
    }
    int *length = &c->length[(size_t)sequence * (size_t)c->layers + (size_t)layer];
    if (position != *length) {
        snprintf(error, error_size, "sequence %d, layer %d holds %d tokens, so the next goes at position %d, not %d",
                 sequence, layer, *length, *length, position);
        return -1;
    }
    if (position >= c->capacity) {
        snprintf(error, error_size, "sequence %d, layer %d is full: it holds %d tokens, its capacity", sequence, layer,
                 c->capacity);
        return -1;
    }
    size_t at = kv_cache_offset(c, sequence, layer, position);
    memcpy(c->keys + at, key, kv_dim_of(c) * sizeof(float));
    memcpy(c->values + at, value, kv_dim_of(c) * sizeof(float));
    (*length)++;
    return 0;
}

void kv_cache_attend(const kv_cache *c, float *out, const float *query, int sequence, int layer, int head, int length,
                     float *scores)
{
    int head_dim = c->head_dim;
    size_t first = kv_cache_offset(c, sequence, layer, 0) + (size_t)head * (size_t)head_dim, stride = kv_dim_of(c);
    float scale = 1.0f / sqrtf((float)head_dim);
    float max = -INFINITY;
    for (int t = 0; t < length; t++) {
        const float *key = c->keys + first + (size_t)t * stride;
        float dot = 0.0f;
        for (int i = 0; i < head_dim; i++) dot += query[i] * key[i];
        scores[t] = dot * scale;
        max = fmaxf(max, scores[t]);
    }
    float sum = 0.0f;
    for (int t = 0; t < length; t++) {
        scores[t] = expf(scores[t] - max);   /* <= 1: no overflow, whatever the scores */
        sum += scores[t];
    }
    for (int i = 0; i < head_dim; i++) out[i] = 0.0f;
    for (int t = 0; t < length; t++) {
        const float *value = c->values + first + (size_t)t * stride;
        float weight = scores[t] / sum;
        for (int i = 0; i < head_dim; i++) out[i] += weight * value[i];
    }
}
