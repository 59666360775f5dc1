/* cg_large_tile_shfl_sources_differ.cu — planted bug: in a tile of 64 threads, each thread takes the
 * value of "the thread of my own rank in the other warp" with shfl. In a tile of at most 32 threads a
 * shuffle may name a different lane in each thread; in a tile of several warps CUDA passes the value
 * through shared memory from one rank, and every thread must name the same rank (the CUDA Programming
 * Guide leaves the result undefined otherwise). The simulator stops the launch and names two threads
 * that disagree. */
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void swap_halves(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    unsigned int rank = block.thread_rank();
    out[rank] = tile.shfl(in[rank], (tile.thread_rank() + 32) % 64);
}

int main()
{
    int *in, *out;
    cudaMalloc(&in, 128 * sizeof(int));
    cudaMalloc(&out, 128 * sizeof(int));
    cudaMemset(in, 0, 128 * sizeof(int));
    swap_halves<<<1, 128>>>(in, out);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
