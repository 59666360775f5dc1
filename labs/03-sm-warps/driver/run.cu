/* run.cu — Day 03 driver: asks the CUDA runtime the questions your calculator answers. Do not edit.
 *
 * On a real GPU, cudaOccupancyMaxActiveBlocksPerMultiprocessor says how many blocks of a
 * compiled kernel fit on one SM for a given block size and dynamic shared memory. This file
 * compiles a few kernels that need different numbers of registers, reads what the compiler
 * gave each (cudaFuncGetAttributes: registers per thread, static shared memory), fills a
 * gpu_limits from the device's own properties, and compares your compute_occupancy with the
 * runtime's answer for every block size from 32 to 1024 and several shared-memory sizes.
 * Then it launches each kernel once, for Nsight Compute to profile. The simulator has no
 * occupancy API: there this returns available = 0 and launches nothing. */
#include <cuda_runtime.h>

#include "lab.h"

#include <cstdio>
#include <cstring>

#ifdef SIM_CUDA

extern "C" runtime_comparison compare_with_cuda_runtime(void)
{
    runtime_comparison none;
    memset(&none, 0, sizeof none);
    return none;
}

#else

/* N values kept live across a loop: the compiler needs roughly N registers or more. */
template <int N>
__global__ void hold_values(float *out, float seed)
{
    float v[N];
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = seed * (float)(i + threadIdx.x);
#pragma unroll 1
    for (int step = 0; step < 4; step++) {
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = v[i] * v[(i + 1) % N] + seed;
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < N; i++) sum += v[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/* Static shared memory as well as registers. */
__global__ void with_static_shared(float *out)
{
    __shared__ float tile[3000];
    for (int i = threadIdx.x; i < 3000; i += blockDim.x) tile[i] = (float)i;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 7) % 3000];
}

typedef struct kernel_entry {
    const char *name;
    const void *function;
} kernel_entry;

static gpu_limits limits_of_this_gpu(const cudaDeviceProp &prop)
{
    gpu_limits gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.key, sizeof gpu.key, "this-gpu");
    snprintf(gpu.name, sizeof gpu.name, "%s", prop.name);
    gpu.compute_capability_major = prop.major;
    gpu.compute_capability_minor = prop.minor;
    gpu.warp_size = prop.warpSize;
    gpu.max_threads_per_block = prop.maxThreadsPerBlock;
    gpu.max_warps_per_sm = prop.maxThreadsPerMultiProcessor / prop.warpSize;
    gpu.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    gpu.registers_per_sm = prop.regsPerMultiprocessor;
    /* Not among the device properties; the same on every GPU since compute capability 7.0
     * (cuda_occupancy.h in the CUDA Toolkit). */
    gpu.sm_subpartitions = 4;
    gpu.register_allocation_unit = 256;
    gpu.max_registers_per_thread = 255;
    gpu.shared_memory_allocation_unit_bytes = prop.major >= 8 ? 128 : 256;
    gpu.shared_memory_per_sm_bytes = (int)prop.sharedMemPerMultiprocessor;
    gpu.max_shared_memory_per_block_bytes = (int)prop.sharedMemPerBlockOptin;
    gpu.shared_memory_reserved_per_block_bytes = (int)prop.reservedSharedMemPerBlock;
    return gpu;
}

extern "C" runtime_comparison compare_with_cuda_runtime(void)
{
    runtime_comparison result;
    memset(&result, 0, sizeof result);
    int device = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return result;
    }
    result.available = 1;
    gpu_limits gpu = limits_of_this_gpu(prop);
    snprintf(result.device, sizeof result.device, "%s (compute capability %d.%d)", prop.name, prop.major, prop.minor);

    const kernel_entry kernels[] = {
        {"hold_values<4>", (const void *)hold_values<4>},
        {"hold_values<24>", (const void *)hold_values<24>},
        {"hold_values<48>", (const void *)hold_values<48>},
        {"hold_values<96>", (const void *)hold_values<96>},
        {"hold_values<160>", (const void *)hold_values<160>},
        {"with_static_shared", (const void *)with_static_shared},
    };
    for (const kernel_entry &k : kernels) {
        cudaFuncAttributes attributes;
        if (cudaFuncGetAttributes(&attributes, k.function) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        int largest_dynamic = gpu.max_shared_memory_per_block_bytes - (int)attributes.sharedSizeBytes;
        if (cudaFuncSetAttribute(k.function, cudaFuncAttributeMaxDynamicSharedMemorySize, largest_dynamic) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        const int dynamic_sizes[] = {0, 1000, 20000, 48 * 1024, 57 * 1024, 100 * 1024, largest_dynamic};
        for (int dynamic : dynamic_sizes) {
            if (dynamic > largest_dynamic) continue;
            for (int threads = 32; threads <= gpu.max_threads_per_block; threads += 32) {
                int runtime_blocks = -1;
                if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime_blocks, k.function, threads, (size_t)dynamic) !=
                    cudaSuccess) {
                    cudaGetLastError();
                    continue;
                }
                kernel_resources kernel = {threads, attributes.numRegs, (int)attributes.sharedSizeBytes + dynamic};
                occupancy mine = compute_occupancy(&gpu, kernel);
                result.configurations++;
                if (mine.blocks_per_sm == runtime_blocks) {
                    result.agreements++;
                } else if (!result.first_disagreement[0]) {
                    snprintf(result.first_disagreement, sizeof result.first_disagreement,
                             "%s (%d registers, %d B static shared), %d threads, %d B dynamic shared: yours %d blocks, "
                             "the runtime's %d", k.name, attributes.numRegs, (int)attributes.sharedSizeBytes, threads,
                             dynamic, mine.blocks_per_sm, runtime_blocks);
                }
            }
        }
    }

    /* Launch each kernel once (256 threads a block, four blocks' worth of work per block
     * slot), so that Nsight Compute has launches to profile: see the chapter. */
    int blocks = prop.multiProcessorCount * prop.maxBlocksPerMultiProcessor * 4;
    float *out = NULL;
    if (cudaMalloc(&out, sizeof(float) * (size_t)blocks * 256) == cudaSuccess) {
        hold_values<4><<<blocks, 256>>>(out, 1.0f);
        hold_values<24><<<blocks, 256>>>(out, 1.0f);
        hold_values<48><<<blocks, 256>>>(out, 1.0f);
        hold_values<96><<<blocks, 256>>>(out, 1.0f);
        hold_values<160><<<blocks, 256>>>(out, 1.0f);
        with_static_shared<<<blocks, 256>>>(out);
        cudaDeviceSynchronize();
        cudaFree(out);
    }
    cudaGetLastError();
    return result;
}

#endif
