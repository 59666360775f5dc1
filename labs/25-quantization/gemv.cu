/* gemv.cu — Day 25: the INT8 GEMV on the GPU, one warp per row.
 *
 *   y_r = scale_r x sum_j q_rj x_j
 *
 * The 32 lanes of the warp for row r read q_r,lane, q_r,lane+32, ...: 32 consecutive bytes a
 * step, one 32-byte sector (coalesced), a quarter of what FP32 weights need. Each lane converts
 * its int8 to float and keeps a float partial sum; the warp adds its lanes with __shfl_xor_sync,
 * and the scale is applied once, to the total.
 *
 * Rules: the launch is given (GEMV_ROWS_A_BLOCK warps a block); rows and cols of any size >= 1,
 * so the last block may have warps without a row, and a row need not be a multiple of 32.
 *
 * Check:  make check DAY=25        Stuck?  make hint DAY=25
 */
#include "lab.h"

#define FULL_WARP 0xffffffffu

__global__ void gemv_int8_kernel(const int8_t *values, const float *scales, const float *x, float *y, int rows, int cols)
{
    // TODO: task: y for this warp's row, as the header writes it. Contract: every row below `rows`
    //       gets its y, any number of columns; a warp of the last block with no row does nothing, and
    //       a warp that works keeps all 32 of its lanes together until its total is made. Idea: the
    //       lanes share the row's columns so that at each step they read 32 neighbouring bytes (day 09),
    //       each keeps a float partial sum, and the warp adds them up without shared memory (day 07).
    (void)values, (void)scales, (void)x, (void)y, (void)rows, (void)cols;
}

extern "C" cudaError_t gemv_int8_device(const int8_t *values, const float *scales, const float *x, float *y, int rows,
                                        int cols)
{
    if (rows < 1 || cols < 1) return cudaErrorInvalidValue;
    int blocks = (rows + GEMV_ROWS_A_BLOCK - 1) / GEMV_ROWS_A_BLOCK;
    gemv_int8_kernel<<<blocks, 32 * GEMV_ROWS_A_BLOCK>>>(values, scales, x, y, rows, cols);
    return cudaGetLastError();
}
