/* cg_large_tile_shfl_warps_differ.cu — planted bug: in a tile of 128 threads, each warp takes the value of
 * its own first thread with shfl: the lanes of a warp agree, the warps do not. In a tile of several warps
 * CUDA passes the value through shared memory from one rank, and every thread of the tile must name the
 * same rank (the CUDA Programming Guide leaves the result undefined otherwise). The simulator stops the
 * launch and names two threads, of two warps, that disagree. */
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void broadcast_per_warp(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(block);
    unsigned int rank = block.thread_rank();
    out[rank] = tile.shfl(in[rank], tile.thread_rank() / 32 * 32);
}

int main()
{
    int *in, *out;
    cudaMalloc(&in, 128 * sizeof(int));
    cudaMalloc(&out, 128 * sizeof(int));
    cudaMemset(in, 0, 128 * sizeof(int));
    broadcast_per_warp<<<1, 128>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
