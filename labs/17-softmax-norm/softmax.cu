/* softmax.cu — Day 17: softmax over the rows of a matrix, from three passes down to one.
 *
 * softmax(x)_i = exp(x_i) / sum_j exp(x_j). Every version computes it one row per block of
 * ROW_THREADS threads; thread t handles elements t, t + ROW_THREADS, t + 2 ROW_THREADS, ... of
 * its row, so a warp's 32 lanes always read 32 neighbouring floats (day 09).
 *
 *   version 0  naive: exp(x_i) / sum exp(x_j) as written. exp(89) is already infinite in
 *              float: rows of large logits give inf / inf = NaN.                          (given)
 *   version 1  three passes over the row: its max, the sum of exp(x - max), the outputs.  (TODO)
 *   version 2  two passes: the max and the sum together, online, then the outputs.        (TODO)
 *   version 3  one pass: version 2, with the row kept on chip for the outputs.            (TODO)
 *
 * The online state: softmax_merge (TODO) combines two running_softmax pairs (lab.h says what a
 * pair means). The reductions: warp_max and warp_sum (given) combine the 32 lanes of a warp with
 * shuffles, block_max and block_sum (given) the warps of a block through shared memory, and
 * every thread gets the answer. warp_merge and block_merge (TODO) do the same for pairs.
 * Your prediction: softmax_predicted_bytes_per_row (TODO), the bytes each version moves, which
 * the checks hold against the simulator's count.
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
    // TODO: the state of a's elements and b's together (lab.h says what a state is).
    //       Contract: either or both may be the empty state {-INFINITY, 0}; two empty states
    //       give the empty state back, never NaN; maxima anywhere in float's range.
    //       Idea: bring both sums to the same reference point, the larger max, so that no
    //       factor exceeds 1.
    return a;
}

extern "C" running_softmax softmax_merge_on_host(running_softmax a, running_softmax b) { return softmax_merge(a, b); }

__device__ running_softmax warp_merge(running_softmax state)
{
    // TODO: every lane returns the state of all 32 lanes' elements.
    //       Contract: all 32 lanes call it (its shuffles name the full warp), a lane with
    //       nothing passing the empty state.
    //       Idea: warp_sum's butterfly, for a pair instead of a float.
    return state;
}

// partial: 32 running_softmax of shared memory. Every thread returns the block's state.
__device__ running_softmax block_merge(running_softmax state, running_softmax *partial)
{
    // TODO: every thread returns the state of the whole block's elements.
    //       Contract: every thread of the block calls it; partial may be used again as soon
    //       as it returns.
    //       Idea: block_sum's two levels (warps, then the warps' results), for pairs.
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
    // TODO: block r writes the softmax of row r of x to row r of y, reading the row three times
    //       from global memory.
    //       Contract: the Rules at the top (any n >= 1, -INFINITY entries, all-masked rows
    //       out as zeros); every thread takes part in every reduction, with or without elements.
    //       Idea: the softmax ignores a shift; subtract the row's max and no exp exceeds 1.
    (void)x, (void)y, (void)n;
}

// Version 2: the max and the sum in one pass (online), then the write pass.
__global__ void softmax_two_pass(const float *x, float *y, int n)
{
    // TODO: version 1's result, reading the row twice: the max and the sum in the same pass.
    //       Contract: as version 1.
    //       Idea: keep a running (max, sum) state; one element is a state of its own.
    (void)x, (void)y, (void)n;
}

// Version 3: one read of the row: version 2, with the row kept in shared memory.
__global__ void softmax_one_pass(const float *x, float *y, int n)
{
    // TODO: version 2's result, reading the row from global memory once.
    //       Contract: as version 1; the launch gives the block n floats of dynamic shared
    //       memory (`extern __shared__ float kept[];`), n <= ONE_PASS_MAX_LENGTH.
    //       Idea: what the first pass reads, keep on chip for the output pass.
    (void)x, (void)y, (void)n;
}

// ----------------------------------------------------------------------------
// Your prediction, before the simulator counts: prediction/bytes_per_row holds it against the
// count of each version, at several lengths.

// The global bytes, loaded plus stored, that softmax version `version` (0 .. 3, as written above)
// moves for one row of n floats, n a multiple of 8: every row then starts on a 32-byte sector and
// no sector holds floats of two rows. -1 for a version that does not exist.
extern "C" double softmax_predicted_bytes_per_row(int version, int n)
{
    // TODO: your prediction of what the simulator will count for `version`.
    //       Contract: versions 0 .. 3 as the header describes them, n a multiple of 8; -1 for any
    //       other version.
    //       Idea: the memory moves whole 32-byte sectors; with these rows no sector is shared, so
    //       count how many times the row crosses between the SM and global memory.
    (void)version, (void)n;
    return 0;
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
