/* run.cu — Day 23 driver: runs the unfused chain or your fused kernel on device memory, and on the
 * simulator reads what it counted while they ran. Do not edit.
 *
 * The inputs are allocated with exactly their size, so a thread that reads past a row or past
 * the bias is stopped by the simulator (on a GPU it would read garbage). h and y are poisoned
 * (every byte 0xff, a NaN) and followed by guards (lib/lab/device_buffer.cuh): afterwards an
 * element still poisoned was never written, and a guard word that changed was written out of
 * bounds. The chain's intermediate buffer is poisoned too. After an error the device is reset,
 * so that the next run starts clean. */
#include "lab.h"
#include "device_buffer.cuh"
#include "gpu_timer.cuh"
#include "sim_counts.h"

#include <cstring>

/* Room for a whole extra row of stores, and then some. */
static size_t guard_bytes(int n) { return ((size_t)n + 1024) * sizeof(float); }

/* Copies what the simulator counted over the chain's launches into run, and their roofline
 * estimates summed. */
static void add_counts(chain_run *run, const lab_counts *counts)
{
    run->counted = counts->counted;
    run->launches = counts->launches;
    run->global_load_bytes = 32.0 * (double)counts->total.global_load_sectors;
    run->global_store_bytes = 32.0 * (double)counts->total.global_store_sectors;
    run->predicted_seconds = lab_counts_roofline_seconds(counts, "h100-sxm");
}

extern "C" chain_run gpu_chain(int fused, const chain_inputs *in, float *h, float *y, int count_metrics)
{
    chain_run run;
    memset(&run, 0, sizeof run);
    run.predicted_seconds = -1;
    size_t bytes = (size_t)in->rows * (size_t)in->n * sizeof(float), vector = (size_t)in->n * sizeof(float);
    size_t guard = guard_bytes(in->n);
    cudaError_t error = cudaSuccess;
    float *device_x = (float *)lab_device_buffer(in->x, bytes, 0, &error);
    float *device_residual = (float *)lab_device_buffer(in->residual, bytes, 0, &error);
    float *device_bias = (float *)lab_device_buffer(in->bias, vector, 0, &error);
    float *device_weight = (float *)lab_device_buffer(in->weight, vector, 0, &error);
    float *device_intermediate = fused ? NULL : (float *)lab_device_buffer(NULL, bytes, 0, &error);
    float *device_h = (float *)lab_device_buffer(NULL, bytes, guard, &error);
    float *device_y = (float *)lab_device_buffer(NULL, bytes, guard, &error);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched =
                fused ? chain_fused(device_x, device_bias, device_residual, device_weight, device_h, device_y,
                                    in->rows, in->n, in->eps, in->activation)
                      : chain_unfused(device_x, device_bias, device_residual, device_weight, device_intermediate,
                                      device_h, device_y, in->rows, in->n, in->eps, in->activation);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts);
    run.written_past_end = lab_device_fetch(h, device_h, bytes, guard, &error);
    run.written_past_end += lab_device_fetch(y, device_y, bytes, guard, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
        return run;
    }
    cudaFree(device_x), cudaFree(device_residual), cudaFree(device_bias), cudaFree(device_weight);
    cudaFree(device_intermediate), cudaFree(device_h), cudaFree(device_y);
    return run;
}

extern "C" double gpu_chain_microseconds(int fused, int rows, int n, int activation, int repeats)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    size_t bytes = (size_t)rows * (size_t)n * sizeof(float), vector = (size_t)n * sizeof(float);
    float *buffers[7] = {NULL};   /* x, residual, intermediate, h, y (rows x n); bias, weight (n) */
    cudaError_t error = cudaSuccess;
    for (int b = 0; b < 7 && error == cudaSuccess; b++) {
        error = cudaMalloc(&buffers[b], b < 5 ? bytes : vector);
        if (error == cudaSuccess) error = cudaMemset(buffers[b], 0, b < 5 ? bytes : vector);
    }
    float *x = buffers[0], *residual = buffers[1], *intermediate = buffers[2], *h = buffers[3], *y = buffers[4];
    float *bias = buffers[5], *weight = buffers[6];
    double milliseconds = lab_gpu_median_milliseconds(repeats, &error, [&] {
        return fused ? chain_fused(x, bias, residual, weight, h, y, rows, n, 1e-5f, activation)
                     : chain_unfused(x, bias, residual, weight, intermediate, h, y, rows, n, 1e-5f, activation);
    });
    for (int b = 0; b < 7; b++) cudaFree(buffers[b]);
    return error == cudaSuccess ? milliseconds * 1e3 : -1;
}
