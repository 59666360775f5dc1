/* kernels.cuh — a kernel in a header, as NVIDIA's samples keep theirs: each block sums the
 * squares of its part of x in shared memory and writes one partial sum. */
#pragma once
#include "common.h"

#define SUM_BLOCK 256

__device__ inline float square(float v) { return v * v; }

__global__ void block_sums_of_squares(const float *x, float *sums, int n)
{
    __shared__ float partial[SUM_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? square(x[i]) : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
