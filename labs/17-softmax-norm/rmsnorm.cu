/* rmsnorm.cu — Day 17: RMSNorm, the normalisation of every Llama layer.
 *
 *   y_i = x_i / sqrt(mean(x^2) + eps) * weight_i,   mean(x^2) = (1/n) sum_j x_j^2
 *
 * Softmax-shaped: one reduction per row (block_sum, given), then an elementwise pass. eps keeps
 * a row of zeros finite: 0 / sqrt(0 + eps) = 0, where 0 / sqrt(0) would be NaN. Models choose
 * it (1e-5 in Llama 2, 1e-6 in others): it is an argument, and the checks pass several.
 *
 * Rules: one block per row (the launch is given); rows of any length n >= 1; the sum of squares
 * in float is fine for these rows (|x| up to 1e4, n up to a few thousand: far from float's 3e38).
 * LayerNorm, the older sibling, subtracts the mean first; the chapter's exercises build it.
 *
 * Check:  make check DAY=17        Stuck?  make hint DAY=17
 */
#include "lab.h"

#include <math.h>

#define FULL_WARP 0xffffffffu

// The same reduction softmax.cu uses (given): every thread of the block gets the sum.
static __device__ float warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(FULL_WARP, value, offset);
    return value;
}

static __device__ float block_sum(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = warp_sum(value);
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = warp_sum(lane < warps ? partial[lane] : 0.0f);
    __syncthreads();
    return value;
}

// Block r normalises row r.
__global__ void rmsnorm(const float *x, const float *weight, float *y, int n, float eps)
{
    // TODO: block r writes row r of x, normalised and weighted, to row r of y.
    //       Contract: any n >= 1; the eps given, whatever it is; a row of zeros comes out zeros.
    //       Idea: one reduction gives every thread the row's mean square; one scale serves the row.
    (void)x, (void)weight, (void)y, (void)n, (void)eps;
}

extern "C" cudaError_t rmsnorm_rows(const float *x, const float *weight, float *y, int rows, int n, float eps)
{
    if (n < 1 || rows < 1) return cudaErrorInvalidValue;
    rmsnorm<<<rows, ROW_THREADS>>>(x, weight, y, n, eps);
    return cudaGetLastError();
}
