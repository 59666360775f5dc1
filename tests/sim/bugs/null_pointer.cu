/* null_pointer.cu — planted bug: a device pointer that was never allocated. */
#include <cstdio>

__global__ void store(float *x)
{
    x[threadIdx.x + 8] = 1.0f;
}

int main()
{
    float *x = NULL;
    store<<<1, 32>>>(x);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
