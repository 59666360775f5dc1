/* flash.cu — Day 22: FlashAttention's forward pass, one kernel, the scores never in global memory.
 *
 *   out = softmax(Q K^T * scale) V,   scale = 1 / sqrt(d),   Q, K, V, out: [n][d] row-major, one head
 *
 * Day 18 wrote the n x n scores to global memory and read them back twice. Here one block owns a
 * tile of TILE queries (one thread per query row) and walks along the keys a tile at a time:
 *
 *   load the block's Q tile into shared memory (given: load_tile), __syncthreads()
 *   for each tile of TILE keys it may see:
 *     load that tile of K and of V into shared memory, __syncthreads()
 *     each thread, for its query row i:
 *       the TILE scores s_j = scale * (q_i . k_j) into registers (-inf, or skipped, if masked)
 *       day 17's online softmax, carried into the output:
 *         new_max    = max(running_max, the tile's max)
 *         rescale    = exp(running_max - new_max)          (0 the first time: running_max = -inf)
 *         running_sum = running_sum * rescale + sum_j exp(s_j - new_max)
 *         acc[c]      = acc[c] * rescale + sum_j exp(s_j - new_max) * v_j[c]
 *         running_max = new_max
 *     __syncthreads(): nobody loads the next tile while a thread still reads this one
 *   out_i = acc / running_sum, staged in the Q tile's row i and stored by all threads together
 *   (given: store_tile), so that the stores are coalesced.
 *
 * Each tile of K and V crosses from global memory once per query tile, not once per score: the
 * global bytes are 4nd (Q) + 4nd (out) + 8nd x ceil(n / TILE) (K and V, once per query tile).
 *
 * Rules: TILE is 8, 16 or 32 (given: the launcher refuses others); any n >= 1, which need not be a
 * multiple of TILE: the last tile of queries and of keys is partial (a thread with no query row
 * still loads and waits at every barrier; a key past n is not a key); 1 <= d <= MAX_HEAD_DIM.
 * With causal set, query i sees keys j <= i only: the key tiles right of the diagonal are not
 * even loaded, and in the diagonal tile the keys past i are left out. Use expf (not __expf).
 *
 * Check:  make check DAY=22        Stuck?  make hint DAY=22
 */
#include "lab.h"

#include <math.h>

// ----------------------------------------------------------------------------
// Moving tiles (given): all TILE threads of the block together, neighbouring threads on
// neighbouring floats, so every request is coalesced (day 09). Rows first .. first + rows - 1
// of a [n][d] matrix are rows * d consecutive floats.

template <int TILE>
__device__ void load_tile(float (*tile)[MAX_HEAD_DIM], const float *matrix, int first, int rows, int d)
{
    const float *from = matrix + (size_t)first * d;
    for (int e = threadIdx.x; e < rows * d; e += TILE) tile[e / d][e % d] = from[e];
}

template <int TILE>
__device__ void store_tile(float *matrix, float (*tile)[MAX_HEAD_DIM], int first, int rows, int d)
{
    float *to = matrix + (size_t)first * d;
    for (int e = threadIdx.x; e < rows * d; e += TILE) to[e] = tile[e / d][e % d];
}

// ----------------------------------------------------------------------------
// The kernel: block b owns queries b * TILE .. b * TILE + TILE - 1; thread r the query
// i = b * TILE + r (none when i >= n).

template <int TILE>
__global__ void flash_attention_kernel(const float *q, const float *k, const float *v, float *out, int n, int d,
                                       float scale, int causal)
{
    // TODO: three __shared__ float tiles of [TILE][MAX_HEAD_DIM]: q_tile, k_tile, v_tile.
    // TODO: first_query = blockIdx.x * TILE; queries = how many of the tile's rows are < n (min);
    //       this thread's row r = threadIdx.x and query i = first_query + r.
    //       load_tile<TILE>(q_tile, q, first_query, queries, d), then __syncthreads().
    // TODO: running_max = -INFINITY, running_sum = 0, and a float acc[MAX_HEAD_DIM] with its first d zeroed.
    // TODO: for each key tile t it may see (all ceil(n / TILE); causal: only 0 .. blockIdx.x):
    //         first_key = t * TILE, keys = min(TILE, n - first_key);
    //         load_tile the K and the V tile; __syncthreads();
    //         if r < queries: the keys it may see are the first `visible` of the tile (all `keys`;
    //           causal: those with first_key + j <= i). For each: the score scale * (q_tile[r] . k_tile[j])
    //           into a float score[TILE], and the tile's max. Then the online softmax of the top of the
    //           file: new_max, rescale = expf(running_max - new_max), running_sum and every acc[c] times
    //           rescale, then each visible j adds p = expf(score[j] - new_max) to running_sum and
    //           p * v_tile[j][c] to acc[c]; running_max = new_max.
    //         __syncthreads() (before anyone loads the next tile over this one).
    // TODO: if r < queries, q_tile[r][c] = acc[c] / running_sum for c < d; __syncthreads();
    //       store_tile<TILE>(out, q_tile, first_query, queries, d).
    (void)q, (void)k, (void)v, (void)out, (void)n, (void)d, (void)scale, (void)causal;
}

// ----------------------------------------------------------------------------
// The launches (given): one block of TILE threads for each tile of TILE queries.

template <int TILE>
static cudaError_t launch_flash(const float *q, const float *k, const float *v, float *out, int n, int d, int causal)
{
    unsigned query_tiles = (unsigned)((n + TILE - 1) / TILE);
    flash_attention_kernel<TILE><<<query_tiles, TILE>>>(q, k, v, out, n, d, 1.0f / sqrtf((float)d), causal);
    return cudaGetLastError();
}

extern "C" cudaError_t flash_attention_forward(const float *q, const float *k, const float *v, float *out, int n,
                                               int d, int causal, int tile)
{
    if (n < 1 || d < 1 || d > MAX_HEAD_DIM) return cudaErrorInvalidValue;
    switch (tile) {
    case 8: return launch_flash<8>(q, k, v, out, n, d, causal);
    case 16: return launch_flash<16>(q, k, v, out, n, d, causal);
    case 32: return launch_flash<32>(q, k, v, out, n, d, causal);
    default: return cudaErrorInvalidValue;
    }
}
