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
    // TODO: where element (row, column) lies, counted in elements from the matrix's start.
    //       Contract: rows of `columns` elements, one after another; right for every row, column
    //       and columns an int can hold, including products past 2^31 (n x n scores pass it at
    //       n = 46 341), which indices.offsets_past_2_to_the_31 asks for on the host.
    //       Idea: the arithmetic happens in the type of its operands, not of the result.
    (void)row, (void)column, (void)columns;
    return 0;
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
    // TODO: thread (x, y) of block (bx, by) writes the score of query i against key j (the
    //       mapping above), into scores row i, column j.
    //       Contract: a thread outside the n x n matrix does nothing (n need not be a multiple of
    //       16); with causal set, a key after its query (j > i) is masked, -INFINITY; every float
    //       found through row_major_offset.
    //       Idea: a score is a dot product of two rows of d floats, scaled. A masked score is
    //       known without one.
    (void)q, (void)k, (void)scores, (void)n, (void)d, (void)scale, (void)causal;
}

// Kernel 2: block r turns row r of scores into its softmax, in place.
__global__ void softmax_rows(float *scores, int n)
{
    // TODO: block r turns row r of scores into its softmax, in place.
    //       Contract: rows of any n >= 1, -INFINITY entries out as exactly 0 (a row that is all
    //       -INFINITY out as zeros); every thread calls every reduction, whether it holds entries
    //       or not; a thread rewrites only its own entries, after the reductions.
    //       Idea: day 17's stable softmax: no exp of anything above 0.
    (void)scores, (void)n;
}

// Kernel 3: thread (threadIdx.x, threadIdx.y) computes out[i][c], i = blockIdx.y * SCORE_TILE +
// threadIdx.y, c = blockIdx.x * SCORE_TILE + threadIdx.x.
__global__ void attention_output(const float *probabilities, const float *v, float *out, int n, int d)
{
    // TODO: thread (x, y) writes out[i][c] (the mapping above): query i's weighted average of
    //       column c of V.
    //       Contract: a thread outside the n x d output does nothing; the weights are rows of
    //       probabilities, already 0 where masked.
    //       Idea: out = P V, one dot product of length n per output.
    (void)probabilities, (void)v, (void)out, (void)n, (void)d;
}

// ----------------------------------------------------------------------------
// Your prediction, before the simulator counts: prediction/bytes_per_kernel holds it against
// the count of each kernel, at several shapes.

// The global bytes, loaded plus stored, that kernel `kernel` (1, 2 or 3, as numbered above) moves
// for one head without the causal mask, n and d multiples of 16: every tile is whole, and every
// row of Q, K, V, the scores and out starts on a 32-byte sector. -1 for any other kernel.
extern "C" double attention_predicted_kernel_bytes(int kernel, int n, int d)
{
    // TODO: your prediction of what the simulator will count for kernel 1, 2 or 3.
    //       Contract: no causal mask; n and d multiples of 16; -1 for any other kernel number.
    //       Idea: the memory moves 32-byte sectors, and the lanes of a warp that read the same
    //       sector share it. Follow one warp (two rows of a 16 x 16 block) through one step of
    //       its loop, count its sectors, then count warps and steps.
    (void)kernel, (void)n, (void)d;
    return 0;
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
