/* byte_race_with_a_word.cu — planted bug: each thread sets its own flag byte of a shared array
 * of words, which is no race; but thread 0 also clears words[1] with one 4-byte store, and
 * those bytes are the flags of threads 4 to 7, set in the same barrier interval. The report
 * names thread 4 and words[1], the element of the declared type that holds the byte. */
#include <cstdio>

__global__ void set_flags(int *out)
{
    __shared__ unsigned int words[8];
    unsigned char *flags = reinterpret_cast<unsigned char *>(words);
    int t = threadIdx.x;
    flags[t] = 1;
    if (t == 0) words[1] = 0;
    __syncthreads();
    out[t] = flags[t];
}

int main()
{
    int *out;
    cudaMalloc(&out, 32 * sizeof(int));
    set_flags<<<1, 32>>>(out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
