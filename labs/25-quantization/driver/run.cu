/* run.cu — Day 25 driver: runs your INT8 GEMV kernel on device copies of its inputs, and on the
 * simulator reads the bytes it loaded. Do not edit.
 *
 * The inputs are allocated with exactly their size, so a thread reading past the last row or
 * column is stopped by the simulator (on a GPU it would read garbage). y is poisoned (0xff
 * bytes, a NaN) and followed by a guard (lib/lab/device_buffer.cuh): afterwards an element still
 * poisoned was never written, and a guard word that changed was written out of bounds. After an
 * error the device is reset, so that the next run starts clean. */
#include "lab.h"
#include "device_buffer.cuh"
#include "sim_counts.h"

#include <cstring>

enum { GUARD_BYTES = 4096 };

extern "C" gpu_gemv_run gpu_gemv_int8(const int8_t *values, const float *scales, const float *x, float *y, int rows,
                                      int cols, int count_metrics)
{
    gpu_gemv_run run;
    memset(&run, 0, sizeof run);
    size_t weights = (size_t)rows * (size_t)cols;
    cudaError_t error = cudaSuccess;
    int8_t *device_values = (int8_t *)lab_device_buffer(values, weights, 0, &error);
    float *device_scales = (float *)lab_device_buffer(scales, (size_t)rows * sizeof(float), 0, &error);
    float *device_x = (float *)lab_device_buffer(x, (size_t)cols * sizeof(float), 0, &error);
    float *device_y = (float *)lab_device_buffer(NULL, (size_t)rows * sizeof(float), GUARD_BYTES, &error);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched = gemv_int8_device(device_values, device_scales, device_x, device_y, rows, cols);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    run.counted = counts.counted;
    run.global_load_bytes = 32.0 * (double)counts.total.global_load_sectors;
    run.written_past_end = lab_device_fetch(y, device_y, (size_t)rows * sizeof(float), GUARD_BYTES, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
        return run;
    }
    cudaFree(device_values), cudaFree(device_scales), cudaFree(device_x), cudaFree(device_y);
    return run;
}
