/* run.cu — Day 10 driver: runs your CUDA STREAM kernels on device memory; on the simulator,
 * reads the bytes it counted; on a real GPU, times them. Do not edit.
 *
 * Each array is followed on the device by a guard region of GUARD elements filled with a
 * sentinel byte of its own (0x5a after a, 0x5b after b, 0x5c after c: finite doubles), so a
 * kernel that writes past element n - 1 shows as changed guard elements, even when what it
 * writes there is a copy of another array's guard. The bytes counted are 32 x the distinct 32-byte sectors each
 * warp's request touched: what a GPU's memory system moves for it, at the least. */
#include "lab.h"

#include <cstdlib>
#include <cstring>
#include <sim_counts.h>

static const int GUARD = 1024;                /* at least one whole block of threads past the end */
static const unsigned char SENTINEL_A = 0x5a, SENTINEL_B = 0x5b, SENTINEL_C = 0x5c;

/* A device copy of n host doubles, followed by GUARD elements of sentinel bytes. */
static double *device_copy(const double *host, int n, unsigned char sentinel, cudaError_t *error)
{
    double *device = NULL;
    size_t bytes = (size_t)(n + GUARD) * sizeof(double);
    if (*error == cudaSuccess) *error = cudaMalloc(&device, bytes);
    if (*error == cudaSuccess) *error = cudaMemset(device + n, sentinel, (size_t)GUARD * sizeof(double));
    if (*error == cudaSuccess) *error = cudaMemcpy(device, host, (size_t)n * sizeof(double), cudaMemcpyHostToDevice);
    return device;
}

/* Copies n doubles back into host and counts the guard elements that are no longer the sentinel. */
static long long copy_back(double *host, const double *device, int n, unsigned char sentinel, cudaError_t *error)
{
    long long changed = 0;
    unsigned char *back = (unsigned char *)malloc((size_t)(n + GUARD) * sizeof(double));
    if (*error == cudaSuccess)
        *error = cudaMemcpy(back, device, (size_t)(n + GUARD) * sizeof(double), cudaMemcpyDeviceToHost);
    if (*error == cudaSuccess) {
        memcpy(host, back, (size_t)n * sizeof(double));
        const unsigned char *guard = back + (size_t)n * sizeof(double);
        for (int i = 0; i < GUARD; i++)
            for (int byte = 0; byte < (int)sizeof(double); byte++)
                if (guard[i * sizeof(double) + byte] != sentinel) {
                    changed++;
                    break;
                }
    }
    free(back);
    return changed;
}

static void read_counts(stream_gpu_run *run, const sim_launch_metrics *m)
{
    run->counted = 1;
    run->load_bytes = 32.0 * (double)m->global_load_sectors;
    run->store_bytes = 32.0 * (double)m->global_store_sectors;
    run->load_sectors_per_request = sim_sectors_per_request(m, 0);
    run->store_sectors_per_request = sim_sectors_per_request(m, 1);
}

extern "C" stream_gpu_run gpu_stream(int kernel, double q, double *a, double *b, double *c, int n, int count_metrics)
{
    stream_gpu_run run;
    memset(&run, 0, sizeof run);
    cudaError_t error = cudaSuccess;
    double *device_a = device_copy(a, n, SENTINEL_A, &error), *device_b = device_copy(b, n, SENTINEL_B, &error),
           *device_c = device_copy(c, n, SENTINEL_C, &error);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    int first = count_metrics ? lab_counts_begin() : 0;
    if (error == cudaSuccess) error = launch_stream(kernel, q, device_a, device_b, device_c, n);
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    if (count_metrics) {   /* on a GPU nothing is counted (counts.counted is 0) */
        lab_counts counts = lab_counts_end(first);
        if (error == cudaSuccess && counts.counted && counts.launches == 1) read_counts(&run, &counts.total);
        else if (error == cudaSuccess && counts.counted) run.error = "launch_stream made no launch, or more than one";
    }
    run.written_past_end += copy_back(a, device_a, n, SENTINEL_A, &error);
    run.written_past_end += copy_back(b, device_b, n, SENTINEL_B, &error);
    run.written_past_end += copy_back(c, device_c, n, SENTINEL_C, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
        return run;
    }
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return run;
}

extern "C" const char *gpu_name(void)
{
    if (LAB_SIMULATED) return "the simulator";
    static cudaDeviceProp properties;
    if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) return "a GPU";
    return properties.name;
}

extern "C" double gpu_stream_best_milliseconds(int kernel, int n, int repeats)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    double *a = NULL, *b = NULL, *c = NULL, best = -1;
    size_t bytes = (size_t)n * sizeof(double);
    cudaEvent_t start, stop;
    cudaError_t error = cudaMalloc(&a, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&b, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&c, bytes);
    if (error == cudaSuccess) error = cudaMemset(a, 0, bytes);
    if (error == cudaSuccess) error = cudaMemset(b, 0, bytes);
    if (error == cudaSuccess) error = cudaMemset(c, 0, bytes);
    cudaEventCreate(&start), cudaEventCreate(&stop);
    for (int r = -1; r < repeats && error == cudaSuccess; r++) {   /* r = -1: the warm-up */
        float milliseconds = 0;
        cudaEventRecord(start);
        if (kernel == STREAM_KERNELS) error = cudaMemcpy(c, a, bytes, cudaMemcpyDeviceToDevice);
        else error = launch_stream(kernel, 3.0, a, b, c, n);
        cudaEventRecord(stop);
        if (error == cudaSuccess) error = cudaEventSynchronize(stop);
        if (error == cudaSuccess) error = cudaEventElapsedTime(&milliseconds, start, stop);
        if (error == cudaSuccess && r >= 0 && (best < 0 || milliseconds < best)) best = milliseconds;
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    cudaFree(a), cudaFree(b), cudaFree(c);
    return error == cudaSuccess ? best : -1;
}
