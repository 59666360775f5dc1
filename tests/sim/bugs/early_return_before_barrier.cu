/* early_return_before_barrier.cu — planted bug: threads past n return, the rest wait at a
 * barrier they can never pass. On a GPU: a hang or silent corruption. */
#include <cstdio>

__global__ void smooth(const float *in, float *out, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[threadIdx.x > 0 ? threadIdx.x - 1 : 0];
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 300 * sizeof(float));
    cudaMalloc(&out, 300 * sizeof(float));
    smooth<<<2, 256>>>(in, out, 300);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
