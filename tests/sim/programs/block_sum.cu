/* block_sum.cu — an ordinary CUDA C program, not a lab: lib/sim/tools/simcc must build and run it
 * unchanged. Each block sums its slice of the input in shared memory (a tree of
 * __syncthreads()-separated steps); the host adds the block sums.
 *   lib/sim/tools/simcc -o block_sum tests/sim/programs/block_sum.cu && ./block_sum
 *   nvcc -o block_sum tests/sim/programs/block_sum.cu && ./block_sum      (on a GPU) */
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t error = (call);                                                          \
        if (error != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(error)); \
            exit(EXIT_FAILURE);                                                              \
        }                                                                                    \
    } while (0)

const int THREADS = 256;

__global__ void block_sum(const int *in, long long *block_sums, int n)
{
    __shared__ long long partial[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = partial[0];
}

int main()
{
    const int n = 1000003, blocks = (n + THREADS - 1) / THREADS;
    int *host = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) host[i] = i % 1000;
    int *in;
    long long *sums, *host_sums = (long long *)malloc(blocks * sizeof(long long));
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&sums, blocks * sizeof(long long)));
    CHECK(cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice));
    block_sum<<<blocks, THREADS>>>(in, sums, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host_sums, sums, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
    long long total = 0, expected = 0;
    for (int b = 0; b < blocks; b++) total += host_sums[b];
    for (int i = 0; i < n; i++) expected += host[i];
    printf("sum of %d elements in %d blocks: %lld (expected %lld)\n", n, blocks, total, expected);
    CHECK(cudaFree(in));
    CHECK(cudaFree(sums));
    free(host), free(host_sums);
    return total == expected ? 0 : 1;
}
