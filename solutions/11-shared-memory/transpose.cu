/* transpose.cu — Day 11: shared memory, its 32 banks, and four transposes.
 *
 * out = the transpose of in: in is rows x cols, out is cols x rows, both row-major, so
 * out[c * rows + r] = in[r * cols + c]. Four kernels, each a small diff from the one before:
 *
 *   version 1  naive: each thread copies its elements straight across. Reads walk along a
 *              row of in (coalesced); writes walk down a column of out: 32 sectors per
 *              request.                                                             (given)
 *   version 2  shared-memory tile: a block stages its 32 x 32 tile of in through a
 *              __shared__ tile[32][32] so that both global sides move rows. Reading the
 *              tile's columns then costs the bank conflicts the chapter counts: kept to
 *              show them.                                                            (TODO)
 *   version 3  padded tile: version 2 with the tile's rows made longer, just enough that
 *              a column no longer falls in one bank.                                 (TODO)
 *   version 4  swizzled tile: tile[32][32] again, no spare words, each row's elements
 *              kept in a permuted order so that rows and columns both spread over the
 *              32 banks.                                                             (TODO)
 *
 * Also yours, before the kernels: bank_conflict_ways, the model of how many passes shared
 * memory needs for one warp's request, and predicted_tile_wavefronts, what your model says
 * one tile costs; the checks compare both with what the simulator counts.
 *
 * Rules: blocks of TILE x BLOCK_ROWS threads (lab.h, launched by transpose() below), each
 * thread moving TILE / BLOCK_ROWS single floats of its tile, as version 1 does; any rows and
 * cols from 1 up (the edge tiles hang over the matrix: guard every global access, never the
 * barrier); versions 2-4 read and write global memory only in rows (threadIdx.x along the
 * fastest index). The checks count each version's bank conflicts and global sectors on the
 * simulator, as bounds: a version that costs less passes.
 *
 * Check:  make check DAY=11        Stuck?  make hint DAY=11
 */
#include "lab.h"

// ----------------------------------------------------------------------------
// The bank model (host code).

int bank_conflict_ways(const int *word_of_lane, int lanes)
{
    // A bank serves one word per pass; lanes reading the same word share it (a broadcast).
    int distinct_words_in_bank[SHARED_BANKS] = {0}, ways = 0;
    for (int lane = 0; lane < lanes; lane++) {
        int seen_before = 0;
        for (int earlier = 0; earlier < lane; earlier++) seen_before |= word_of_lane[earlier] == word_of_lane[lane];
        if (seen_before) continue;
        int bank = word_of_lane[lane] % SHARED_BANKS;
        if (++distinct_words_in_bank[bank] > ways) ways = distinct_words_in_bank[bank];   // the busiest bank so far
    }
    return ways;
}

int predicted_tile_wavefronts(int row_words)
{
    if (row_words < TILE) return -1;
    // A tile is TILE row writes and TILE column reads, one warp-wide request each. A row is 32
    // consecutive words; a column's words are row_words apart: ask the bank model for both.
    int row[TILE] = {0}, column[TILE] = {0};
    for (int lane = 0; lane < TILE; lane++) row[lane] = lane, column[lane] = lane * row_words;
    return TILE * (bank_conflict_ways(row, TILE) + bank_conflict_ways(column, TILE));
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
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (row + j < rows && col < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(row + j) * cols + col];
    __syncthreads();   // the tile is read by other warps than the ones that wrote it
    // The same tile lands at block (blockIdx.y, blockIdx.x) of out: swap the block's coordinates.
    int out_col = blockIdx.y * TILE + threadIdx.x;
    int out_row = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (out_row + j < cols && out_col < rows)
            out[(size_t)(out_row + j) * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];   // a column: one bank
}

// Version 3: the tile padded.
__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];   // pad to 33 so column reads hit 32 different banks
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (row + j < rows && col < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(row + j) * cols + col];
    __syncthreads();
    int out_col = blockIdx.y * TILE + threadIdx.x;
    int out_row = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (out_row + j < cols && out_col < rows)
            out[(size_t)(out_row + j) * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
}

// Version 4: the tile swizzled.
__device__ int swizzled_column(int row, int col) { return col ^ row; }

__global__ void transpose_swizzled(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = threadIdx.y + j;
        if (row + j < rows && col < cols) tile[r][swizzled_column(r, threadIdx.x)] = in[(size_t)(row + j) * cols + col];
    }
    __syncthreads();
    int out_col = blockIdx.y * TILE + threadIdx.x;
    int out_row = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int c = threadIdx.y + j;   // lane k reads element (k, c): word k·32 + (c ^ k), bank c ^ k
        if (out_row + j < cols && out_col < rows)
            out[(size_t)(out_row + j) * rows + out_col] = tile[threadIdx.x][swizzled_column(threadIdx.x, c)];
    }
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
