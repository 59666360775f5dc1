/* run.cu — Day 09 driver: runs the copy and the two particle updates on device memory, and
 * on the simulator reads what it counted while they ran. Do not edit.
 *
 * The copy's input is allocated at exactly the size it reads, so a thread that reads past
 * its end is stopped by the simulator (on a GPU it would read garbage). Its output is
 * poisoned (0xff bytes, a NaN) and followed by a guard region filled with a finite sentinel
 * (0x5a bytes): afterwards an output element still poisoned was never written, and a guard
 * element that changed was written out of bounds. The particle arrays are allocated at
 * exactly n elements each. After an error the device is reset, so the next run starts clean.
 *
 * Counted, per launch (sim_metrics.h): warp-level load and store requests, the 32-byte
 * sectors they touched, and the bytes the lanes asked for; efficiency = bytes asked for /
 * (32 x sectors), the share of the moved bytes that were used. */
#include "lab.h"

#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <device_buffer.cuh>
#include <gpu_timer.cuh>
#include <sim_counts.h>

static const size_t GUARD_BYTES = 1024 * sizeof(float);   /* at least one whole block of threads past the end */

/* ---------------------------------------------------------------------------------
 * Counting */

/* Starts counting the launches that follow (on the simulator, with count_metrics). */
static int start_counting(int count_metrics)
{
    return count_metrics ? lab_counts_begin() : 0;
}

/* Fills run with what the simulator counted, summed over the launches since start_counting
 * returned `first` (on a GPU nothing is counted: counts.counted is 0). */
static void stop_counting(access_run *run, int count_metrics, int first, cudaError_t error)
{
    if (!count_metrics) return;
    lab_counts counts = lab_counts_end(first);
    if (error != cudaSuccess || !counts.counted) return;
    const sim_launch_metrics *total = &counts.total;
    double load_sectors = (double)total->global_load_sectors, store_sectors = (double)total->global_store_sectors;
    run->counted = 1;
    run->launches = counts.launches;
    run->blocks = (int)counts.first_grid[0];
    run->block_threads = (int)counts.max_block_threads;
    run->load_requests = (double)total->global_load_requests;
    run->store_requests = (double)total->global_store_requests;
    run->load_sectors_per_request = sim_sectors_per_request(total, 0);
    run->store_sectors_per_request = sim_sectors_per_request(total, 1);
    run->load_efficiency = load_sectors ? (double)total->global_load_bytes / (SECTOR_BYTES * load_sectors) : 0;
    run->store_efficiency = store_sectors ? (double)total->global_store_bytes / (SECTOR_BYTES * store_sectors) : 0;
}

/* Ends a run: the error, if any, goes into run, and a failed device is reset. */
static access_run finish(access_run run, cudaError_t error)
{
    if (error == cudaSuccess) return run;
    run.error = cudaGetErrorString(error);
    cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
    return run;
}

/* ---------------------------------------------------------------------------------
 * The strided copy */

extern "C" access_run gpu_strided_copy(const float *in, float *out, int n, int stride, int offset,
                                       int threads_per_block, int count_metrics)
{
    access_run run;
    memset(&run, 0, sizeof run);
    size_t in_bytes = (size_t)copy_input_elements(n, stride, offset) * sizeof(float);
    size_t out_bytes = (size_t)n * sizeof(float);
    cudaError_t error = cudaSuccess;
    float *device_in = (float *)lab_device_buffer(in, in_bytes, 0, &error);
    float *device_out = (float *)lab_device_buffer(NULL, out_bytes, GUARD_BYTES, &error);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    if (error == cudaSuccess) {
        int first = start_counting(count_metrics);
        launch_strided_copy(device_in, device_out, n, stride, offset, threads_per_block);
        error = cudaGetLastError();
        if (error == cudaSuccess) error = cudaDeviceSynchronize();
        stop_counting(&run, count_metrics, first, error);
    }
    run.written_past_end = lab_device_fetch(out, device_out, out_bytes, GUARD_BYTES, &error);
    if (error == cudaSuccess) cudaFree(device_in), cudaFree(device_out);
    return finish(run, error);
}

/* The input of the copy past 2^31: address space that only the elements the copy reads touch.
 * On the simulator, a private anonymous mapping (pages the host never writes read as zeros and
 * take no memory) registered so that kernels may read it; on a GPU, zeroed device memory. */
static float *sparse_input(size_t bytes, cudaError_t *error)
{
    void *in = NULL;
    if (LAB_SIMULATED) {
        in = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (in == MAP_FAILED) *error = cudaErrorMemoryAllocation, in = NULL;
        if (*error == cudaSuccess) *error = cudaHostRegister(in, bytes, cudaHostRegisterMapped);
    } else {
        *error = cudaMalloc(&in, bytes);
        if (*error == cudaSuccess) *error = cudaMemset(in, 0, bytes);
    }
    return (float *)in;
}

static void free_sparse_input(float *in, size_t bytes)
{
    if (!in) return;
    if (LAB_SIMULATED) cudaHostUnregister(in), munmap(in, bytes);   /* a reset does not unregister it */
    else cudaFree(in);
}

extern "C" access_run gpu_strided_copy_past_2_31(float *out, int n, int stride, int offset, int threads_per_block)
{
    access_run run;
    memset(&run, 0, sizeof run);
    size_t in_bytes = (size_t)copy_input_elements(n, stride, offset) * sizeof(float);
    size_t out_bytes = (size_t)n * sizeof(float);
    cudaError_t error = cudaSuccess;
    float *in = sparse_input(in_bytes, &error);
    for (int i = 0; i < n && error == cudaSuccess; i++) {
        float value = past_2_31_value(i);
        error = cudaMemcpy(in + offset + (long long)i * stride, &value, sizeof value, cudaMemcpyDefault);
    }
    float *device_out = (float *)lab_device_buffer(NULL, out_bytes, GUARD_BYTES, &error);
    if (error == cudaSuccess) {
        launch_strided_copy(in, device_out, n, stride, offset, threads_per_block);
        error = cudaGetLastError();
        if (error == cudaSuccess) error = cudaDeviceSynchronize();
    }
    run.written_past_end = lab_device_fetch(out, device_out, out_bytes, GUARD_BYTES, &error);
    free_sparse_input(in, in_bytes);   /* even after a fault: the mapping is the host's, not the device's */
    if (error == cudaSuccess) cudaFree(device_out);
    return finish(run, error);
}

/* ---------------------------------------------------------------------------------
 * The particle update, in both layouts */

extern "C" access_run gpu_update_particles_aos(particle *p, int n, float dt, int threads_per_block,
                                               int count_metrics)
{
    access_run run;
    memset(&run, 0, sizeof run);
    particle *device_p = NULL;
    size_t bytes = (size_t)n * sizeof(particle);
    cudaError_t error = cudaMalloc(&device_p, bytes);
    if (error == cudaSuccess) error = cudaMemcpy(device_p, p, bytes, cudaMemcpyHostToDevice);
    if (error == cudaSuccess) {
        int first = start_counting(count_metrics);
        launch_update_particles_aos(device_p, n, dt, threads_per_block);
        error = cudaGetLastError();
        if (error == cudaSuccess) error = cudaDeviceSynchronize();
        stop_counting(&run, count_metrics, first, error);
    }
    if (error == cudaSuccess) error = cudaMemcpy(p, device_p, bytes, cudaMemcpyDeviceToHost);
    if (error == cudaSuccess) cudaFree(device_p);
    return finish(run, error);
}

enum { SOA_FIELDS = 6 };

/* The six fields of a particle, in the order of particles_soa. */
static float *field_of(particle *p, int field)
{
    float *fields[SOA_FIELDS] = {&p->x, &p->y, &p->z, &p->vx, &p->vy, &p->vz};
    return fields[field];
}

static float **array_of(particles_soa *soa, int field)
{
    float **arrays[SOA_FIELDS] = {&soa->x, &soa->y, &soa->z, &soa->vx, &soa->vy, &soa->vz};
    return arrays[field];
}

extern "C" access_run gpu_update_particles_soa(particle *p, int n, float dt, int threads_per_block,
                                               int count_metrics)
{
    access_run run;
    memset(&run, 0, sizeof run);
    particles_soa device;
    memset(&device, 0, sizeof device);
    float *column = (float *)malloc((size_t)n * sizeof(float));
    cudaError_t error = cudaSuccess;
    for (int f = 0; f < SOA_FIELDS && error == cudaSuccess; f++) {
        for (int i = 0; i < n; i++) column[i] = *field_of(&p[i], f);
        error = cudaMalloc(array_of(&device, f), (size_t)n * sizeof(float));
        if (error == cudaSuccess)
            error = cudaMemcpy(*array_of(&device, f), column, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    }
    if (error == cudaSuccess) {
        int first = start_counting(count_metrics);
        launch_update_particles_soa(device, n, dt, threads_per_block);
        error = cudaGetLastError();
        if (error == cudaSuccess) error = cudaDeviceSynchronize();
        stop_counting(&run, count_metrics, first, error);
    }
    for (int f = 0; f < SOA_FIELDS && error == cudaSuccess; f++) {
        error = cudaMemcpy(column, *array_of(&device, f), (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
        for (int i = 0; i < n && error == cudaSuccess; i++) *field_of(&p[i], f) = column[i];
    }
    if (error == cudaSuccess)
        for (int f = 0; f < SOA_FIELDS; f++) cudaFree(*array_of(&device, f));
    free(column);
    return finish(run, error);
}

/* ---------------------------------------------------------------------------------
 * The probe the model is checked against: one warp, lane l loads element
 * offset + l * stride of an array of element_bytes-byte elements. */

template <typename T> __global__ void probe_load(const T *in, T *out, int stride, int offset)
{
    out[threadIdx.x] = in[offset + threadIdx.x * stride];
}

/* unsigned __int128, not float4, for 16 bytes: the simulator sees a float4 copy as a memcpy,
 * which it does not count. */
template <typename T> static int count_one_warp(int stride, int offset)
{
    T *in = NULL, *out = NULL;
    size_t in_bytes = (size_t)copy_input_elements(WARP_LANES, stride, offset) * sizeof(T);
    cudaError_t error = cudaMalloc(&in, in_bytes);
    if (error == cudaSuccess) error = cudaMalloc(&out, WARP_LANES * sizeof(T));
    if (error == cudaSuccess) error = cudaMemset(in, 0, in_bytes);
    int sectors = -1;
    if (error == cudaSuccess) {
        int first = lab_counts_begin();
        probe_load<T><<<1, WARP_LANES>>>(in, out, stride, offset);
        error = cudaDeviceSynchronize();
        lab_counts counts = lab_counts_end(first);
        if (error == cudaSuccess && counts.launches == 1 && counts.total.global_load_requests == 1)
            sectors = (int)counts.total.global_load_sectors;
    }
    cudaFree(in), cudaFree(out);
    return sectors;
}

extern "C" int counted_sectors_per_request(int stride_elements, int offset_elements, int element_bytes)
{
    if (!LAB_SIMULATED) return -1;   /* counted on the simulator only; ncu measures it on a GPU */
    switch (element_bytes) {
        case 1: return count_one_warp<unsigned char>(stride_elements, offset_elements);
        case 2: return count_one_warp<unsigned short>(stride_elements, offset_elements);
        case 4: return count_one_warp<float>(stride_elements, offset_elements);
        case 8: return count_one_warp<double>(stride_elements, offset_elements);
        case 16: return count_one_warp<unsigned __int128>(stride_elements, offset_elements);
        default: return -1;
    }
}

/* ---------------------------------------------------------------------------------
 * Timing on a real GPU (lib/lab/gpu_timer.cuh) */

extern "C" double gpu_strided_copy_milliseconds(int n, int stride, int offset, int repeats)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    float *in = NULL, *out = NULL;
    size_t in_bytes = (size_t)copy_input_elements(n, stride, offset) * sizeof(float);
    cudaError_t error = cudaMalloc(&in, in_bytes);
    if (error == cudaSuccess) error = cudaMalloc(&out, (size_t)n * sizeof(float));
    if (error == cudaSuccess) error = cudaMemset(in, 0, in_bytes);
    double median = lab_gpu_median_milliseconds(repeats, &error, [&] {
        launch_strided_copy(in, out, n, stride, offset, 256);
        return cudaGetLastError();
    });
    cudaFree(in), cudaFree(out);
    return median;
}

extern "C" double gpu_update_particles_milliseconds(int soa, int n, int repeats)
{
    if (LAB_SIMULATED) return -1;
    particle *aos = NULL;
    particles_soa arrays;
    memset(&arrays, 0, sizeof arrays);
    cudaError_t error = cudaMalloc(&aos, (size_t)n * sizeof(particle));
    if (error == cudaSuccess) error = cudaMemset(aos, 0, (size_t)n * sizeof(particle));
    for (int f = 0; f < SOA_FIELDS && error == cudaSuccess; f++) {
        error = cudaMalloc(array_of(&arrays, f), (size_t)n * sizeof(float));
        if (error == cudaSuccess) error = cudaMemset(*array_of(&arrays, f), 0, (size_t)n * sizeof(float));
    }
    double median = lab_gpu_median_milliseconds(repeats, &error, [&] {
        if (soa) launch_update_particles_soa(arrays, n, 0.01f, 256);
        else launch_update_particles_aos(aos, n, 0.01f, 256);
        return cudaGetLastError();
    });
    cudaFree(aos);
    for (int f = 0; f < SOA_FIELDS; f++) cudaFree(*array_of(&arrays, f));
    return median;
}
