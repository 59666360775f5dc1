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
    // TODO: the floats the tiled kernel with tile x tile tiles loads from global memory for
    //       these sizes, exactly: not only when they are multiples of the tile (count, for one
    //       element of A, how many blocks load it; then for one of B). tile 1 describes the
    //       naive kernel. -1 when tile or a size is below 1. The count passes 2^31 long before
    //       the matrices are large.
    //       The idea: a float brought on chip is used by a whole row or column of a tile, so
    //       it is fetched once per tile of C that needs it, not once per use.
    (void)tile, (void)m, (void)n, (void)k;
    return 0;
}

// One block computes the TILE x TILE tile of C whose top-left corner is
// (blockIdx.y * TILE, blockIdx.x * TILE); thread (x, y) computes the element at row y, column x
// of that tile, so the 32 lanes of a warp run along a row of C (and of B): coalesced.
template <int TILE>
__global__ void matmul_tiled_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
    // TODO: this thread's element of C, the dot product of its row of A and its column of B,
    //       with every operand of the multiply-adds read from two TILE x TILE shared tiles that
    //       the block fills together, one step along k at a time.
    //       Contract: any m, n, k from 1 up; a tile element past an edge of A or B holds zero;
    //       nothing read outside A and B; C written once per element, nothing outside it; every
    //       thread of the block reaches every barrier; no thread reads a tile element before it
    //       is written, or overwrites one another thread has yet to read.
    //       The idea: each float the block fetches is used by TILE threads, so global loads
    //       fall by TILE while the multiply-adds stay the same.
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}

template <int TILE> static cudaError_t launch_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    // TODO: launch the kernel with blocks of TILE x TILE threads, one block per TILE x TILE
    //       tile of C (the tiles at the right and bottom edges may hang over), laid out as the
    //       kernel expects: x across C's n columns, y down its m rows.
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
