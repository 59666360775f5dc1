/* run.cu — Day 02 driver: runs your launchers on device memory. Do not edit.
 *
 * Every buffer is followed on the device by a guard region as large as the most a
 * missing bounds check could reach, filled with a finite sentinel (every byte 0x5a); an
 * output is filled with the poison pattern (every byte 0xff, a NaN) before the launch.
 * Afterwards, an output element still poisoned was never written, and a guard word that
 * is no longer the sentinel was written out of bounds. (A NaN sentinel would not do: NaN
 * arithmetic can return the same NaN, so an out-of-bounds sum of two guards would look
 * untouched.) */
#include "lab.h"

#include <device_buffer.cuh>
#include <timer.h>
#include <sim_counts.h>   /* LAB_SIMULATED, and sim_last_event_span (which counts nothing on a GPU) */

/* Words after the output: more than any thread of a grid rounded up to whole blocks can
 * reach with row * cols + col, even without a bounds check. */
static size_t guard_words(int rows, int cols, int block_x, int block_y)
{
    return (size_t)(rows + block_y) * (size_t)(cols + block_x) + 4096;
}

/* A device buffer of `words` 4-byte words followed by `guard` sentinel words; the words
 * are copied from host, or poisoned when host is NULL (lib/lab/device_buffer.cuh). */
static void *device_buffer(const void *host, size_t words, size_t guard, cudaError_t *error)
{
    return lab_device_buffer(host, words * 4, guard * 4, error);
}

/* Waits for the GPU, copies the result back, counts changed guard words, frees the buffer. */
static gpu_run finish(void *device, void *host, size_t words, size_t guard, cudaError_t error)
{
    gpu_run run = {NULL, 0};
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    run.written_past_end = lab_device_fetch(host, device, words * 4, guard * 4, &error);
    if (error != cudaSuccess) run.error = cudaGetErrorString(error);
    cudaFree(device);
    return run;
}

extern "C" gpu_run gpu_matrix_add(const float *a, const float *b, float *c, int rows, int cols, int block_x,
                                  int block_y)
{
    cudaError_t error = cudaSuccess;
    size_t n = (size_t)rows * cols, guard = guard_words(rows, cols, block_x, block_y);
    float *device_a = (float *)device_buffer(a, n, guard, &error);
    float *device_b = (float *)device_buffer(b, n, guard, &error);
    float *device_c = (float *)device_buffer(NULL, n, guard, &error);
    if (error == cudaSuccess) launch_matrix_add(device_a, device_b, device_c, rows, cols, block_x, block_y);
    gpu_run run = finish(device_c, c, n, guard, error);
    cudaFree(device_a), cudaFree(device_b);
    return run;
}

extern "C" gpu_run gpu_matrix_add_in_place(float *a, const float *b, int rows, int cols, int block_x, int block_y)
{
    cudaError_t error = cudaSuccess;
    size_t n = (size_t)rows * cols, guard = guard_words(rows, cols, block_x, block_y);
    float *device_a = (float *)device_buffer(a, n, guard, &error);
    float *device_b = (float *)device_buffer(b, n, guard, &error);
    if (error == cudaSuccess) launch_matrix_add(device_a, device_b, device_a, rows, cols, block_x, block_y);
    gpu_run run = finish(device_a, a, n, guard, error);
    cudaFree(device_b);
    return run;
}

extern "C" gpu_run gpu_block_owner_map(int *owner, int rows, int cols, int block_x, int block_y)
{
    cudaError_t error = cudaSuccess;
    size_t n = (size_t)rows * cols, guard = guard_words(rows, cols, block_x, block_y);
    int *device_owner = (int *)device_buffer(NULL, n, guard, &error);
    if (error == cudaSuccess) launch_block_owner_map(device_owner, rows, cols, block_x, block_y);
    return finish(device_owner, owner, n, guard, error);
}

extern "C" gpu_run gpu_scale_grid_stride(float *x, int n, float alpha, int blocks, int threads_per_block)
{
    cudaError_t error = cudaSuccess;
    size_t guard = (size_t)blocks * threads_per_block + 4096;
    float *device_x = (float *)device_buffer(x, (size_t)n, guard, &error);
    if (error == cudaSuccess) launch_scale_grid_stride(device_x, n, alpha, blocks, threads_per_block);
    return finish(device_x, x, (size_t)n, guard, error);
}

static long long device_bytes_in_use(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    return (long long)(total_bytes - free_bytes);
}

extern "C" host_cycle_run watch_matrix_add_from_host(const float *a, const float *b, float *c, int rows, int cols,
                                                     int block_x, int block_y)
{
    host_cycle_run run = {0, 0, 0, 0, -1, -1, NULL};
    cudaFree(0);   /* the context exists before the first measurement, not inside the call */
    long long before = device_bytes_in_use();
    run.simulated = LAB_SIMULATED;
    unsigned long long elapsed_times = sim_last_event_span().elapsed_times;
    double start = lab_now_seconds();
    run.kernel_milliseconds = matrix_add_from_host(a, b, c, rows, cols, block_x, block_y);
    run.call_milliseconds = (lab_now_seconds() - start) * 1e3;
    run.device_bytes_kept = device_bytes_in_use() - before;
    /* the simulator notes what lay between the two events of the last measurement; a GPU does not */
    sim_event_span span = sim_last_event_span();
    if (LAB_SIMULATED && span.elapsed_times > elapsed_times)   /* it measured: the last measurement is the one returned */
        run.timed_launches = (long long)span.launches, run.timed_copies = (long long)span.copies;
    cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error != cudaSuccess) run.error = cudaGetErrorString(error);
    return run;
}
