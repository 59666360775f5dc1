/* run.cu — Day 22 driver: runs your FlashAttention kernel on device memory, and on the simulator
 * reads what it counted. Do not edit.
 *
 * There is no naive kernel here to compare with: day 18's three kernels are day 18's exercise,
 * and its own lab counted them. What any unfused attention must move, however well its matmuls
 * are tiled, is the n x n score matrix's six trips, 24 n^2 bytes: main.c sets your counts beside
 * that floor. q, k and v are allocated with exactly n x d floats, so a thread that reads past the
 * end is stopped by the simulator (on a GPU it would read garbage); out is poisoned (every byte
 * 0xff, a NaN) and followed by a guard (lib/lab/device_buffer.cuh): afterwards an element still
 * poisoned was never written, and a guard word that changed was written out of bounds. After an
 * error the device is reset, so that the next run starts clean. */
#include "lab.h"
#include "device_buffer.cuh"
#include "gpu_timer.cuh"
#include "sim_counts.h"

#include <cstring>

/* Copies what the simulator counted over the run's launches into run. */
static void add_counts(attention_run *run, const lab_counts *counts)
{
    run->counted = counts->counted;
    run->launches = counts->launches;
    run->global_load_bytes = 32.0 * (double)counts->total.global_load_sectors;
    run->global_store_bytes = 32.0 * (double)counts->total.global_store_sectors;
    run->shared_load_bytes = (double)counts->total.shared_load_bytes;
}

extern "C" attention_run gpu_attention(const float *q, const float *k, const float *v, float *out, int n, int d,
                                       int causal, int tile, int count_metrics)
{
    attention_run run;
    memset(&run, 0, sizeof run);
    size_t matrix = (size_t)n * (size_t)d * sizeof(float);
    size_t guard = ((size_t)d + 1024) * sizeof(float);   // room for a whole extra row of stores, and then some
    cudaError_t error = cudaSuccess;
    float *device_q = (float *)lab_device_buffer(q, matrix, 0, &error);
    float *device_k = (float *)lab_device_buffer(k, matrix, 0, &error);
    float *device_v = (float *)lab_device_buffer(v, matrix, 0, &error);
    float *device_out = (float *)lab_device_buffer(NULL, matrix, guard, &error);
    run.footprint_bytes = 4.0 * matrix;
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched = flash_attention_forward(device_q, device_k, device_v, device_out, n, d, causal, tile);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts);
    run.written_past_end = lab_device_fetch(out, device_out, matrix, guard, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   // a fault inside a kernel is sticky: start the next run afresh
        return run;
    }
    cudaFree(device_q), cudaFree(device_k), cudaFree(device_v), cudaFree(device_out);
    return run;
}

extern "C" double gpu_attention_microseconds(int n, int d, int causal, int tile, int repeats)
{
    if (LAB_SIMULATED) return -1;   // the simulator's time is this CPU's time to simulate, not a GPU's
    size_t matrix = (size_t)n * (size_t)d * sizeof(float);
    float *device_qkv = NULL, *device_out = NULL;
    cudaError_t error = cudaMalloc(&device_qkv, 3 * matrix);
    if (error == cudaSuccess) error = cudaMalloc(&device_out, matrix);
    if (error == cudaSuccess) error = cudaMemset(device_qkv, 0, 3 * matrix);
    const float *q = device_qkv, *k = device_qkv + (size_t)n * d, *v = device_qkv + 2 * (size_t)n * d;
    double milliseconds = lab_gpu_median_milliseconds(repeats, &error, [&] {
        return flash_attention_forward(q, k, v, device_out, n, d, causal, tile);
    });
    cudaFree(device_qkv), cudaFree(device_out);
    return error == cudaSuccess ? milliseconds * 1e3 : -1;
}
