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
    // TODO task: the bytes of the KV cache of `batch` sequences of `tokens` tokens, for a row of
    //      data/models.csv.
    // contract: elements of bytes_per_element bytes; tokens and batch >= 0; exact in int64_t
    //      far past 2^31 (a 13B model's FP32 cache of 64 sequences of 131 072 tokens is 13.7 TB).
    // idea: only what later tokens need is kept: a key and a value per K/V head (not per query
    //      head), per layer, per token of every sequence.
    (void)m, (void)bytes_per_element, (void)tokens, (void)batch;
    return 0;
}

int64_t kv_cache_passes_weights_at(const kv_model *m, int bytes_per_element, double weight_bytes, int64_t batch)
{
    // TODO task: predict the context at which a decode step reads more bytes of cache than of
    //      weights (lab.h says which context: the step's own token is cached too).
    // contract: strictly more; -1 when weight_bytes, batch or bytes_per_element is not positive.
    //      The tests hold your answer against the engine's counted bytes at that context and at
    //      the one before.
    // idea: batching shares the weights, not the caches: each sequence brings its own.
    (void)m, (void)bytes_per_element, (void)weight_bytes, (void)batch;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The cache */

size_t kv_cache_offset(const kv_cache *c, int sequence, int layer, int position)
{
    // TODO task: where the row of (sequence, layer, position) starts, in floats, in lab.h's layout.
    // contract: the same offset for keys and values; exact in size_t past 2^32 floats.
    // idea: a row-major layout is counted like a number's digits: the rows before this one.
    (void)c, (void)sequence, (void)layer, (void)position;
    return 0;
}

int kv_cache_append(kv_cache *c, int sequence, int layer, int position, const float *key, const float *value,
                    char *error, size_t error_size)
{
    // TODO task: store one token's key and value (kv_dim floats each) in their row, and count it.
    // contract: lab.h: only at the next free position of that (sequence, layer); a sequence or
    //      layer that does not exist, any other position, or a full sequence returns -1 with a
    //      message in error and changes nothing, not a float and not a length.
    // idea: the cache is append-only: a token's key and value are final once computed.
    (void)c, (void)sequence, (void)layer, (void)position, (void)key, (void)value;
    snprintf(error, error_size, "kv_cache_append is not written yet");
    return -1;
}

void kv_cache_attend(const kv_cache *c, float *out, const float *query, int sequence, int layer, int head, int length,
                     float *scores)
{
    // TODO task: one query head's attention over the first `length` cached positions of
    //      (sequence, layer): lab.h's formula, the scaled dot products, their softmax, the
    //      weighted sum of that head's values.
    // contract: reads positions 0 .. length-1 only (the causal mask: the cache may hold later
    //      tokens); writes the head_dim floats of out and nothing else; any scores, however
    //      large or small, without overflow; safe on several threads at once (scratch: `scores`).
    // idea: a decode step computes one new row and reads every cached one back.
    (void)c, (void)out, (void)query, (void)sequence, (void)layer, (void)head, (void)length, (void)scores;
}
