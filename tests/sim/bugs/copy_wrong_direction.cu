/* copy_wrong_direction.cu — planted bug: destination and source swapped in a cudaMemcpy. */
#include <cstdio>

int main()
{
    float host[16] = {0}, *device;
    cudaMalloc(&device, sizeof host);
    cudaError_t error = cudaMemcpy(host, device, sizeof host, cudaMemcpyHostToDevice);
    printf("copy: %s\n", cudaGetErrorName(error));
    return 0;
}
