/* run.cu — Day 01 driver: runs your launchers on device memory. Do not edit.
 *
 * Before your kernel starts, the output is filled with the poison pattern (0xff bytes, a
 * NaN), and every buffer is followed by a guard region of 1024 elements filled with a
 * finite sentinel (0x5a bytes, about 1.5e16). Afterwards an output element still poisoned
 * was never written, and a guard element that changed was written out of bounds: both
 * are mistakes a GPU would not report by itself (lib/lab/device_buffer.cuh says why the
 * sentinel is not a NaN). On the simulator the launches are counted too (sim_metrics.h):
 * how many, and their blocks and threads. */
#include "lab.h"

#include <device_buffer.cuh>
#include <sim_counts.h>

static const size_t GUARD_BYTES = 1024 * sizeof(float);   /* at least one whole block of threads past the end */

/* A device copy of n host floats (or n poisoned ones), followed by the guard. */
static float *device_copy(const float *host, int n, cudaError_t *error)
{
    return (float *)lab_device_buffer(host, (size_t)n * sizeof(float), GUARD_BYTES, error);
}

/* Records the grids and blocks launched since `mark` (lab_counts_begin), and stops counting; on a
 * GPU nothing is counted (counts.counted is 0: Nsight Compute measures these). */
static void counting_stop(gpu_run *run, int mark)
{
    lab_counts counts = lab_counts_end(mark);
    run->counted = counts.counted;
    run->launches = counts.launches;
    run->blocks = (long long)counts.blocks;
    run->threads = (long long)counts.threads;
    run->threads_per_block = (int)counts.max_block_threads;
}

/* Copies the result back and counts guard elements that are no longer the sentinel. */
static gpu_run finish(float *device_out, float *host_out, int n, cudaError_t error, int mark)
{
    gpu_run run = {NULL, 0, 0, 0, 0, 0, 0};
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    counting_stop(&run, mark);
    run.written_past_end = lab_device_fetch(host_out, device_out, (size_t)n * sizeof(float), GUARD_BYTES, &error);
    if (error != cudaSuccess) run.error = cudaGetErrorString(error);
    return run;
}

extern "C" gpu_run gpu_vector_add(const float *a, const float *b, float *c, int n)
{
    cudaError_t error = cudaSuccess;
    float *device_a = device_copy(a, n, &error);
    float *device_b = device_copy(b, n, &error);
    float *device_c = device_copy(NULL, n, &error);
    int mark = lab_counts_begin();
    if (error == cudaSuccess) launch_vector_add(device_a, device_b, device_c, n);
    gpu_run run = finish(device_c, c, n, error, mark);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return run;
}

extern "C" gpu_run gpu_saxpy(float alpha, const float *x, float *y, int n)
{
    cudaError_t error = cudaSuccess;
    float *device_x = device_copy(x, n, &error);
    float *device_y = device_copy(y, n, &error);
    int mark = lab_counts_begin();
    if (error == cudaSuccess) launch_saxpy(alpha, device_x, device_y, n);
    gpu_run run = finish(device_y, y, n, error, mark);
    cudaFree(device_x), cudaFree(device_y);
    return run;
}
