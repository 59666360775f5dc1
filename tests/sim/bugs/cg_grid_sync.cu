/* cg_grid_sync.cu — planted limit: a grid-wide barrier (cooperative groups' this_grid().sync()) in a
 * kernel launched with <<< >>>. The simulator runs blocks one after another, so it cannot honour it;
 * a GPU needs a cooperative launch for it. The launch stops with a message that says so. */
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void two_phases(int *data)
{
    cg::grid_group grid = cg::this_grid();
    data[grid.thread_rank()] = 1;
    grid.sync();
    data[grid.thread_rank()] += data[(grid.thread_rank() + 1) % grid.size()];
}

int main()
{
    int *data;
    cudaMalloc(&data, 4 * 64 * sizeof(int));
    two_phases<<<4, 64>>>(data);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
