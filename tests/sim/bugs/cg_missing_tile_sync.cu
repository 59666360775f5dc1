/* cg_missing_tile_sync.cu — planted bug: in each tile of 8, every thread reads its neighbour's slot of
 * shared memory with no tile.sync() between the writes and the reads. The threads of one warp need not
 * run in lockstep, so the race detector reports it as it reports a missing __syncwarp(). */
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void rotate_in_tiles(const int *in, int *out)
{
    __shared__ int slot[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int rank = block.thread_rank(), first = tile.meta_group_rank() * 8;
    slot[rank] = in[rank];
    out[rank] = slot[first + (tile.thread_rank() + 1) % 8];
}

int main()
{
    int *in, *out;
    cudaMalloc(&in, 64 * sizeof(int));
    cudaMalloc(&out, 64 * sizeof(int));
    cudaMemset(in, 0, 64 * sizeof(int));
    rotate_in_tiles<<<1, 64>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
