/* lab.h — Day 20: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * A decoder that generates token after token needs, at every step, the keys and values of
 * every earlier token, in every layer. Without a cache it recomputes them: the step for the
 * token at position p runs the whole model over p + 1 tokens. With a cache it computes them
 * once, appends them, and each step runs the model over one token only, reading the rest back.
 *
 * Your part (kv_cache.c):
 *   kv_cache_bytes    the size of a cache: 2 (K and V) x layers x kv_heads x head_dim x bytes
 *                     per element x tokens x batch, for a row of data/models.csv
 *   kv_cache_passes_weights_at   a prediction: the context at which a decode step reads more
 *                     bytes of cache than of weights (checked against the engine's counters)
 *   kv_cache_offset   where one token's keys (or values) of one layer of one sequence live
 *   kv_cache_append   storing a token's key and value there, in order, refusing any other position
 *   kv_cache_attend   one query head's attention over the cached positions 0 .. length-1
 *
 * The driver (cache.c) allocates a cache, and plugs your append and attend into the toy Llama
 * (lib/llama: llama_session.kv_hooks), so that your cache is the one the engine reads and writes as
 * it generates real tokens.
 *
 * The layout, one array for keys and one for values, each
 *
 *   [sequence][layer][position][kv_head][head_dim]        floats, row-major
 *
 *   keys:  | seq 0, layer 0: pos 0 | pos 1 | ... | pos capacity-1 | seq 0, layer 1: pos 0 | ...
 *                            \______ kv_dim = kv_heads x head_dim floats ______/
 *
 * so a token's row of one layer is kv_dim consecutive floats, head h at h x head_dim of it.
 * Today's models are multi-head (kv_heads == heads): query head h reads K/V head h. Day 21
 * lets several query heads share one K/V head (grouped-query attention) and cuts the cache
 * into blocks (paging). */
#ifndef DAY20_LAB_H
#define DAY20_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- kv_cache.c (yours): the size formula ---- */

/* A model, as much of it as the size of its cache depends on (and two columns it does not
 * depend on, as a table has them): a row of data/models.csv, column names in brackets. */
typedef struct kv_model {
    int layers;      /* decoder layers [layers] */
    int hidden;      /* width of the residual stream [hidden_size] */
    int heads;       /* query heads [attention_heads] */
    int kv_heads;    /* key/value heads [kv_heads]: fewer than heads with grouped-query attention */
    int head_dim;    /* elements of one head [head_dim] */
} kv_model;

/* Bytes of the KV cache of `batch` sequences of `tokens` tokens each, every element
 * `bytes_per_element` bytes (FP32 4, FP16 2, FP8 1). tokens and batch may be 0. */
int64_t kv_cache_bytes(const kv_model *m, int bytes_per_element, int64_t tokens, int64_t batch);

/* A decode step reads every weight once and each sequence's whole cache. The smallest context
 * (tokens cached per sequence, the step's own token included) at which a step of `batch`
 * sequences reads more bytes of cache than `weight_bytes`; -1 when weight_bytes, batch or
 * bytes_per_element is not positive. */
int64_t kv_cache_passes_weights_at(const kv_model *m, int bytes_per_element, double weight_bytes, int64_t batch);

/* ---- kv_cache.c (yours): the cache ---- */

typedef struct kv_cache {
    int layers, kv_heads, head_dim;
    int batch;            /* sequences */
    int capacity;         /* tokens each sequence can hold */
    float *keys;          /* batch x layers x capacity x kv_heads x head_dim floats (the layout above) */
    float *values;        /* the same */
    int *length;          /* batch x layers: tokens appended so far to [sequence][layer] */
} kv_cache;

/* The index, in floats, of the first element of the row of `position` in [sequence][layer],
 * in keys and in values alike. */
size_t kv_cache_offset(const kv_cache *c, int sequence, int layer, int position);

/* Appends a token's key and value (kv_dim floats each) to [sequence][layer]. The token must
 * go at the next free position: `position` must equal the tokens already there. Returns 0;
 * or -1, changing nothing, with what was wrong in `error`, for a sequence or a layer that does
 * not exist, a position that is not the next one, or a full sequence. */
int kv_cache_append(kv_cache *c, int sequence, int layer, int position, const float *key, const float *value,
                    char *error, size_t error_size);

/* One query head's attention over positions 0 .. length-1 of [sequence][layer]:
 *   score_t = q . k_t / sqrt(head_dim),   w = softmax(score),   out = sum_t w_t v_t
 * query and out are head_dim floats; k_t and v_t are head `head` of position t's row.
 * 1 <= length <= the tokens cached: in a prefill the cache already holds the later tokens of
 * the prompt, and a query may not look at them (the causal mask). `scores` is scratch of at
 * least `length` floats, the caller's own: the engine calls attend from several threads at
 * once (for different heads and sequences), each with its own scores, so attend may keep
 * nothing of its own from one call to the next. */
void kv_cache_attend(const kv_cache *c, float *out, const float *query, int sequence, int layer, int head, int length,
                     float *scores);

/* ---- cache.c (driver): a cache's memory, and plugging it into the engine ---- */

/* Allocates a cache with every key and value poisoned (NaN: a slot never appended reads as
 * NaN) and every length 0. -1 with the reason in `error`. */
int kv_cache_build(kv_cache *c, int layers, int kv_heads, int head_dim, int batch, int capacity, char *error,
                   size_t error_size);
void kv_cache_free(kv_cache *c);
/* Forgets a sequence: every layer's length back to 0. */
void kv_cache_forget(kv_cache *c, int sequence);

/* Your cache inside an engine session: the session calls your append for every new token of
 * every layer, and your attend for every query head. An append your code refuses is kept
 * (the first one) and ends the use of the cache: later calls do nothing, and the logits are
 * then NaN. */
typedef struct kv_plug {
    kv_cache cache;
    int refused;           /* appends refused */
    char first_refusal[256];
    int64_t appends;       /* appends accepted */
} kv_plug;

/* Builds a cache for the session's model, batch and capacity, and sets the session's hooks.
 * The model must be multi-head (n_kv_heads == n_heads). */
int kv_plug_into(llama_session *s, kv_plug *plug, char *error, size_t error_size);
void kv_plug_free(kv_plug *plug);
/* llama_reset_sequence for a session with your cache in it: both forget the sequence. */
void kv_plug_reset_sequence(llama_session *s, kv_plug *plug, int sequence);

/* The shape the checks generate with: lib/llama's "tiny-mha" (2 layers, 6 heads of 8, 96
 * tokens), its context widened from 40 to 160 tokens so that a prompt and 128 generated
 * tokens fit. */
int kv_check_shape(llama_config *config, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
