/* cg_block_tile_memory.cu — the multi-warp reduction of NVIDIA's reduction sample, in the form the
 * simulator runs: `__shared__ cg::block_tile_memory<BlockSize> scratch;` gives the block through
 * this_thread_block(scratch), as CUDA 12 and later spell it, and the block is cut into tiles of 32
 * (the sample's 64-thread case: two groups of 32) that each reduce with cg::reduce and combine through
 * shared memory after cg::sync(block). Tiles of 64 to 1024 threads cut from it are in cg_large_tiles.cu.
 *   lib/sim/tools/simcc -o cg_block_tile_memory tests/sim/programs/cg_block_tile_memory.cu && ./cg_block_tile_memory
 *   nvcc -o cg_block_tile_memory tests/sim/programs/cg_block_tile_memory.cu && ./cg_block_tile_memory   (on a GPU) */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

template <class T, unsigned int BlockSize, unsigned int GroupSize>
__global__ void multi_group_reduce(const T *g_idata, T *g_odata, unsigned int n)
{
    __shared__ T sdata[BlockSize / GroupSize];
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    cg::thread_block cta = cg::this_thread_block(scratch);
    cg::thread_block_tile<GroupSize> group = cg::tiled_partition<GroupSize>(cta);

    T value = 0;
    for (unsigned int i = blockIdx.x * BlockSize + threadIdx.x; i < n; i += BlockSize * gridDim.x) value += g_idata[i];
    value = cg::reduce(group, value, cg::plus<T>());
    if (group.thread_rank() == 0) sdata[group.meta_group_rank()] = value;
    cg::sync(cta);
    if (cta.thread_rank() == 0) {
        value = 0;
        for (unsigned int i = 0; i < group.meta_group_size(); i++) value += sdata[i];
        g_odata[blockIdx.x] = value;
    }
}

int main(void)
{
    const unsigned int n = 1 << 16, blocks = 64;
    int *h_idata = (int *)malloc(n * sizeof(int)), h_odata[blocks];
    long long expected = 0;
    for (unsigned int i = 0; i < n; i++) expected += h_idata[i] = (int)(i % 255) - 100;
    int *d_idata, *d_odata;
    cudaMalloc(&d_idata, n * sizeof(int));
    cudaMalloc(&d_odata, blocks * sizeof(int));
    cudaMemcpy(d_idata, h_idata, n * sizeof(int), cudaMemcpyHostToDevice);

    multi_group_reduce<int, 64, 32><<<blocks, 64>>>(d_idata, d_odata, n);
    cudaError_t status = cudaGetLastError();
    cudaMemcpy(h_odata, d_odata, sizeof h_odata, cudaMemcpyDeviceToHost);
    long long sum = 0;
    for (unsigned int b = 0; b < blocks; b++) sum += h_odata[b];
    printf("blocks of 64 in two tiles of 32, block_tile_memory<64>: %s, sum %lld, expected %lld\n",
           cudaGetErrorName(status), sum, expected);

    multi_group_reduce<int, 256, 32><<<blocks, 256>>>(d_idata, d_odata, n);
    status = cudaGetLastError();
    cudaMemcpy(h_odata, d_odata, sizeof h_odata, cudaMemcpyDeviceToHost);
    sum = 0;
    for (unsigned int b = 0; b < blocks; b++) sum += h_odata[b];
    printf("blocks of 256 in eight tiles of 32, block_tile_memory<256>: %s, sum %lld, expected %lld\n",
           cudaGetErrorName(status), sum, expected);
    cudaFree(d_idata);
    cudaFree(d_odata);
    free(h_idata);
    printf("%s\n", sum == expected ? "Test passed" : "Test failed");
    return sum == expected ? 0 : 1;
}
