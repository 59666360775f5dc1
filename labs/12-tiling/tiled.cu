/* tiled.cu — Day 12: a matrix multiply that reads each input tile from global memory once
 * per block and then reuses it TILE times from shared memory.
 *
 * C (m x n) = A (m x k) · B (k x n), all row-major floats. One thread computes one element
 * of C, as in the driver's naive kernel (driver/run.cu, matmul_naive_kernel); a block of
 * TILE x TILE threads computes a TILE x TILE tile of C. The naive kernel's thread reads a
 * row of A and a column of B from global memory: 2k floats per output, 2·m·n·k in all. Here
 * the block walks along k one TILE-wide step at a time:
 *
 *   1. every thread loads ONE element of A's tile and ONE of B's into shared memory,
 *   2. __syncthreads(): the tiles are complete,
 *   3. every thread does TILE multiply-adds from the two tiles (shared memory, not global),
 *   4. __syncthreads(): nobody overwrites a tile someone is still reading.
 *
 * Each global element a block loads is then used by TILE threads, so the global loads fall
 * from 2·m·n·k to 2·m·n·k / TILE. The simulator counts them; the checks compare.
 *
 * Rules: TILE is 8, 16 or 32 (matmul_tiled refuses anything else with cudaErrorInvalidValue);
 * m, n and k are any sizes from 1 up: a tile that hangs over an edge of A or B loads zeros
 * there, and a thread outside C writes nothing. Global memory is read only to fill the
 * tiles: the inner loop reads shared memory alone.
 *
 * Check:  make check DAY=12        Stuck?  make hint DAY=12
 */
#include "lab.h"

// One block computes the TILE x TILE tile of C whose top-left corner is
// (blockIdx.y * TILE, blockIdx.x * TILE); thread (x, y) computes the element at row y, column x
// of that tile, so the 32 lanes of a warp run along a row of C (and of B): coalesced.
template <int TILE>
__global__ void matmul_tiled_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
    // TODO: two __shared__ float tiles of TILE x TILE, one for A and one for B.
    // TODO: row and col of this thread's element of C; a float sum starting at zero.
    // TODO: for each TILE-wide step along k:
    //         this thread copies one element of A's tile and one of B's (a zero past an edge),
    //         __syncthreads(),
    //         TILE multiply-adds from the two tiles into sum,
    //         __syncthreads().
    // TODO: if (row, col) is inside C, store sum there.
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}

template <int TILE> static cudaError_t launch_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    // TODO: blocks of TILE x TILE threads, and enough of them to cover every element of C:
    //       grid.x across C's n columns, grid.y down its m rows (the last ones may hang over).
    dim3 block(1), grid(1);
    matmul_tiled_kernel<TILE><<<grid, block>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

// Given: one compiled kernel per tile size (TILE must be known when the kernel is compiled,
// because it sizes the shared arrays).
extern "C" cudaError_t matmul_tiled(int tile, const float *a, const float *b, float *c, int m, int n, int k)
{
    switch (tile) {
    case 8: return launch_tiled<8>(a, b, c, m, n, k);
    case 16: return launch_tiled<16>(a, b, c, m, n, k);
    case 32: return launch_tiled<32>(a, b, c, m, n, k);
    default: return cudaErrorInvalidValue;
    }
}
