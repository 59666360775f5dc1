/* cooperative_launch_unchecked.cu — planted bug: a cooperative launch without first asking the device
 * for cudaDevAttrCooperativeLaunch. The simulated GPU has none, so the launch is refused, as it would be
 * on any GPU without it, and the kernel never runs. */
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void two_phases(int *data)
{
    data[blockIdx.x] = 1;
    cg::this_grid().sync();
    if (blockIdx.x == 0) data[0] += data[gridDim.x - 1];
}

int main()
{
    int *data;
    cudaMalloc(&data, 4 * sizeof(int));
    void *arguments[] = {&data};
    cudaError_t error = cudaLaunchCooperativeKernel((void *)two_phases, 4, 1, arguments);
    printf("launch: %s\n", cudaGetErrorName(error));
    return 0;
}
