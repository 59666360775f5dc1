/* barrier_in_a_branch.cu — planted bug: two __syncthreads() in the two arms of a branch. */
#include <cstdio>

__global__ void split(float *x)
{
    if (threadIdx.x < 64) {
        x[threadIdx.x] = 1.0f;
        __syncthreads();
    } else {
        __syncthreads();
        x[threadIdx.x] = 2.0f;
    }
}

int main()
{
    float *x;
    cudaMalloc(&x, 128 * sizeof(float));
    split<<<1, 128>>>(x);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
