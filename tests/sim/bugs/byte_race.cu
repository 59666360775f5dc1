/* byte_race.cu — planted bug: each thread claims a slot of a char array by writing its own
 * number there, but threads 6 and 7 claim the same slot, 6, in one barrier interval. Their
 * neighbours write the other bytes of the same 4-byte word, which is no race: the report
 * names owner[6] and nothing else. */
#include <cstdio>

__global__ void claim(const int *slot, int *claimed_by)
{
    __shared__ unsigned char owner[32];
    int t = threadIdx.x;
    owner[slot[t]] = (unsigned char)t;
    __syncthreads();
    claimed_by[t] = owner[t];
}

int main()
{
    int host[32], *slot, *claimed_by;
    for (int t = 0; t < 32; t++) host[t] = t == 7 ? 6 : t;
    cudaMalloc(&slot, sizeof host);
    cudaMalloc(&claimed_by, sizeof host);
    cudaMemcpy(slot, host, sizeof host, cudaMemcpyHostToDevice);
    claim<<<1, 32>>>(slot, claimed_by);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
