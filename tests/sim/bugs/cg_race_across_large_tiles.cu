/* cg_race_across_large_tiles.cu — planted bug: each thread reads the slot that the thread 64 places on
 * wrote, with only the sync() of its tile of 64 between. A tile's barrier orders its own two warps, not
 * the other tile's: the block's barrier (block.sync()) is needed, and the race detector says so. */
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void rotate_by_a_tile(const int *in, int *out)
{
    __shared__ int slot[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile64 = cg::tiled_partition<64>(block);
    int rank = block.thread_rank();
    slot[rank] = in[rank];
    tile64.sync();
    out[rank] = slot[(rank + 64) % 128];
}

int main()
{
    int *in, *out;
    cudaMalloc(&in, 128 * sizeof(int));
    cudaMalloc(&out, 128 * sizeof(int));
    cudaMemset(in, 0, 128 * sizeof(int));
    rotate_by_a_tile<<<1, 128>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
