/* launch_kernel.cu — cudaLaunchKernel as NVIDIA's samples call it: the kernel cast to void *, the
 * arguments an array of pointers to each; and with the kernel itself, here a template's instance. */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) scale(float *x, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

template <typename T> __global__ void add_one(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main()
{
    const int n = 1000;
    float host[n], *device;
    for (int i = 0; i < n; i++) host[i] = (float)i;
    cudaMalloc(&device, n * sizeof(float));
    cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
    float factor = 2.0f;
    int count = n;
    void *arguments[] = {&device, &factor, &count};
    cudaError_t e = cudaLaunchKernel((void *)scale, dim3((n + 255) / 256), dim3(256), arguments, 0, 0);
    printf("void * launch: %s\n", cudaGetErrorString(e));
    void *add_arguments[] = {&device, &count};
    e = cudaLaunchKernel(add_one<float>, dim3((n + 127) / 128), dim3(128), add_arguments);
    printf("template launch: %s\n", cudaGetErrorString(e));
    cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("x[0] = %g, x[999] = %g\n", host[0], host[999]);
    cudaFree(device);
    return 0;
}
