/* loop_never_ends.cu — planted bug: a grid-stride loop whose step is threadIdx.x * gridDim.x, so
 * thread 0 never moves on. A GPU would run it until the program is killed; the simulator stops
 * the thread after SIM_MAX_STEPS steps, names the kernel and the thread, and fails the launch. */
#include <cstdio>

__global__ void sum_all(const float *x, float *out, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * threadIdx.x)
        sum += x[i];
    atomicAdd(out, sum);
}

int main()
{
    float *x, *out;
    cudaMalloc(&x, 1000 * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(x, 0, 1000 * sizeof(float));
    sum_all<<<2, 64>>>(x, out, 1000);
    printf("launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
