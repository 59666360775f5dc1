/* barrier_skipped_then_read.cu — planted bug: only the first warp loads the tile, and the
 * __syncthreads() is inside its branch; the second warp skips the barrier and reads the tile.
 * Its reads race with the first warp's writes, but the mistake is the barrier that the second
 * warp never reaches: the report names that barrier, and the race as what follows from it. */
#include <cstdio>

__global__ void broadcast(const float *in, float *out)
{
    __shared__ float tile[32];
    int t = threadIdx.x;
    if (t < 32) {
        tile[t] = in[t];
        __syncthreads();
    }
    out[t] = tile[t % 32];
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    broadcast<<<1, 64>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
