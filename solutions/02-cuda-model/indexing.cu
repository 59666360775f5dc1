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
    if (error == cudaSuccess) return;
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(error),
            cudaGetErrorString(error));
    exit(EXIT_FAILURE);
}

int blocks_needed(int elements, int threads_per_block)
{
    /* elements + threads_per_block - 1 would overflow an int near 2^31; this cannot. */
    return elements / threads_per_block + (elements % threads_per_block != 0);
}

__global__ void matrix_add(const float *a, const float *b, float *c, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // x runs along a row
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // y runs down a column
    if (row < rows && col < cols) {                    // edge blocks hang over both edges
        int i = row * cols + col;
        c[i] = a[i] + b[i];
    }
}

extern "C" void launch_matrix_add(const float *a, const float *b, float *c, int rows, int cols, int block_x,
                                  int block_y)
{
    dim3 block(block_x, block_y);
    dim3 grid(blocks_needed(cols, block_x), blocks_needed(rows, block_y));
    matrix_add<<<grid, block>>>(a, b, c, rows, cols);
    CUDA_CHECK(cudaGetLastError());   // a bad configuration is reported here, not by the launch
}

__global__ void block_owner_map(int *owner, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) owner[row * cols + col] = blockIdx.y * gridDim.x + blockIdx.x;
}

extern "C" void launch_block_owner_map(int *owner, int rows, int cols, int block_x, int block_y)
{
    dim3 block(block_x, block_y);
    dim3 grid(blocks_needed(cols, block_x), blocks_needed(rows, block_y));
    block_owner_map<<<grid, block>>>(owner, rows, cols);
    CUDA_CHECK(cudaGetLastError());
}

__global__ void scale_grid_stride(float *x, int n, float alpha)
{
    int stride = gridDim.x * blockDim.x;   // the number of threads in the whole grid
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] *= alpha;
}

extern "C" void launch_scale_grid_stride(float *x, int n, float alpha, int blocks, int threads_per_block)
{
    scale_grid_stride<<<blocks, threads_per_block>>>(x, n, alpha);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" float matrix_add_from_host(const float *a, const float *b, float *c, int rows, int cols, int block_x,
                                      int block_y)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);   // bytes, not elements
    float *device_a, *device_b, *device_c;
    CUDA_CHECK(cudaMalloc(&device_a, bytes));
    CUDA_CHECK(cudaMalloc(&device_b, bytes));
    CUDA_CHECK(cudaMalloc(&device_c, bytes));
    CUDA_CHECK(cudaMemcpy(device_a, a, bytes, cudaMemcpyHostToDevice));   // destination first, like memcpy
    CUDA_CHECK(cudaMemcpy(device_b, b, bytes, cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));   // queued in the stream, like the launch: the GPU stamps it
    launch_matrix_add(device_a, device_b, device_c, rows, cols, block_x, block_y);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));   // the launch returned at once; wait for the kernel
    float milliseconds = 0;
    CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));

    CUDA_CHECK(cudaMemcpy(c, device_c, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(device_a));
    CUDA_CHECK(cudaFree(device_b));
    CUDA_CHECK(cudaFree(device_c));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return milliseconds;
}
