/* shuffle_with_exited_lanes.cu — planted bug: a full-mask warp reduction after the lanes
 * past n have returned. */
#include <cstdio>

__global__ void sum(const float *x, float *out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (i == 0) *out = v;
}

int main()
{
    float *x, *out;
    cudaMalloc(&x, 24 * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    sum<<<1, 32>>>(x, out, 24);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
