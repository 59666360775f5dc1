/* paged.c — Day 21: a paged KV cache (vLLM's PagedAttention): fixed-size blocks, block tables,
 * blocks taken on demand, prefixes shared with reference counts and copy-on-write, and the
 * grouped-query attention that reads it, plugged into the book's toy Llama.
 *
 * What you write today (lab.h fixes every convention and every contract):
 *   1. sampling_blocks_predicted: before any of it runs, the blocks and copies parallel sampling
 *      will take (the chapter's worked numbers, in general). The checks hold it to your cache's counts.
 *   2. kv_head_of: the KV head a query head reads (grouped-query attention).
 *   3. The pool: block_alloc, block_share, block_release (a free stack and reference counts).
 *   4. Sequences: slot_key, slot_value, sequence_append, sequence_fork, sequence_free.
 *   5. The engine's hooks: paged_store and paged_attend.
 *
 * Rules: plain C; no memory of your own (everything lives in the pool and the tables that
 * paged_cache_build allocated), no state kept between calls. The tests follow small caches by
 * hand, run 100 000 random operations against a model of their own that knows who holds what,
 * run the toy Llama on your cache against its own, and compare a grouped-query model with the
 * multi-head model that repeats its KV heads.
 *
 * Check:  make check DAY=21        Stuck?  make hint DAY=21
 */
#include "lab.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * The prediction */

int sampling_blocks_predicted(int prompt, int generated, int samples, int block_size, int *copies)
{
    int full_blocks = prompt / block_size, in_last_block = prompt % block_size;
    *copies = 0;
    if (generated == 0) return (prompt + block_size - 1) / block_size;   /* the prompt's blocks, shared */
    if (in_last_block == 0) return full_blocks + samples * ((generated + block_size - 1) / block_size);
    /* the partial block: copied by every sample that writes it while another still holds it, all but the last */
    *copies = samples - 1;
    int room = block_size - in_last_block, beyond = generated > room ? generated - room : 0;
    return full_blocks + samples * (1 + (beyond + block_size - 1) / block_size);
}

/* ---------------------------------------------------------------------------------
 * Grouped-query attention */

int kv_head_of(const llama_config *config, int head)
{
    int query_heads_per_kv_head = config->n_heads / config->n_kv_heads;
    return head / query_heads_per_kv_head;
}

/* ---------------------------------------------------------------------------------
 * The pool */

int block_alloc(kv_pool *pool)
{
    if (pool->free_count == 0) return -1;
    int block = pool->free_blocks[--pool->free_count];
    pool->refcount[block] = 1;
    return block;
}

void block_share(kv_pool *pool, int block) { pool->refcount[block]++; }

void block_release(kv_pool *pool, int block)
{
    if (--pool->refcount[block] == 0) pool->free_blocks[pool->free_count++] = block;
}

/* ---------------------------------------------------------------------------------
 * Sequences */

/* the first float of a block's keys (or values), for layer 0, slot 0 */
static size_t block_offset(const kv_pool *pool, int block)
{
    return (size_t)block * (size_t)pool->layers * (size_t)pool->block_size * (size_t)pool->kv_dim;
}

static size_t slot_offset(const paged_cache *cache, int sequence, int layer, int position)
{
    const kv_pool *pool = &cache->pool;
    int block = cache->sequence[sequence].block_table[position / pool->block_size];
    int slot = position % pool->block_size;
    return block_offset(pool, block) + ((size_t)layer * (size_t)pool->block_size + (size_t)slot) * (size_t)pool->kv_dim;
}

float *slot_key(const paged_cache *cache, int sequence, int layer, int position)
{
    return cache->pool.keys + slot_offset(cache, sequence, layer, position);
}

float *slot_value(const paged_cache *cache, int sequence, int layer, int position)
{
    return cache->pool.values + slot_offset(cache, sequence, layer, position);
}

int sequence_append(paged_cache *cache, int sequence)
{
    kv_pool *pool = &cache->pool;
    kv_sequence *s = &cache->sequence[sequence];
    if (s->length == cache->max_tokens) return -1;
    if (s->length % pool->block_size == 0) {
        /* the last block is full (or there is none): the new token starts a block */
        int block = block_alloc(pool);
        if (block < 0) return -1;
        s->block_table[s->block_count++] = block;
    } else {
        int last = s->block_table[s->block_count - 1];
        if (pool->refcount[last] > 1) {
            /* shared, with room left: writing into it would change the other sequences' tokens */
            int copy = block_alloc(pool);
            if (copy < 0) return -1;
            size_t floats = (size_t)pool->layers * (size_t)pool->block_size * (size_t)pool->kv_dim;
            memcpy(pool->keys + block_offset(pool, copy), pool->keys + block_offset(pool, last), floats * sizeof(float));
            memcpy(pool->values + block_offset(pool, copy), pool->values + block_offset(pool, last), floats * sizeof(float));
            block_release(pool, last);
            s->block_table[s->block_count - 1] = copy;
            cache->copies++;
        }
    }
    s->length++;
    return 0;
}

void sequence_fork(paged_cache *cache, int parent, int child)
{
    kv_sequence *from = &cache->sequence[parent], *to = &cache->sequence[child];
    for (int i = 0; i < from->block_count; i++) {
        to->block_table[i] = from->block_table[i];
        block_share(&cache->pool, from->block_table[i]);
    }
    to->block_count = from->block_count;
    to->length = from->length;
}

void sequence_free(paged_cache *cache, int sequence)
{
    kv_sequence *s = &cache->sequence[sequence];
    for (int i = 0; i < s->block_count; i++) block_release(&cache->pool, s->block_table[i]);
    s->block_count = 0;
    s->length = 0;
}

/* ---------------------------------------------------------------------------------
 * The engine's hooks */

int paged_store(paged_cache *cache, int sequence, int layer, int position, const float *key, const float *value)
{
    if (position == cache->sequence[sequence].length && sequence_append(cache, sequence) != 0) return -1;
    size_t bytes = (size_t)cache->pool.kv_dim * sizeof(float);
    memcpy(slot_key(cache, sequence, layer, position), key, bytes);
    memcpy(slot_value(cache, sequence, layer, position), value, bytes);
    return 0;
}

void paged_attend(const paged_cache *cache, float *out, const float *query, int sequence, int layer, int head, int length,
                  float *scores)
{
    int head_dim = llama_head_dim_of(cache->config);
    size_t head_offset = (size_t)kv_head_of(cache->config, head) * (size_t)head_dim;
    float scale = 1.0f / sqrtf((float)head_dim), max = -INFINITY, sum = 0;
    for (int p = 0; p < length; p++) {
        const float *key = slot_key(cache, sequence, layer, p) + head_offset;
        float dot = 0;
        for (int i = 0; i < head_dim; i++) dot += query[i] * key[i];
        scores[p] = dot * scale;
        max = fmaxf(max, scores[p]);
    }
    for (int p = 0; p < length; p++) sum += scores[p] = expf(scores[p] - max);
    for (int i = 0; i < head_dim; i++) out[i] = 0;
    for (int p = 0; p < length; p++) {
        const float *value = slot_value(cache, sequence, layer, p) + head_offset;
        float weight = scores[p] / sum;
        for (int i = 0; i < head_dim; i++) out[i] += weight * value[i];
    }
}
