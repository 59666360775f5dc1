/* attention.cu — Day 18: scaled dot-product attention, the naive way: three kernels, with the
 * N x N score matrix in global memory between them.
 *
 *   out = softmax(Q K^T * scale) V,   scale = 1 / sqrt(d),   Q, K, V, out: [n][d] row-major, one head
 *
 *   kernel 1  attention_scores: one thread per score (query i, key j), in 16 x 16 blocks; with
 *             the causal mask, query i may not look at later keys. It writes all n x n scores
 *             to global memory.                                                          (TODO)
 *   kernel 2  softmax_rows: each row of scores becomes its softmax, in place, one block of
 *             ROW_THREADS threads per row (day 17's stable softmax).                      (TODO)
 *   kernel 3  attention_output: one thread per output (query i, column c), in 16 x 16 blocks,
 *             the weighted sum of the rows of V. It reads the n x n matrix back.         (TODO)
 *
 * row_major_offset (TODO) is where element (row, column) of a row-major matrix lies: every
 * kernel finds its floats through it. The reductions block_max and block_sum (given) are day
 * 17's: every thread of the block calls them and every thread gets the block's answer. The
 * launches (given) are at the bottom. Your prediction: attention_predicted_kernel_bytes (TODO),
 * what each kernel moves, which the checks hold against the simulator's count.
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
// Where an element lies.

// The offset, in elements, of element (row, column) of a row-major matrix with `columns` columns.
__host__ __device__ size_t row_major_offset(int row, int column, int columns)
{
    return (size_t)row * (size_t)columns + (size_t)column;   // widened before the product: n * n passes 2^31
}

extern "C" size_t row_major_offset_on_host(int row, int column, int columns)
{
    return row_major_offset(row, column, columns);
}

// ----------------------------------------------------------------------------
// The three kernels.

// Kernel 1: thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) computes the
// score of query i = blockIdx.y * SCORE_TILE + threadIdx.y against key j = blockIdx.x *
// SCORE_TILE + threadIdx.x, so that neighbouring lanes write neighbouring scores of a row.
__global__ void attention_scores(const float *q, const float *k, float *scores, int n, int d, float scale,
                                 int causal)
{
    int i = blockIdx.y * SCORE_TILE + threadIdx.y, j = blockIdx.x * SCORE_TILE + threadIdx.x;
    if (i >= n || j >= n) return;
    float score = -INFINITY;
    if (!causal || j <= i) {
        float dot = 0;
        for (int c = 0; c < d; c++) dot += q[row_major_offset(i, c, d)] * k[row_major_offset(j, c, d)];
        score = dot * scale;
    }
    scores[row_major_offset(i, j, n)] = score;
}

// Kernel 2: block r turns row r of scores into its softmax, in place.
__global__ void softmax_rows(float *scores, int n)
{
    __shared__ float partial[32];
    float *row = scores + row_major_offset(blockIdx.x, 0, n);
    float max = -INFINITY;
    for (int j = threadIdx.x; j < n; j += blockDim.x) max = fmaxf(max, row[j]);
    max = block_max(max, partial);
    float sum = 0;
    if (max != -INFINITY)
        for (int j = threadIdx.x; j < n; j += blockDim.x) sum += expf(row[j] - max);
    sum = block_sum(sum, partial);
    for (int j = threadIdx.x; j < n; j += blockDim.x) row[j] = sum > 0 ? expf(row[j] - max) / sum : 0.0f;
}

// Kernel 3: thread (threadIdx.x, threadIdx.y) computes out[i][c], i = blockIdx.y * SCORE_TILE +
// threadIdx.y, c = blockIdx.x * SCORE_TILE + threadIdx.x.
__global__ void attention_output(const float *probabilities, const float *v, float *out, int n, int d)
{
    int i = blockIdx.y * SCORE_TILE + threadIdx.y, c = blockIdx.x * SCORE_TILE + threadIdx.x;
    if (i >= n || c >= d) return;
    float sum = 0;
    for (int j = 0; j < n; j++) sum += probabilities[row_major_offset(i, j, n)] * v[row_major_offset(j, c, d)];
    out[row_major_offset(i, c, d)] = sum;
}

// ----------------------------------------------------------------------------
// Your prediction, before the simulator counts: prediction/bytes_per_kernel holds it against
// the count of each kernel, at several shapes.

// The global bytes, loaded plus stored, that kernel `kernel` (1, 2 or 3, as numbered above) moves
// for one head without the causal mask, n and d multiples of 16: every tile is whole, and every
// row of Q, K, V, the scores and out starts on a 32-byte sector. -1 for any other kernel.
extern "C" double attention_predicted_kernel_bytes(int kernel, int n, int d)
{
    double scores = (double)n * n;
    switch (kernel) {
    case 1: return 18.0 * scores * d + 4 * scores;   // a warp per step: 2 sectors of Q, 16 of K; one store per score
    case 2: return 16 * scores;                      // three reads of each row and one write
    case 3: return 4.0 * scores * d + 4.0 * n * d;   // a warp per key: 2 sectors of P, 2 of V; out once
    default: return -1;
    }
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
