/* launch_kernel_unlisted.cu — a template kernel's instance cast to void * for cudaLaunchKernel: on a
 * GPU this works; the simulator cannot find a template's instance from its address, and says what
 * to write instead (the kernel itself, without the cast). */
#include <cstdio>
#include <cuda_runtime.h>

template <typename T> __global__ void add_one(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main()
{
    int n = 256;
    float *x;
    cudaMalloc(&x, n * sizeof(float));
    void *arguments[] = {&x, &n};
    cudaError_t e = cudaLaunchKernel((void *)add_one<float>, dim3(1), dim3(256), arguments, 0, 0);
    printf("launch: %s\n", cudaGetErrorName(e));
    cudaFree(x);
    return 0;
}
