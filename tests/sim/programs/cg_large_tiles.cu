/* cg_large_tiles.cu — tiles of several warps, as NVIDIA's reduction sample uses them (kernel 9,
 * multi_warp_cg_reduce): the block, made from block_tile_memory scratch, is cut into tiles of 64 and of
 * 256 threads that each reduce with cg::reduce and combine through shared memory. Then one tile's
 * sync() orders shared writes of one warp before another warp's reads (no race is reported), while the
 * other tile of the block runs on without waiting; and shfl from one rank (of the first warp or the
 * second), any and all over a tile.
 *   lib/sim/tools/simcc -o cg_large_tiles tests/sim/programs/cg_large_tiles.cu && ./cg_large_tiles
 *   nvcc -o cg_large_tiles tests/sim/programs/cg_large_tiles.cu && ./cg_large_tiles   (on a GPU) */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

template <class T, unsigned int BlockSize, unsigned int MultiWarpGroupSize>
__global__ void multi_warp_cg_reduce(const T *g_idata, T *g_odata, unsigned int n)
{
    __shared__ T sdata[BlockSize / MultiWarpGroupSize];
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    cg::thread_block cta = cg::this_thread_block(scratch);
    cg::thread_block_tile<MultiWarpGroupSize> multiWarpTile = cg::tiled_partition<MultiWarpGroupSize>(cta);

    T threadVal = 0;
    for (unsigned int i = blockIdx.x * BlockSize + threadIdx.x; i < n; i += BlockSize * gridDim.x)
        threadVal += g_idata[i];
    threadVal = cg::reduce(multiWarpTile, threadVal, cg::plus<T>());
    if (multiWarpTile.thread_rank() == 0) sdata[multiWarpTile.meta_group_rank()] = threadVal;
    cg::sync(cta);
    if (threadIdx.x == 0) {
        threadVal = 0;
        for (unsigned int i = 0; i < multiWarpTile.meta_group_size(); i++) threadVal += sdata[i];
        g_odata[blockIdx.x] = threadVal;
    }
}

/* Each tile of 64 reverses its slice of shared memory: warp 0 of the tile writes, the tile's sync(),
 * warp 1 reads what warp 0 wrote. No block barrier: the tiles of a block never wait for each other. */
__global__ void reverse_in_tiles(const int *in, int *out, int *tile_facts)
{
    __shared__ int slot[256];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    unsigned int rank = block.thread_rank();
    slot[rank] = in[rank];
    tile.sync();
    unsigned int base = rank - tile.thread_rank();
    out[rank] = slot[base + 63 - tile.thread_rank()];
    int first = tile.shfl(out[rank], 0), from_second_warp = tile.shfl(out[rank], 40);
    int any_negative = tile.any(in[rank] < 0), all_small = tile.all(in[rank] < 1000);
    tile.sync();   /* a second barrier of the tile: every thread of it arrives again */
    if (tile.thread_rank() == 0) {
        int *facts = &tile_facts[5 * tile.meta_group_rank()];
        facts[0] = first, facts[1] = from_second_warp, facts[2] = any_negative, facts[3] = all_small;
        facts[4] = (int)tile.size();
    }
}

template <unsigned int BlockSize, unsigned int TileSize>
static int run_reduction(const int *d_idata, int *d_odata, unsigned int n, unsigned int blocks, long long expected)
{
    multi_warp_cg_reduce<int, BlockSize, TileSize><<<blocks, BlockSize>>>(d_idata, d_odata, n);
    cudaError_t status = cudaGetLastError();
    int h_odata[64];
    cudaMemcpy(h_odata, d_odata, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    long long sum = 0;
    for (unsigned int b = 0; b < blocks; b++) sum += h_odata[b];
    printf("blocks of %u in tiles of %u: %s, sum %lld, expected %lld\n", BlockSize, TileSize,
           cudaGetErrorName(status), sum, expected);
    return sum == expected && status == cudaSuccess;
}

int main(void)
{
    const unsigned int n = 1 << 16, blocks = 64;
    int *h_idata = (int *)malloc(n * sizeof(int));
    long long expected = 0;
    for (unsigned int i = 0; i < n; i++) expected += h_idata[i] = (int)(i % 255) - 100;
    int *d_idata, *d_odata;
    cudaMalloc(&d_idata, n * sizeof(int));
    cudaMalloc(&d_odata, blocks * sizeof(int));
    cudaMemcpy(d_idata, h_idata, n * sizeof(int), cudaMemcpyHostToDevice);
    int passed = run_reduction<256, 64>(d_idata, d_odata, n, blocks, expected);
    passed &= run_reduction<256, 256>(d_idata, d_odata, n, blocks, expected);
    passed &= run_reduction<512, 128>(d_idata, d_odata, n, blocks, expected);

    int *d_out;
    int *d_facts, facts[20];
    int h_out[256];
    cudaMalloc(&d_out, 256 * sizeof(int));
    cudaMalloc(&d_facts, sizeof facts);
    reverse_in_tiles<<<1, 256>>>(d_idata, d_out, d_facts);
    cudaError_t status = cudaGetLastError();
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(facts, d_facts, sizeof facts, cudaMemcpyDeviceToHost);
    int reversed = 1;
    for (unsigned int i = 0; i < 256; i++) reversed &= h_out[i] == h_idata[i / 64 * 64 + 63 - i % 64];
    printf("tiles of 64 reverse their slices after tile.sync(): %s, %s\n", cudaGetErrorName(status),
           reversed ? "every slice reversed" : "wrong");
    for (unsigned int t = 0; t < 4; t++)
        printf("tile %u: shfl from rank 0 %d, from rank 40 %d, any negative %d, all below 1000 %d, size %d\n", t,
               facts[5 * t], facts[5 * t + 1], facts[5 * t + 2], facts[5 * t + 3], facts[5 * t + 4]);
    passed &= reversed && status == cudaSuccess;
    cudaFree(d_idata);
    cudaFree(d_odata);
    cudaFree(d_out);
    cudaFree(d_facts);
    free(h_idata);
    printf("%s\n", passed ? "Test passed" : "Test failed");
    return passed ? 0 : 1;
}
