/* host_pointer.cu — planted bug: a malloc'd host array handed straight to a kernel. */
#include <cstdio>
#include <cstdlib>

__global__ void zero(float *x)
{
    x[threadIdx.x] = 0.0f;
}

int main()
{
    float *host = (float *)malloc(1 << 20);
    zero<<<1, 32>>>(host);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    free(host);
    return 0;
}
