/* use_after_free.cu — planted bug: the buffer is freed before the kernel that uses it. */
#include <cstdio>

__global__ void scale(float *x)
{
    int i = threadIdx.x;
    x[i] *= 2.0f;
}

int main()
{
    float *x;
    cudaMalloc(&x, 256 * sizeof(float));
    cudaFree(x);
    scale<<<1, 256>>>(x);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
