/* run.cu — Day 17 driver: runs your row kernels on device memory, and on the simulator reads
 * what it counted while they ran. Do not edit.
 *
 * The input is allocated with exactly rows x n floats, so a thread that reads past the last row
 * is stopped by the simulator (on a GPU it would read garbage). The output is poisoned (every
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
static size_t guard_bytes(int n) { return ((size_t)n + 1024) * sizeof(float); }

/* Copies what the simulator counted over a run's launches into run. */
static void add_counts(row_run *run, const lab_counts *counts)
{
    const sim_launch_metrics *total = &counts->total;
    run->counted = counts->counted;
    run->launches = counts->launches;
    run->grid_blocks = total->grid[0] * total->grid[1] * total->grid[2];   /* the last launch's */
    run->block_threads = total->block[0] * total->block[1] * total->block[2];
    run->global_load_bytes = 32.0 * (double)total->global_load_sectors;
    run->global_store_bytes = 32.0 * (double)total->global_store_sectors;
    run->shared_load_bytes = (double)total->shared_load_bytes;
}

/* Runs one of your functions on device copies of x (and weight), with y poisoned and guarded. */
static row_run run_rows(int version, const float *x, const float *weight, float *y, int rows, int n, float eps,
                        int count_metrics)
{
    row_run run;
    memset(&run, 0, sizeof run);
    size_t bytes = (size_t)rows * (size_t)n * sizeof(float), guard = guard_bytes(n);
    cudaError_t error = cudaSuccess;
    float *device_x = (float *)lab_device_buffer(x, bytes, 0, &error);
    float *device_weight = weight ? (float *)lab_device_buffer(weight, (size_t)n * sizeof(float), 0, &error) : NULL;
    float *device_y = (float *)lab_device_buffer(NULL, bytes, guard, &error);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched = weight ? rmsnorm_rows(device_x, device_weight, device_y, rows, n, eps)
                                          : softmax_rows(version, device_x, device_y, rows, n);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts);
    run.written_past_end = lab_device_fetch(y, device_y, bytes, guard, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
        return run;
    }
    cudaFree(device_x), cudaFree(device_weight), cudaFree(device_y);
    return run;
}

extern "C" row_run gpu_softmax(int version, const float *x, float *y, int rows, int n, int count_metrics)
{
    return run_rows(version, x, NULL, y, rows, n, 0, count_metrics);
}

extern "C" row_run gpu_rmsnorm(const float *x, const float *weight, float *y, int rows, int n, float eps,
                               int count_metrics)
{
    return run_rows(-1, x, weight, y, rows, n, eps, count_metrics);
}

extern "C" double gpu_row_kernel_microseconds(int version, int rows, int n, int repeats)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    size_t bytes = (size_t)rows * (size_t)n * sizeof(float);
    float *device_x = NULL, *device_weight = NULL, *device_y = NULL;
    cudaError_t error = cudaMalloc(&device_x, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_weight, (size_t)n * sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(&device_y, bytes);
    if (error == cudaSuccess) error = cudaMemset(device_x, 0, bytes);
    if (error == cudaSuccess) error = cudaMemset(device_weight, 0, (size_t)n * sizeof(float));
    double milliseconds = lab_gpu_median_milliseconds(repeats, &error, [&] {
        return version < 0 ? rmsnorm_rows(device_x, device_weight, device_y, rows, n, 1e-5f)
                           : softmax_rows(version, device_x, device_y, rows, n);
    });
    cudaFree(device_x), cudaFree(device_weight), cudaFree(device_y);
    return error == cudaSuccess ? milliseconds * 1e3 : -1;
}
