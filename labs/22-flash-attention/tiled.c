/* tiled.c — Day 22: FlashAttention's bytes, predicted, and the same algorithm on the CPU.
 *
 *   out = softmax(Q K^T * scale) V,   scale = 1 / sqrt(d),   Q, K, V, out: [n][d] row-major, one head
 *
 * What you write here:
 *   1. flash_predicted_bytes: the global bytes FlashAttention requests, from its loop structure
 *      alone, before the simulator counts them (the chapter's "What it moves"). The driver prints
 *      it beside the count; the checks hold the kernel and the CPU version to it.
 *   2. attention_tiled_cpu and fold_key_tile: flash.cu's algorithm for one core. `tiles`
 *      (driver/lab.h) plays shared memory and registers, and copy_tile (driver/cpu.c) is your one
 *      way to read q, k and v: what it copies is counted, as the simulator counts a kernel's loads.
 *
 * Rules: plain C, no malloc and no n x n (or n-sized) array: the buffers in `tiles` are all the
 * memory you have (they hold garbage when you get them). Tiles of exactly `tile` rows, any
 * 1 <= tile <= MAX_TILE; n >= 1 (the last tiles are partial: read no row at or past n);
 * 1 <= d <= MAX_HEAD_DIM; with causal set, query i sees keys j <= i only. Use expf.
 *
 * Check:  make check DAY=22        Stuck?  make hint DAY=22
 */
#include "lab.h"

#include <math.h>

static int min_int(int x, int y) { return x < y ? x : y; }

// ---------------------------------------------------------------------------------
// The prediction

double flash_predicted_bytes(int n, int d, int causal, int tile)
{
    // TODO: the bytes flash.cu's kernel requests, 4 a float: q loaded and out stored once each, and
    //       every key tile's rows of k and v once for each query tile that visits it. Count rows,
    //       not tiles (the last tile of n may be partial); causal: no key tile right of the diagonal.
    (void)n, (void)d, (void)causal, (void)tile;
    return 0;
}

// ---------------------------------------------------------------------------------
// The CPU version

// One tile of keys, first_key .. first_key + keys - 1 (already in tiles->k and tiles->v), folded
// into the running state of the query rows first_query .. first_query + queries - 1 (tiles->q).
static void fold_key_tile(attention_tiles *tiles, int first_query, int queries, int first_key, int keys, int d,
                          int causal, float scale)
{
    // TODO: fold this tile of keys into each query row's running max, running sum and output row
    //       (tiles->running_max, running_sum, out), so that they stay what they would be had the row
    //       seen all its keys so far at once. Causal: row i takes keys j <= i only, maybe none here.
    //       Idea (day 17): when the max grows, everything kept so far was scaled to the old max.
    //       Scores of +-300 must work: never expf of a score that has not had the max taken off.
    (void)tiles, (void)first_query, (void)queries, (void)first_key, (void)keys, (void)d, (void)causal, (void)scale;
}

void attention_tiled_cpu(const float *q, const float *k, const float *v, float *out, int n, int d, int causal,
                         int tile, attention_tiles *tiles)
{
    // TODO: out for every query, a tile of `tile` queries at a time: the tile's rows of q in, their
    //       state started afresh (the buffers hold garbage), each key tile they may see copied in
    //       and folded, then each row's output divided by its sum into out. Read q, k and v only
    //       with copy_tile, a tile at a time: the checks count its bytes against your prediction.
    (void)q, (void)k, (void)v, (void)out, (void)n, (void)d, (void)causal, (void)tile, (void)tiles, (void)min_int,
        (void)fold_key_tile;
}
