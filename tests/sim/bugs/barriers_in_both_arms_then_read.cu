/* barriers_in_both_arms_then_read.cu — planted bug: the two arms of a branch each have their
 * own __syncthreads(). The first warp writes the tile and waits at its barrier; the second
 * warp reads the tile before waiting at the other one. The read races with the writes, but
 * the mistake is the two barriers: the report names them, and the race as what follows. */
#include <cstdio>

__global__ void split(const float *in, float *out)
{
    __shared__ float tile[32];
    int t = threadIdx.x;
    if (t < 32) {
        tile[t] = in[t];
        __syncthreads();
    } else {
        out[t] = tile[t - 32];
        __syncthreads();
    }
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    split<<<1, 64>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
