/* run.cu — Day 12 driver: runs the naive and your tiled matmul on device memory, reads what the
 * simulator counted, and calls the system BLAS for the CPU comparison. Do not edit.
 *
 * A and B are allocated with exactly their sizes, so a thread that reads past an edge is
 * stopped by the simulator (on a GPU it would read garbage). C sits between two guard regions;
 * C and the guards are poisoned (every byte 0xff: NaN) first, so an element never written, or
 * one written outside C, shows. After an error the device is reset, so the next run starts
 * clean. */
#include "lab.h"
#include "compare.h"

#include <cstdlib>
#include <cstring>
#include <gpu_timer.cuh>

#include <sim_counts.h>

enum { GUARD = 256, NAIVE_BLOCK = 16 };

// The baseline: thread (x, y) computes C[row][col] straight from global memory, reading a row
// of A and a column of B: 2k loads per output, 2·m·n·k in all, each float of A and B read by
// many threads, each time from global memory.
__global__ void matmul_naive_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float sum = 0.0f;
    for (int p = 0; p < k; p++) sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

static cudaError_t launch(int tile, const float *a, const float *b, float *c, int m, int n, int k)
{
    if (tile != NAIVE_KERNEL) return matmul_tiled(tile, a, b, c, m, n, k);
    dim3 block(NAIVE_BLOCK, NAIVE_BLOCK), grid((n + NAIVE_BLOCK - 1) / NAIVE_BLOCK, (m + NAIVE_BLOCK - 1) / NAIVE_BLOCK);
    matmul_naive_kernel<<<grid, block>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

static void read_counts(matmul_run *run, const lab_counts *counted)
{
    const sim_launch_metrics *counts = &counted->total;
    run->counted = 1;
    run->global_floats_loaded = (double)counts->global_load_bytes / sizeof(float);
    run->global_load_requests = (double)counts->global_load_requests;
    run->global_load_sectors = (double)counts->global_load_sectors;
    run->global_floats_stored = (double)counts->global_store_bytes / sizeof(float);
    run->shared_floats_loaded = (double)counts->shared_load_bytes / sizeof(float);
    unsigned long long requests = counts->shared_load_requests + counts->shared_store_requests;
    run->shared_wavefronts_per_request =
        requests ? (double)(counts->shared_load_wavefronts + counts->shared_store_wavefronts) / (double)requests : 0;
    run->barriers = (double)counts->barriers;
    run->grid[0] = counts->grid[0], run->grid[1] = counts->grid[1];
    run->block[0] = counts->block[0], run->block[1] = counts->block[1];
    run->h100_estimate_seconds = lab_counts_roofline_seconds(counted, "h100-sxm");
}

extern "C" matmul_run gpu_matmul(int tile, const float *a, const float *b, float *c, int m, int n, int k,
                                 int count_metrics)
{
    matmul_run run;
    memset(&run, 0, sizeof run);
    size_t a_bytes = sizeof(float) * (size_t)m * k, b_bytes = sizeof(float) * (size_t)k * n;
    size_t c_elements = (size_t)m * n, guarded = c_elements + 2 * GUARD;
    float *device_a = NULL, *device_b = NULL, *device_guarded = NULL;
    float *host_guarded = (float *)malloc(sizeof(float) * guarded);
    lab_poison(host_guarded, sizeof(float) * guarded);
    cudaError_t error = cudaMalloc(&device_a, a_bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_b, b_bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_guarded, sizeof(float) * guarded);
    if (error == cudaSuccess) error = cudaMemcpy(device_a, a, a_bytes, cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaMemcpy(device_b, b, b_bytes, cudaMemcpyHostToDevice);
    if (error == cudaSuccess)
        error = cudaMemcpy(device_guarded, host_guarded, sizeof(float) * guarded, cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 2.0 * m * n * k, &counts,
                                [&] { return launch(tile, device_a, device_b, device_guarded + GUARD, m, n, k); });
    if (counts.counted && counts.launches == 1) read_counts(&run, &counts);
    if (error == cudaSuccess)
        error = cudaMemcpy(host_guarded, device_guarded, sizeof(float) * guarded, cudaMemcpyDeviceToHost);
    memcpy(c, host_guarded + GUARD, sizeof(float) * c_elements);
    for (size_t i = 0; i < GUARD; i++)
        run.written_outside += !lab_float_is_poison(host_guarded[i]) + !lab_float_is_poison(host_guarded[GUARD + c_elements + i]);
    free(host_guarded);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   // a fault inside a kernel is sticky: start the next run afresh
        return run;
    }
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_guarded);
    return run;
}

extern "C" double gpu_matmul_milliseconds(int tile, int n, int repeats)
{
    if (LAB_SIMULATED) return -1;   // the simulator's time is this CPU's time to simulate, not a GPU's
    size_t bytes = sizeof(float) * (size_t)n * n;
    float *device_a = NULL, *device_b = NULL, *device_c = NULL;
    cudaError_t error = cudaMalloc(&device_a, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_b, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_c, bytes);
    if (error == cudaSuccess) error = cudaMemset(device_a, 0, bytes);
    if (error == cudaSuccess) error = cudaMemset(device_b, 0, bytes);
    double median = lab_gpu_median_milliseconds(repeats, &error,
                                                [&] { return launch(tile, device_a, device_b, device_c, n, n, n); });
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return median;
}

// The CPU's own best matmul, for the chapter's comparison: OpenBLAS, which the simulator's programs
// link (declared here, as lib/sim/cublas.c does, to need no particular cblas.h); nvcc's programs link
// the GPU's cuBLAS instead, so there the comparison is left out (cpu_blas_available() is 0).
#ifdef SIM_CUDA
extern "C" void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha, const float *a,
                            int lda, const float *b, int ldb, float beta, float *c, int ldc);
extern "C" void openblas_set_num_threads(int threads);
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };

extern "C" int cpu_blas_available(void) { return 1; }

extern "C" void cpu_matmul_blas(const float *a, const float *b, float *c, int m, int n, int k)
{
    openblas_set_num_threads(1);   // one core, as the other CPU matmuls use
    cblas_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}
#else
extern "C" int cpu_blas_available(void) { return 0; }

extern "C" void cpu_matmul_blas(const float *a, const float *b, float *c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;   // never called: cpu_blas_available() is 0
}
#endif
