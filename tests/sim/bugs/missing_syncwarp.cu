/* missing_syncwarp.cu — planted bug: the pre-Volta "warp-synchronous" reduction, which
 * assumed the 32 lanes of a warp run in lockstep. Since Volta they need not: lanes of one
 * warp exchanging data through shared memory need __syncwarp() between the steps. */
#include <cstdio>

__global__ void warp_sum(const int *in, int *out)
{
    __shared__ int partial[32];
    int lane = threadIdx.x;
    partial[lane] = in[lane];
    for (int offset = 16; offset > 0; offset /= 2)
        if (lane < offset) partial[lane] += partial[lane + offset];
    if (lane == 0) *out = partial[0];
}

int main()
{
    int *in, *out;
    cudaMalloc(&in, 32 * sizeof(int));
    cudaMalloc(&out, sizeof(int));
    cudaMemset(in, 0, 32 * sizeof(int));
    warp_sum<<<1, 32>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
