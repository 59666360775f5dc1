/* byte_histogram.cu — an ordinary CUDA C program with shared arrays of 1- and 2-byte elements:
 * in one barrier interval, neighbouring threads write neighbouring elements of one 4-byte word.
 * That is no race (they write different bytes), so the simulator must run it without a report.
 *   lib/sim/tools/simcc -o byte_histogram tests/sim/programs/byte_histogram.cu && ./byte_histogram
 *   nvcc -o byte_histogram tests/sim/programs/byte_histogram.cu && ./byte_histogram   (on a GPU) */
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t error = (call);                                                          \
        if (error != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(error)); \
            exit(EXIT_FAILURE);                                                              \
        }                                                                                    \
    } while (0)

const int THREADS = 256;   /* one thread per byte value, and per byte of the block's chunk */

/* Each block stages its 256 bytes in `chunk` (thread t writes byte t), then thread t counts
 * the bytes equal to t into counts[t] (2 bytes each), and after a barrier thread t adds the
 * count of value 255 - t, written by another thread, to the histogram. */
__global__ void byte_histogram(const unsigned char *data, int n, unsigned int *histogram)
{
    __shared__ unsigned char chunk[THREADS];
    __shared__ unsigned short counts[THREADS];
    int t = threadIdx.x, start = blockIdx.x * THREADS, i = start + t;
    int bytes = n - start < THREADS ? n - start : THREADS;
    chunk[t] = i < n ? data[i] : 0;
    __syncthreads();
    unsigned short count = 0;
    for (int j = 0; j < bytes; j++) count += chunk[j] == t;
    counts[t] = count;
    __syncthreads();
    atomicAdd(&histogram[THREADS - 1 - t], counts[THREADS - 1 - t]);
}

/* Each thread writes its value's share of the bytes as a half into `share` (2 bytes each);
 * after a barrier thread 0 adds them up: the shares of all 256 values make 1. */
__global__ void shares(const unsigned int *histogram, int n, float *total)
{
    __shared__ __half share[THREADS];
    int t = threadIdx.x;
    share[t] = __float2half((float)histogram[t] / n);
    __syncthreads();
    if (t == 0) {
        float sum = 0;
        for (int j = 0; j < THREADS; j++) sum += __half2float(share[j]);
        *total = sum;
    }
}

int main()
{
    const int n = 100000, blocks = (n + THREADS - 1) / THREADS;
    unsigned char *host = (unsigned char *)malloc(n);
    unsigned int seed = 12345, expected[THREADS] = {0}, result[THREADS];
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        host[i] = (unsigned char)(seed >> 16);
        expected[host[i]]++;
    }
    unsigned char *data;
    unsigned int *histogram;
    float *total, host_total;
    CHECK(cudaMalloc(&data, n));
    CHECK(cudaMalloc(&histogram, THREADS * sizeof(unsigned int)));
    CHECK(cudaMalloc(&total, sizeof(float)));
    CHECK(cudaMemcpy(data, host, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(histogram, 0, THREADS * sizeof(unsigned int)));
    byte_histogram<<<blocks, THREADS>>>(data, n, histogram);
    CHECK(cudaGetLastError());
    shares<<<1, THREADS>>>(histogram, n, total);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(result, histogram, sizeof result, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&host_total, total, sizeof host_total, cudaMemcpyDeviceToHost));
    int wrong = 0;
    unsigned int sum = 0;
    for (int v = 0; v < THREADS; v++) wrong += result[v] != expected[v], sum += result[v];
    printf("byte histogram of %d bytes in %d blocks: %u counted, %d of 256 bins wrong\n", n, blocks, sum, wrong);
    printf("the 256 shares, as halves, add up to %.2f\n", host_total);
    CHECK(cudaFree(data));
    CHECK(cudaFree(histogram));
    CHECK(cudaFree(total));
    free(host);
    return 0;
}
