/* before_the_start.cu — planted bug: a stencil that reads x[i - 1] for i = 0. */
#include <cstdio>

__global__ void difference(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] - x[i - 1];
}

int main()
{
    float *x, *y;
    cudaMalloc(&x, 64 * sizeof(float));
    cudaMalloc(&y, 64 * sizeof(float));
    difference<<<1, 64>>>(x, y, 64);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
