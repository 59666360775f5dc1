/* run.cu — Day 22 driver: runs your FlashAttention kernel, or day 18's naive three kernels, on
 * device memory, and on the simulator reads what they counted. Do not edit.
 *
 * The naive kernels are day 18's solution, copied here (the scores, a three-pass softmax in
 * place, P v), so that day 22 compares its bytes with day 18's algorithm and not with your
 * day 18 file. q, k and v are allocated with exactly n x d floats, so a thread that reads past
 * the end is stopped by the simulator (on a GPU it would read garbage); out is poisoned (every
 * byte 0xff, a NaN) and followed by a guard (lib/lab/device_buffer.cuh): afterwards an element
 * still poisoned was never written, and a guard word that changed was written out of bounds.
 * After an error the device is reset, so that the next run starts clean. */
#include "lab.h"
#include "device_buffer.cuh"
#include "gpu_timer.cuh"
#include "sim_counts.h"

#include <cmath>
#include <cstring>

#define FULL_WARP 0xffffffffu
enum { SCORE_TILE = 16, ROW_THREADS = 256 };

// ----------------------------------------------------------------------------
// Day 18's naive attention: three kernels, the n x n scores in global memory between them.

__device__ float naive_warp_max(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value = fmaxf(value, __shfl_xor_sync(FULL_WARP, value, offset));
    return value;
}

__device__ float naive_warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(FULL_WARP, value, offset);
    return value;
}

__device__ float naive_block_max(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = naive_warp_max(value);
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = naive_warp_max(lane < warps ? partial[lane] : -INFINITY);
    __syncthreads();
    return value;
}

__device__ float naive_block_sum(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = naive_warp_sum(value);
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = naive_warp_sum(lane < warps ? partial[lane] : 0.0f);
    __syncthreads();
    return value;
}

__global__ void naive_scores(const float *q, const float *k, float *scores, int n, int d, float scale, int causal)
{
    int i = blockIdx.y * SCORE_TILE + threadIdx.y, j = blockIdx.x * SCORE_TILE + threadIdx.x;
    if (i >= n || j >= n) return;
    float score = -INFINITY;
    if (!causal || j <= i) {
        float dot = 0;
        for (int c = 0; c < d; c++) dot += q[(size_t)i * d + c] * k[(size_t)j * d + c];
        score = dot * scale;
    }
    scores[(size_t)i * n + j] = score;
}

__global__ void naive_softmax_rows(float *scores, int n)
{
    __shared__ float partial[32];
    float *row = scores + (size_t)blockIdx.x * n;
    float max = -INFINITY;
    for (int j = threadIdx.x; j < n; j += blockDim.x) max = fmaxf(max, row[j]);
    max = naive_block_max(max, partial);
    float sum = 0;
    if (max != -INFINITY)
        for (int j = threadIdx.x; j < n; j += blockDim.x) sum += expf(row[j] - max);
    sum = naive_block_sum(sum, partial);
    for (int j = threadIdx.x; j < n; j += blockDim.x) row[j] = sum > 0 ? expf(row[j] - max) / sum : 0.0f;
}

__global__ void naive_output(const float *probabilities, const float *v, float *out, int n, int d)
{
    int i = blockIdx.y * SCORE_TILE + threadIdx.y, c = blockIdx.x * SCORE_TILE + threadIdx.x;
    if (i >= n || c >= d) return;
    float sum = 0;
    for (int j = 0; j < n; j++) sum += probabilities[(size_t)i * n + j] * v[(size_t)j * d + c];
    out[(size_t)i * d + c] = sum;
}

static unsigned score_tiles(int count) { return (unsigned)((count + SCORE_TILE - 1) / SCORE_TILE); }

static cudaError_t naive_attention(const float *q, const float *k, const float *v, float *scores, float *out, int n,
                                   int d, int causal)
{
    float scale = 1.0f / sqrtf((float)d);
    dim3 tile(SCORE_TILE, SCORE_TILE);
    naive_scores<<<dim3(score_tiles(n), score_tiles(n)), tile>>>(q, k, scores, n, d, scale, causal);
    naive_softmax_rows<<<n, ROW_THREADS>>>(scores, n);
    naive_output<<<dim3(score_tiles(d), score_tiles(n)), tile>>>(scores, v, out, n, d);
    return cudaGetLastError();
}

// ----------------------------------------------------------------------------
// Running either on the device.

static cudaError_t launch(int tile, const float *q, const float *k, const float *v, float *scores, float *out, int n,
                          int d, int causal)
{
    if (tile == NAIVE_GPU) return naive_attention(q, k, v, scores, out, n, d, causal);
    return flash_attention_forward(q, k, v, out, n, d, causal, tile);
}

static void add_counts(attention_run *run, const lab_counts *counts)
{
    run->counted = counts->counted;
    run->launches = counts->launches;
    run->global_load_bytes = 32.0 * (double)counts->total.global_load_sectors;
    run->global_store_bytes = 32.0 * (double)counts->total.global_store_sectors;
    run->shared_load_bytes = (double)counts->total.shared_load_bytes;
}

extern "C" attention_run gpu_attention(const float *q, const float *k, const float *v, float *out, int n, int d,
                                       int causal, int tile, int count_metrics)
{
    attention_run run;
    memset(&run, 0, sizeof run);
    size_t matrix = (size_t)n * (size_t)d * sizeof(float), square = (size_t)n * (size_t)n * sizeof(float);
    size_t guard = ((size_t)d + 1024) * sizeof(float);   // room for a whole extra row of stores, and then some
    cudaError_t error = cudaSuccess;
    float *device_q = (float *)lab_device_buffer(q, matrix, 0, &error);
    float *device_k = (float *)lab_device_buffer(k, matrix, 0, &error);
    float *device_v = (float *)lab_device_buffer(v, matrix, 0, &error);
    float *device_out = (float *)lab_device_buffer(NULL, matrix, guard, &error);
    float *device_scores = tile == NAIVE_GPU ? (float *)lab_device_buffer(NULL, square, 0, &error) : NULL;
    run.footprint_bytes = 4.0 * matrix + (tile == NAIVE_GPU ? square : 0);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched = launch(tile, device_q, device_k, device_v, device_scores, device_out, n, d, causal);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts);
    run.written_past_end = lab_device_fetch(out, device_out, matrix, guard, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   // a fault inside a kernel is sticky: start the next run afresh
        return run;
    }
    cudaFree(device_q), cudaFree(device_k), cudaFree(device_v), cudaFree(device_out), cudaFree(device_scores);
    return run;
}

extern "C" double gpu_attention_microseconds(int n, int d, int causal, int tile, int repeats)
{
    if (LAB_SIMULATED) return -1;   // the simulator's time is this CPU's time to simulate, not a GPU's
    size_t matrix = (size_t)n * (size_t)d * sizeof(float), square = (size_t)n * (size_t)n * sizeof(float);
    float *device_qkv = NULL, *device_scores = NULL, *device_out = NULL;
    cudaError_t error = cudaMalloc(&device_qkv, 3 * matrix);
    if (error == cudaSuccess && tile == NAIVE_GPU) error = cudaMalloc(&device_scores, square);
    if (error == cudaSuccess) error = cudaMalloc(&device_out, matrix);
    if (error == cudaSuccess) error = cudaMemset(device_qkv, 0, 3 * matrix);
    const float *q = device_qkv, *k = device_qkv + (size_t)n * d, *v = device_qkv + 2 * (size_t)n * d;
    double milliseconds = lab_gpu_median_milliseconds(repeats, &error, [&] {
        return launch(tile, q, k, v, device_scores, device_out, n, d, causal);
    });
    cudaFree(device_qkv), cudaFree(device_scores), cudaFree(device_out);
    return error == cudaSuccess ? milliseconds * 1e3 : -1;
}
