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
    // TODO: the wavefronts (passes over the banks) one warp-wide request needs, when lane k
    //       touches the 4-byte word word_of_lane[k] of shared memory, for lanes 0 .. lanes-1
    //       (0 <= lanes <= 32, words >= 0; nothing past `lanes` is yours to read). 1 means
    //       no conflict; no lanes at all, 0.
    //       The idea: a request costs neither its lanes nor its words, but what the busiest
    //       bank is asked for, and lanes asking for the very same word are served together.
    (void)word_of_lane, (void)lanes;
    return 0;
}

int predicted_tile_wavefronts(int row_words)
{
    // TODO: your prediction, before the simulator counts it: the shared-memory wavefronts one
    //       block spends moving one whole 32 x 32 tile of floats through a tile whose rows
    //       start row_words words apart (32 for tile[32][32], 33 for tile[32][33], ...):
    //       every warp-wide write of a row of the tile and every read of a column, as versions
    //       2 and 3 do them. row_words below TILE is refused with -1 (a row of the tile would
    //       not fit).
    //       The idea: a column's 32 words are row_words apart; work out, from the chapter's
    //       stride rule, how many of them share a bank, then count the requests of a tile.
    (void)row_words;
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
    // TODO: transpose this block's tile through a __shared__ float tile[TILE][TILE]: read the
    //       tile of in by rows, as version 1 does, into the tile; let the whole block finish;
    //       write the tile out again by rows of out, at the tile's place in out.
    //       Contract: exact for every rows and cols from 1 up; nothing read or written outside
    //       in and out; every thread reaches the barrier; global memory moved only along rows.
    //       The idea: the transposition happens inside the SM, where reading a column costs
    //       banks instead of sectors.
}

// Version 3: the tile padded.
__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    // TODO: version 2 with the tile's rows made longer than TILE, by as few spare words as
    //       take its column reads to one wavefront each (predicted_tile_wavefronts says how
    //       many), and no other change.
    //       The idea: the length of a row is the stride of a column.
}

// Version 4: the tile swizzled.
__device__ int swizzled_column(int row, int col)
{
    // TODO: where, in row `row` of an unpadded tile, element (row, col) is kept. For each row
    //       it must be a permutation of the columns 0 .. TILE-1 (no two elements of a row in
    //       one place), and a column of elements (col fixed, row = 0 .. TILE-1) must land in
    //       TILE different places. The chapter's is an XOR; any mapping with both properties
    //       is as good.
    (void)row;
    return col;
}

__global__ void transpose_swizzled(const float *in, float *out, int rows, int cols)
{
    // TODO: version 2 with an unpadded tile, every access to it (the write and the read)
    //       going through swizzled_column, keyed by the element's row in the tile.
    //       The idea: change where a word sits in its row, not how many words a row has:
    //       the conflicts go, and so does the padding.
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
