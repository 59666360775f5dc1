/* run.cu — Day 07 driver: runs your reductions on device memory, and on the simulator
 * reads what it counted while they ran. Do not edit.
 *
 * The input is allocated with exactly n elements, so a thread that reads past its end is
 * stopped by the simulator (on a GPU it would read garbage). The result is poisoned (every
 * byte 0xff: -1 as an int, NaN as a float) before your code runs, so a result never written,
 * or an atomic added to a result never zeroed, shows. After an error the device is reset,
 * so that the next version starts clean. */
#include "lab.h"

#include <cstdlib>
#include <cstring>
#include <gpu_timer.cuh>
#include <sim_counts.h>

/* Copies what the simulator counted over a version's launches into run. */
static void add_counts(reduce_run *run, const lab_counts *counts, int n)
{
    const sim_launch_metrics *total = &counts->total;
    unsigned long long requests = total->shared_load_requests + total->shared_store_requests;
    run->counted = counts->counted;
    run->launches = counts->launches;
    run->first_grid_blocks = (int)counts->first_grid[0];
    run->simt_efficiency = sim_simt_efficiency(total);
    run->shared_load_wavefronts_per_request = sim_wavefronts_per_request(total, 0);
    run->shared_store_wavefronts_per_request = sim_wavefronts_per_request(total, 1);
    run->shared_wavefronts_per_request =
        requests ? (double)(total->shared_load_wavefronts + total->shared_store_wavefronts) / (double)requests : 0;
    run->max_bank_conflict_ways = total->max_bank_conflict_ways;
    run->barriers = (double)total->barriers;
    run->barriers_per_element = run->barriers / n;
    run->atomics = (double)total->atomics;
    run->global_bytes = 32.0 * (double)(total->global_load_sectors + total->global_store_sectors);
    run->h100_estimate_seconds = lab_counts_roofline_seconds(counts, "h100-sxm");
}

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
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)   /* n - 1 additions, declared with the first launch */
        error = lab_run_counted(count_metrics, (double)n, &counts, [&] {
            cudaError_t launched = reduce(version, device_in, device_result, scratch, n, threads);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts, n);
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
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
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
}
