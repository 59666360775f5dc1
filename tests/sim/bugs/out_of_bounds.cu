/* out_of_bounds.cu — planted bug: no bounds check, 128 threads for 100 elements.
 * The simulator must stop the launch at the first write past the end and say where. */
#include <cstdio>

__global__ void fill(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)n;
    x[i] = 1.0f;
}

int main()
{
    float *x;
    cudaMalloc(&x, 100 * sizeof(float));
    fill<<<1, 128>>>(x, 100);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
