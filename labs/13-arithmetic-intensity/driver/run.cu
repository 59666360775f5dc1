/* run.cu — Day 13 driver: two kernels whose traffic the simulator counts, to set beside the
 * compulsory bytes your cost functions predict. Do not edit.
 *
 *   vector_add   reads each input element once and writes each output once, in full
 *                32-byte sectors: what it moves is exactly the compulsory traffic.
 *   naive_gemm   every thread reads a whole row of A and column of B from global memory,
 *                so each element of A is requested n times and each of B m times: the
 *                bytes requested grow as m n k, not as m k + k n + m n.
 * The simulator counts the 32-byte sectors each request touches (sim_metrics.h); that is the
 * traffic between the SMs and the memory system before any cache. On a real GPU nothing is
 * counted here (counted = 0): use ncu, as the chapter shows. */
#include "lab.h"

#include <cstdlib>
#include <cstring>
#include <sim_counts.h>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void naive_gemm(const float *a, const float *b, float *c, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float sum = 0;
    for (int p = 0; p < k; p++) sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

/* A device array of `count` floats, each set to `value` (a bit pattern repeated). */
static float *device_array(size_t count, unsigned char value, cudaError_t *error)
{
    float *device = NULL;
    if (*error == cudaSuccess) *error = cudaMalloc(&device, count * sizeof(float));
    if (*error == cudaSuccess) *error = cudaMemset(device, value, count * sizeof(float));
    return device;
}

/* Counts the launch that `launch` makes, and fills in the traffic. */
static counted_traffic count_launch(void (*launch)(void *), void *context, cudaError_t error)
{
    counted_traffic traffic;
    memset(&traffic, 0, sizeof traffic);
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(1, 0, &counts, [&] {
            launch(context);
            return cudaGetLastError();
        });
    if (counts.counted && counts.launches == 1) {
        traffic.counted = 1;
        traffic.load_bytes = 32.0 * (double)counts.total.global_load_sectors;
        traffic.store_bytes = 32.0 * (double)counts.total.global_store_sectors;
    }
    if (error != cudaSuccess) {
        traffic.error = cudaGetErrorString(error);
        cudaDeviceReset();
    }
    return traffic;
}

typedef struct vector_add_arguments {
    const float *a, *b;
    float *c;
    int n;
} vector_add_arguments;

static void launch_vector_add(void *context)
{
    vector_add_arguments *v = (vector_add_arguments *)context;
    vector_add<<<(v->n + 255) / 256, 256>>>(v->a, v->b, v->c, v->n);
}

extern "C" counted_traffic count_vector_add(int n)
{
    cudaError_t error = cudaSuccess;
    float *a = device_array((size_t)n, 0x3f, &error), *b = device_array((size_t)n, 0x3f, &error);
    float *c = device_array((size_t)n, 0xff, &error);
    vector_add_arguments arguments = {a, b, c, n};
    counted_traffic traffic = count_launch(launch_vector_add, &arguments, error);
    if (!traffic.error) cudaFree(a), cudaFree(b), cudaFree(c);
    return traffic;
}

typedef struct gemm_arguments {
    const float *a, *b;
    float *c;
    int m, n, k;
} gemm_arguments;

static void launch_naive_gemm(void *context)
{
    gemm_arguments *g = (gemm_arguments *)context;
    dim3 block(16, 16), grid((g->n + 15) / 16, (g->m + 15) / 16);
    naive_gemm<<<grid, block>>>(g->a, g->b, g->c, g->m, g->n, g->k);
}

extern "C" counted_traffic count_naive_gemm(int m, int n, int k)
{
    cudaError_t error = cudaSuccess;
    float *a = device_array((size_t)m * k, 0x3c, &error), *b = device_array((size_t)k * n, 0x3c, &error);
    float *c = device_array((size_t)m * n, 0xff, &error);
    gemm_arguments arguments = {a, b, c, m, n, k};
    counted_traffic traffic = count_launch(launch_naive_gemm, &arguments, error);
    if (!traffic.error) cudaFree(a), cudaFree(b), cudaFree(c);
    return traffic;
}
