/* gpu_chase.cu — Day 08 driver: your cycle, chased by one GPU thread through device memory.
 * Do not edit.
 *
 * One thread, one chain: every load waits for the one before, exactly as on the CPU, so the
 * time per load is the latency of the level that holds the working set (L1, L2 or HBM). On a
 * real GPU the run is timed with events (the launch's few microseconds are lost in 2^18 loads
 * of hundreds of nanoseconds). On the simulator there is no time to measure, but it counts what
 * the chase asks of the memory system: one request and one 32-byte sector per load, of which
 * the chase uses 4 bytes. */
#include "lab.h"

#include <cstdio>
#include <cstring>

#include <sim_counts.h>

__global__ void chase_kernel(const chase_line *lines, uint32_t loads, uint32_t *end)
{
    uint32_t at = 0;
    for (uint32_t k = 0; k < loads; k++) at = lines[at].next;
    *end = at;
}

gpu_chase_run gpu_chase(const chase_line *lines, uint32_t count, uint32_t loads)
{
    gpu_chase_run run;
    memset(&run, 0, sizeof run);
    run.nanoseconds_per_load = -1;
    chase_line *device_lines = NULL;
    uint32_t *device_end = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    cudaDeviceProp properties;
    int device = 0;
    cudaError_t error = cudaGetDevice(&device);
    if (error == cudaSuccess) error = cudaGetDeviceProperties(&properties, device);
    if (error == cudaSuccess) snprintf(run.device, sizeof run.device, "%s", properties.name);
    if (error == cudaSuccess) error = cudaMalloc(&device_lines, (size_t)count * sizeof(chase_line));
    if (error == cudaSuccess) error = cudaMalloc(&device_end, sizeof(uint32_t));
    if (error == cudaSuccess)
        error = cudaMemcpy(device_lines, lines, (size_t)count * sizeof(chase_line), cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaMemset(device_end, 0xff, sizeof(uint32_t));
    if (error == cudaSuccess) error = cudaEventCreate(&start);
    if (error == cudaSuccess) error = cudaEventCreate(&stop);
    /* On a GPU, a warm-up pass brings what fits into L2 and L1, as on the CPU; the simulator, which
     * counts and does not time, counts the timed pass alone. */
    if (error == cudaSuccess && !LAB_SIMULATED) {
        chase_kernel<<<1, 1>>>(device_lines, count, device_end);
        error = cudaDeviceSynchronize();
    }
    int first = lab_counts_begin();
    if (error == cudaSuccess) error = cudaEventRecord(start);
    if (error == cudaSuccess) {
        chase_kernel<<<1, 1>>>(device_lines, loads, device_end);
        error = cudaGetLastError();
    }
    if (error == cudaSuccess) error = cudaEventRecord(stop);
    if (error == cudaSuccess) error = cudaEventSynchronize(stop);
    if (error == cudaSuccess) error = cudaMemcpy(&run.end, device_end, sizeof(uint32_t), cudaMemcpyDeviceToHost);
    lab_counts counts = lab_counts_end(first);
    if (error == cudaSuccess && counts.counted && counts.launches == 1) {
        run.counted = 1;
        run.load_requests = counts.total.global_load_requests;
        run.load_sectors = counts.total.global_load_sectors;
    }
    float milliseconds = 0;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    if (error == cudaSuccess && !LAB_SIMULATED) error = cudaEventElapsedTime(&milliseconds, start, stop);
    if (error == cudaSuccess && !LAB_SIMULATED && loads > 0) run.nanoseconds_per_load = milliseconds * 1e6 / loads;
    if (error != cudaSuccess) run.error = cudaGetErrorString(error);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(device_lines);
    cudaFree(device_end);
    return run;
}
