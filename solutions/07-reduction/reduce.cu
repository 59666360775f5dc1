/* reduce.cu — Day 07: the parallel reduction, one small step at a time.
 *
 * Six kernels that each sum n numbers (int exactly, float within a rounding bound), in the
 * order of Mark Harris's "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007), brought up
 * to date (warp shuffles instead of volatile shared memory, one atomic per block):
 *
 *   version 1  interleaved addressing, divergent branch: at stride s, thread t adds when
 *              t % (2s) == 0, so the busy threads are scattered over every warp.    (given)
 *   version 2  interleaved addressing, no divergent branch: thread t works on index 2·s·t,
 *              so the busy threads are the first ones and whole warps fall idle — but
 *              lanes now read words 2·s apart, which land in the same bank.        (given)
 *   version 3  sequential addressing: the stride starts at half the block and halves;
 *              thread t < s adds partial[t + s]. Neighbouring lanes read neighbouring
 *              words: no bank conflicts.                                            (TODO)
 *   version 4  first add during load: each block covers 2·blockDim.x elements and each
 *              thread adds its two while loading. Half the blocks, so half the
 *              __syncthreads() per element.                                         (TODO)
 *   version 5  a warp-shuffle tail: once 64 partial sums are left, the first warp
 *              finishes with __shfl_down_sync, in registers: no shared memory and no
 *              __syncthreads() for the last six steps.                              (TODO)
 *   version 6  grid-stride loop and one atomic per block: a grid sized to the GPU, each
 *              thread sums many elements in a register, each block adds its total to
 *              the result with one atomicAdd. One launch, no second pass.           (TODO)
 *
 * Versions 1-5 write one partial sum per block; the host side at the bottom (given) runs the
 * same kernel again over the partial sums until one is left. Each version is a small diff
 * from the one before it: compare them side by side.
 *
 * Rules: blocks have threads_per_block threads, a power of two from 64 to 1024 (so a block
 * holds whole warps, and version 5's first warp has 64 partial sums to start from). Every
 * element counts exactly once, whatever n is: the last block may hang over the end of the
 * input. Keep one kernel per version: the checks count each version's barriers, bank
 * conflicts, divergence and atomics on the simulator.
 *
 * Check:  make check DAY=07        Stuck?  make hint DAY=07
 */
#include "lab.h"

#define MAX_THREADS 1024   // the largest block: the shared array below has one slot per thread

// ----------------------------------------------------------------------------
// The kernels. T is int or float; `in` has n elements; `out` gets one sum per block.

// Version 1: interleaved addressing with a divergent branch.
template <typename T> __global__ void reduce1(const T *in, T *out, int n)
{
    __shared__ T partial[MAX_THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : T(0);   // spare threads of the last block add zeros
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) partial[tid] += partial[tid + s];   // 16 of 32 lanes, then 8, 4, ...
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

// Version 2: the same pairs, but thread t takes the t-th pair, so busy threads are contiguous.
template <typename T> __global__ void reduce2(const T *in, T *out, int n)
{
    __shared__ T partial[MAX_THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        int index = 2 * s * tid;   // lanes 2·s words apart: several land in one bank
        if (index < blockDim.x) partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

// Version 3: sequential addressing.
template <typename T> __global__ void reduce3(const T *in, T *out, int n)
{
    __shared__ T partial[MAX_THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];   // lane k reads word k + s: 32 banks
        __syncthreads();                                 // the next step reads what this one wrote
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

// Version 4: first add during load. A block covers 2·blockDim.x elements.
template <typename T> __global__ void reduce4(const T *in, T *out, int n)
{
    __shared__ T partial[MAX_THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];   // each element is checked on its own
    partial[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

// Version 5: version 4 whose last six steps are warp shuffles in the first warp.
template <typename T> __global__ void reduce5(const T *in, T *out, int n)
{
    __shared__ T partial[MAX_THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    partial[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s /= 2) {   // stop with 64 partial sums left
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {                                  // the whole first warp, no other
        sum = partial[tid] + partial[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, offset);   // every lane takes part
        if (tid == 0) out[blockIdx.x] = sum;
    }
}

// Version 6: a grid-stride loop in registers, version 5's block reduction, one atomic per block.
template <typename T> __global__ void reduce6(const T *in, T *result, int n)
{
    __shared__ T partial[MAX_THREADS];
    int tid = threadIdx.x;
    T sum = T(0);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += in[i];                                // coalesced sweeps, no barrier
    partial[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        sum = partial[tid] + partial[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (tid == 0) atomicAdd(result, sum);        // one atomic per block, not per thread
    }
}

// ----------------------------------------------------------------------------
// The host side: how many blocks, and how many passes.

int reduce_blocks(int version, int n, int threads_per_block)
{
    if (version == 6) {
        // As many blocks as the GPU holds at once, and no more than n needs.
        cudaDeviceProp properties;
        if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) return 0;
        int resident = properties.multiProcessorCount * (properties.maxThreadsPerMultiProcessor / threads_per_block);
        int needed = n / threads_per_block + (n % threads_per_block != 0);
        return needed < resident ? needed : resident;
    }
    int per_block = version >= 4 ? 2 * threads_per_block : threads_per_block;   // versions 4, 5: two each
    return n / per_block + (n % per_block != 0);
}

// One launch of version 1-5 over `count` elements of `from`, one sum per block into `to`.
template <typename T> static void launch_pass(int version, int blocks, int threads, const T *from, T *to, int count)
{
    switch (version) {
    case 1: reduce1<T><<<blocks, threads>>>(from, to, count); break;
    case 2: reduce2<T><<<blocks, threads>>>(from, to, count); break;
    case 3: reduce3<T><<<blocks, threads>>>(from, to, count); break;
    case 4: reduce4<T><<<blocks, threads>>>(from, to, count); break;
    case 5: reduce5<T><<<blocks, threads>>>(from, to, count); break;
    }
}

// Versions 1-5: pass after pass, n -> blocks -> blocks of blocks ... -> 1. The end of a kernel
// is the only barrier between blocks, so each level of the tree above the block is a launch.
template <typename T>
static cudaError_t reduce_in_passes(int version, const T *in, T *result, T *scratch, int n, int threads)
{
    T *region_a = scratch, *region_b = scratch + reduce_blocks(version, n, threads);
    const T *from = in;
    int count = n;
    for (;;) {
        int blocks = reduce_blocks(version, count, threads);
        T *to = blocks == 1 ? result : from == region_a ? region_b : region_a;
        launch_pass<T>(version, blocks, threads, from, to, count);
        cudaError_t error = cudaGetLastError();
        if (error != cudaSuccess || blocks == 1) return error;
        from = to, count = blocks;
    }
}

// Version 6: one launch. The atomics add to whatever *result holds, so it starts at zero.
template <typename T> static cudaError_t reduce_with_atomics(const T *in, T *result, int n, int threads)
{
    cudaError_t error = cudaMemset(result, 0, sizeof(T));   // all-zero bits: 0 and 0.0f
    if (error != cudaSuccess) return error;
    reduce6<T><<<reduce_blocks(6, n, threads), threads>>>(in, result, n);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t reduce_on_device(int version, const T *in, T *result, T *scratch, int n, int threads)
{
    if (version < 1 || version > REDUCE_VERSIONS || n < 1) return cudaErrorInvalidValue;
    if (version == 6) return reduce_with_atomics<T>(in, result, n, threads);
    return reduce_in_passes<T>(version, in, result, scratch, n, threads);
}

extern "C" cudaError_t reduce_int(int version, const int *in, int *result, int *scratch, int n, int threads_per_block)
{
    return reduce_on_device<int>(version, in, result, scratch, n, threads_per_block);
}

extern "C" cudaError_t reduce_float(int version, const float *in, float *result, float *scratch, int n,
                                    int threads_per_block)
{
    return reduce_on_device<float>(version, in, result, scratch, n, threads_per_block);
}
