/* fused.cu — Day 23: kernel fusion. Four steps that follow a matmul, as four kernels (given) and
 * as one (yours):
 *
 *   v = activation(x + bias)     SiLU(v) = v / (1 + exp(-v)),  GELU(v) = v/2 (1 + erf(v / sqrt 2))
 *   h = residual + v             the residual stream: written, the next layer adds to it
 *   y = h / sqrt(mean(h^2) + eps) * weight                    day 17's RMSNorm
 *
 * The unfused chain moves every intermediate through global memory: bias add (read x, bias;
 * write t), activation (read t; write t), residual add (read t, residual; write h), RMSNorm
 * (read h twice, weight; write y) — 12 row transfers per row, 10 without an activation. The
 * fused kernel reads each input once and writes each output once: 6. Same arithmetic, same
 * order, so the same floats; half the bytes, and one launch instead of four.
 *
 * Rules: one block of ROW_THREADS per row (the launch is given); any n from 1 to
 * FUSED_MAX_HIDDEN, so rows need not be a multiple of the block; the row of h stays on chip in
 * kept[] (dynamic shared memory, n floats): nothing but h and y is stored to global memory.
 *
 * Check:  make check DAY=23        Stuck?  make hint DAY=23
 */
#include "lab.h"

#include <math.h>

#define FULL_WARP 0xffffffffu

// Day 17's reductions (given): every thread of the block gets the sum.
static __device__ float warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(FULL_WARP, value, offset);
    return value;
}

static __device__ float block_sum(float value, float *partial)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    value = warp_sum(value);
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = warp_sum(lane < warps ? partial[lane] : 0.0f);
    __syncthreads();
    return value;
}

// The activation, used by the chain and by your kernel alike.
static __device__ float activate(float value, int activation)
{
    if (activation == ACTIVATION_SILU) return value / (1.0f + expf(-value));   // v * sigmoid(v)
    if (activation == ACTIVATION_GELU) return 0.5f * value * (1.0f + erff(value * 0.70710678f));
    return value;
}

/* ---------------------------------------------------------------------------------
 * The unfused chain (given): one thread per element, or day 17's one block per row. */

__global__ void add_bias(const float *x, const float *bias, float *t, long long count, int n)
{
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) t[k] = x[k] + bias[k % n];
}

__global__ void apply_activation(float *t, long long count, int activation)
{
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) t[k] = activate(t[k], activation);
}

__global__ void add_residual(const float *residual, const float *t, float *h, long long count)
{
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) h[k] = residual[k] + t[k];
}

__global__ void rmsnorm(const float *h, const float *weight, float *y, int n, float eps)
{
    __shared__ float partial[32];
    const float *row = h + (size_t)blockIdx.x * n;
    float squares = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) squares += row[i] * row[i];
    float scale = 1.0f / sqrtf(block_sum(squares, partial) / n + eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x) y[(size_t)blockIdx.x * n + i] = row[i] * scale * weight[i];
}

static int valid(int rows, int n, int activation)
{
    return rows >= 1 && n >= 1 && activation >= 0 && activation < ACTIVATIONS;
}

extern "C" cudaError_t chain_unfused(const float *x, const float *bias, const float *residual, const float *weight,
                                     float *intermediate, float *h, float *y, int rows, int n, float eps,
                                     int activation)
{
    if (!valid(rows, n, activation)) return cudaErrorInvalidValue;
    long long count = (long long)rows * n;
    unsigned blocks = (unsigned)((count + ROW_THREADS - 1) / ROW_THREADS);
    add_bias<<<blocks, ROW_THREADS>>>(x, bias, intermediate, count, n);
    if (activation != ACTIVATION_NONE) apply_activation<<<blocks, ROW_THREADS>>>(intermediate, count, activation);
    add_residual<<<blocks, ROW_THREADS>>>(residual, intermediate, h, count);
    rmsnorm<<<rows, ROW_THREADS>>>(h, weight, y, n, eps);
    return cudaGetLastError();
}

/* ---------------------------------------------------------------------------------
 * The fused kernel (yours): block r does all four steps for row r. */

__global__ void add_bias_residual_rmsnorm(const float *x, const float *bias, const float *residual,
                                          const float *weight, float *h, float *y, int n, float eps, int activation)
{
    extern __shared__ float kept[];   // this row of h, n floats: it never goes back to global memory to be read
    __shared__ float partial[32];
    size_t start = (size_t)blockIdx.x * n;
    float squares = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float value = residual[start + i] + activate(x[start + i] + bias[i], activation);   // residual before the norm
        h[start + i] = value;
        kept[i] = value;
        squares += value * value;
    }
    float scale = 1.0f / sqrtf(block_sum(squares, partial) / n + eps);   // the mean over n, not blockDim.x
    for (int i = threadIdx.x; i < n; i += blockDim.x) y[start + i] = kept[i] * scale * weight[i];
}

extern "C" cudaError_t chain_fused(const float *x, const float *bias, const float *residual, const float *weight,
                                   float *h, float *y, int rows, int n, float eps, int activation)
{
    if (!valid(rows, n, activation) || n > FUSED_MAX_HIDDEN) return cudaErrorInvalidValue;
    add_bias_residual_rmsnorm<<<rows, ROW_THREADS, (size_t)n * sizeof(float)>>>(x, bias, residual, weight, h, y, n,
                                                                               eps, activation);
    return cudaGetLastError();
}

/* Row transfers per row: the chain's bias add reads x and bias and writes t; the activation reads
 * and writes t; the residual add reads t and residual and writes h; RMSNorm reads h twice and
 * weight, and writes y. Fused: x, bias, residual and weight read once; h and y written once. */
extern "C" int predicted_row_transfers(int fused, int activation)
{
    if (activation < 0 || activation >= ACTIVATIONS) return -1;
    if (fused) return 4 + 2;
    int bias_add = 3, activation_step = activation == ACTIVATION_NONE ? 0 : 2, residual_add = 3, norm = 4;
    return bias_add + activation_step + residual_add + norm;
}
