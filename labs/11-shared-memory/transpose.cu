/* transpose.cu — Day 11: shared memory, its 32 banks, and four transposes.
 *
 * out = the transpose of in: in is rows x cols, out is cols x rows, both row-major, so
 * out[c * rows + r] = in[r * cols + c]. Four kernels, each a small diff from the one before:
 *
 *   version 1  naive: each thread copies its elements straight across. Reads walk along a
 *              row of in (coalesced); writes walk down a column of out, 32 lanes 4·rows
 *              bytes apart: 32 sectors per request.                                (given)
 *   version 2  shared-memory tile: a block reads a 32 x 32 tile of in by rows into
 *              __shared__ float tile[32][32], waits, and writes the tile's columns as rows
 *              of out. Both global sides are coalesced now, but reading a column of the
 *              tile puts all 32 lanes in one bank: a 32-way bank conflict.           (TODO)
 *   version 3  padded tile: tile[32][33]. Row k starts 33·k words in, so column j's 32
 *              words fall in 32 different banks: one wavefront per request.          (TODO)
 *   version 4  swizzled tile: tile[32][32] again, but element (r, c) of the tile is kept
 *              at column c ^ r of row r. Each row still holds one permutation of the
 *              32 banks, and so does each column: no conflicts, and no wasted words.  (TODO)
 *
 * Also yours: bank_conflict_ways, the model of how many passes shared memory needs for one
 * warp's request; the checks compare it with what the simulator counts.
 *
 * Rules: blocks of TILE x BLOCK_ROWS threads (lab.h), each thread moving TILE / BLOCK_ROWS
 * elements of its tile, as version 1 does; any rows and cols from 1 up (the edge tiles hang
 * over the matrix: guard every global access, never the barrier); versions 2-4 read and
 * write global memory only in rows (threadIdx.x along the fastest index). The checks count
 * each version's bank conflicts and global sectors on the simulator.
 *
 * Check:  make check DAY=11        Stuck?  make hint DAY=11
 */
#include "lab.h"

// ----------------------------------------------------------------------------
// The bank model (host code).

int bank_conflict_ways(const int *word_of_lane, int lanes)
{
    // TODO: word w lives in bank w % SHARED_BANKS. A bank delivers one word per pass, so the
    //       request needs as many passes as the busiest bank has DISTINCT words; lanes that
    //       read the same word share one delivery (a broadcast). Return that largest count
    //       over the 32 banks (1 when there is no conflict; 0 for no lanes at all).
    (void)word_of_lane, (void)lanes;
    return 0;
}

// ----------------------------------------------------------------------------
// The kernels. A block covers the tile whose top-left element is in[blockIdx.y·TILE][blockIdx.x·TILE].

// Version 1: naive (given).
__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (row + j < rows && col < cols) out[(size_t)col * rows + row + j] = in[(size_t)(row + j) * cols + col];
}

// Version 2: through a shared tile.
__global__ void transpose_tile(const float *in, float *out, int rows, int cols)
{
    // TODO: __shared__ float tile[TILE][TILE];
    //       1. Read this block's tile of in exactly as version 1 reads it (same col, same rows
    //          row + j, same bounds check), but into tile[threadIdx.y + j][threadIdx.x].
    //       2. Wait until the whole tile is in shared memory: other warps will read it.
    //       3. The tile belongs at block (blockIdx.y, blockIdx.x) of out: rebuild col and row
    //          from the swapped block coordinates, and write rows of out (threadIdx.x along
    //          the fastest index, bounds: out has cols rows of rows elements), each element
    //          taken from the tile's column: tile[threadIdx.x][threadIdx.y + j].
}

// Version 3: the tile padded by one word a row.
__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    // TODO: version 2 with one spare word at the end of each row of the tile. Work out on
    //       paper which bank word tile[k][j] falls in for k = 0..31 before and after.
}

// Version 4: the tile swizzled: element (r, c) is stored at tile[r][c ^ r].
__device__ int swizzled_column(int row, int col)
{
    // TODO: where element (row, col) of the tile is kept in row `row`: col XOR row.
    (void)row;
    return col;
}

__global__ void transpose_swizzled(const float *in, float *out, int rows, int cols)
{
    // TODO: version 2 with an unpadded tile[TILE][TILE], but every access to the tile goes
    //       through swizzled_column(tile_row, tile_col), the write of step 1 and the read of
    //       step 3 alike.
}

// ----------------------------------------------------------------------------
// The host side (given): one grid for every version, a block per tile of in.

extern "C" cudaError_t transpose(int version, const float *in, float *out, int rows, int cols)
{
    if (rows < 1 || cols < 1) return cudaErrorInvalidValue;
    dim3 block(TILE, BLOCK_ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    switch (version) {
    case 1: transpose_naive<<<grid, block>>>(in, out, rows, cols); break;
    case 2: transpose_tile<<<grid, block>>>(in, out, rows, cols); break;
    case 3: transpose_padded<<<grid, block>>>(in, out, rows, cols); break;
    case 4: transpose_swizzled<<<grid, block>>>(in, out, rows, cols); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
