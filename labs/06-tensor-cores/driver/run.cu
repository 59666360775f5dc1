/* run.cu — Day 06 driver: runs your tile kernel on device memory, CUDA's own conversions on
 * the device, and one cuBLAS GEMM four ways. Do not edit.
 *
 * Before your kernel starts, D is filled with the poison pattern (0xff bytes, a NaN) and
 * followed by a guard region filled with a finite sentinel (0x5a bytes). Afterwards an
 * element of D still poisoned was never written, and a guard word that changed was written
 * out of bounds. (The sentinel is not a NaN: NaN arithmetic can give back the same NaN.) */
#include "lab.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <device_buffer.cuh>

static const size_t GUARD_BYTES = 4096 * 4;   /* more than a whole tile past the end */

/* A device buffer of `bytes` copied from host (or poisoned when host is NULL), followed by
 * the guard when `guard` is set (lib/lab/device_buffer.cuh). */
static void *device_buffer(const void *host, size_t bytes, int guard, cudaError_t *error)
{
    return lab_device_buffer(host, bytes, guard ? GUARD_BYTES : 0, error);
}

/* Waits for the GPU, copies `bytes` of the result back and counts changed guard words. */
static gpu_run finish(void *device, void *host, size_t bytes, int guard, cudaError_t error)
{
    gpu_run run = {NULL, 0};
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    run.written_past_end = lab_device_fetch(host, device, bytes, guard ? GUARD_BYTES : 0, &error);
    if (error != cudaSuccess) run.error = cudaGetErrorString(error);
    return run;
}

extern "C" gpu_run gpu_mma_tiles(const uint16_t *a, const uint16_t *b, const float *c, float *d, int tiles)
{
    cudaError_t error = cudaSuccess;
    size_t elements = (size_t)tiles * TILE * TILE;
    __half *device_a = (__half *)device_buffer(a, elements * 2, 0, &error);
    __half *device_b = (__half *)device_buffer(b, elements * 2, 0, &error);
    float *device_c = (float *)device_buffer(c, elements * 4, 0, &error);
    float *device_d = (float *)device_buffer(NULL, elements * 4, 1, &error);
    if (error == cudaSuccess) launch_mma_tiles(device_a, device_b, device_c, device_d, tiles);
    gpu_run run = finish(device_d, d, elements * 4, 1, error);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c), cudaFree(device_d);
    return run;
}

/* ---------------------------------------------------------------------------------
 * CUDA's conversions, on the device */

__global__ void convert_to_half(const float *x, unsigned short *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __half_as_ushort(__float2half_rn(x[i]));
}

__global__ void convert_to_bfloat16(const float *x, unsigned short *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(x[i]));
}

static gpu_run convert(const float *x, uint16_t *out, int n, int to_bfloat16)
{
    cudaError_t error = cudaSuccess;
    float *device_x = (float *)device_buffer(x, (size_t)n * 4, 0, &error);
    unsigned short *device_out = (unsigned short *)device_buffer(NULL, (size_t)n * 2, 0, &error);
    if (error == cudaSuccess) {
        int threads = 256, blocks = n / threads + (n % threads != 0);
        if (to_bfloat16) convert_to_bfloat16<<<blocks, threads>>>(device_x, device_out, n);
        else convert_to_half<<<blocks, threads>>>(device_x, device_out, n);
    }
    gpu_run run = finish(device_out, out, (size_t)n * 2, 0, error);
    cudaFree(device_x), cudaFree(device_out);
    return run;
}

extern "C" gpu_run gpu_float_to_half(const float *x, uint16_t *out, int n) { return convert(x, out, n, 0); }
extern "C" gpu_run gpu_float_to_bfloat16(const float *x, uint16_t *out, int n) { return convert(x, out, n, 1); }

/* ---------------------------------------------------------------------------------
 * One GEMM, four ways: how much do the input format and TF32 cost? */

/* ||got - want||_F / ||want||_F */
static double relative_error(const float *got, const double *want, size_t count)
{
    double error = 0, norm = 0;
    for (size_t i = 0; i < count; i++) {
        error += (got[i] - want[i]) * (got[i] - want[i]);
        norm += want[i] * want[i];
    }
    return sqrt(error / norm);
}

/* The bits of x rounded to FP16 or BF16 by CUDA's host-side conversions. */
static uint16_t host_round(float x, cudaDataType type)
{
    uint16_t bits;
    if (type == CUDA_R_16F) {
        __half h = __float2half_rn(x);
        memcpy(&bits, &h, 2);
    } else {
        __nv_bfloat16 h = __float2bfloat16_rn(x);
        memcpy(&bits, &h, 2);
    }
    return bits;
}

extern "C" gemm_errors cublas_gemm_errors(int m, int n, int k, unsigned seed)
{
    gemm_errors out = {NULL, NAN, NAN, NAN, NAN};
    size_t a_count = (size_t)m * k, b_count = (size_t)k * n, c_count = (size_t)m * n;
    float *a = (float *)malloc(a_count * 4), *b = (float *)malloc(b_count * 4), *c = (float *)malloc(c_count * 4);
    uint16_t *a16 = (uint16_t *)malloc(a_count * 2), *b16 = (uint16_t *)malloc(b_count * 2);
    double *want = (double *)calloc(c_count, sizeof(double));
    for (size_t i = 0; i < a_count + b_count; i++) {             /* uniform in [-1, 1], 24 random bits */
        seed = seed * 1664525u + 1013904223u;
        float v = (float)(seed >> 8) * 0x1p-23f - 1.0f;
        if (i < a_count) a[i] = v; else b[i - a_count] = v;
    }
    for (int j = 0; j < n; j++)                                   /* column-major, as cuBLAS stores */
        for (int p = 0; p < k; p++)
            for (int i = 0; i < m; i++) want[(size_t)j * m + i] += (double)a[(size_t)p * m + i] * b[(size_t)j * k + p];

    cudaError_t error = cudaSuccess;
    void *device_a = device_buffer(a, a_count * 4, 0, &error), *device_b = device_buffer(b, b_count * 4, 0, &error);
    void *device_c = device_buffer(NULL, c_count * 4, 0, &error);
    cublasHandle_t handle = NULL;
    if (error != cudaSuccess) out.error = cudaGetErrorString(error);
    else if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) out.error = "cublasCreate failed";
    const float one = 1.0f, zero = 0.0f;
    struct { cudaDataType type; cublasComputeType_t compute; double *result; } ways[] = {
        {CUDA_R_32F, CUBLAS_COMPUTE_32F, &out.fp32},
        {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, &out.tf32},
        {CUDA_R_16F, CUBLAS_COMPUTE_32F, &out.fp16},
        {CUDA_R_16BF, CUBLAS_COMPUTE_32F, &out.bf16},
    };
    for (int w = 0; w < 4 && !out.error; w++) {
        const void *input_a = device_a, *input_b = device_b;
        if (ways[w].type != CUDA_R_32F) {                         /* round the inputs to 16 bits */
            for (size_t i = 0; i < a_count; i++) a16[i] = host_round(a[i], ways[w].type);
            for (size_t i = 0; i < b_count; i++) b16[i] = host_round(b[i], ways[w].type);
            /* the 32-bit buffers hold the 16-bit copies in their first halves */
            if (error == cudaSuccess) error = cudaMemcpy(device_a, a16, a_count * 2, cudaMemcpyHostToDevice);
            if (error == cudaSuccess) error = cudaMemcpy(device_b, b16, b_count * 2, cudaMemcpyHostToDevice);
        }
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        if (error == cudaSuccess)
            status = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, input_a, ways[w].type, m, input_b,
                                  ways[w].type, k, &zero, device_c, CUDA_R_32F, m, ways[w].compute, CUBLAS_GEMM_DEFAULT);
        if (error == cudaSuccess) error = cudaDeviceSynchronize();
        if (error == cudaSuccess) error = cudaMemcpy(c, device_c, c_count * 4, cudaMemcpyDeviceToHost);
        if (error != cudaSuccess) out.error = cudaGetErrorString(error);
        else if (status != CUBLAS_STATUS_SUCCESS) out.error = "cublasGemmEx failed";
        else *ways[w].result = relative_error(c, want, c_count);
    }
    if (handle) cublasDestroy(handle);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    free(a), free(b), free(c), free(a16), free(b16), free(want);
    return out;
}
