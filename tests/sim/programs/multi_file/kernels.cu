/* kernels.cu — the launchers main.cpp calls. The kernels come from kernels.cuh and from
 * common.h, which only kernels.cuh includes. */
#include "kernels.cuh"

/* Fills x (n floats of device memory) with the pattern of common.h. */
void make_input(float *x, int n) { fill_with_pattern(x, n); }

/* The partial sums of squares of x, one per block of SUM_BLOCK, into sums; returns their number. */
int sums_of_squares(const float *x, float *sums, int n)
{
    int blocks = ceil_div(n, SUM_BLOCK);
    block_sums_of_squares<<<blocks, SUM_BLOCK>>>(x, sums, n);
    cudaCheck(cudaGetLastError());
    return blocks;
}
