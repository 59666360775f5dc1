/* missing_syncthreads.cu — planted bug: each thread reads its left neighbour's shared slot
 * with no barrier between the writes and the reads. The first race the simulator meets is
 * thread 1 reading what thread 0 wrote; across warps (thread 32 reading thread 31's slot)
 * only __syncthreads() would order them. */
#include <cstdio>

__global__ void shift_left(const float *in, float *out)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    if (t > 0) out[t] = tile[t - 1];
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    shift_left<<<1, 64>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
