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
    // TODO: compute this thread's global index from blockIdx.x, blockDim.x and threadIdx.x;
    //       if it is inside the array (less than n), write c at that index.
}

__global__ void saxpy(float alpha, const float *x, float *y, int n)
{
    // TODO: the same indexing; y at that index becomes alpha * x + y.
}

extern "C" void launch_vector_add(const float *a, const float *b, float *c, int n)
{
    // TODO: pick the threads per block (a multiple of 32; 256 is a good start), compute
    //       how many blocks cover n elements, and launch:
    //           vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
    (void)a, (void)b, (void)c, (void)n;
}

extern "C" void launch_saxpy(float alpha, const float *x, float *y, int n)
{
    // TODO: as launch_vector_add, for saxpy.
    (void)alpha, (void)x, (void)y, (void)n;
}
