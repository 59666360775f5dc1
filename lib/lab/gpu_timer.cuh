/* gpu_timer.cuh — how the labs' drivers time a kernel on a real GPU: one untimed run to warm up,
 * then `repeats` runs each between two CUDA events, and the median of their times (a median,
 * because one run interrupted by something else on the machine must not move the figure).
 * Before each timed run, outside the events, a buffer twice the size of the GPU's L2 cache is
 * overwritten, which flushes the L2: each run reads its data from DRAM, as the book's roofline
 * estimates assume, not from what the run before it left in the cache.
 * Included by the drivers' .cu files on the GPU path only: on the simulator a time would be this
 * CPU's time to simulate, so the drivers report none there.
 *
 *   cudaError_t error = cudaSuccess;
 *   double ms = lab_gpu_median_milliseconds(repeats, &error, [&] { return launch(...); });
 *
 * `run` returns the cudaError_t of what it launched. Like device_buffer.cuh's calls, this takes the
 * error of the calls before it and does nothing once it is set; it returns -1 when there is an error. */
#ifndef LAB_GPU_TIMER_CUH
#define LAB_GPU_TIMER_CUH

#include <cuda_runtime.h>
#include <algorithm>
#include <cstdlib>

template <typename Run> static double lab_gpu_median_milliseconds(int repeats, cudaError_t *error, Run run)
{
    if (*error != cudaSuccess || repeats < 1) return -1;
    double *times = (double *)calloc((size_t)repeats, sizeof(double));
    if (times == NULL) *error = cudaErrorMemoryAllocation;
    int device = 0, l2_bytes = 0;
    void *flush = NULL;
    if (*error == cudaSuccess) *error = cudaGetDevice(&device);
    if (*error == cudaSuccess) *error = cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device);
    size_t flush_bytes = 2 * (size_t)l2_bytes;
    if (*error == cudaSuccess && flush_bytes > 0) *error = cudaMalloc(&flush, flush_bytes);
    cudaEvent_t start, stop;
    cudaEventCreate(&start), cudaEventCreate(&stop);
    if (*error == cudaSuccess) *error = run();   /* the warm-up, untimed */
    if (*error == cudaSuccess) *error = cudaDeviceSynchronize();
    for (int r = 0; r < repeats && *error == cudaSuccess; r++) {
        float milliseconds = 0;
        if (flush) *error = cudaMemsetAsync(flush, r & 0xff, flush_bytes, 0);   /* the L2 flush, untimed */
        if (*error != cudaSuccess) break;
        cudaEventRecord(start);
        *error = run();
        cudaEventRecord(stop);
        if (*error == cudaSuccess) *error = cudaEventSynchronize(stop);
        if (*error == cudaSuccess) *error = cudaEventElapsedTime(&milliseconds, start, stop);
        times[r] = milliseconds;
    }
    double median = -1;
    if (*error == cudaSuccess) {
        std::sort(times, times + repeats);
        median = times[repeats / 2];
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    if (flush) cudaFree(flush);
    free(times);
    return median;
}

#endif
