/* dynamic_shared_too_small.cu — planted bug: a kernel that keeps a row of n floats in dynamic shared
 * memory, launched with room for n shorts (sizeof(short), 2 bytes) instead of n floats: half the row lies
 * past what the launch gave. On a GPU the writes land in the block's static shared memory or fault; the
 * simulator names the launch's third argument. */
#include <cstdio>

__global__ void keep_row(const float *in, float *out, int n)
{
    extern __shared__ float row[];
    __shared__ float total;
    for (int i = threadIdx.x; i < n; i += blockDim.x) row[i] = in[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        total = 0;
        for (int i = 0; i < n; i++) total += row[i];
        *out = total;
    }
}

int main()
{
    int n = 1024;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    keep_row<<<1, 256, n * sizeof(short)>>>(in, out, n);
    printf("launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
