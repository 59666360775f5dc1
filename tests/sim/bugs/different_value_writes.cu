/* different_value_writes.cu — planted bug: every lane of a warp writes its own lane number to one
 * shared word, with nothing ordering the writes: which one stays depends on timing. Unlike writes of
 * one value (tests/sim/programs/llmc_same_value_writes.cu, a warning), this is a race, and the launch
 * stops: the second lane's write is reported against the first's. */
#include <cstdio>

__global__ void last_lane(int *out)
{
    __shared__ int winner;
    winner = threadIdx.x % 32;
    __syncthreads();
    out[threadIdx.x] = winner;
}

int main()
{
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    last_lane<<<1, 64>>>(out);
    printf("launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
