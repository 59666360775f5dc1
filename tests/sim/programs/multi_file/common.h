/* common.h — what every file of the multi_file program shares, in the style of llm.c's
 * dev/cuda/common.h: an error-checking macro, ceil_div, a device function, and a host helper
 * defined in the header that launches a kernel. It is included by .cu files only (a launch in a
 * header is device-compiler code: nvcc would reject it in a .cpp file). */
#pragma once
#include <cstdio>
#include <cstdlib>

#define cudaCheck(call) cuda_check((call), __FILE__, __LINE__)
inline void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

template <class T> __host__ __device__ T ceil_div(T dividend, T divisor) { return (dividend + divisor - 1) / divisor; }

/* The value the inputs are made of: 1, 2, ..., 7, 1, 2, ... */
__device__ inline float pattern(int i) { return (float)(i % 7 + 1); }

__global__ void fill_pattern(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = pattern(i);
}

inline void fill_with_pattern(float *x, int n)
{
    const int block_size = 128;
    fill_pattern<<<ceil_div(n, block_size), block_size>>>(x, n);
    cudaCheck(cudaGetLastError());
}
