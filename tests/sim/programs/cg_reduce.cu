/* cg_reduce.cu — a block reduction written the way NVIDIA's CUDA samples write it with cooperative
 * groups: a grid-stride sum per thread, then either a tree in shared memory finished by
 * tile32.shfl_down (the samples' reduce6), or cg::reduce in each tile of 32 and once more over the
 * tiles' sums (their cg_reduce, here storing each tile's sum with cg::reduce_store_async). The host adds the blocks' sums and checks them against its own.
 * lib/sim/tools/simcc must build and run it unchanged; so must nvcc:
 *   lib/sim/tools/simcc -o cg_reduce tests/sim/programs/cg_reduce.cu && ./cg_reduce
 *   nvcc -o cg_reduce tests/sim/programs/cg_reduce.cu && ./cg_reduce      (on a GPU) */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cudaError_t error = (call);                                                                  \
        if (error != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(error)); \
            exit(EXIT_FAILURE);                                                                      \
        }                                                                                            \
    } while (0)

const int THREADS = 256, BLOCKS = 64;

/* Shared memory halves the block's sums down to 64, then the first warp finishes with shuffles. */
__global__ void reduce_tree_then_shuffle(const int *in, int *block_sums, int n)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ int sdata[THREADS];
    unsigned int tid = threadIdx.x;
    int sum = 0;
    for (int i = blockIdx.x * THREADS + tid; i < n; i += THREADS * gridDim.x) sum += in[i];
    sdata[tid] = sum;
    cg::sync(cta);
    for (unsigned int half = THREADS / 2; half > 32; half /= 2) {
        if (tid < half) sdata[tid] = sum = sum + sdata[tid + half];
        cg::sync(cta);
    }
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        sum += sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2) sum += tile32.shfl_down(sum, offset);
    }
    if (cta.thread_rank() == 0) block_sums[blockIdx.x] = sum;
}

/* Each tile of 32 reduces with cg::reduce_store_async, its rank 0 storing the tile's sum; the first tile
 * reduces the tiles' sums with cg::reduce. */
__global__ void reduce_with_cg_reduce(const int *in, int *block_sums, int n)
{
    __shared__ int tile_sums[THREADS / 32];
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
    int sum = 0;
    for (int i = blockIdx.x * cta.size() + cta.thread_rank(); i < n; i += cta.size() * gridDim.x) sum += in[i];
    cg::reduce_store_async(tile, &tile_sums[tile.meta_group_rank()], sum, cg::plus<int>());
    cg::sync(cta);
    if (tile.meta_group_rank() == 0) {
        sum = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0;
        sum = cg::reduce(tile, sum, cg::plus<int>());
    }
    if (cta.thread_rank() == 0) block_sums[blockIdx.x] = sum;
}

/* The grid's sum: the blocks' sums, added on the host. */
static long long add_block_sums(const int *block_sums)
{
    int host[BLOCKS];
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, block_sums, sizeof host, cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int b = 0; b < BLOCKS; b++) total += host[b];
    return total;
}

int main()
{
    const int n = 1 << 18;
    int *host = (int *)malloc(n * sizeof(int)), *in;
    unsigned int state = 12345;
    long long expected = 0;
    for (int i = 0; i < n; i++) {
        state = state * 1103515245u + 12345u;
        host[i] = (int)(state >> 16) & 0xff;
        expected += host[i];
    }
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice));
    int *block_sums;
    CHECK(cudaMalloc(&block_sums, BLOCKS * sizeof(int)));
    printf("%d elements, %d blocks of %d threads; the CPU's sum: %lld\n", n, BLOCKS, THREADS, expected);
    reduce_tree_then_shuffle<<<BLOCKS, THREADS>>>(in, block_sums, n);
    long long tree = add_block_sums(block_sums);
    printf("shared-memory tree, then tile32.shfl_down: %lld\n", tree);
    reduce_with_cg_reduce<<<BLOCKS, THREADS>>>(in, block_sums, n);
    long long tiles = add_block_sums(block_sums);
    printf("cg::reduce in tiles of 32, then over the tiles: %lld\n", tiles);
    CHECK(cudaFree(in));
    CHECK(cudaFree(block_sums));
    free(host);
    bool passed = tree == expected && tiles == expected;
    printf("Test %s\n", passed ? "PASSED" : "FAILED");
    return passed ? EXIT_SUCCESS : EXIT_FAILURE;
}
