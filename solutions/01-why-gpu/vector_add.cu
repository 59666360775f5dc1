/* vector_add.cu — Day 01: your first two CUDA kernels.
 *
 * What you write today:
 *   1. vector_add:  c[i] = a[i] + b[i]          for every i < n
 *   2. saxpy:       y[i] = alpha * x[i] + y[i]  for every i < n   ("single-precision a·x plus y")
 *   3. launch_vector_add and launch_saxpy: choose the threads per block and launch
 *      enough blocks that every element gets a thread.
 *
 * Rules: one element per CUDA thread, no loop over elements inside a kernel (day 02's
 * grid-stride loop), no block without an element. The pointers are device pointers.
 *
 * Check:  make check DAY=01        Stuck?  make hint DAY=01
 */
#include "lab.h"

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // this thread's element
    if (i < n) c[i] = a[i] + b[i];                   // the last block may hang over the end
}

__global__ void saxpy(float alpha, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}

static const int threads_per_block = 256;   // 8 warps: a multiple of 32, so no warp is half empty

static int blocks_for(int n) { return (n + threads_per_block - 1) / threads_per_block; }

extern "C" void launch_vector_add(const float *a, const float *b, float *c, int n)
{
    vector_add<<<blocks_for(n), threads_per_block>>>(a, b, c, n);
}

extern "C" void launch_saxpy(float alpha, const float *x, float *y, int n)
{
    saxpy<<<blocks_for(n), threads_per_block>>>(alpha, x, y, n);
}
