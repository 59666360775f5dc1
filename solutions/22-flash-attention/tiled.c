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

// One tile of keys, first_key .. first_key + keys - 1, folded into the running state of the
// query rows first_query .. first_query + queries - 1.
static void fold_key_tile(attention_tiles *tiles, int first_query, int queries, int first_key, int keys, int d,
                          int causal, float scale)
{
    for (int r = 0; r < queries; r++) {
        int i = first_query + r, visible = causal ? min_int(keys, i - first_key + 1) : keys;
        if (visible <= 0) continue;   // a key tile right of this row's diagonal
        float *scores = tiles->scores[r], tile_max = -INFINITY;
        for (int j = 0; j < visible; j++) {
            float dot = 0;
            for (int c = 0; c < d; c++) dot += tiles->q[r][c] * tiles->k[j][c];
            scores[j] = dot * scale;
            tile_max = fmaxf(tile_max, scores[j]);
        }
        float new_max = fmaxf(tiles->running_max[r], tile_max);
        float rescale = expf(tiles->running_max[r] - new_max), sum = tiles->running_sum[r] * rescale;
        float *out = tiles->out[r];
        for (int c = 0; c < d; c++) out[c] *= rescale;
        for (int j = 0; j < visible; j++) {
            float p = expf(scores[j] - new_max);
            sum += p;
            for (int c = 0; c < d; c++) out[c] += p * tiles->v[j][c];
        }
        tiles->running_sum[r] = sum, tiles->running_max[r] = new_max;
    }
}

void attention_tiled_cpu(const float *q, const float *k, const float *v, float *out, int n, int d, int causal,
                         int tile, attention_tiles *tiles)
{
    float scale = 1.0f / sqrtf((float)d);
    for (int first_query = 0; first_query < n; first_query += tile) {
        int queries = min_int(tile, n - first_query);
        copy_tile(tiles->q, q, first_query, queries, d);
        for (int r = 0; r < queries; r++) {
            tiles->running_max[r] = -INFINITY, tiles->running_sum[r] = 0;
            for (int c = 0; c < d; c++) tiles->out[r][c] = 0;
        }
        int last_key = causal ? first_query + queries : n;   // keys 0 .. last_key - 1 are seen by some row
        for (int first_key = 0; first_key < last_key; first_key += tile) {
            int keys = min_int(tile, n - first_key);
            copy_tile(tiles->k, k, first_key, keys, d);
            copy_tile(tiles->v, v, first_key, keys, d);
            fold_key_tile(tiles, first_query, queries, first_key, keys, d, causal, scale);
        }
        for (int r = 0; r < queries; r++)
            for (int c = 0; c < d; c++) out[(size_t)(first_query + r) * d + c] = tiles->out[r][c] / tiles->running_sum[r];
    }
}
