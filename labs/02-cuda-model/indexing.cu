/* indexing.cu — Day 02: grids, blocks and threads in two dimensions, the grid-stride
 * loop, and checking every CUDA call.
 *
 * What you write today:
 *   1. cuda_check: report a failed CUDA call (where, which call, which error) and stop.
 *      The CUDA_CHECK macro below wraps a call with it; use it after every launch.
 *   2. blocks_needed: how many blocks of T threads cover N elements (round up).
 *   3. matrix_add: C = A + B for row-major rows x cols matrices, one thread per element,
 *      with 2-D blocks: x runs along a row (columns), y down the columns (rows).
 *   4. block_owner_map: every element records which block covered it (the plot shows it).
 *   5. scale_grid_stride: x[i] *= alpha for all n elements with however many threads
 *      the launch gives you — each thread strides through the array.
 *   6. The launchers: build the grid from the block shape you are given, launch, check.
 *   7. matrix_add_from_host: the whole cycle every CUDA program repeats, with nothing
 *      hidden by the driver: device memory, copies in, a timed launch, the copy back, frees.
 *
 * Rules: every element written exactly once (an element written twice is caught);
 * nothing written outside the arrays; no launch without CUDA_CHECK(cudaGetLastError()).
 *
 * Check:  make check DAY=02        Stuck?  make hint DAY=02
 */
#include "lab.h"

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

void cuda_check(cudaError_t error, const char *call, const char *file, int line)
{
    // TODO: if error is not cudaSuccess, print to stderr
    //           FILE:LINE: CALL failed: NAME (STRING)
    //       using cudaGetErrorName(error) and cudaGetErrorString(error), then exit(EXIT_FAILURE).
    (void)error, (void)call, (void)file, (void)line;
}

int blocks_needed(int elements, int threads_per_block)
{
    // TODO: the number of blocks of threads_per_block threads that cover `elements`
    //       elements: rounded up, and correct for every int `elements` (even 2^31 - 1).
    (void)elements, (void)threads_per_block;
    return 0;
}

__global__ void matrix_add(const float *a, const float *b, float *c, int rows, int cols)
{
    // TODO: this thread's column from the x coordinates, its row from the y coordinates;
    //       if both are inside the matrix, c[row * cols + col] = a[...] + b[...].
}

extern "C" void launch_matrix_add(const float *a, const float *b, float *c, int rows, int cols, int block_x,
                                  int block_y)
{
    // TODO: dim3 block(block_x, block_y); a grid with enough blocks along x for the columns
    //       and along y for the rows; launch matrix_add; CUDA_CHECK(cudaGetLastError()).
    (void)a, (void)b, (void)c, (void)rows, (void)cols, (void)block_x, (void)block_y;
}

__global__ void block_owner_map(int *owner, int rows, int cols)
{
    // TODO: the same indexing as matrix_add; each element inside the matrix gets the
    //       number of the block that covers it, counting blocks row by row:
    //       blockIdx.y * gridDim.x + blockIdx.x.
}

extern "C" void launch_block_owner_map(int *owner, int rows, int cols, int block_x, int block_y)
{
    // TODO: as launch_matrix_add.
    (void)owner, (void)rows, (void)cols, (void)block_x, (void)block_y;
}

__global__ void scale_grid_stride(float *x, int n, float alpha)
{
    // TODO: start at this thread's global index and step by the total number of threads
    //       in the grid (gridDim.x * blockDim.x) until you pass n, scaling each element.
}

extern "C" void launch_scale_grid_stride(float *x, int n, float alpha, int blocks, int threads_per_block)
{
    // TODO: launch exactly `blocks` blocks of `threads_per_block` threads (the tests choose
    //       grids both much smaller and larger than n), then CUDA_CHECK(cudaGetLastError()).
    (void)x, (void)n, (void)alpha, (void)blocks, (void)threads_per_block;
}

extern "C" float matrix_add_from_host(const float *a, const float *b, float *c, int rows, int cols, int block_x,
                                      int block_y)
{
    // TODO: a, b and c are HOST arrays of rows * cols floats. In order, each call in CUDA_CHECK:
    //   1. three device buffers (cudaMalloc) of rows * cols floats;
    //   2. copy a and b to the device (cudaMemcpy; which cudaMemcpyKind?);
    //   3. two events (cudaEventCreate); record one, call your launch_matrix_add on the device
    //      buffers, record the other; wait for it (cudaEventSynchronize);
    //   4. the kernel's milliseconds between the events (cudaEventElapsedTime);
    //   5. copy c back to the host; free the three buffers and destroy the two events.
    //   Return the milliseconds.
    (void)a, (void)b, (void)c, (void)rows, (void)cols, (void)block_x, (void)block_y;
    return 0;
}
