/* 21-paged-kv.c — the checks for day 21, smallest first: the KV head of each query head
 * (grouped, multi-head and multi-query attention); the prediction of parallel sampling's blocks
 * and copies against what the cache counts; the pool (each free block handed out once, a block
 * freed only when its last holder lets it go); sequences on caches small enough to follow by
 * hand (a block taken only when the last is full, slots found through the block table with 64-bit
 * offsets, a fork that shares without copying, copy-on-write that copies exactly when a shared
 * block with room left is written, every refusal leaving every byte of the cache as it was, a
 * free that gives everything back); paged_attend on scores that overflow or underflow expf
 * unless the maximum is subtracted, and on two threads at once; then a seeded trace of 100 000
 * random operations (new sequence, append, fork, free) against a model of the test's own, which
 * after every operation knows who holds which block and which token each position must hold,
 * and catches a leak, a double free, two sequences writing one block, or more than one block's
 * worth of slots unused in a sequence; last, the toy Llama (lib/llama) run on your cache: its
 * logits equal the engine's own cache's (within rounding) for block sizes 1, 4 and 16 and two
 * threads; a grouped-query model equals the multi-head model that repeats its KV heads; and
 * forked sequences share the prompt's blocks yet each keeps its own tokens. Each check takes
 * well under a second with the reference. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lab.h"
#include "robust.h"

static char error[512];

/* A cache that only keeps books (config NULL): one layer, one float a key. */
static paged_cache books(int blocks, int block_size, int sequences, int max_tokens, int layers, int kv_dim)
{
    paged_cache cache;
    cr_assert(paged_cache_build(&cache, blocks, block_size, layers, kv_dim, sequences, max_tokens, NULL, error,
                                sizeof error) == 0, "%s", error);
    return cache;
}

static void append(paged_cache *cache, int sequence, int tokens)
{
    for (int i = 0; i < tokens; i++)
        cr_assert(sequence_append(cache, sequence) == 0, "sequence_append(sequence %d) refused a token at length %d "
                  "(%d of %d blocks free, max_tokens %d): it returns -1 only when the sequence is full or it needs a "
                  "block and none is free", sequence, cache->sequence[sequence].length, cache->pool.free_count,
                  cache->pool.blocks, cache->max_tokens);
}

static float *key_of(const paged_cache *cache, int sequence, int layer, int position)
{
    float *key = slot_key(cache, sequence, layer, position);
    cr_assert(key != NULL, "slot_key(sequence %d, layer %d, position %d) returned NULL: is it written yet?", sequence,
              layer, position);
    return key;
}

static float *value_of(const paged_cache *cache, int sequence, int layer, int position)
{
    float *value = slot_value(cache, sequence, layer, position);
    cr_assert(value != NULL, "slot_value(sequence %d, layer %d, position %d) returned NULL: is it written yet?",
              sequence, layer, position);
    return value;
}

/* ---------------------------------------------------------------------------------
 * Grouped-query attention: which KV head a query head reads */

Test(gqa, kv_head_of_each_query_head, .timeout = 10,
     .description = "Query head h reads KV head h / (n_heads / n_kv_heads): consecutive query heads share a KV head "
                    "(GQA), every head has its own (MHA), all share one (MQA).")
{
    /* worked by hand, in static storage: not on the stack while kv_head_of runs */
    static const struct { int heads, kv_heads; int want[8]; const char *name; } cases[] = {
        {6, 2, {0, 0, 0, 1, 1, 1}, "lib/llama's tiny: 6 query heads, 2 KV heads"},
        {8, 4, {0, 0, 1, 1, 2, 2, 3, 3}, "llama2.c's 260K: 8 query heads, 4 KV heads"},
        {6, 6, {0, 1, 2, 3, 4, 5}, "multi-head attention: 6 and 6"},
        {8, 1, {0, 0, 0, 0, 0, 0, 0, 0}, "multi-query attention: 8 query heads, 1 KV head"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        llama_config config = {48, 112, 2, cases[c].heads, cases[c].kv_heads, 96, 40, 0};
        for (int h = 0; h < cases[c].heads; h++) {
            int got = kv_head_of(&config, h), want = cases[c].want[h];
            const char *why = got == h % cases[c].kv_heads && got != want
                                  ? " (head % n_kv_heads deals the heads out in turn; the model groups neighbours)"
                                  : got == h && got != want ? " (the query head itself: that is MHA; GQA shares)" : "";
            cr_assert(got == want, "%s: kv_head_of(head %d) = %d, want %d%s", cases[c].name, h, got, want, why);
        }
    }
}

/* ---------------------------------------------------------------------------------
 * The prediction: blocks and copies of parallel sampling, before the cache counts them */

/* `samples` sequences forked from one prompt, appending `generated` tokens each in turn; returns the blocks in
 * use and sets *copies to the copies made, as your cache counts them. */
static int sampling_counted(int prompt, int generated, int samples, int block_size, long long *copies)
{
    int per_sample = (prompt + generated + block_size - 1) / block_size;
    paged_cache cache = books(samples * per_sample, block_size, samples, prompt + generated, 1, 1);
    append(&cache, 0, prompt);
    for (int k = 1; k < samples; k++) sequence_fork(&cache, 0, k);
    for (int step = 0; step < generated; step++)
        for (int k = 0; k < samples; k++) append(&cache, k, 1);
    int blocks = paged_blocks_in_use(&cache);
    *copies = cache.copies;
    paged_cache_free(&cache);
    return blocks;
}

/* What a wrong prediction usually forgot, from where it went wrong. */
static const char *sampling_mistake(int prompt, int generated, int samples, int block_size, int copies)
{
    if (generated == 0) return " (nothing is generated: the prompt's blocks, shared, and no copy)";
    if (prompt % block_size == 0 && copies != 0)
        return " (the prompt fills its last block: each sample's first token starts a new block, nothing is copied)";
    if (prompt % block_size != 0 && copies == samples)
        return " (the last sample to write holds the partial block alone by then: it writes in place, uncopied)";
    if (generated < block_size - prompt % block_size)
        return " (every generated token fits in the room left in the prompt's last block or its copies)";
    return "";
}

Test(prediction, sampling_blocks_and_copies, .timeout = 30,
     .description = "sampling_blocks_predicted: a prompt stored once and forked into samples that each append the "
                    "same number of tokens; the blocks in use and the copy-on-write copies it predicts equal what your "
                    "cache counts, for the chapter's example (22 tokens, block size 4, 4 samples of 16: 25 blocks, 3 "
                    "copies) and for prompts of 1 to 34 tokens, block sizes 1 to 16, 1 to 4 samples.")
{
    int copies = -1, blocks = sampling_blocks_predicted(22, 16, 4, 4, &copies);
    cr_assert(blocks == 25 && copies == 3, "the chapter's parallel sampling (a 22-token prompt, block size 4, 4 "
              "samples of 16 tokens): you predict %d blocks and %d copies; the chapter counts 25 and 3 (5 full prompt "
              "blocks shared, the half-full one copied by 3 samples, 4 blocks each for the last 14 tokens)%s", blocks,
              copies, sampling_mistake(22, 16, 4, 4, copies));
    const int block_sizes[] = {1, 2, 3, 4, 5, 16}, generated[] = {0, 1, 2, 3, 5, 13, 20};
    for (int b = 0; b < 6; b++)
        for (int prompt = 1; prompt <= 34; prompt++)
            for (int g = 0; g < 7; g++)
                for (int samples = 1; samples <= 4; samples++) {
                    copies = -1;   /* predicted first, counted after: no count is in memory while it predicts */
                    blocks = sampling_blocks_predicted(prompt, generated[g], samples, block_sizes[b], &copies);
                    long long counted_copies;
                    int counted = sampling_counted(prompt, generated[g], samples, block_sizes[b], &counted_copies);
                    cr_assert(blocks == counted && copies == counted_copies, "a %d-token prompt, block size %d, %d "
                              "sample(s) of %d tokens: you predict %d blocks and %d copies, your cache counts %d and "
                              "%lld%s", prompt, block_sizes[b], samples, generated[g], blocks, copies, counted,
                              counted_copies, sampling_mistake(prompt, generated[g], samples, block_sizes[b], copies));
                }
}

/* ---------------------------------------------------------------------------------
 * The pool */

Test(pool, alloc_hands_out_each_free_block_once, .timeout = 10,
     .description = "block_alloc pops a free block and gives it refcount 1; with none free it returns -1 and changes "
                    "nothing.")
{
    paged_cache cache = books(3, 4, 1, 12, 1, 1);
    kv_pool *pool = &cache.pool;
    int taken[3];
    for (int i = 0; i < 3; i++) {
        taken[i] = block_alloc(pool);
        cr_assert(taken[i] >= 0 && taken[i] < 3, "block_alloc returned %d with %d of 3 blocks free%s", taken[i], 3 - i,
                  taken[i] == -1 ? ": -1 means none is free (is it written yet?)"
                                 : ": a block's number is 0 .. blocks-1, popped from free_blocks");
        for (int j = 0; j < i; j++)
            cr_assert(taken[j] != taken[i], "block_alloc handed out block %d twice", taken[i]);
        cr_assert(pool->refcount[taken[i]] == 1, "block %d after block_alloc has refcount %d, want 1",
                  taken[i], pool->refcount[taken[i]]);
        cr_assert(pool->free_count == 2 - i, "after %d allocations free_count = %d, want %d", i + 1, pool->free_count,
                  2 - i);
    }
    int none = block_alloc(pool);
    cr_assert(none == -1, "block_alloc with no block free returned %d, want -1", none);
    cr_assert(pool->free_count == 0, "a refused block_alloc changed free_count to %d", pool->free_count);
    paged_cache_free(&cache);
}

Test(pool, release_frees_only_at_refcount_zero, .timeout = 10,
     .description = "block_share adds a holder; block_release takes one away and puts the block back on the free "
                    "stack only when none is left.")
{
    paged_cache cache = books(2, 4, 1, 8, 1, 1);
    kv_pool *pool = &cache.pool;
    int block = block_alloc(pool);
    cr_assert(block >= 0, "block_alloc returned %d from a pool of 2 free blocks", block);
    block_share(pool, block);
    cr_assert(pool->refcount[block] == 2, "after block_share the refcount is %d, want 2", pool->refcount[block]);
    block_release(pool, block);
    cr_assert(pool->refcount[block] == 1, "two holders, one released: refcount %d, want 1", pool->refcount[block]);
    cr_assert(pool->free_count == 1, "a block still held by one table went back on the free stack (free_count %d, want "
              "1): release it only at refcount 0", pool->free_count);
    block_release(pool, block);
    cr_assert(pool->refcount[block] == 0 && pool->free_count == 2, "the last holder released it: refcount %d (want 0), "
              "free_count %d (want 2)", pool->refcount[block], pool->free_count);
    int again = block_alloc(pool);
    cr_assert(again == block, "the block released last should be the next one handed out (a stack): got %d, want %d",
              again, block);
    paged_cache_free(&cache);
}

/* ---------------------------------------------------------------------------------
 * "Refused with nothing changed": every byte of the cache's state, before and after a refusal */

/* how many block tables hold `block`, counted by the test itself */
static int holders_of(const paged_cache *cache, int block)
{
    int holders = 0;
    for (int s = 0; s < cache->sequences; s++)
        for (int i = 0; i < cache->sequence[s].block_count; i++) holders += cache->sequence[s].block_table[i] == block;
    return holders;
}

enum { MAX_WATCHED_SEQUENCES = 8 };

typedef struct cache_state {
    lab_snapshot cache, sequences, tables[MAX_WATCHED_SEQUENCES], refcount, free_blocks, keys, values;
} cache_state;

static cache_state state_of(const paged_cache *cache)
{
    cr_assert(cache->sequences <= MAX_WATCHED_SEQUENCES, "the test watches at most %d sequences",
              MAX_WATCHED_SEQUENCES);
    const kv_pool *pool = &cache->pool;
    size_t floats = (size_t)pool->blocks * pool->layers * pool->block_size * pool->kv_dim;
    cache_state state = {
        .cache = lab_snapshot_take(cache, sizeof *cache),
        .sequences = lab_snapshot_take(cache->sequence, sizeof(kv_sequence) * (size_t)cache->sequences),
        .refcount = lab_snapshot_take(pool->refcount, sizeof(int) * (size_t)pool->blocks),
        .free_blocks = lab_snapshot_take(pool->free_blocks, sizeof(int) * (size_t)pool->blocks),
        .keys = lab_snapshot_take(pool->keys, sizeof(float) * floats),
        .values = lab_snapshot_take(pool->values, sizeof(float) * floats),
    };
    for (int s = 0; s < cache->sequences; s++)
        state.tables[s] = lab_snapshot_take(cache->sequence[s].block_table, sizeof(int) * (size_t)cache->max_blocks);
    return state;
}

/* What a change at byte `at` of the paged_cache struct is, in words. */
static const char *cache_field_at(long at)
{
    long pool = (long)offsetof(paged_cache, pool);
    if (at >= pool + (long)offsetof(kv_pool, free_count) && at < pool + (long)sizeof(kv_pool)) return "pool.free_count";
    if (at >= (long)offsetof(paged_cache, copies) && at < (long)offsetof(paged_cache, failed_stores)) return "copies";
    return "a field of the paged_cache";
}

/* Fails, naming the first thing that changed since state_of, if anything did. */
static void expect_unchanged(cache_state state, const paged_cache *cache, const char *refusal)
{
    long at;
    if ((at = lab_snapshot_first_change(state.cache)) >= 0)
        cr_assert_fail("%s: refused, yet it changed %s", refusal, cache_field_at(at));
    if ((at = lab_snapshot_first_change(state.sequences)) >= 0) {
        int s = (int)(at / (long)sizeof(kv_sequence));
        cr_assert_fail("%s: refused, yet sequence %d changed (now length %d, %d blocks): check everything before "
                       "touching anything", refusal, s, cache->sequence[s].length, cache->sequence[s].block_count);
    }
    for (int s = 0; s < cache->sequences; s++)
        if ((at = lab_snapshot_first_change(state.tables[s])) >= 0)
            cr_assert_fail("%s: refused, yet sequence %d's block_table[%ld] changed (now %d)", refusal, s,
                           at / (long)sizeof(int), cache->sequence[s].block_table[at / (long)sizeof(int)]);
    if ((at = lab_snapshot_first_change(state.refcount)) >= 0) {
        int b = (int)(at / (long)sizeof(int));
        cr_assert_fail("%s: refused, yet block %d's refcount changed (now %d, while %d block tables hold it): a "
                       "copy-on-write that releases the shared block before it has its copy lets it go without a "
                       "copy to show for it, and the block is freed later while another sequence still holds it",
                       refusal, b, cache->pool.refcount[b], holders_of(cache, b));
    }
    if ((at = lab_snapshot_first_change(state.free_blocks)) >= 0)
        cr_assert_fail("%s: refused, yet free_blocks[%ld] changed (now %d)", refusal, at / (long)sizeof(int),
                       cache->pool.free_blocks[at / (long)sizeof(int)]);
    if ((at = lab_snapshot_first_change(state.keys)) >= 0 || (at = lab_snapshot_first_change(state.values)) >= 0)
        cr_assert_fail("%s: refused, yet a key or value in the pool changed (float %ld)", refusal,
                       at / (long)sizeof(float));
}

/* ---------------------------------------------------------------------------------
 * Sequences, followed by hand */

Test(sequence, append_takes_a_block_only_when_the_last_is_full, .timeout = 10,
     .description = "Block size 4: tokens 1-4 need one block, 5-8 two, 9 three; a full sequence or an empty pool "
                    "refuses (-1) and nothing changes.")
{
    paged_cache cache = books(5, 4, 2, 10, 1, 1);
    for (int n = 1; n <= 10; n++) {
        append(&cache, 0, 1);
        int want = (n + 3) / 4;
        cr_assert(cache.sequence[0].length == n, "after %d appends the length is %d", n, cache.sequence[0].length);
        cr_assert(cache.sequence[0].block_count == want && paged_blocks_in_use(&cache) == want,
                  "%d tokens of block size 4 need %d blocks; the sequence holds %d and the pool has %d in use%s", n, want,
                  cache.sequence[0].block_count, paged_blocks_in_use(&cache),
                  cache.sequence[0].block_count > want ? " (a block is taken only when the last is full)" : "");
    }
    cache_state before = state_of(&cache);
    cr_assert(sequence_append(&cache, 0) == -1, "a sequence holding max_tokens (10) took an 11th token");
    expect_unchanged(before, &cache, "an append to a sequence holding max_tokens");
    append(&cache, 1, 8);   /* the last two blocks */
    before = state_of(&cache);
    cr_assert(sequence_append(&cache, 1) == -1, "the pool is empty, yet a 9th token (a new block) was accepted");
    expect_unchanged(before, &cache, "an append that needs a new block from an empty pool");
    paged_cache_free(&cache);
}

Test(sequence, slots_are_found_through_the_block_table, .timeout = 10,
     .description = "Position p of a sequence is slot p % block_size of block block_table[p / block_size]; the "
                    "pool's layout is (blocks, layers, block_size, kv_dim).")
{
    enum { LAYERS = 2, KV_DIM = 3, BLOCK = 4 };
    paged_cache cache = books(6, BLOCK, 2, 16, LAYERS, KV_DIM);
    /* interleaved, so that sequence 0's blocks are not 0, 1, 2 */
    append(&cache, 1, 1);
    append(&cache, 0, 4);
    append(&cache, 1, 4);
    append(&cache, 0, 5);
    for (int p = 0; p < 9; p++)
        for (int l = 0; l < LAYERS; l++) {
            float *key = key_of(&cache, 0, l, p), *value = value_of(&cache, 0, l, p);
            int block = cache.sequence[0].block_table[p / BLOCK];
            size_t want = (((size_t)block * LAYERS + l) * BLOCK + p % BLOCK) * KV_DIM;
            cr_assert(key == cache.pool.keys + want, "slot_key(sequence 0, layer %d, position %d) is keys + %td, want "
                      "keys + %zu (block %d = block_table[%d], slot %d)%s", l, p, key - cache.pool.keys, want, block,
                      p / BLOCK, p % BLOCK, key - cache.pool.keys == (ptrdiff_t)(((size_t)(p / BLOCK) * LAYERS + l) * BLOCK
                      + p % BLOCK) * KV_DIM ? ": that is the logical block, not the physical one in the table" : "");
            cr_assert(value == cache.pool.values + want, "slot_value(sequence 0, layer %d, position %d) is values + %td, "
                      "want values + %zu", l, p, value - cache.pool.values, want);
        }
    paged_cache_free(&cache);
}

Test(sequence, slot_offsets_past_two_to_the_32_floats, .timeout = 10,
     .description = "Llama-2-7B's pool of 121 568 tokens has about 7 600 blocks of 2^21 floats (32 layers, kv_dim 4096, block "
                    "size 16): 2^31 floats lie before its block 1024 and 2^32 before block 2048. slot_key and "
                    "slot_value compute offsets in size_t. (The pool is only reserved, never touched: the test "
                    "compares addresses.)")
{
    enum { BLOCKS = 2100, LAYERS = 32, BLOCK = 16, KV_DIM = 4096 };
    size_t floats = (size_t)BLOCKS * LAYERS * BLOCK * KV_DIM, bytes = floats * sizeof(float);
    void *reserved = mmap(NULL, 2 * bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) cr_skip("could not reserve %zu bytes of address space", 2 * bytes);
    int table[2] = {3, BLOCKS - 1};
    kv_sequence sequence = {BLOCK + 2, 2, table};
    paged_cache cache = {.pool = {BLOCKS, BLOCK, LAYERS, KV_DIM, (float *)reserved, (float *)reserved + floats, NULL,
                                  NULL, 0},
                         .sequences = 1, .max_tokens = 2 * BLOCK, .max_blocks = 2, .sequence = &sequence};
    for (int layer = 0; layer < LAYERS; layer += LAYERS - 1) {
        int position = BLOCK + 1;   /* slot 1 of block_table[1], the pool's last block */
        float *key_at = slot_key(&cache, 0, layer, position), *value_at = slot_value(&cache, 0, layer, position);
        cr_assert(key_at && value_at, "slot_key or slot_value returned NULL: is it written yet?");
        size_t want = (((size_t)(BLOCKS - 1) * LAYERS + layer) * BLOCK + 1) * KV_DIM;
        ptrdiff_t key = key_at - cache.pool.keys, value = value_at - cache.pool.values;
        int wrapped = key < 0 || value < 0 || lab_wrapped_in_32_bits((double)key, (double)want) ||
                      lab_wrapped_in_32_bits((double)value, (double)want);
        cr_assert(key == (ptrdiff_t)want && value == (ptrdiff_t)want, "block %d, layer %d, slot 1 of a pool of %d "
                  "blocks of %d layers x %d slots x %d floats: slot_key is keys + %td and slot_value values + "
                  "%td, want + %zu (%.2f x 2^32)%s", BLOCKS - 1, layer, BLOCKS, LAYERS, BLOCK, KV_DIM, key, value,
                  want, (double)want / 4294967296.0,
                  wrapped ? ": an offset computed in 32 bits (int or unsigned) wrapped; compute it in size_t" : "");
    }
    munmap(reserved, 2 * bytes);
}

/* Fills every slot of every layer of the sequence's positions with distinct numbers. */
static void write_tokens(paged_cache *cache, int sequence, float base)
{
    for (int p = 0; p < cache->sequence[sequence].length; p++)
        for (int l = 0; l < cache->pool.layers; l++)
            for (int i = 0; i < cache->pool.kv_dim; i++) {
                key_of(cache, sequence, l, p)[i] = base + 100 * p + 10 * l + i;
                value_of(cache, sequence, l, p)[i] = -(base + 100 * p + 10 * l + i);
            }
}

static void expect_tokens(paged_cache *cache, int sequence, int length, float base, const char *when)
{
    for (int p = 0; p < length; p++)
        for (int l = 0; l < cache->pool.layers; l++)
            for (int i = 0; i < cache->pool.kv_dim; i++) {
                float key = key_of(cache, sequence, l, p)[i], value = value_of(cache, sequence, l, p)[i];
                float want = base + 100 * p + 10 * l + i;
                cr_assert(key == want && value == -want, "%s: sequence %d, position %d, layer %d, element %d holds key %g "
                          "and value %g, want %g and %g", when, sequence, p, l, i, key, value, want, -want);
            }
}

Test(sequence, fork_shares_every_block, .timeout = 10,
     .description = "A fork gives the child the parent's length and block table and adds a holder to each block: no "
                    "block is taken, nothing is copied.")
{
    paged_cache cache = books(8, 4, 2, 16, 2, 2);
    append(&cache, 0, 6);
    sequence_fork(&cache, 0, 1);
    kv_sequence *parent = &cache.sequence[0], *child = &cache.sequence[1];
    cr_assert(child->length == 6 && child->block_count == 2, "the child of a 6-token parent has length %d and %d "
              "blocks, want 6 and 2", child->length, child->block_count);
    for (int i = 0; i < 2; i++) {
        cr_assert(child->block_table[i] == parent->block_table[i], "the child's block_table[%d] is %d, the parent's %d: "
                  "a fork shares the parent's blocks", i, child->block_table[i], parent->block_table[i]);
        cr_assert(cache.pool.refcount[parent->block_table[i]] == 2, "block %d is held by two tables but has refcount "
                  "%d: sequence_fork must block_share each block", parent->block_table[i],
                  cache.pool.refcount[parent->block_table[i]]);
    }
    cr_assert(paged_blocks_in_use(&cache) == 2 && cache.copies == 0, "a fork took blocks (%d in use, want 2) or copied "
              "(%lld copies, want 0)", paged_blocks_in_use(&cache), cache.copies);
    paged_cache_free(&cache);
}

Test(sequence, copy_on_write_when_a_shared_block_has_room, .timeout = 10,
     .description = "A sequence appending into a shared last block with room left first copies it (every layer, keys "
                    "and values) into a block of its own; the other sequence's tokens do not change.")
{
    paged_cache cache = books(8, 4, 2, 16, 2, 2);
    append(&cache, 0, 6);
    write_tokens(&cache, 0, 1000);
    sequence_fork(&cache, 0, 1);
    int shared_first = cache.sequence[0].block_table[0], shared_last = cache.sequence[0].block_table[1];
    append(&cache, 1, 1);   /* position 6 of the child: into the shared block 1, slots 0-1 in use */
    kv_sequence *child = &cache.sequence[1];
    cr_assert(cache.copies == 1, "appending to a fork whose last block is shared and half full made %lld copies, want 1 "
              "(copy-on-write)", cache.copies);
    cr_assert(child->block_table[1] != shared_last, "the child still writes into block %d, which its parent holds too: "
              "copy it first (copy-on-write)", shared_last);
    cr_assert(child->block_table[0] == shared_first && cache.pool.refcount[shared_first] == 2, "the full first block "
              "stays shared (child's block_table[0] %d, want %d; refcount %d, want 2)", child->block_table[0], shared_first,
              cache.pool.refcount[shared_first]);
    cr_assert(cache.pool.refcount[shared_last] == 1 && cache.pool.refcount[child->block_table[1]] == 1, "after the copy "
              "each of the two last blocks has one holder: refcounts %d (the parent's) and %d (the copy)%s",
              cache.pool.refcount[shared_last], cache.pool.refcount[child->block_table[1]],
              cache.pool.refcount[shared_last] == 2 ? ": the child let go of the shared block without a block_release" : "");
    cr_assert(paged_blocks_in_use(&cache) == 3, "%d blocks in use, want 3 (two shared, one copy)", paged_blocks_in_use(&cache));
    expect_tokens(&cache, 1, 6, 1000, "the copy holds the shared prefix");
    /* each writes its own position 6 */
    for (int l = 0; l < 2; l++) key_of(&cache, 1, l, 6)[0] = 7.0f;
    append(&cache, 0, 1);
    for (int l = 0; l < 2; l++) key_of(&cache, 0, l, 6)[0] = 8.0f;
    cr_assert(key_of(&cache, 1, 0, 6)[0] == 7.0f && key_of(&cache, 0, 0, 6)[0] == 8.0f, "after both wrote position 6 "
              "the child holds %g (want 7) and the parent %g (want 8): the two share a block they both write",
              key_of(&cache, 1, 0, 6)[0], key_of(&cache, 0, 0, 6)[0]);
    cr_assert(cache.copies == 1, "the parent, sole holder of its last block again, copied it (%lld copies, want 1)",
              cache.copies);
    expect_tokens(&cache, 0, 6, 1000, "the parent's tokens after the child's copy-on-write");
    paged_cache_free(&cache);
}

Test(sequence, refused_copy_on_write_changes_nothing, .timeout = 10,
     .description = "Two sequences share a half-full last block and the pool is empty: an append to either needs a "
                    "copy it cannot have, so it returns -1 and leaves every sequence, every refcount, the free stack "
                    "and every key and value as they were; the shared block stays held by both.")
{
    paged_cache cache = books(3, 4, 3, 12, 2, 2);
    append(&cache, 0, 6);   /* blocks: one full, one half full */
    write_tokens(&cache, 0, 3000);
    sequence_fork(&cache, 0, 1);
    append(&cache, 2, 4);   /* the third and last block */
    cr_assert(cache.pool.free_count == 0, "3 blocks, all held, yet free_count is %d", cache.pool.free_count);
    for (int writer = 1; writer >= 0; writer--) {
        cache_state before = state_of(&cache);
        int status = sequence_append(&cache, writer);
        cr_assert(status == -1, "sequence %d's last block is shared and half full, and no block is free for its copy, "
                  "yet sequence_append returned %d, want -1%s", writer, status,
                  cache.sequence[writer].length == 7 ? " (it wrote into the shared block without a copy?)" : "");
        expect_unchanged(before, &cache, writer == 1 ? "the fork's append into a shared block, no block free"
                                                     : "the parent's append into a shared block, no block free");
    }
    /* a block comes free: the copy can be made now, and the parent's tokens stay */
    sequence_free(&cache, 2);
    append(&cache, 1, 1);
    cr_assert(cache.copies == 1, "with a block free again, the fork's append made %lld copies, want 1", cache.copies);
    expect_tokens(&cache, 0, 6, 3000, "the parent's tokens after the fork's copy-on-write");
    sequence_free(&cache, 0), sequence_free(&cache, 1);
    cr_assert(cache.pool.free_count == 3, "every sequence freed: %d of 3 blocks free%s", cache.pool.free_count,
              cache.pool.free_count > 3 ? " (a block went back twice)" : " (a block leaked)");
    paged_cache_free(&cache);
}

Test(sequence, refused_store_changes_nothing, .timeout = 10,
     .description = "paged_store of a new token when the pool is empty: it returns -1 (the engine counts it as a "
                    "store that found no room) and changes nothing; the stores before it, at every layer, landed.")
{
    enum { LAYERS = 2, KV_DIM = 3 };
    paged_cache cache = books(1, 2, 1, 4, LAYERS, KV_DIM);
    float key[KV_DIM], value[KV_DIM];
    for (int position = 0; position < 2; position++)
        for (int layer = 0; layer < LAYERS; layer++) {
            for (int i = 0; i < KV_DIM; i++) key[i] = 100.0f * position + 10 * layer + i, value[i] = -key[i];
            int status = paged_store(&cache, 0, layer, position, key, value);
            cr_assert(status == 0, "paged_store(position %d, layer %d) into a pool with room returned %d, want 0",
                      position, layer, status);
            cr_assert(key_of(&cache, 0, layer, position)[KV_DIM - 1] == key[KV_DIM - 1] &&
                      value_of(&cache, 0, layer, position)[0] == value[0], "paged_store(position %d, layer %d): the "
                      "slot holds key %g and value %g, want %g and %g", position, layer,
                      key_of(&cache, 0, layer, position)[KV_DIM - 1], value_of(&cache, 0, layer, position)[0],
                      key[KV_DIM - 1], value[0]);
        }
    cr_assert(cache.sequence[0].length == 2, "2 tokens stored at %d layers each: length %d, want 2 (one append per "
              "token, at layer 0)", LAYERS, cache.sequence[0].length);
    cache_state before = state_of(&cache);
    int status = paged_store(&cache, 0, 0, 2, key, value);
    cr_assert(status == -1, "paged_store of a third token, with the only block full and none free, returned %d, want "
              "-1", status);
    expect_unchanged(before, &cache, "paged_store of a new token with no block free");
    paged_cache_free(&cache);
}

Test(sequence, no_copy_at_a_block_boundary, .timeout = 10,
     .description = "A fork whose blocks are all full copies nothing when it appends: the new token starts a new block "
                    "and the full blocks stay shared.")
{
    paged_cache cache = books(8, 4, 2, 16, 1, 1);
    append(&cache, 0, 8);
    sequence_fork(&cache, 0, 1);
    append(&cache, 1, 1);
    cr_assert(cache.copies == 0, "the shared blocks were full, yet the append copied (%lld copies): a new token at a "
              "block boundary starts a new block and writes into no shared one", cache.copies);
    cr_assert(cache.sequence[1].block_count == 3 && paged_blocks_in_use(&cache) == 3, "the child holds %d blocks (want "
              "3) and the pool %d (want 3: two shared, one new)", cache.sequence[1].block_count, paged_blocks_in_use(&cache));
    for (int i = 0; i < 2; i++)
        cr_assert(cache.pool.refcount[cache.sequence[0].block_table[i]] == 2, "full shared block %d has refcount %d, want 2",
                  cache.sequence[0].block_table[i], cache.pool.refcount[cache.sequence[0].block_table[i]]);
    paged_cache_free(&cache);
}

Test(sequence, free_gives_back_every_block, .timeout = 10,
     .description = "sequence_free releases each block of the table once and empties the sequence; blocks a fork still "
                    "holds stay, with their tokens.")
{
    paged_cache cache = books(8, 4, 2, 16, 1, 2);
    append(&cache, 0, 9);
    sequence_free(&cache, 0);
    cr_assert(cache.sequence[0].length == 0 && cache.sequence[0].block_count == 0, "a freed sequence has length %d and "
              "%d blocks, want 0 and 0", cache.sequence[0].length, cache.sequence[0].block_count);
    cr_assert(cache.pool.free_count == 8, "after freeing the only sequence %d of 8 blocks are free: a leak",
              cache.pool.free_count);
    append(&cache, 0, 7);
    write_tokens(&cache, 0, 500);
    sequence_fork(&cache, 0, 1);
    sequence_free(&cache, 0);
    cr_assert(paged_blocks_in_use(&cache) == 2, "the parent is freed, its fork holds its two blocks: %d in use, want 2",
              paged_blocks_in_use(&cache));
    expect_tokens(&cache, 1, 7, 500, "the fork after its parent was freed");
    sequence_free(&cache, 1);
    cr_assert(cache.pool.free_count == 8, "after freeing both sequences %d of 8 blocks are free%s", cache.pool.free_count,
              cache.pool.free_count > 8 ? ": a block went back on the free stack twice (a double free)" : ": a leak");
    paged_cache_free(&cache);
}

/* ---------------------------------------------------------------------------------
 * paged_attend on scores a float softmax must survive, and on two threads at once */

enum { ATTEND_HEAD_DIM = 16, ATTEND_QUERY_HEAD = 3, ATTEND_LENGTH = 16411, ATTEND_BLOCK = 16 };

/* 4 query heads on 2 KV heads of 16 floats: query head 3 reads KV head 1, floats 16 .. 31 of a slot. */
static const llama_config attend_config = {4 * ATTEND_HEAD_DIM, 8, 1, 4, 2, 8, ATTEND_LENGTH, 0};

typedef struct attend_case {
    paged_cache *cache;
    int sequence;
    float query[ATTEND_HEAD_DIM], out[ATTEND_HEAD_DIM + 1], *scores;   /* out[ATTEND_HEAD_DIM]: a guard */
} attend_case;

static const float ATTEND_GUARD = 12345.0f;

/* Element e of KV head 1's value at position p of `sequence`: a seeded pattern. */
static float attend_value(int p, int e, int sequence)
{
    return (float)((p * 37 + e * 11 + sequence * 5) % 41) / 20.0f - 1.0f;
}

/* Sequence `sequence`'s keys make query head 3's scores exactly `scores` (the query is 4 e_0, the scale 1/4,
 * each key of KV head 1 is score e_0); KV head 0 holds other numbers, values are attend_value's. */
static void fill_attend_case(attend_case *c, const float *scores)
{
    for (int i = 0; i < ATTEND_HEAD_DIM; i++) c->query[i] = i == 0 ? 4.0f : 0.0f;
    for (int p = 0; p < ATTEND_LENGTH; p++) {
        float *key = slot_key(c->cache, c->sequence, 0, p), *value = slot_value(c->cache, c->sequence, 0, p);
        for (int i = 0; i < 2 * ATTEND_HEAD_DIM; i++) {
            int own = i >= ATTEND_HEAD_DIM, e = i - ATTEND_HEAD_DIM;
            key[i] = own ? (e == 0 ? scores[p] : 0.0f) : 7.0f;
            value[i] = own ? attend_value(p, e, c->sequence) : 99.0f;
        }
    }
}

/* What paged_attend must give for `sequence` filled from the scores lab_fill_large_scores makes from
 * `base`: the softmax-weighted values, in double. Computed after it has returned, from scores and values
 * made afresh (not read back from the cache it was given): while it runs there is no answer to copy. */
static void expected_attention(float base, int sequence, double *want)
{
    static float scores[ATTEND_LENGTH];
    double weights[ATTEND_LENGTH];
    lab_fill_large_scores(scores, ATTEND_LENGTH, base);
    lab_softmax_reference(scores, ATTEND_LENGTH, weights);
    for (int e = 0; e < ATTEND_HEAD_DIM; e++) want[e] = 0;
    for (int p = 0; p < ATTEND_LENGTH; p++)
        for (int e = 0; e < ATTEND_HEAD_DIM; e++) want[e] += weights[p] * attend_value(p, e, sequence);
}

static void attend(void *raw)
{
    attend_case *c = raw;
    c->out[ATTEND_HEAD_DIM] = ATTEND_GUARD;
    paged_attend(c->cache, c->out, c->query, c->sequence, 0, ATTEND_QUERY_HEAD, ATTEND_LENGTH, c->scores);
}

/* out holds head_dim floats, and the next ones are another head's: paged_attend writes none of them. */
static void expect_guard(const attend_case *c)
{
    cr_assert(c->out[ATTEND_HEAD_DIM] == ATTEND_GUARD, "paged_attend changed out[%d], past the head_dim = %d floats "
              "of its query head's output (the next head's): a loop over i <= head_dim?", ATTEND_HEAD_DIM,
              ATTEND_HEAD_DIM);
}

static paged_cache attend_cache(void)
{
    paged_cache cache;
    int blocks_each = (ATTEND_LENGTH + ATTEND_BLOCK - 1) / ATTEND_BLOCK;
    cr_assert(paged_cache_build(&cache, 2 * blocks_each, ATTEND_BLOCK, 1, 2 * ATTEND_HEAD_DIM, 2, ATTEND_LENGTH,
                                &attend_config, error, sizeof error) == 0, "%s", error);
    for (int p = 0; p < ATTEND_LENGTH; p++) append(&cache, p % 3 == 0, 1), append(&cache, p % 3 != 0, 1);
    return cache;
}

Test(attend, large_scores_subtract_the_maximum, .timeout = 30,
     .description = "Scores base + p / n for bases 100 (every expf(score) overflows to inf) and -200 (every one "
                    "underflows to 0), through the block table and GQA's KV head: paged_attend subtracts the largest "
                    "score before expf, starting its maximum from -INFINITY, and matches a double softmax.")
{
    static float scores[ATTEND_LENGTH], scratch[ATTEND_LENGTH];
    const float bases[] = {100.0f, -200.0f, 0.0f};
    paged_cache cache = attend_cache();
    for (int b = 0; b < 3; b++) {
        attend_case c = {&cache, b % 2, {0}, {0}, scratch};
        lab_fill_large_scores(scores, ATTEND_LENGTH, bases[b]);
        fill_attend_case(&c, scores);
        attend(&c);
        expect_guard(&c);
        double want[ATTEND_HEAD_DIM];
        expected_attention(bases[b], c.sequence, want);
        int where;
        double error_found = lab_max_abs_error(c.out, want, ATTEND_HEAD_DIM, &where);
        cr_assert(error_found < 1e-5, "scores from %g to %g over %d positions: out[%d] = %.7g, want %.7g%s", bases[b],
                  bases[b] + 1, ATTEND_LENGTH, where, c.out[where], want[where],
                  !isnan(c.out[where]) ? " (read the query head's KV head, every position, through the block table?)"
                  : bases[b] > 88.7f ? ": expf of a score above 88.7 is inf, and inf / inf is NaN: subtract the "
                                       "largest score first"
                  : bases[b] < -103.9f ? ": expf of a score below -103.9 is 0 and 0 / 0 is NaN: subtract the largest "
                                         "score, a maximum that starts at -INFINITY, not 0"
                                       : "");
    }
    paged_cache_free(&cache);
}

/* One thread's share of the two-thread check: attend, and compare bit for bit with the answer alone. */
typedef struct attend_alongside {
    attend_case *c;
    float alone[ATTEND_HEAD_DIM];
    long calls;
    int differs;
} attend_alongside;

static int attend_and_compare(void *raw)
{
    attend_alongside *a = raw;
    attend(a->c);
    a->calls++;
    for (int i = 0; i < ATTEND_HEAD_DIM; i++)
        if (a->c->out[i] != a->alone[i]) return a->differs = i, 1 + a->c->sequence;
    return 0;
}

Test(attend, two_threads_at_once, .timeout = 60,
     .description = "The engine calls paged_attend from several threads at once (lib/llama/llama.h, llama_kv_hooks): "
                    "two sequences attended on two threads together, over and over, get the answers they get one at "
                    "a time. Keep no state of your own: `scores` is the call's scratch.")
{
    static float scores[2][ATTEND_LENGTH], scratch[2][ATTEND_LENGTH];
    paged_cache cache = attend_cache();
    attend_case cases[2] = {{&cache, 0, {0}, {0}, scratch[0]}, {&cache, 1, {0}, {0}, scratch[1]}};
    attend_alongside together[2];
    for (int s = 0; s < 2; s++) {
        lab_fill_large_scores(scores[s], ATTEND_LENGTH, s ? -3.0f : 2.0f);
        fill_attend_case(&cases[s], scores[s]);
        attend(&cases[s]);
        together[s] = (attend_alongside){&cases[s], {0}, 0, 0};
        memcpy(together[s].alone, cases[s].out, sizeof together[s].alone);
    }
    int verdict = lab_run_on_two_threads(attend_and_compare, &together[0], &together[1], 200);
    cr_assert(verdict >= 0, "could not start two threads");
    if (verdict > 0) {
        const attend_alongside *a = &together[verdict - 1];
        cr_assert(0, "call %ld on two threads, sequence %d: out[%d] = %.9g, alone %.9g: does paged_attend keep state "
                  "of its own (a static buffer) that the other thread overwrites?", a->calls, a->c->sequence,
                  a->differs, a->c->out[a->differs], a->alone[a->differs]);
    }
    paged_cache_free(&cache);
}

/* ---------------------------------------------------------------------------------
 * A randomised trace against a model of the test's own */

enum { TRACE_SEQUENCES = 24, TRACE_MAX_TOKENS = 40, TRACE_BLOCK = 4, TRACE_BLOCKS = 120, TRACE_OPERATIONS = 100000,
       TRACE_FULL_CHECK_EVERY = 16 };

typedef struct trace_model {
    int active[TRACE_SEQUENCES];
    int length[TRACE_SEQUENCES];
    float token[TRACE_SEQUENCES][TRACE_MAX_TOKENS];   /* what each position must hold */
    float next_token;
    char operation[160];                              /* the last operation, for the messages */
    int index;
} trace_model;


#define TRACE_FAIL(...)                                                                                                \
    cr_assert_fail("by operation %d of the trace (the last: %s): %s", model->index, model->operation,                 \
                   (snprintf(trace_message, sizeof trace_message, __VA_ARGS__), trace_message))
static char trace_message[512];

static void check_everything(const paged_cache *cache, const trace_model *model)
{
    const kv_pool *pool = &cache->pool;
    int on_free_stack[TRACE_BLOCKS] = {0};
    if (pool->free_count < 0 || pool->free_count > pool->blocks)
        TRACE_FAIL("free_count is %d, outside 0 .. %d", pool->free_count, pool->blocks);
    for (int i = 0; i < pool->free_count; i++) {
        int b = pool->free_blocks[i];
        if (b < 0 || b >= pool->blocks) TRACE_FAIL("free_blocks[%d] = %d, not a block", i, b);
        if (on_free_stack[b]++) TRACE_FAIL("block %d is on the free stack twice: a double free (a block released once "
                                           "more than it was held)", b);
    }
    for (int b = 0; b < pool->blocks; b++) {
        int holders = holders_of(cache, b);
        if (pool->refcount[b] != holders)
            TRACE_FAIL("block %d is held by %d block tables but its refcount is %d%s", b, holders, pool->refcount[b],
                       pool->refcount[b] > holders ? ": a release that did not decrement it (the block will never come "
                                                     "back: a leak)"
                                                   : ": a holder was added without block_share (the block will be freed "
                                                     "while still in use)");
        if (holders > 0 && on_free_stack[b])
            TRACE_FAIL("block %d is on the free stack while %d tables hold it: freed while in use", b, holders);
        if (holders == 0 && !on_free_stack[b])
            TRACE_FAIL("block %d is held by no table and is not on the free stack: leaked", b);
    }
    for (int s = 0; s < TRACE_SEQUENCES; s++) {
        const kv_sequence *q = &cache->sequence[s];
        if (q->length != model->length[s])
            TRACE_FAIL("sequence %d has length %d, want %d", s, q->length, model->length[s]);
        int want_blocks = (q->length + TRACE_BLOCK - 1) / TRACE_BLOCK;
        if (q->block_count != want_blocks)
            TRACE_FAIL("sequence %d holds %d blocks for %d tokens (block size %d), want %d%s", s, q->block_count,
                       q->length, TRACE_BLOCK, want_blocks, q->block_count > want_blocks
                       ? ": more than a block's worth of slots unused (take a block only when the last is full, and "
                         "empty the table when the sequence is freed)" : "");
        for (int p = 0; p < q->length; p++) {
            float got = slot_key(cache, s, 0, p)[0], want = model->token[s][p];
            if (got != want)
                TRACE_FAIL("sequence %d, position %d holds token %g, want %g: %s", s, p, got, want,
                           isnan(got) ? "a slot never written (was a block copied or shared?)"
                                      : "another write landed in its slot (two sequences wrote one block without a copy?)");
        }
    }
}

static int random_below(uint64_t *state, int n) { return (int)(llama_random_u32(state) % (uint32_t)n); }

static int random_sequence(uint64_t *state, const trace_model *model, int active)
{
    int candidates[TRACE_SEQUENCES], count = 0;
    for (int s = 0; s < TRACE_SEQUENCES; s++)
        if (model->active[s] == active) candidates[count++] = s;
    return count ? candidates[random_below(state, count)] : -1;
}

/* One append, with what the test knows it must do: refuse when the sequence is full or it needs
 * a block and none is free; else make the new position's block the sequence's alone. */
static void trace_append(paged_cache *cache, trace_model *model, int s)
{
    kv_sequence *q = &cache->sequence[s];
    int length = q->length, blocks_before = q->block_count, free_before = cache->pool.free_count;
    int last_shared = blocks_before > 0 && holders_of(cache, q->block_table[blocks_before - 1]) > 1;
    int status = sequence_append(cache, s);
    /* whether it had to refuse, worked out from the state it was given once it has returned */
    int needs_block = length % TRACE_BLOCK == 0 || blocks_before == 0 || last_shared;
    int refuse = length == TRACE_MAX_TOKENS || (needs_block && free_before == 0);
    if (refuse) {
        if (status != -1) TRACE_FAIL("sequence_append returned %d where it must refuse (-1): %s", status,
                                     length == TRACE_MAX_TOKENS ? "the sequence is full" : "it needs a block and none is free");
        if (q->length != length || q->block_count != blocks_before || cache->pool.free_count != free_before)
            TRACE_FAIL("a refused append changed something: length %d -> %d, blocks %d -> %d, free %d -> %d", length,
                       q->length, blocks_before, q->block_count, free_before, cache->pool.free_count);
        return;
    }
    if (status != 0) TRACE_FAIL("sequence_append refused sequence %d (length %d) with %d blocks free", s, length, free_before);
    if (q->length != length + 1) TRACE_FAIL("after an append sequence %d has length %d, want %d", s, q->length, length + 1);
    int block = q->block_table[length / TRACE_BLOCK], holders = holders_of(cache, block);
    if (holders != 1)
        TRACE_FAIL("sequence %d's new position %d lies in block %d, which %d block tables hold: two sequences would "
                   "write one block without a copy%s", s, length, block, holders,
                   cache->pool.refcount[block] < holders ? " (and its refcount is lower: does sequence_fork block_share "
                                                           "each block?)"
                                                         : " (copy-on-write: copy a shared block before writing it)");
    model->next_token += 1;
    slot_key(cache, s, 0, length)[0] = model->next_token;
    model->token[s][length] = model->next_token;
    model->length[s] = length + 1;
}

Test(trace, hundred_thousand_random_operations, .timeout = 60,
     .description = "100 000 seeded operations (new sequence, append, fork, free) on 120 blocks of 4: no leak, no "
                    "double free, no block written by two sequences, under one block unused per sequence.")
{
    paged_cache cache = books(TRACE_BLOCKS, TRACE_BLOCK, TRACE_SEQUENCES, TRACE_MAX_TOKENS, 1, 1);
    static trace_model storage;
    trace_model *model = &storage;
    memset(model, 0, sizeof *model);
    uint64_t state = llama_seed_generator(21);
    long long forks = 0, refusals = 0;
    for (model->index = 1; model->index <= TRACE_OPERATIONS; model->index++) {
        int choice = random_below(&state, 100), s;
        if (choice < 12 && (s = random_sequence(&state, model, 0)) >= 0) {
            int tokens = 1 + random_below(&state, 8);
            snprintf(model->operation, sizeof model->operation, "new sequence %d with %d tokens", s, tokens);
            model->active[s] = 1;
            for (int i = 0; i < tokens; i++) trace_append(&cache, model, s);
        } else if (choice < 27 && (s = random_sequence(&state, model, 1)) >= 0 && random_sequence(&state, model, 0) >= 0) {
            int child = random_sequence(&state, model, 0);
            snprintf(model->operation, sizeof model->operation, "fork sequence %d (%d tokens) into %d", s,
                     model->length[s], child);
            sequence_fork(&cache, s, child);
            model->active[child] = 1, model->length[child] = model->length[s];
            memcpy(model->token[child], model->token[s], sizeof model->token[s]);
            forks++;
        } else if (choice < 45 && (s = random_sequence(&state, model, 1)) >= 0) {
            snprintf(model->operation, sizeof model->operation, "free sequence %d (%d tokens)", s, model->length[s]);
            sequence_free(&cache, s);
            model->active[s] = 0, model->length[s] = 0;
        } else if ((s = random_sequence(&state, model, 1)) >= 0) {
            snprintf(model->operation, sizeof model->operation, "append to sequence %d (%d tokens, %d blocks free)", s,
                     model->length[s], cache.pool.free_count);
            int before = model->length[s];
            trace_append(&cache, model, s);
            refusals += model->length[s] == before;
        }
        if (model->index % TRACE_FULL_CHECK_EVERY == 0) check_everything(&cache, model);
    }
    check_everything(&cache, model);
    snprintf(model->operation, sizeof model->operation, "free every sequence at the end");
    for (int s = 0; s < TRACE_SEQUENCES; s++)
        if (model->active[s]) sequence_free(&cache, s), model->active[s] = 0, model->length[s] = 0;
    check_everything(&cache, model);
    cr_assert(cache.pool.free_count == TRACE_BLOCKS, "after every sequence was freed %d of %d blocks are free",
              cache.pool.free_count, TRACE_BLOCKS);
    /* the trace must have exercised what it checks */
    cr_assert(forks > 1000 && refusals > 100 && cache.copies > 0, "the trace made %lld forks, %lld refused appends and "
              "%lld copies: too few to test sharing, a full pool and copy-on-write", forks, refusals, cache.copies);
    paged_cache_free(&cache);
}

/* ---------------------------------------------------------------------------------
 * The toy Llama on your cache */

static void build(llama_transformer *t, const char *shape, uint64_t seed)
{
    llama_config c;
    cr_assert(llama_named_shape(shape, &c, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(t, &c, seed, error, sizeof error) == 0, "%s", error);
}

/* the largest difference between two rows of logits; NaN counts as infinitely far */
static double difference(const float *a, const float *b, int n)
{
    double largest = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= largest)) largest = isnan(d) ? INFINITY : d;
    }
    return largest;
}

static paged_cache model_cache(const llama_transformer *t, int block_size, int sequences, int max_tokens)
{
    const llama_config *c = &t->config;
    int blocks = sequences * ((max_tokens + block_size - 1) / block_size);
    paged_cache cache;
    cr_assert(paged_cache_build(&cache, blocks, block_size, c->n_layers, llama_kv_dim_of(c), sequences, max_tokens, c,
                                error, sizeof error) == 0, "%s", error);
    return cache;
}

/* Greedy generation after a prompt, with the engine's own cache and with yours; the largest
 * difference of any logit. */
static double paged_against_own(llama_transformer *t, int block_size, int threads, paged_cache *cache)
{
    enum { PROMPT = 5, STEPS = 20 };
    int vocab = t->config.vocab_size, prompt[PROMPT] = {1, 9, 4, 33, 2};
    llama_session own, paged;
    cr_assert(llama_build_session(&own, t, 1, PROMPT + STEPS, threads, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&paged, t, 1, PROMPT + STEPS, threads, error, sizeof error) == 0, "%s", error);
    *cache = model_cache(t, block_size, 1, PROMPT + STEPS);
    paged.kv_hooks = paged_hooks(cache);
    /* each step on your cache first, then on the engine's own: its logits are not in memory while yours runs */
    const float *b = llama_prefill(&paged, 0, prompt, PROMPT, error, sizeof error);
    const float *a = llama_prefill(&own, 0, prompt, PROMPT, error, sizeof error);
    double largest = 0;
    for (int step = 0;; step++) {
        cr_assert(a && b, "%s", error);
        largest = fmax(largest, difference(a, b, vocab));
        if (step == STEPS - 1) break;
        int next = llama_argmax(a, vocab);   /* both continue with the engine's own token */
        b = llama_decode_batch(&paged, (int[]){0}, &next, 1, error, sizeof error);
        a = llama_decode_batch(&own, (int[]){0}, &next, 1, error, sizeof error);
    }
    llama_free_session(&own), llama_free_session(&paged);
    return largest;
}

Test(engine, your_cache_gives_the_engines_logits, .timeout = 60,
     .description = "The toy Llama ('tiny', 6 query heads on 2 KV heads) on your paged cache and attention: its logits "
                    "equal the engine's own cache's within 1e-4, for block sizes 1, 4 and 16 and on two threads.")
{
    llama_transformer t;
    build(&t, "tiny", 8);
    struct { int block_size, threads; } runs[] = {{4, 1}, {1, 1}, {16, 1}, {4, 2}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        paged_cache cache;
        double largest = paged_against_own(&t, runs[r].block_size, runs[r].threads, &cache);
        int stored = 5 + 19, want_blocks = (stored + runs[r].block_size - 1) / runs[r].block_size;
        cr_assert(cache.failed_stores == 0, "block size %d: %lld of the engine's stores found no room (paged_store "
                  "returned -1): a new position (= the length) must be appended first", runs[r].block_size,
                  cache.failed_stores);
        cr_assert(cache.sequence[0].length == stored, "block size %d: after %d tokens your cache holds %d: append once "
                  "per token (at the first layer that stores it), not once per layer", runs[r].block_size, stored,
                  cache.sequence[0].length);
        cr_assert(paged_blocks_in_use(&cache) == want_blocks, "block size %d: %d tokens in %d blocks, want %d",
                  runs[r].block_size, stored, paged_blocks_in_use(&cache), want_blocks);
        cr_assert(largest < 1e-4, "block size %d, %d thread(s): the logits on your cache differ from the engine's own by "
                  "up to %g (want < 1e-4)%s", runs[r].block_size, runs[r].threads, largest,
                  isinf(largest) ? ": some are NaN (a slot read before it was written?)"
                                 : ". Check paged_attend: the KV head of each query head, the scale 1/sqrt(head_dim), "
                                   "every position 0 .. length-1, the softmax's maximum");
        paged_cache_free(&cache);
    }
    llama_free_transformer(&t);
}

/* Copies every weight of a GQA model into an MHA model of the same shape, repeating KV head
 * h / group as KV head h (as tests/llama/cache.c does for the engine's own attention). */
static void repeat_kv_heads(const llama_transformer *gqa, llama_transformer *mha)
{
    const llama_config *c = &gqa->config;
    int head_dim = llama_head_dim_of(c), group = c->n_heads / c->n_kv_heads, dim = c->dim;
    size_t matrix = (size_t)dim * dim * sizeof(float), mlp = (size_t)c->hidden_dim * dim * sizeof(float);
    memcpy((float *)mha->token_embedding.fp32, gqa->token_embedding.fp32, (size_t)c->vocab_size * dim * sizeof(float));
    memcpy((float *)mha->classifier.fp32, gqa->classifier.fp32, (size_t)c->vocab_size * dim * sizeof(float));
    memcpy((float *)mha->rms_final, gqa->rms_final, dim * sizeof(float));
    for (int l = 0; l < c->n_layers; l++) {
        const llama_layer_weights *g = &gqa->layers[l];
        llama_layer_weights *m = &mha->layers[l];
        memcpy((float *)m->rms_attention, g->rms_attention, dim * sizeof(float));
        memcpy((float *)m->rms_ffn, g->rms_ffn, dim * sizeof(float));
        memcpy((float *)m->wq.fp32, g->wq.fp32, matrix);
        memcpy((float *)m->wo.fp32, g->wo.fp32, matrix);
        memcpy((float *)m->w1.fp32, g->w1.fp32, mlp);
        memcpy((float *)m->w2.fp32, g->w2.fp32, mlp);
        memcpy((float *)m->w3.fp32, g->w3.fp32, mlp);
        for (int h = 0; h < c->n_heads; h++) {
            size_t rows = (size_t)head_dim * dim;
            memcpy((float *)m->wk.fp32 + h * rows, g->wk.fp32 + (size_t)(h / group) * rows, rows * sizeof(float));
            memcpy((float *)m->wv.fp32 + h * rows, g->wv.fp32 + (size_t)(h / group) * rows, rows * sizeof(float));
        }
    }
}

Test(engine, grouped_query_equals_multi_head_with_repeated_heads, .timeout = 60,
     .description = "A GQA model (6 query heads, 2 KV heads) and the MHA model whose K and V weights repeat each KV "
                    "head three times give the same logits, both through your paged attention.")
{
    enum { PROMPT = 12, STEPS = 12, BLOCK = 4 };
    llama_transformer gqa, mha;
    build(&gqa, "tiny", 11);
    build(&mha, "tiny-mha", 12);
    cr_assert(gqa.config.n_kv_heads < gqa.config.n_heads && mha.config.n_kv_heads == mha.config.n_heads);
    repeat_kv_heads(&gqa, &mha);
    int vocab = gqa.config.vocab_size, tokens[PROMPT + STEPS];
    for (int i = 0; i < PROMPT + STEPS; i++) tokens[i] = (int)((7u * (unsigned)i + 3u) % (unsigned)vocab);
    llama_session a, b, own;
    cr_assert(llama_build_session(&a, &gqa, 1, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&b, &mha, 1, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&own, &gqa, 1, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    paged_cache ca = model_cache(&gqa, BLOCK, 1, PROMPT + STEPS), cb = model_cache(&mha, BLOCK, 1, PROMPT + STEPS);
    a.kv_hooks = paged_hooks(&ca), b.kv_hooks = paged_hooks(&cb);
    const float *x = llama_prefill(&a, 0, tokens, PROMPT, error, sizeof error);
    float *kept = malloc((size_t)vocab * sizeof(float));
    for (int p = PROMPT;; p++) {
        cr_assert(x, "%s", error);
        memcpy(kept, x, (size_t)vocab * sizeof(float));
        const float *y = p == PROMPT ? llama_prefill(&b, 0, tokens, PROMPT, error, sizeof error)
                                     : llama_decode_batch(&b, (int[]){0}, &tokens[p - 1], 1, error, sizeof error);
        const float *z = p == PROMPT ? llama_prefill(&own, 0, tokens, PROMPT, error, sizeof error)
                                     : llama_decode_batch(&own, (int[]){0}, &tokens[p - 1], 1, error, sizeof error);
        cr_assert(y && z, "%s", error);
        double against_mha = difference(kept, y, vocab), against_own = difference(kept, z, vocab);
        cr_assert(against_mha < 1e-5, "after %d tokens the GQA model and the MHA model repeating its KV heads differ by "
                  "%g through your paged_attend: query head h must read KV head h / (n_heads / n_kv_heads)", p,
                  against_mha);
        cr_assert(against_own < 1e-4, "after %d tokens the GQA model on your cache differs from the engine's own cache "
                  "by %g", p, against_own);
        if (p == PROMPT + STEPS) break;
        x = llama_decode_batch(&a, (int[]){0}, &tokens[p], 1, error, sizeof error);
    }
    free(kept);
    paged_cache_free(&ca), paged_cache_free(&cb);
    llama_free_session(&a), llama_free_session(&b), llama_free_session(&own);
    llama_free_transformer(&gqa), llama_free_transformer(&mha);
}

Test(engine, forked_sequences_share_the_prompt, .timeout = 60,
     .description = "Parallel sampling: a 6-token prompt (block size 4) prefilled once and forked into 3 sequences that "
                    "continue with different tokens: 2 blocks shared, 2 copies, and each sequence's logits equal a "
                    "sequence prefilled on its own.")
{
    enum { PROMPT = 6, STEPS = 8, SAMPLES = 3, BLOCK = 4 };
    llama_transformer t;
    build(&t, "tiny", 9);
    int vocab = t.config.vocab_size, prompt[PROMPT] = {3, 14, 15, 9, 26, 5};
    llama_session own, paged;
    cr_assert(llama_build_session(&own, &t, SAMPLES, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&paged, &t, SAMPLES, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    paged_cache cache = model_cache(&t, BLOCK, SAMPLES, PROMPT + STEPS);
    paged.kv_hooks = paged_hooks(&cache);
    const float *first = llama_prefill(&paged, 0, prompt, PROMPT, error, sizeof error);
    cr_assert(first, "%s", error);
    int next[SAMPLES], sequences[SAMPLES] = {0, 1, 2};
    for (int i = 0; i < SAMPLES; i++) next[i] = (llama_argmax(first, vocab) + i) % vocab;   /* three continuations */
    for (int i = 1; i < SAMPLES; i++)
        cr_assert(paged_session_fork(&paged, &cache, 0, i, error, sizeof error) == 0, "%s", error);
    for (int i = 0; i < SAMPLES; i++) cr_assert(llama_prefill(&own, i, prompt, PROMPT, error, sizeof error), "%s", error);
    cr_assert(paged_blocks_in_use(&cache) == 2, "a 6-token prompt forked into 3 sequences holds %d blocks, want 2 (all "
              "shared)", paged_blocks_in_use(&cache));
    for (int step = 0; step < STEPS; step++) {
        /* your cache first, then the engine's own: its logits are not in memory while yours runs */
        const float *b = llama_decode_batch(&paged, sequences, next, SAMPLES, error, sizeof error);
        cr_assert(b, "%s", error);
        const float *a = llama_decode_batch(&own, sequences, next, SAMPLES, error, sizeof error);
        cr_assert(a, "%s", error);
        if (step == 0)
            cr_assert(cache.copies == SAMPLES - 1 && paged_blocks_in_use(&cache) == 2 + SAMPLES - 1,
                      "after each of 3 sequences sharing a half-full block appended a token: %lld copies (want 2: the "
                      "last writer is its sole holder) and %d blocks in use (want 4)", cache.copies,
                      paged_blocks_in_use(&cache));
        for (int i = 0; i < SAMPLES; i++) {
            double d = difference(a + (size_t)i * vocab, b + (size_t)i * vocab, vocab);
            cr_assert(d < 1e-4, "decode step %d, sequence %d (forked from the prompt): its logits differ by %g from a "
                      "sequence prefilled on its own%s", step, i, d,
                      cache.failed_stores ? " (some stores found no room)"
                                          : ": did a sequence write into a block its forks share (copy-on-write)?");
        }
        for (int i = 0; i < SAMPLES; i++) next[i] = llama_argmax(a + (size_t)i * vocab, vocab);
    }
    cr_assert(cache.failed_stores == 0, "%lld stores found no room", cache.failed_stores);
    paged_cache_free(&cache);
    llama_free_session(&own), llama_free_session(&paged);
    llama_free_transformer(&t);
}
