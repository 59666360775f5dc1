/* tiled.c — Day 22: the same FlashAttention on the CPU, with the tiles in explicit buffers.
 *
 *   out = softmax(Q K^T * scale) V,   scale = 1 / sqrt(d),   Q, K, V, out: [n][d] row-major, one head
 *
 * flash.cu's algorithm, written out step by step for one core, with `tiles` (driver/lab.h) in
 * the role of shared memory and registers: every copy into it is a "load from HBM", and nothing
 * else of n's size is ever written. For each tile of `tile` queries:
 *
 *   copy the Q tile into tiles->q; running_max = -inf, running_sum = 0, out tile = 0 for each row
 *   for each tile of keys the rows may see:
 *     copy the K tile and the V tile into tiles->k and tiles->v
 *     for each query row r of the tile:
 *       scores[r][j] = scale * (q_r . k_j) for the keys j it may see
 *       new_max = max(running_max[r], those scores)
 *       rescale = exp(running_max[r] - new_max): the sum and the output so far shrink by it
 *       running_sum[r] = running_sum[r] * rescale + sum_j exp(scores[r][j] - new_max)
 *       out[r][c]      = out[r][c]      * rescale + sum_j exp(scores[r][j] - new_max) * v_j[c]
 *       running_max[r] = new_max
 *   write out[r] / running_sum[r] into the rows of out
 *
 * Rules: plain C, no malloc and no n x n (or n-sized) array: the buffers in `tiles` are all the
 * memory you have (they hold garbage when you get them). Any 1 <= tile <= MAX_TILE, n >= 1 (the
 * last tiles are partial: read no row at or past n), 1 <= d <= MAX_HEAD_DIM; with causal set,
 * query i sees keys j <= i only. Use expf.
 *
 * Check:  make check DAY=22        Stuck?  make hint DAY=22
 */
#include "lab.h"

#include <math.h>
#include <string.h>

static int min_int(int x, int y) { return x < y ? x : y; }

// Rows first .. first + rows - 1 of a [n][d] matrix into the first rows of a tile buffer.
static void copy_tile(float (*tile)[MAX_HEAD_DIM], const float *matrix, int first, int rows, int d)
{
    for (int r = 0; r < rows; r++) memcpy(tile[r], matrix + (size_t)(first + r) * d, sizeof(float) * (size_t)d);
}

// One tile of keys, first_key .. first_key + keys - 1 (already in tiles->k and tiles->v), folded
// into the running state of the query rows first_query .. first_query + queries - 1 (tiles->q).
static void fold_key_tile(attention_tiles *tiles, int first_query, int queries, int first_key, int keys, int d,
                          int causal, float scale)
{
    // TODO: for each row r < queries, query i = first_query + r: the keys it may see are the first
    //       `visible` of the tile (all `keys`; causal: those with first_key + j <= i; none: skip the row).
    //       tiles->scores[r][j] = scale * (tiles->q[r] . tiles->k[j]) for those, and their max. Then the
    //       online softmax of the top of this file on tiles->running_max[r], tiles->running_sum[r] and
    //       tiles->out[r][0 .. d): rescale first, then add the tile's exp(score - new_max) terms.
    (void)tiles, (void)first_query, (void)queries, (void)first_key, (void)keys, (void)d, (void)causal, (void)scale;
}

void attention_tiled_cpu(const float *q, const float *k, const float *v, float *out, int n, int d, int causal,
                         int tile, attention_tiles *tiles)
{
    // TODO: scale = 1 / sqrtf(d). For each query tile (first_query = 0, tile, 2 tile, ...; the last one
    //       partial): copy_tile the Q tile into tiles->q; for its rows, running_max = -INFINITY,
    //       running_sum = 0, tiles->out[r][0 .. d) = 0 (the buffers start as garbage). For each key tile
    //       its rows may see (all; causal: those starting before first_query + queries): copy_tile K and V
    //       into tiles->k and tiles->v, then fold_key_tile. Last, row r of out = tiles->out[r] / running_sum[r].
    (void)q, (void)k, (void)v, (void)out, (void)n, (void)d, (void)causal, (void)tile, (void)tiles, (void)copy_tile,
        (void)min_int,
        (void)fold_key_tile;
}
