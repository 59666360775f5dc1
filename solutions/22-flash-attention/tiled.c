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
    double row = 4.0 * d;   // one row of q, k, v or out
    int query_tiles = (n + tile - 1) / tile;
    double key_rows = 0;    // rows of k (and as many of v) loaded, over all query tiles
    for (int b = 0; b < query_tiles; b++)
        key_rows += causal ? min_int((b + 1) * tile, n) : n;   // causal: key tiles 0 .. b, the last maybe partial
    return 2 * row * n + 2 * row * key_rows;                    // q and out once; k and v per visit
}

// ---------------------------------------------------------------------------------
// The CPU version

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
