/* paged.c — Day 21: a paged KV cache (vLLM's PagedAttention): fixed-size blocks, block tables,
 * blocks taken on demand, prefixes shared with reference counts and copy-on-write, and the
 * grouped-query attention that reads it, plugged into the book's toy Llama.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. kv_head_of: the KV head a query head reads (grouped-query attention).
 *   2. The pool: block_alloc, block_share, block_release (a free stack and reference counts).
 *   3. Sequences: slot_key and slot_value (through the block table), sequence_append (a new
 *      block only when the last is full; copy-on-write when the last block is shared),
 *      sequence_fork, sequence_free.
 *   4. The engine's hooks: paged_store and paged_attend.
 *
 * Rules: plain C; no memory of your own (everything lives in the pool and the tables that
 * paged_cache_build allocated). The tests run a randomised trace of 100 000 operations against
 * a model of their own that knows who holds what, run the toy Llama on your cache against its
 * own, and compare a grouped-query model with the multi-head model that repeats its KV heads.
 *
 * Check:  make check DAY=21        Stuck?  make hint DAY=21
 */
#include "lab.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * Grouped-query attention */

int kv_head_of(const llama_config *config, int head)
{
    // TODO: n_heads / n_kv_heads query heads share each KV head, and they are neighbours:
    //       with 6 query heads on 2 KV heads, heads 0-2 read KV head 0 and heads 3-5 KV head 1.
    (void)config, (void)head;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The pool */

int block_alloc(kv_pool *pool)
{
    // TODO: none free (free_count 0): -1, changing nothing. Else pop the top of free_blocks
    //       and give the block refcount 1: one block table holds it.
    (void)pool;
    return -1;
}

void block_share(kv_pool *pool, int block)
{
    // TODO: one more block table holds the block.
    (void)pool, (void)block;
}

void block_release(kv_pool *pool, int block)
{
    // TODO: one holder fewer; only when none is left does the block go back on free_blocks
    //       (released too early, a block is handed out while another sequence still reads it).
    (void)pool, (void)block;
}

/* ---------------------------------------------------------------------------------
 * Sequences */

float *slot_key(const paged_cache *cache, int sequence, int layer, int position)
{
    // TODO: the physical block is block_table[position / block_size], the slot position %
    //       block_size; lab.h gives the layout of pool.keys: (blocks, layers, block_size, kv_dim).
    //       Compute offsets in size_t: a large pool has more floats than an int counts.
    (void)cache, (void)sequence, (void)layer, (void)position;
    return NULL;
}

float *slot_value(const paged_cache *cache, int sequence, int layer, int position)
{
    // TODO: the same slot in pool.values.
    (void)cache, (void)sequence, (void)layer, (void)position;
    return NULL;
}

int sequence_append(paged_cache *cache, int sequence)
{
    // TODO: refuse (-1) a sequence that holds max_tokens. Then, for the new position (the length):
    //       - the last block is full, or there is none (length % block_size == 0): take a block
    //         and add it to the table;
    //       - else, if another table holds the last block too (refcount > 1): take a block, copy
    //         the whole of the shared one into it (keys and values, every layer), release the
    //         shared one, put the copy in its place in the table and count it in cache->copies;
    //       - else the new position goes into the last block as it is.
    //       If no block is free, return -1 with nothing changed. Last, length + 1.
    (void)cache, (void)sequence;
    return -1;
}

void sequence_fork(paged_cache *cache, int parent, int child)
{
    // TODO: the child gets the parent's length, block_count and block table, and every block
    //       one more holder. Nothing is copied: that waits until someone writes (sequence_append).
    (void)cache, (void)parent, (void)child;
}

void sequence_free(paged_cache *cache, int sequence)
{
    // TODO: release each block of the table once, then empty the sequence (length and blocks 0).
    (void)cache, (void)sequence;
}

/* ---------------------------------------------------------------------------------
 * The engine's hooks */

int paged_store(paged_cache *cache, int sequence, int layer, int position, const float *key, const float *value)
{
    // TODO: the engine stores a token layer by layer, layer 0 first: a position equal to the
    //       sequence's length is a new token, to append first (-1 if that fails). Then copy
    //       kv_dim floats of key and of value into the position's slots at this layer.
    (void)cache, (void)sequence, (void)layer, (void)position, (void)key, (void)value;
    return -1;
}

void paged_attend(const paged_cache *cache, float *out, const float *query, int sequence, int layer, int head, int length,
                  float *scores)
{
    // TODO: day 18's attention for one query row, over the cached positions 0 .. length-1, each
    //       key and value found with slot_key and slot_value. The query head reads its KV head's
    //       head_dim floats, which start kv_head_of(head) x head_dim into a slot
    //       (llama_head_dim_of(cache->config) is head_dim). Scores q.k / sqrt(head_dim), the
    //       softmax with its maximum subtracted, then out = the weighted sum of the values.
    (void)cache, (void)out, (void)query, (void)sequence, (void)layer, (void)head, (void)length, (void)scores;
}
