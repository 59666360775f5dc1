/* run.cu — Day 07 driver: runs your reductions on device memory, and on the simulator
 * reads what it counted while they ran. Do not edit.
 *
 * The input is allocated with exactly n elements, so a thread that reads past its end is
 * stopped by the simulator (on a GPU it would read garbage). The result is poisoned (every
 * byte 0xff: -1 as an int, NaN as a float) before your code runs, so a result never written,
 * or an atomic added to a result never zeroed, shows. After an error the device is reset,
 * so that the next version starts clean. */
#include "lab.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <gpu_timer.cuh>

#ifdef SIM_CUDA
#include <sim_metrics.h>
#endif

#ifdef SIM_CUDA
/* Sums what the simulator counted over the launches first .. last-1 into run. */
static void add_counts(reduce_run *run, int first, int last, int n)
{
    unsigned long long steps = 0, lanes = 0, load_requests = 0, load_wavefronts = 0, store_requests = 0,
                       store_wavefronts = 0, sectors = 0;
    for (int k = first; k < last; k++) {
        const sim_launch_metrics *m = sim_metrics_get(k);
        if (k == first) run->first_grid_blocks = (int)m->grid[0];
        steps += m->warp_steps, lanes += m->active_lanes;
        load_requests += m->shared_load_requests, load_wavefronts += m->shared_load_wavefronts;
        store_requests += m->shared_store_requests, store_wavefronts += m->shared_store_wavefronts;
        sectors += m->global_load_sectors + m->global_store_sectors;
        run->barriers += (double)m->barriers;
        run->atomics += (double)m->atomics;
        run->max_bank_conflict_ways = std::max(run->max_bank_conflict_ways, m->max_bank_conflict_ways);
        run->h100_estimate_seconds += sim_roofline_estimate_seconds(m, "h100-sxm", NULL);
    }
    run->counted = 1;
    run->launches = last - first;
    run->simt_efficiency = steps ? (double)lanes / (32.0 * (double)steps) : 0;
    run->shared_load_wavefronts_per_request = load_requests ? (double)load_wavefronts / (double)load_requests : 0;
    run->shared_store_wavefronts_per_request = store_requests ? (double)store_wavefronts / (double)store_requests : 0;
    run->shared_wavefronts_per_request = load_requests + store_requests
        ? (double)(load_wavefronts + store_wavefronts) / (double)(load_requests + store_requests) : 0;
    run->barriers_per_element = run->barriers / n;
    run->global_bytes = 32.0 * (double)sectors;
}
#endif

template <typename T>
static reduce_run run_reduction(int version, const T *in, int n, int threads, int count_metrics, T *sum,
                                cudaError_t (*reduce)(int, const T *, T *, T *, int, int))
{
    reduce_run run;
    memset(&run, 0, sizeof run);
    T *device_in = NULL, *device_result = NULL, *scratch = NULL;
    cudaError_t error = cudaMalloc(&device_in, (size_t)n * sizeof(T));
    if (error == cudaSuccess) error = cudaMalloc(&device_result, sizeof(T));
    if (error == cudaSuccess) error = cudaMalloc(&scratch, reduce_scratch_elements(n) * sizeof(T));
    if (error == cudaSuccess) error = cudaMemcpy(device_in, in, (size_t)n * sizeof(T), cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaMemset(device_result, 0xff, sizeof(T));
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    int first = 0;
#ifdef SIM_CUDA
    if (count_metrics) {
        sim_metrics_enable(1);
        first = sim_metrics_count();
        sim_declare_flops((double)n);   /* n - 1 additions; attached to the first launch */
    }
#endif
    if (error == cudaSuccess) error = reduce(version, device_in, device_result, scratch, n, threads);
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
#ifdef SIM_CUDA
    if (count_metrics) {
        sim_metrics_enable(0);
        if (error == cudaSuccess) add_counts(&run, first, sim_metrics_count(), n);
    }
#else
    (void)first, (void)count_metrics;
#endif
    memset(sum, 0xff, sizeof(T));
    if (error == cudaSuccess) error = cudaMemcpy(sum, device_result, sizeof(T), cudaMemcpyDeviceToHost);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
        return run;
    }
    cudaFree(device_in), cudaFree(device_result), cudaFree(scratch);
    return run;
}

extern "C" reduce_run gpu_reduce_int(int version, const int *in, int n, int threads_per_block, int count_metrics,
                                     int *sum)
{
    return run_reduction<int>(version, in, n, threads_per_block, count_metrics, sum, reduce_int);
}

extern "C" reduce_run gpu_reduce_float(int version, const float *in, int n, int threads_per_block,
                                       int count_metrics, float *sum)
{
    return run_reduction<float>(version, in, n, threads_per_block, count_metrics, sum, reduce_float);
}

extern "C" double gpu_reduce_float_milliseconds(int version, const float *in, int n, int threads_per_block,
                                                int repeats)
{
#ifdef SIM_CUDA
    (void)version, (void)in, (void)n, (void)threads_per_block, (void)repeats;
    return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
#else
    float *device_in = NULL, *device_result = NULL, *scratch = NULL;
    cudaError_t error = cudaMalloc(&device_in, (size_t)n * sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(&device_result, sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(&scratch, reduce_scratch_elements(n) * sizeof(float));
    if (error == cudaSuccess) error = cudaMemcpy(device_in, in, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    double median = lab_gpu_median_milliseconds(repeats, &error, [&] {
        return reduce_float(version, device_in, device_result, scratch, n, threads_per_block);
    });
    cudaFree(device_in), cudaFree(device_result), cudaFree(scratch);
    return median;
#endif
}
