/* lab.h — Day 21: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * A paged KV cache, as vLLM's PagedAttention keeps one. The memory for keys and values is cut
 * into fixed-size **blocks** of block_size token slots; a sequence owns no memory of its own,
 * only a **block table** listing, in order, the physical blocks that hold its tokens:
 *
 *   sequence 0, 10 tokens, block_size 4        the pool: 8 physical blocks, what they hold
 *     block_table = {5, 2, 7}                    0 [free]           4 [free]
 *     positions 0-3 -> block 5, slots 0-3        1 [free]           5 [0 1 2 3]
 *     positions 4-7 -> block 2, slots 0-3        2 [4 5 6 7]        6 [free]
 *     positions 8-9 -> block 7, slots 0-1        3 [free]           7 [8 9 . .]  <- 2 slots unused
 *
 * Position p lives in block block_table[p / block_size], slot p % block_size. A block is taken
 * from the pool when a sequence's last block is full (never before), so a sequence wastes at
 * most block_size - 1 slots. Two sequences with a common prefix (a fork: parallel sampling,
 * beam search, a shared system prompt) hold the same physical blocks; each block keeps a
 * **reference count** (how many block tables hold it), and a sequence about to write into a
 * block that another table also holds first copies it (**copy-on-write**).
 *
 * Memory layout of the pool: keys and values are each (blocks, layers, block_size, kv_dim)
 * floats, so that one block holds every layer's keys (or values) of block_size positions:
 *   key of (block b, layer l, slot i) = keys + ((b * layers + l) * block_size + i) * kv_dim
 *
 * Grouped-query attention: a model with n_heads query heads and n_kv_heads key/value heads
 * (n_kv_heads divides n_heads) stores kv_dim = n_kv_heads x head_dim floats per key; query head
 * h reads KV head h / (n_heads / n_kv_heads). Multi-head attention is n_kv_heads = n_heads,
 * multi-query attention n_kv_heads = 1. */
#ifndef DAY21_LAB_H
#define DAY21_LAB_H

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The physical blocks and their bookkeeping. */
typedef struct kv_pool {
    int blocks;            /* physical blocks */
    int block_size;        /* token slots per block */
    int layers, kv_dim;    /* a slot holds, for every layer, a key and a value of kv_dim floats */
    float *keys, *values;  /* (blocks, layers, block_size, kv_dim) each */
    int *refcount;         /* (blocks): how many block tables hold the block; 0 = free */
    int *free_blocks;      /* (blocks): a stack of the free blocks' numbers, free_count deep */
    int free_count;
} kv_pool;

/* One sequence: its length and its block table. */
typedef struct kv_sequence {
    int length;            /* tokens stored */
    int block_count;       /* entries of block_table in use */
    int *block_table;      /* (max_blocks): logical block i lives in physical block block_table[i] */
} kv_sequence;

typedef struct paged_cache {
    kv_pool pool;
    int sequences;         /* sequence slots, numbered 0 .. sequences - 1 */
    int max_tokens;        /* tokens one sequence may hold */
    int max_blocks;        /* block table entries per sequence: ceil(max_tokens / block_size) */
    kv_sequence *sequence; /* (sequences) */
    const llama_config *config;   /* the model that attends (NULL for a cache that only keeps books) */
    long long copies;      /* copy-on-write copies made (sequence_append counts them) */
    long long failed_stores;     /* stores the engine made that found no free block (paged_hooks counts them) */
} paged_cache;

/* ---- paged.c (yours): the prediction ---- */

/* Parallel sampling, predicted before the cache counts it: a prompt of `prompt` tokens (>= 1) stored
 * once, forked into `samples` sequences (>= 1, the prompt's own included), each of which then appends
 * `generated` tokens (>= 0), one each per step. Returns the blocks of `block_size` slots in use
 * afterwards, and sets *copies to the copy-on-write copies made on the way. */
int sampling_blocks_predicted(int prompt, int generated, int samples, int block_size, int *copies);

/* ---- paged.c (yours): grouped-query attention ---- */

/* The KV head that query head `head` reads: each KV head serves a group of n_heads / n_kv_heads
 * neighbouring query heads. */
int kv_head_of(const llama_config *config, int head);

/* ---- paged.c (yours): the pool ---- */

/* Takes a free block: pops it from free_blocks and gives it refcount 1. Returns its number,
 * or -1 when no block is free (and changes nothing). */
int block_alloc(kv_pool *pool);
/* One more block table holds `block` (a fork): refcount + 1. */
void block_share(kv_pool *pool, int block);
/* One block table fewer holds `block`: refcount - 1; at 0 the block goes back on free_blocks. */
void block_release(kv_pool *pool, int block);

/* ---- paged.c (yours): sequences ---- */

/* Where the key (or the value) of `position` of `sequence` at `layer` lives: kv_dim floats in
 * the pool, found through the block table. position < the sequence's length. A real pool holds
 * more than 2^31 floats: offsets are size_t. */
float *slot_key(const paged_cache *cache, int sequence, int layer, int position);
float *slot_value(const paged_cache *cache, int sequence, int layer, int position);

/* Makes room for one more token at the end of `sequence` (position = its length) and adds it
 * to the length. A new block is taken only when the last block is full (or there is none); when
 * the last block has free slots but another table holds it too, it is first copied into a new
 * block of this sequence's own (copy-on-write: the whole block, every layer, keys and values),
 * which replaces it in the table and is counted in cache->copies. Afterwards the block holding
 * the new position is held by this sequence alone. Returns 0, or -1 with nothing changed (no
 * length, table entry, refcount, free block or key) when the sequence already holds max_tokens
 * or it needs a block and none is free. */
int sequence_append(paged_cache *cache, int sequence);
/* `child` (empty) becomes a copy of `parent` that shares every one of its blocks: the same
 * length, the same block table, every block held once more. No key or value is copied. */
void sequence_fork(paged_cache *cache, int parent, int child);
/* Gives every block of `sequence` back (each held once less) and empties it. */
void sequence_free(paged_cache *cache, int sequence);

/* ---- paged.c (yours): the engine's KV hooks (llama_kv_hooks in lib/llama/llama.h) ---- */

/* The engine hands over the rotated key and the value (kv_dim floats each) of `position` at
 * `layer`: a position equal to the sequence's length is a new token (append it first; layer 0
 * comes first); a smaller one is a token appended at an earlier layer. Returns 0, or -1 when
 * the token found no room. */
int paged_store(paged_cache *cache, int sequence, int layer, int position, const float *key, const float *value);
/* One query head's attention over positions 0 .. length-1 of `sequence` at `layer`, read
 * through the block table, with the KV head that query head shares:
 *   out = sum_p softmax_p(q . k_p / sqrt(head_dim)) v_p       (head_dim floats)
 * for any scores a float can hold (a softmax of scores of 100 or -200 is still a softmax).
 * `scores` is scratch for `length` floats. The engine calls it from several threads at once,
 * for different heads and rows: it keeps no state of its own. */
void paged_attend(const paged_cache *cache, float *out, const float *query, int sequence, int layer, int head, int length,
                  float *scores);

/* ---- cache.c (driver) ---- */

/* A cache of `blocks` blocks of `block_size` slots for `sequences` sequences of up to
 * `max_tokens` tokens; every block free, every sequence empty, keys and values filled with NaN
 * (a slot read before it is written poisons the result). config may be NULL (layers and kv_dim
 * then describe what a slot holds). Returns 0, or -1 with the reason in `error`. */
int paged_cache_build(paged_cache *cache, int blocks, int block_size, int layers, int kv_dim, int sequences,
                      int max_tokens, const llama_config *config, char *error, size_t error_size);
void paged_cache_free(paged_cache *cache);
/* Blocks held by at least one table: blocks - free_count. */
int paged_blocks_in_use(const paged_cache *cache);
/* The hooks that plug the cache into a session (llama_session.kv_hooks): your paged_store and
 * paged_attend. A store that finds no room is counted in failed_stores. */
llama_kv_hooks paged_hooks(paged_cache *cache);
/* Forks `parent` into the empty `child` in the cache (your sequence_fork) and in the session,
 * whose own count of the child's tokens becomes the parent's: the child continues after the
 * shared prefix. Returns 0, or -1 with the reason in `error`. */
int paged_session_fork(llama_session *session, paged_cache *cache, int parent, int child, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
