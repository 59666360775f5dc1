/* copy_past_the_end.cu — planted bug: a byte count in elements times the wrong size. */
#include <cstdio>

int main()
{
    double host[16] = {0};
    float *device;
    cudaMalloc(&device, 16 * sizeof(float));
    cudaError_t error = cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice);
    printf("copy: %s\n", cudaGetErrorName(error));
    return 0;
}
