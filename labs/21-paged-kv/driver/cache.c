/* cache.c — Day 21 driver: building and freeing a paged cache, and plugging it into a session
 * of the toy Llama (lib/llama) through the engine's KV hooks. Your paged.c does everything a
 * cache does once it exists; this file only allocates it and connects it. Do not edit. */
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int paged_cache_build(paged_cache *cache, int blocks, int block_size, int layers, int kv_dim, int sequences,
                      int max_tokens, const llama_config *config, char *error, size_t error_size)
{
    *cache = (paged_cache){0};
    if (blocks < 1 || block_size < 1 || layers < 1 || kv_dim < 1 || sequences < 1 || max_tokens < 1) {
        snprintf(error, error_size, "a paged cache needs at least one of everything: %d blocks of %d slots, %d layers, "
                 "kv_dim %d, %d sequences of %d tokens", blocks, block_size, layers, kv_dim, sequences, max_tokens);
        return -1;
    }
    kv_pool *pool = &cache->pool;
    *pool = (kv_pool){blocks, block_size, layers, kv_dim, NULL, NULL, NULL, NULL, 0};
    size_t floats = (size_t)blocks * (size_t)layers * (size_t)block_size * (size_t)kv_dim;
    pool->keys = malloc(floats * sizeof(float));
    pool->values = malloc(floats * sizeof(float));
    pool->refcount = calloc((size_t)blocks, sizeof(int));
    pool->free_blocks = malloc((size_t)blocks * sizeof(int));
    cache->sequences = sequences;
    cache->max_tokens = max_tokens;
    cache->max_blocks = (max_tokens + block_size - 1) / block_size;
    cache->sequence = calloc((size_t)sequences, sizeof(kv_sequence));
    cache->config = config;
    int ok = pool->keys && pool->values && pool->refcount && pool->free_blocks && cache->sequence;
    for (int s = 0; ok && s < sequences; s++) {
        cache->sequence[s].block_table = malloc((size_t)cache->max_blocks * sizeof(int));
        ok = cache->sequence[s].block_table != NULL;
    }
    if (!ok) {
        snprintf(error, error_size, "out of memory for a paged cache of %d blocks of %d slots (%zu floats)", blocks,
                 block_size, 2 * floats);
        paged_cache_free(cache);
        return -1;
    }
    for (size_t i = 0; i < floats; i++) pool->keys[i] = pool->values[i] = NAN;
    /* the stack's top is block 0: a fresh pool hands out blocks 0, 1, 2, ... */
    for (int b = 0; b < blocks; b++) pool->free_blocks[b] = blocks - 1 - b;
    pool->free_count = blocks;
    return 0;
}

void paged_cache_free(paged_cache *cache)
{
    for (int s = 0; cache->sequence && s < cache->sequences; s++) free(cache->sequence[s].block_table);
    free(cache->sequence);
    free(cache->pool.keys), free(cache->pool.values), free(cache->pool.refcount), free(cache->pool.free_blocks);
    *cache = (paged_cache){0};
}

int paged_blocks_in_use(const paged_cache *cache) { return cache->pool.blocks - cache->pool.free_count; }

static void hook_store(void *state, int sequence, int layer, int position, const float *key, const float *value)
{
    paged_cache *cache = state;
    if (paged_store(cache, sequence, layer, position, key, value) != 0) cache->failed_stores++;
}

static void hook_attend(void *state, float *out, const float *query, int sequence, int layer, int head, int length,
                        float *scores)
{
    paged_attend(state, out, query, sequence, layer, head, length, scores);
}

llama_kv_hooks paged_hooks(paged_cache *cache) { return (llama_kv_hooks){cache, hook_store, hook_attend}; }

int paged_session_fork(llama_session *session, paged_cache *cache, int parent, int child, char *error, size_t error_size)
{
    if (parent == child || parent < 0 || child < 0 || parent >= cache->sequences || child >= cache->sequences ||
        child >= session->cache.batch || parent >= session->cache.batch) {
        snprintf(error, error_size, "cannot fork sequence %d into %d: the cache has %d sequences, the session %d", parent,
                 child, cache->sequences, session->cache.batch);
        return -1;
    }
    if (cache->sequence[child].length != 0 || session->cache.length[child] != 0) {
        snprintf(error, error_size, "cannot fork into sequence %d: it is not empty", child);
        return -1;
    }
    if (llama_fork_sequence(session, parent, child, error, error_size) != 0) return -1;   /* counts, copies nothing */
    sequence_fork(cache, parent, child);
    return 0;
}
