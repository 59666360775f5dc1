/* initcheck_managed_atomic.cu — planted bug: a cooperative-groups reduction, as a public tutorial
 * writes it, atomically adds each tile's sum into unified memory that nothing ever zeroed. On a GPU
 * the total starts from whatever the memory held; here from 0xff bytes (-1), so the sum is off by
 * one and nothing else says why. With SIM_INITCHECK=1 (set below, as `SIM_INITCHECK=1 ./prog` would)
 * the atomicAdd's read of the never-written total stops the launch, naming the allocation, the
 * thread and the line. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

__global__ void sum(const int *in, int *total, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int tile_sum = cg::reduce(tile, i < n ? in[i] : 0, cg::plus<int>());
    if (tile.thread_rank() == 0) atomicAdd(total, tile_sum);
}

int main()
{
    setenv("SIM_INITCHECK", "1", 1);
    int n = 256, *in, *total;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&total, sizeof(int));   /* the bug: *total = 0 (or cudaMemset) is missing */
    for (int i = 0; i < n; i++) in[i] = 1;
    sum<<<2, 128>>>(in, total, n);
    printf("launch: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
