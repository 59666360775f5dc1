/* run.cu — Day 18 driver: runs your attention on device memory, and on the simulator reads what
 * it counted while the three kernels ran. Do not edit.
 *
 * q, k and v are allocated with exactly n x d floats, so a thread that reads past the end is
 * stopped by the simulator (on a GPU it would read garbage). scores and out are poisoned (every
 * byte 0xff, a NaN) and followed by a guard (lib/lab/device_buffer.cuh): afterwards an element
 * still poisoned was never written, and a guard word that changed was written out of bounds.
 * After an error the device is reset, so that the next run starts clean. */
#include "lab.h"
#include "device_buffer.cuh"
#include "gpu_timer.cuh"
#include "sim_counts.h"

#include <cstdlib>
#include <cstring>

/* Room for a whole extra row of stores, and then some. */
static size_t guard_bytes(int row_floats) { return ((size_t)row_floats + 1024) * sizeof(float); }

/* Copies what the simulator counted over the run's launches into run, and each of the first
 * three's bytes and blocks. */
static void add_counts(attention_run *run, const lab_counts *counts)
{
    run->counted = counts->counted;
    run->launches = counts->launches;
    run->global_load_bytes = 32.0 * (double)counts->total.global_load_sectors;
    run->global_store_bytes = 32.0 * (double)counts->total.global_store_sectors;
    for (int k = 0; k < counts->launches && k < ATTENTION_KERNELS; k++) {
        const sim_launch_metrics *m = sim_metrics_get(counts->first + k);
        run->kernel_load_bytes[k] = 32.0 * (double)m->global_load_sectors;
        run->kernel_store_bytes[k] = 32.0 * (double)m->global_store_sectors;
        run->kernel_blocks[k] = (double)m->grid[0] * m->grid[1] * m->grid[2];
    }
}

extern "C" attention_run gpu_attention(const float *q, const float *k, const float *v, float *out,
                                       float *probabilities, int n, int d, int causal, int count_metrics)
{
    attention_run run;
    memset(&run, 0, sizeof run);
    size_t matrix = (size_t)n * (size_t)d * sizeof(float), square = (size_t)n * (size_t)n * sizeof(float);
    cudaError_t error = cudaSuccess;
    float *device_q = (float *)lab_device_buffer(q, matrix, 0, &error);
    float *device_k = (float *)lab_device_buffer(k, matrix, 0, &error);
    float *device_v = (float *)lab_device_buffer(v, matrix, 0, &error);
    float *device_scores = (float *)lab_device_buffer(NULL, square, guard_bytes(n), &error);
    float *device_out = (float *)lab_device_buffer(NULL, matrix, guard_bytes(d), &error);
    run.footprint_bytes = 4.0 * matrix + square;
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched =
                attention_forward(device_q, device_k, device_v, device_scores, device_out, n, d, causal);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts);
    run.written_past_end = lab_device_fetch(out, device_out, matrix, guard_bytes(d), &error);
    float *scores_back = probabilities ? probabilities : (float *)malloc(square + 1);
    run.written_past_end += lab_device_fetch(scores_back, device_scores, square, guard_bytes(n), &error);
    if (!probabilities) free(scores_back);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
        return run;
    }
    cudaFree(device_q), cudaFree(device_k), cudaFree(device_v), cudaFree(device_scores), cudaFree(device_out);
    return run;
}

extern "C" double gpu_attention_microseconds(int n, int d, int causal, int repeats)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    size_t matrix = (size_t)n * (size_t)d * sizeof(float), square = (size_t)n * (size_t)n * sizeof(float);
    float *device_qkv = NULL, *device_scores = NULL, *device_out = NULL;
    cudaError_t error = cudaMalloc(&device_qkv, 3 * matrix);
    if (error == cudaSuccess) error = cudaMalloc(&device_scores, square);
    if (error == cudaSuccess) error = cudaMalloc(&device_out, matrix);
    if (error == cudaSuccess) error = cudaMemset(device_qkv, 0, 3 * matrix);
    const float *q = device_qkv, *k = device_qkv + (size_t)n * d, *v = device_qkv + 2 * (size_t)n * d;
    double milliseconds = lab_gpu_median_milliseconds(repeats, &error, [&] {
        return attention_forward(q, k, v, device_scores, device_out, n, d, causal);
    });
    cudaFree(device_qkv), cudaFree(device_scores), cudaFree(device_out);
    return error == cudaSuccess ? milliseconds * 1e3 : -1;
}
