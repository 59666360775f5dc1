/* llmc_same_value_writes.cu — llm.c's layernorm_forward_kernel5 (dev/cuda/layernorm_forward.cu) lets
 * every lane of a warp write the warp's cg::reduce sum to one shared word: 32 unordered writes of the
 * same value. compute-sanitizer's racecheck reports that as a warning, not an error; so does the
 * simulator, once for the line, and the launch goes on with the right answer. The program runs the
 * kernel twice and counts the warnings the simulator printed (stderr, caught in a file). simcc must
 * build and run it unchanged; so must nvcc (where no warning is printed: compute-sanitizer's). */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace cg = cooperative_groups;

__global__ void layernorm_mean(const float *inp, float *mean, int C)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float shared_sum[32];
    int num_warps = blockDim.x / 32, warp_id = threadIdx.x / 32, lane_id = threadIdx.x % 32;
    const float *x = inp + blockIdx.x * C;
    float thread_sum = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) thread_sum += x[i];
    thread_sum = cg::reduce(warp, thread_sum, cg::plus<float>());
    shared_sum[warp_id] = thread_sum;   /* every lane of the warp writes the same value */
    __syncthreads();
    thread_sum = lane_id < num_warps ? shared_sum[lane_id] : 0.0f;
    thread_sum = cg::reduce(warp, thread_sum, cg::plus<float>());
    if (threadIdx.x == 0) mean[blockIdx.x] = thread_sum / C;
}

int main()
{
    enum { ROWS = 4, C = 768 };
    static float host[ROWS * C];
    for (int i = 0; i < ROWS * C; i++) host[i] = (float)(i % C % 7);
    float *inp, *mean, result[ROWS];
    cudaMalloc(&inp, sizeof host);
    cudaMalloc(&mean, sizeof result);
    cudaMemcpy(inp, host, sizeof host, cudaMemcpyHostToDevice);

    fflush(stderr);
    int saved = dup(2);
    FILE *caught = tmpfile();
    dup2(fileno(caught), 2);
    layernorm_mean<<<ROWS, 128>>>(inp, mean, C);
    cudaError_t first = cudaDeviceSynchronize();
    layernorm_mean<<<ROWS, 128>>>(inp, mean, C);
    cudaError_t second = cudaDeviceSynchronize();
    fflush(stderr);
    dup2(saved, 2);

    cudaMemcpy(result, mean, sizeof result, cudaMemcpyDeviceToHost);
    printf("launches: %s, %s; means %g %g %g %g\n", cudaGetErrorName(first), cudaGetErrorName(second), result[0],
           result[1], result[2], result[3]);
    char line[400];
    int warnings = 0, names_the_word = 0, says_same_value = 0;
    rewind(caught);
    while (fgets(line, sizeof line, caught)) {
        warnings += strstr(line, "sim: warning:") != NULL;
        names_the_word += strstr(line, "wrote shared_sum[0] at") != NULL;
        says_same_value += strstr(line, "with the same value") != NULL;
    }
    printf("warnings: %d, naming shared_sum[0]: %d, saying the same value: %d\n", warnings, names_the_word,
           says_same_value);
    return 0;
}
