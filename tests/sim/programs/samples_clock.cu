/* samples_clock.cu — written the way NVIDIA's clock sample is: each block's thread 0 reads clock()
 * before and after the work, and the host compares the readings; clock64() beside it. On a GPU
 * they are cycles of the SM's counter; on the simulator they are the running thread's steps (basic
 * blocks of code), documented as such: differences between two readings still rank the work, and
 * clock() in host code stays the C library's. lib/sim/tools/simcc must build and run it unchanged.
 *   lib/sim/tools/simcc -o samples_clock tests/sim/programs/samples_clock.cu && ./samples_clock */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void timed_work(const int *rounds, float *out, clock_t *timer, long long *timer64)
{
    if (threadIdx.x == 0) timer[blockIdx.x] = clock(), timer64[blockIdx.x] = clock64();
    float x = threadIdx.x;
    for (int i = 0; i < rounds[blockIdx.x]; i++) x = x * 0.5f + 1.0f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        timer[blockIdx.x + gridDim.x] = clock();
        timer64[blockIdx.x + gridDim.x] = clock64();
    }
}

int main()
{
    const int blocks = 2, threads = 32;
    int rounds[blocks] = {10, 1000}, *d_rounds;
    float *d_out;
    clock_t timer[2 * blocks], *d_timer;
    long long timer64[2 * blocks], *d_timer64;
    clock_t host_start = clock();
    cudaMalloc((void **)&d_rounds, sizeof rounds);
    cudaMalloc((void **)&d_out, blocks * threads * sizeof(float));
    cudaMalloc((void **)&d_timer, sizeof timer);
    cudaMalloc((void **)&d_timer64, sizeof timer64);
    cudaMemcpy(d_rounds, rounds, sizeof rounds, cudaMemcpyHostToDevice);
    timed_work<<<blocks, threads>>>(d_rounds, d_out, d_timer, d_timer64);
    cudaMemcpy(timer, d_timer, sizeof timer, cudaMemcpyDeviceToHost);
    cudaMemcpy(timer64, d_timer64, sizeof timer64, cudaMemcpyDeviceToHost);
    long long short_work = timer[blocks] - timer[0], long_work = timer[blocks + 1] - timer[1];
    printf("clock() in the kernel counts: %s\n", short_work > 0 ? "yes" : "no");
    printf("1000 rounds read more than 10: %s (by %s)\n", long_work > 10 * short_work ? "yes" : "no",
           long_work > 50 * short_work ? "more than 50x" : "less than 50x");
    printf("clock64() agrees with clock(): %s\n",
           timer64[blocks] - timer64[0] == short_work && timer64[blocks + 1] - timer64[1] == long_work ? "yes" : "no");
    printf("clock() on the host is the C library's, and goes forward: %s\n", clock() >= host_start ? "yes" : "no");
    cudaFree(d_rounds);
    cudaFree(d_out);
    cudaFree(d_timer);
    cudaFree(d_timer64);
    return 0;
}
