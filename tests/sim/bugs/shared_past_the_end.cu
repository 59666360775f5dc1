/* shared_past_the_end.cu — planted bug: a block reduction whose tile is one element short, so the last
 * thread writes past the end of `tile` into whatever the compiler placed next (here `partial`). On a GPU
 * this is silent (compute-sanitizer memcheck reports it); the simulator leaves a gap after each
 * __shared__ variable and reports the access. */
#include <cstdio>

__global__ void block_sum(const float *in, float *out)
{
    __shared__ float tile[127];     /* one short of the block's 128 threads */
    __shared__ float partial[4];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < 4) {
        float s = 0;
        for (int i = threadIdx.x; i < 127; i += 4) s += tile[i];
        partial[threadIdx.x] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) *out = partial[0] + partial[1] + partial[2] + partial[3];
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 128 * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(in, 0, 128 * sizeof(float));
    block_sum<<<1, 128>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
