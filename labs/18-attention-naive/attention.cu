/* attention.cu — Day 18: scaled dot-product attention, the naive way: three kernels, with the
 * N x N score matrix in global memory between them.
 *
 *   out = softmax(Q K^T * scale) V,   scale = 1 / sqrt(d),   Q, K, V, out: [n][d] row-major, one head
 *
 *   kernel 1  attention_scores: scores[i][j] = scale * (Q[i] . K[j]), one thread per (i, j), in
 *             16 x 16 blocks; with the causal mask, -INFINITY wherever j > i (query i may not look
 *             at later keys). It writes all n x n scores to global memory.                  (TODO)
 *   kernel 2  softmax_rows: each row of scores becomes its softmax, in place, one block of
 *             ROW_THREADS threads per row, three passes (day 17's version 1): the row's max, the
 *             sum of exp(s - max), then exp(s - max) / sum. Masked entries come out 0.       (TODO)
 *   kernel 3  attention_output: out[i][c] = sum over j of P[i][j] * V[j][c], one thread per
 *             (i, c), in 16 x 16 blocks. It reads the whole n x n matrix back.               (TODO)
 *
 * The reductions block_max and block_sum (given) are day 17's: every thread of the block
 * calls them and every thread gets the block's answer. The launches (given) are at the bottom.
 *
 * Rules: any n >= 1 and d >= 1, which need not be multiples of 16: a thread outside the matrix
 * does nothing (but a softmax thread with no element still takes part in the reductions). The
 * mask goes in before the softmax, as -INFINITY, so that each row's weights over the keys it
 * may see sum to 1. Use expf (not __expf).
 *
 * Check:  make check DAY=18        Stuck?  make hint DAY=18
 */
#include "lab.h"

#include <math.h>

#define FULL_WARP 0xffffffffu

// ----------------------------------------------------------------------------
// Reductions over a block (given): day 17's. Each call ends with a __syncthreads(), so that
// `partial` (32 floats of shared memory) may be used again at once.

__device__ float warp_max(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value = fmaxf(value, __shfl_xor_sync(FULL_WARP, value, offset));
    return value;
}

__device__ float warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(FULL_WARP, value, offset);
    return value;
}

__device__ float block_max(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = warp_max(value);
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = warp_max(lane < warps ? partial[lane] : -INFINITY);
    __syncthreads();
    return value;
}

__device__ float block_sum(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = warp_sum(value);
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = warp_sum(lane < warps ? partial[lane] : 0.0f);
    __syncthreads();
    return value;
}

// ----------------------------------------------------------------------------
// The three kernels.

// Kernel 1: thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) computes the
// score of query i = blockIdx.y * SCORE_TILE + threadIdx.y against key j = blockIdx.x *
// SCORE_TILE + threadIdx.x, so that neighbouring lanes write neighbouring scores of a row.
__global__ void attention_scores(const float *q, const float *k, float *scores, int n, int d, float scale,
                                 int causal)
{
    // TODO: i and j as above; a thread with i >= n or j >= n returns (n need not be a multiple of 16).
    //       The score is the dot product of row i of q and row j of k (both d floats, row r at r * d),
    //       times scale; with causal set and j > i it is -INFINITY instead (no dot product needed).
    //       Store it in scores[i * n + j] (use size_t for the index: n * n passes 2^31 at n = 46341).
    (void)q, (void)k, (void)scores, (void)n, (void)d, (void)scale, (void)causal;
}

// Kernel 2: block r turns row r of scores into its softmax, in place.
__global__ void softmax_rows(float *scores, int n)
{
    // TODO: day 17's version 1 on the row at scores + blockIdx.x * n, with a
    //       `__shared__ float partial[32];` for the reductions. Thread t handles entries t, t + blockDim.x, ...
    //       Pass 1: the max of its entries, from -INFINITY; block_max. Pass 2: the sum of expf(s - max)
    //       (none when max is -INFINITY: -inf - -inf is NaN); block_sum. Pass 3: each entry becomes
    //       expf(s - max) / sum (0 when sum is 0). Every thread calls both reductions, even one with no entry.
    (void)scores, (void)n;
}

// Kernel 3: thread (threadIdx.x, threadIdx.y) computes out[i][c], i = blockIdx.y * SCORE_TILE +
// threadIdx.y, c = blockIdx.x * SCORE_TILE + threadIdx.x.
__global__ void attention_output(const float *probabilities, const float *v, float *out, int n, int d)
{
    // TODO: i and c as above; return when i >= n or c >= d. out[i * d + c] is the sum over every key j
    //       (0 .. n-1) of probabilities[i * n + j] * v[j * d + c]. A masked weight is already 0: the
    //       causal mask needs nothing here.
    (void)probabilities, (void)v, (void)out, (void)n, (void)d;
}

// ----------------------------------------------------------------------------
// The launches (given).

static unsigned tiles(int count) { return (unsigned)((count + SCORE_TILE - 1) / SCORE_TILE); }

extern "C" cudaError_t attention_forward(const float *q, const float *k, const float *v, float *scores, float *out,
                                         int n, int d, int causal)
{
    if (n < 1 || d < 1) return cudaErrorInvalidValue;
    float scale = 1.0f / sqrtf((float)d);
    dim3 tile(SCORE_TILE, SCORE_TILE);
    attention_scores<<<dim3(tiles(n), tiles(n)), tile>>>(q, k, scores, n, d, scale, causal);
    softmax_rows<<<n, ROW_THREADS>>>(scores, n);
    attention_output<<<dim3(tiles(d), tiles(n)), tile>>>(scores, v, out, n, d);
    return cudaGetLastError();
}
