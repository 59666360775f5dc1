/* mma.cu — Day 06: one Tensor Core-sized step, D = A B + C on a 16 x 16 x 16 tile, with
 * FP16 inputs and an FP32 accumulator, written in plain CUDA.
 *
 * What you write today:
 *   1. mma_tile: one block of one warp (32 threads) computes one tile. Each lane owns 8 of
 *      the 256 elements of D: element e = lane, lane + 32, ..., lane + 224 (row e / 16,
 *      column e % 16). For its element, a lane starts from C and adds the 16 products
 *      A[row][k] * B[k][col], converting each half to float and keeping the sum in float.
 *   2. launch_mma_tiles: one block of 32 threads per tile.
 *
 * Rules: A, B, C and D are row-major 16 x 16 tiles stored one after another; tile t starts
 * at element t * 256 of each array. Accumulate in float, never in __half. (A real Tensor
 * Core does this whole tile in a few instructions: see the chapter for wmma::mma_sync and
 * mma.sync; the simulator has no Tensor Cores, so today you write what they compute.)
 *
 * Check:  make check DAY=06        Stuck?  make hint DAY=06
 */
#include "lab.h"

#include <cuda_fp16.h>

__global__ void mma_tile(const __half *a, const __half *b, const float *c, float *d)
{
    // TODO: this block's tile starts at element blockIdx.x * TILE * TILE of a, b, c and d.
    //       For e = threadIdx.x, threadIdx.x + 32, ... below TILE * TILE:
    //           row = e / TILE, col = e % TILE;
    //           float sum = C[row][col];  then for k = 0 .. TILE - 1:
    //           sum += __half2float(A[row][k]) * __half2float(B[k][col]);
    //           D[row][col] = sum.
}

extern "C" void launch_mma_tiles(const __half *a, const __half *b, const float *c, float *d, int tiles)
{
    // TODO: one block of 32 threads (one warp) per tile: mma_tile<<<tiles, 32>>>(a, b, c, d);
    (void)a, (void)b, (void)c, (void)d, (void)tiles;
}
