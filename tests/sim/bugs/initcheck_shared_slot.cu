/* initcheck_shared_slot.cu — planted bug: a block max whose final loop runs one slot too far
 * (i <= warps), reading the shared slot after the last one the warps filled. Shared memory starts
 * every block as 0xff bytes here (a NaN), and fmaxf returns its other operand when one is NaN, so the
 * answer comes out right on the simulator; on a GPU the slot holds whatever an earlier block left
 * there. With SIM_INITCHECK=1 (set below) the read is reported. (Day 17's block_max, mutated.) */
#include <cstdio>
#include <cstdlib>

__global__ void block_max(const float *in, float *out)
{
    __shared__ float partial[32];
    int warps = blockDim.x / 32, lane = threadIdx.x % 32;
    float v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    if (lane == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float m = partial[0];
        for (int i = 1; i <= warps; i++) m = fmaxf(m, partial[i]);
        *out = m;
    }
}

int main()
{
    setenv("SIM_INITCHECK", "1", 1);
    float host[256], *in, *out, result = 0;
    for (int i = 0; i < 256; i++) host[i] = (float)(i % 97);
    cudaMalloc(&in, sizeof host);
    cudaMalloc(&out, sizeof(float));
    cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
    block_max<<<1, 256>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost);
    return 0;
}
