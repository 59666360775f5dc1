/* cache.c — Day 20 driver: a cache's memory (poisoned, so that a slot never appended reads as
 * NaN), and your append and attend plugged into the toy Llama as its KV-cache hooks
 * (lib/llama, llama_session.kv_hooks), so that the engine generates with your cache. Do not edit. */
#include "lab.h"
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * Memory */

int kv_cache_build(kv_cache *c, int layers, int kv_heads, int head_dim, int batch, int capacity, char *error,
                   size_t error_size)
{
    memset(c, 0, sizeof *c);
    if (layers < 1 || kv_heads < 1 || head_dim < 1 || batch < 1 || capacity < 1) {
        snprintf(error, error_size, "a cache needs at least one layer, K/V head, element, sequence and token (got %d, %d, "
                 "%d, %d, %d)", layers, kv_heads, head_dim, batch, capacity);
        return -1;
    }
    size_t floats = (size_t)batch * (size_t)layers * (size_t)capacity * (size_t)kv_heads * (size_t)head_dim;
    *c = (kv_cache){layers, kv_heads, head_dim, batch, capacity, malloc(floats * sizeof(float)),
                    malloc(floats * sizeof(float)), calloc((size_t)batch * (size_t)layers, sizeof(int))};
    if (!c->keys || !c->values || !c->length) {
        kv_cache_free(c);
        snprintf(error, error_size, "out of memory for a cache of %zu floats", 2 * floats);
        return -1;
    }
    lab_poison(c->keys, floats * sizeof(float));
    lab_poison(c->values, floats * sizeof(float));
    return 0;
}

void kv_cache_free(kv_cache *c)
{
    free(c->keys), free(c->values), free(c->length);
    memset(c, 0, sizeof *c);
}

void kv_cache_forget(kv_cache *c, int sequence)
{
    if (sequence < 0 || sequence >= c->batch) return;
    for (int layer = 0; layer < c->layers; layer++) c->length[(size_t)sequence * (size_t)c->layers + (size_t)layer] = 0;
}

/* ---------------------------------------------------------------------------------
 * The engine's hooks: store() is called from one thread at a time, attend() from several */

static void plug_store(void *state, int sequence, int layer, int position, const float *key, const float *value)
{
    kv_plug *plug = state;
    if (plug->refused) {
        plug->refused++;
        return;
    }
    char error[sizeof plug->first_refusal] = "";
    if (kv_cache_append(&plug->cache, sequence, layer, position, key, value, error, sizeof error) != 0) {
        plug->refused = 1;
        snprintf(plug->first_refusal, sizeof plug->first_refusal, "sequence %d, layer %d, position %d: %s", sequence,
                 layer, position, *error ? error : "(refused, no reason given)");
        return;
    }
    plug->appends++;
}

static void plug_attend(void *state, float *out, const float *query, int sequence, int layer, int head, int length,
                        float *scores)
{
    kv_plug *plug = state;
    if (plug->refused) {   /* the cache is no longer what the engine thinks it is */
        for (int i = 0; i < plug->cache.head_dim; i++) out[i] = NAN;
        return;
    }
    kv_cache_attend(&plug->cache, out, query, sequence, layer, head, length, scores);
}

int kv_plug_into(llama_session *s, kv_plug *plug, char *error, size_t error_size)
{
    const llama_config *config = &s->transformer->config;
    memset(plug, 0, sizeof *plug);
    if (config->n_kv_heads != config->n_heads) {
        snprintf(error, error_size, "today's cache is multi-head (a K/V head per query head); this model has %d query "
                 "heads sharing %d K/V heads: that is day 21", config->n_heads, config->n_kv_heads);
        return -1;
    }
    if (kv_cache_build(&plug->cache, config->n_layers, config->n_kv_heads, llama_head_dim_of(config), s->cache.batch,
                       s->cache.capacity, error, error_size) != 0)
        return -1;
    s->kv_hooks = (llama_kv_hooks){plug, plug_store, plug_attend};
    return 0;
}

void kv_plug_free(kv_plug *plug)
{
    kv_cache_free(&plug->cache);
}

void kv_plug_reset_sequence(llama_session *s, kv_plug *plug, int sequence)
{
    llama_reset_sequence(s, sequence);
    kv_cache_forget(&plug->cache, sequence);
}

int kv_check_shape(llama_config *config, char *error, size_t error_size)
{
    if (llama_named_shape("tiny-mha", config, error, error_size) != 0) return -1;
    config->seq_len = 160;
    return llama_validate_config(config, error, error_size);
}
