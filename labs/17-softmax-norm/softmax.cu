/* softmax.cu — Day 17: softmax over the rows of a matrix, from three passes down to one.
 *
 * softmax(x)_i = exp(x_i) / sum_j exp(x_j). Every version computes it one row per block of
 * ROW_THREADS threads; thread t handles elements t, t + ROW_THREADS, t + 2 ROW_THREADS, ... of
 * its row, so a warp's 32 lanes always read 32 neighbouring floats (day 09).
 *
 *   version 0  naive: exp(x_i) / sum exp(x_j) as written. Two reads of the row, and exp(89)
 *              is already infinite in float: rows of large logits give inf / inf = NaN.    (given)
 *   version 1  three passes: the row's max m, then sum exp(x_j - m), then exp(x_i - m) / sum.
 *              Every exp is at most exp(0) = 1: nothing overflows. Three reads, one write.   (TODO)
 *   version 2  two passes: the max and the sum together, online — a running max and a running
 *              sum, rescaled whenever the max grows — then the write pass. Two reads.        (TODO)
 *   version 3  one pass: version 2, keeping the row in shared memory as it is read, so the
 *              write pass reads it from there. One read, one write: the least traffic there
 *              can be.                                                                       (TODO)
 *
 * The online state: softmax_merge (TODO) combines two running_softmax pairs (lab.h says what a
 * pair means). The reductions: warp_max and warp_sum (given) combine the 32 lanes of a warp with
 * shuffles, block_max and block_sum (given) the warps of a block through shared memory, and
 * every thread gets the answer. warp_merge and block_merge (TODO) do the same for pairs.
 *
 * Rules: one block per row, ROW_THREADS threads (the launches at the bottom are given). Rows of
 * any length n >= 1, which need not be a multiple of 32, and may be shorter than the block: a
 * thread with no element starts from the empty state. Entries may be -INFINITY (masked): they
 * contribute nothing and come out 0; a row that is all -INFINITY comes out all zeros, never NaN.
 * No exp of anything above 0 in versions 1-3. Use expf (not __expf: its error grows with |x|).
 *
 * Check:  make check DAY=17        Stuck?  make hint DAY=17
 */
#include "lab.h"

#include <math.h>

#define FULL_WARP 0xffffffffu

// ----------------------------------------------------------------------------
// Reductions over a warp and over a block (given). Each block_* call needs its own barrier
// interval for `partial`, so it ends with a __syncthreads() before anyone may write it again.

__device__ float warp_max(float value)
{
    for (int offset = 16; offset > 0; offset /= 2)   // butterfly: after 5 steps every lane has the max
        value = fmaxf(value, __shfl_xor_sync(FULL_WARP, value, offset));
    return value;
}

__device__ float warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(FULL_WARP, value, offset);
    return value;
}

// partial: 32 floats of shared memory. Every thread of the block returns the block's max.
__device__ float block_max(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = warp_max(value);
    if (lane == 0) partial[warp] = value;   // one value per warp
    __syncthreads();
    value = warp_max(lane < warps ? partial[lane] : -INFINITY);   // every warp reduces the partials
    __syncthreads();                        // all have read partial[]: it may be reused
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
// The online softmax's state, and its merge.

__host__ __device__ running_softmax softmax_merge(running_softmax a, running_softmax b)
{
    // TODO: the state of a and b together. The new max is the larger of the two (fmaxf); each
    //       sum is rescaled to it, a.sum * expf(a.max - max) + b.sum * expf(b.max - max), which
    //       multiplies by at most exp(0) = 1. When the new max is -INFINITY both states are empty
    //       (no elements, or only masked ones): return a as it is, because -inf - (-inf) is NaN.
    return a;
}

extern "C" running_softmax softmax_merge_on_host(running_softmax a, running_softmax b) { return softmax_merge(a, b); }

__device__ running_softmax warp_merge(running_softmax state)
{
    // TODO: warp_sum's butterfly, for pairs: for offset = 16, 8, 4, 2, 1, take the max and the sum
    //       of lane (lane ^ offset) with two __shfl_xor_sync calls, and merge them into state.
    //       After five steps every lane holds the warp's state.
    return state;
}

// partial: 32 running_softmax of shared memory. Every thread returns the block's state.
__device__ running_softmax block_merge(running_softmax state, running_softmax *partial)
{
    // TODO: block_sum's shape, for pairs: warp_merge; lane 0 of each warp stores its warp's state
    //       in partial[warp]; __syncthreads(); every warp merges partial[lane] for lane < warps
    //       (the empty state {-INFINITY, 0} for the other lanes); __syncthreads() again before
    //       returning, so that partial may be reused.
    (void)partial;
    return state;
}

// The output of one element: 0 for a row with nothing in it (all masked), where max is -inf.
__device__ float softmax_output(float x, running_softmax row)
{
    return row.sum > 0 ? expf(x - row.max) / row.sum : 0.0f;
}

// ----------------------------------------------------------------------------
// The kernels: block r computes row r.

// Version 0 (given): without the max. Correct on paper, NaN in float for logits above ~88.
__global__ void softmax_naive(const float *x, float *y, int n)
{
    __shared__ float partial[32];
    const float *row = x + (size_t)blockIdx.x * n;
    float sum = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) sum += expf(row[i]);
    sum = block_sum(sum, partial);
    for (int i = threadIdx.x; i < n; i += blockDim.x) y[(size_t)blockIdx.x * n + i] = expf(row[i]) / sum;
}

// Version 1: three passes over the row in global memory.
__global__ void softmax_three_pass(const float *x, float *y, int n)
{
    // TODO: block r works on row r, which starts at x + r * n (and its output at y + r * n).
    //       Pass 1: each thread takes the max of its elements (threadIdx.x, + blockDim.x, ...,
    //       below n), starting from -INFINITY; block_max gives the row's max to every thread.
    //       Pass 2: the sum of expf(x_i - max) the same way, and block_sum. (A row of -INFINITY
    //       has max -INFINITY: skip its exps, which would be NaN, and leave the sum 0.)
    //       Pass 3: each output through softmax_output(x_i, {max, sum}).
    //       Both reductions need a `__shared__ float partial[32];`.
}

// Version 2: the max and the sum in one pass (online), then the write pass.
__global__ void softmax_two_pass(const float *x, float *y, int n)
{
    // TODO: pass 1 is online: each thread starts from the empty state {-INFINITY, 0} and merges
    //       each of its elements in as the state {x_i, 1} (one element: its own max, exp(0) = 1).
    //       block_merge (with a `__shared__ running_softmax partial[32];`) gives every thread the
    //       row's state. Pass 2: each output through softmax_output(x_i, row's state).
}

// Version 3: one read of the row: version 2, with the row kept in shared memory.
__global__ void softmax_one_pass(const float *x, float *y, int n)
{
    // TODO: version 2, with the row kept on chip: declare `extern __shared__ float kept[];` (the
    //       launch below gives it n floats), store each element in kept[i] as pass 1 reads it, and
    //       let the output pass read kept[i] instead of x. Each thread reads back only the slots it
    //       wrote itself, so kept needs no barrier of its own.
}

// ----------------------------------------------------------------------------
// The launches (given): one block of ROW_THREADS threads per row.

extern "C" cudaError_t softmax_rows(int version, const float *x, float *y, int rows, int n)
{
    if (n < 1 || rows < 1) return cudaErrorInvalidValue;
    switch (version) {
    case SOFTMAX_NAIVE: softmax_naive<<<rows, ROW_THREADS>>>(x, y, n); break;
    case SOFTMAX_THREE_PASS: softmax_three_pass<<<rows, ROW_THREADS>>>(x, y, n); break;
    case SOFTMAX_TWO_PASS: softmax_two_pass<<<rows, ROW_THREADS>>>(x, y, n); break;
    case SOFTMAX_ONE_PASS:
        if (n > ONE_PASS_MAX_LENGTH) return cudaErrorInvalidValue;
        softmax_one_pass<<<rows, ROW_THREADS, n * sizeof(float)>>>(x, y, n);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
