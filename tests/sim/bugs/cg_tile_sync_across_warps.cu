/* cg_tile_sync_across_warps.cu — planted bug: each thread reads the slot that the thread 32 places on
 * wrote, with only tile32.sync() between. A tile's barrier orders the 32 threads of its own warp, not
 * another warp's: the block's barrier (block.sync()) is needed, and the race detector says so. */
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void rotate_by_a_warp(const int *in, int *out)
{
    __shared__ int slot[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(block);
    int rank = block.thread_rank();
    slot[rank] = in[rank];
    tile32.sync();
    out[rank] = slot[(rank + 32) % 64];
}

int main()
{
    int *in, *out;
    cudaMalloc(&in, 64 * sizeof(int));
    cudaMalloc(&out, 64 * sizeof(int));
    cudaMemset(in, 0, 64 * sizeof(int));
    rotate_by_a_warp<<<1, 64>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
