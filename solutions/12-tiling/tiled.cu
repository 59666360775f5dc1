/* tiled.cu — Day 12: a matrix multiply that reads each input tile from global memory once
 * per block and then reuses it TILE times from shared memory.
 *
 * C (m x n) = A (m x k) · B (k x n), all row-major floats. The driver's naive kernel
 * (driver/run.cu, matmul_naive_kernel) gives each thread one element of C and lets it read a
 * row of A and a column of B from global memory: 2k floats per output, each float of A and B
 * fetched again for every output that uses it. Yours computes the same sums, one thread per
 * element of C, but a block of TILE x TILE threads shares what it fetched: it walks along k
 * one tile at a time, the block fills a tile of A and a tile of B in shared memory together,
 * and every thread then takes its TILE multiply-adds from there (chapter: "A tile is a small
 * matrix multiply that reuses what it loaded").
 *
 * What you write: predicted_global_floats first, your prediction of what the simulator will
 * count; then the kernel and its launcher. The dispatcher matmul_tiled is given.
 *
 * Rules: TILE is 8, 16 or 32 (matmul_tiled refuses anything else with cudaErrorInvalidValue);
 * m, n and k are any sizes from 1 up: a tile that hangs over an edge of A or B holds zeros
 * there, and a thread outside C writes nothing. Global memory is read only to fill the tiles;
 * the inner loop reads shared memory alone. The checks count on the simulator, as bounds:
 * floats loaded from global memory, stores, steps along k, sectors, bank conflicts.
 *
 * Check:  make check DAY=12        Stuck?  make hint DAY=12
 */
#include "lab.h"

long long predicted_global_floats(int tile, int m, int n, int k)
{
    if (tile < 1 || m < 1 || n < 1 || k < 1) return -1;
    // An element of A is loaded by every block in its band of rows, one per tile column of C;
    // an element of B once per tile row of C. Tiles past an edge load nothing there.
    long long tile_columns = (n - 1) / tile + 1, tile_rows = (m - 1) / tile + 1;
    return (long long)m * k * tile_columns + (long long)k * n * tile_rows;
}

// One block computes the TILE x TILE tile of C whose top-left corner is
// (blockIdx.y * TILE, blockIdx.x * TILE); thread (x, y) computes the element at row y, column x
// of that tile, so the 32 lanes of a warp run along a row of C (and of B): coalesced.
template <int TILE>
__global__ void matmul_tiled_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];   // A[row][step .. step + TILE), one row per threadIdx.y
    __shared__ float b_tile[TILE][TILE];   // B[step .. step + TILE)[col], one column per threadIdx.x
    int x = threadIdx.x, y = threadIdx.y;
    int row = blockIdx.y * TILE + y, col = blockIdx.x * TILE + x;
    float sum = 0.0f;
    for (int step = 0; step < k; step += TILE) {
        // Each thread loads one element of each tile; past an edge it stores a zero, which
        // adds nothing to the sums below.
        a_tile[y][x] = row < m && step + x < k ? a[row * k + step + x] : 0.0f;
        b_tile[y][x] = step + y < k && col < n ? b[(step + y) * n + col] : 0.0f;
        __syncthreads();                        // both tiles are complete
        for (int p = 0; p < TILE; p++) sum += a_tile[y][p] * b_tile[p][x];
        __syncthreads();                        // everyone is done with them before the next load
    }
    if (row < m && col < n) c[row * n + col] = sum;
}

template <int TILE> static cudaError_t launch_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    dim3 block(TILE, TILE);
    dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);   // x across C's columns, y down its rows
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
