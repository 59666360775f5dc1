/* kv_cache.c — Day 20: the KV cache of the toy Llama's decode step, and the formula for its size.
 *
 * What you write today, in the order of lab.h (whose comments fix the layout and the contract):
 *   1. kv_cache_bytes: 2 x layers x kv_heads x head_dim x bytes x tokens x batch, for a row of
 *      data/models.csv. Llama-2-7B, 4096 tokens, FP16, one sequence: 2 147 483 648 bytes.
 *   2. kv_cache_offset: where the row of one token of one layer of one sequence starts.
 *   3. kv_cache_append: a token's key and value, copied to their row, at the next free position
 *      only; any other position is refused with a message, and nothing changes.
 *   4. kv_cache_attend: one query head over the positions 0 .. length-1 of the cache: scores,
 *      a softmax that subtracts the max, the weighted sum of the values.
 *
 * Rules: plain C and the C library (memcpy, snprintf, expf), not lib/llama, whose own cache and
 * formula are what the checks compare yours with. Sizes and offsets in int64_t or size_t: a
 * 70B model's cache passes 2^31 bytes at 6554 tokens. The driver plugs 3 and 4 into the engine: with them the toy Llama
 * generates 128 tokens that must equal, logit for logit, what it computes without a cache.
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
    // TODO: a key and a value, in every layer, for every K/V head (kv_heads, not heads), head_dim
    //       elements each, for every token of every sequence. Multiply in int64_t from the first
    //       factor on: Llama-2-70B's cache passes 2^31 bytes before 4096 tokens of batch 2.
    (void)m, (void)bytes_per_element, (void)tokens, (void)batch;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The cache */

size_t kv_cache_offset(const kv_cache *c, int sequence, int layer, int position)
{
    // TODO: [sequence][layer][position] rows of kv_heads x head_dim floats (lab.h draws it):
    //       count the rows before this one, then multiply by a row's floats. In size_t.
    (void)c, (void)sequence, (void)layer, (void)position;
    return 0;
}

int kv_cache_append(kv_cache *c, int sequence, int layer, int position, const float *key, const float *value,
                    char *error, size_t error_size)
{
    // TODO: refuse (return -1, with a message in error) a sequence or a layer out of range, a
    //       position other than the next free one (c->length[sequence * layers + layer]), and a
    //       full sequence; otherwise copy kv_dim floats of the key and of the value to their row
    //       and count the token.
    (void)c, (void)sequence, (void)layer, (void)position, (void)key, (void)value;
    snprintf(error, error_size, "kv_cache_append is not written yet");
    return -1;
}

void kv_cache_attend(const kv_cache *c, float *out, const float *query, int sequence, int layer, int head, int length,
                     float *scores)
{
    // TODO: for t = 0 .. length-1 (never further: the causal mask), score_t = query . key_t of
    //       head `head`, times 1 / sqrt(head_dim); subtract the largest score before expf; then
    //       out = sum of softmax weight_t x value_t, every one of the head_dim outputs written.
    (void)c, (void)out, (void)query, (void)sequence, (void)layer, (void)head, (void)length, (void)scores;
}
