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
#include <stddef.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * The prediction */

int sampling_blocks_predicted(int prompt, int generated, int samples, int block_size, int *copies)
{
    // TODO: a prompt stored once and forked into `samples` sequences, each then appending `generated`
    //       tokens: the blocks in use afterwards (returned) and the copy-on-write copies (*copies).
    //       Work it out from the chapter, not by running the cache: which blocks stay shared, which
    //       writes find a shared block with room, and who is the last to write it.
    (void)prompt, (void)generated, (void)samples, (void)block_size;
    *copies = 0;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Grouped-query attention */

int kv_head_of(const llama_config *config, int head)
{
    // TODO: the KV head query head `head` (0 .. n_heads-1) reads. n_kv_heads divides n_heads, and the
    //       model was trained with each KV head shared by a group of neighbouring query heads.
    (void)config, (void)head;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The pool */

int block_alloc(kv_pool *pool)
{
    // TODO: hand out one free block, now held by one table. With none free: -1, and nothing changes.
    (void)pool;
    return -1;
}

void block_share(kv_pool *pool, int block)
{
    // TODO: one more block table holds `block`.
    (void)pool, (void)block;
}

void block_release(kv_pool *pool, int block)
{
    // TODO: one block table fewer holds `block`. A block is free again only when nobody holds it:
    //       freed any earlier, it is handed out while another sequence still reads it.
    (void)pool, (void)block;
}

/* ---------------------------------------------------------------------------------
 * Sequences */

float *slot_key(const paged_cache *cache, int sequence, int layer, int position)
{
    // TODO: the address of the key of `position` (< length) of `sequence` at `layer`. The block
    //       table says which physical block holds the position; lab.h gives the pool's layout.
    //       A real pool has more than 2^31 floats: an offset computed in int wraps.
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
    // TODO: room for one more token at the end of `sequence`: a block is taken only when the new
    //       position needs one, and the block the new position lands in must be this sequence's alone
    //       (copy-on-write: copy a shared block before writing into it, count it in cache->copies).
    //       Refused (-1) when the sequence is full or a block is needed and none is free, and then
    //       nothing has changed: decide before you touch the pool or the table.
    (void)cache, (void)sequence;
    return -1;
}

void sequence_fork(paged_cache *cache, int parent, int child)
{
    // TODO: the empty `child` becomes `parent`'s twin, sharing every block; no key or value moves
    //       (copy-on-write does that later, for the one block someone writes).
    (void)cache, (void)parent, (void)child;
}

void sequence_free(paged_cache *cache, int sequence)
{
    // TODO: `sequence` gives back each of its blocks once and is empty afterwards.
    (void)cache, (void)sequence;
}

/* ---------------------------------------------------------------------------------
 * The engine's hooks */

int paged_store(paged_cache *cache, int sequence, int layer, int position, const float *key, const float *value)
{
    // TODO: the engine hands over the key and value (kv_dim floats each) of `position` at `layer`, for
    //       each layer in turn from layer 0: a new token the first time (append it; -1 if refused), the
    //       same token again at the later layers. Store both in the position's slot.
    (void)cache, (void)sequence, (void)layer, (void)position, (void)key, (void)value;
    return -1;
}

void paged_attend(const paged_cache *cache, float *out, const float *query, int sequence, int layer, int head, int length,
                  float *scores)
{
    // TODO: day 18's attention for one query row, over positions 0 .. length-1 of `sequence`, found
    //       through the block table; query head `head` reads its KV head's head_dim floats
    //       (llama_head_dim_of(cache->config)). Any scores a float holds, 100 or -200 alike, give a
    //       softmax (day 17). `scores` is your scratch; other threads run this at the same time.
    (void)cache, (void)out, (void)query, (void)sequence, (void)layer, (void)head, (void)length, (void)scores;
}
