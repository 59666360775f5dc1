/* matmul.c — the matrix kernels, FP32 and weight-only INT8 (see matmul.h for the contract).
 *
 * How they are fast: a dot product is kept as independent partial sums in SIMD registers
 * (vector types: see lanes.h), several rows and outputs are computed at once so that each
 * value loaded serves more than one FMA, and the weights stream through the caches in the
 * order the hardware prefetcher follows (with software prefetches where it does not). At
 * one row (decode) every weight byte is read exactly once a step, which is what the
 * performance model assumes. The FP32 section below explains the three code paths; all
 * three add every sum in the same order, which the tests check bit for bit. */
#include "matmul.h"

#include "lanes.h"

enum {
    OUTPUT_TILE = MATMUL_OUTPUT_TILE,
    INT8_ROW_TILE = 2,      /* the INT8 tile also keeps a partial sum per group: 2 x 4 x 2 registers */
    ROW_BLOCK = 64,         /* rows whose activations stay in L2 while a weight tile is reused */
};

static int smaller(int a, int b) { return a < b ? a : b; }

/* ----------------------------------------------------------------------------------
 * FP32. Every dot product is summed in one order, whatever the code path: element j goes
 * to lane j % LANES of chain (j / LANES) % CHAINS (the last cols % LANES elements to chain
 * 0), each chain adds its blocks front to back, and the result is
 * sum_lanes((chain0 + chain1) + (chain2 + chain3)). Four chains because an FMA waits 4
 * cycles for the one before it: a single row needs four in flight to stream at full speed.
 *
 * Three ways to walk the matrix, for three regimes:
 *   one row (decode)      dot_fp32: one weight row at a time, front to back, prefetching
 *                         ahead — memory-bound, every byte read once;
 *   a few rows (a batch)  tile_fp32_streaming: 2 rows x 2 outputs, blocks in order — still
 *                         mostly memory-bound, so the weights must stream in order;
 *   many rows (prefill)   tile_fp32_by_chain: 4 rows x 4 outputs, one chain after the other
 *                         (a tile of 4 x 4 x 4 registers would not fit) — compute-bound,
 *                         each weight loaded serves 4 rows and each input 4 outputs. */

enum { CHAINS = 4, CHAIN_STRIDE = CHAINS * LANES, FEW_ROWS = 16 };

/* How far ahead of the loads a decode row asks for its weights, in floats (8 KB). The
 * hardware prefetcher alone keeps too few lines in flight when the weights come from the
 * L3 cache: measured on the 15M model (61 MB, half of it in L3), 44 GB/s without this,
 * 53 GB/s with it; from DRAM (the 110M model) it costs about 3%. */
enum { PREFETCH_AHEAD = 2048 };

ALWAYS_INLINE float combine_chains(FloatLanes c0, FloatLanes c1, FloatLanes c2, FloatLanes c3)
{
    return sum_lanes((c0 + c1) + (c2 + c3));
}

ALWAYS_INLINE void prefetch_ahead(const float *w)
{
    for (int line = 0; line < CHAIN_STRIDE; line += 64 / (int)sizeof(float)) __builtin_prefetch(w + PREFETCH_AHEAD + line);
}

/* one row, one output: the four chains side by side */
ALWAYS_INLINE float dot_fp32(const float *x, const float *w, int cols)
{
    FloatLanes c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
    int body = cols - cols % LANES, j = 0;
    for (; j + CHAIN_STRIDE <= body; j += CHAIN_STRIDE) {
        prefetch_ahead(w + j);
        c0 += load_floats(x + j) * load_floats(w + j);
        c1 += load_floats(x + j + LANES) * load_floats(w + j + LANES);
        c2 += load_floats(x + j + 2 * LANES) * load_floats(w + j + 2 * LANES);
        c3 += load_floats(x + j + 3 * LANES) * load_floats(w + j + 3 * LANES);
    }
    if (j < body) c0 += load_floats(x + j) * load_floats(w + j), j += LANES;   /* the last blocks, in chain order */
    if (j < body) c1 += load_floats(x + j) * load_floats(w + j), j += LANES;
    if (j < body) c2 += load_floats(x + j) * load_floats(w + j);
    for (j = body; j < cols; j++) c0[j - body] += x[j] * w[j];
    return combine_chains(c0, c1, c2, c3);
}

/* up to 2 rows x 2 outputs side by side, each with its four chains: 16 accumulators; the
 * blocks in order, so the weights stream front to back as in dot_fp32 */
ALWAYS_INLINE void tile_fp32_streaming(float *out, int out_stride, const float *x, const float *w, int cols, int rows,
                                       int outputs)
{
    FloatLanes c[CHAINS][2][2] = {{{0}}};
    int body = cols - cols % LANES, j = 0;
#define ACCUMULATE(chain, at)                                                                                   \
    for (int o = 0; o < outputs; o++) {                                                                         \
        FloatLanes weight = load_floats(w + (size_t)o * cols + (at));                                           \
        for (int r = 0; r < rows; r++) c[chain][r][o] += load_floats(x + (size_t)r * cols + (at)) * weight;     \
    }
    for (; j + CHAIN_STRIDE <= body; j += CHAIN_STRIDE) {
        for (int o = 0; o < outputs; o++) prefetch_ahead(w + (size_t)o * cols + j);
        ACCUMULATE(0, j)
        ACCUMULATE(1, j + LANES)
        ACCUMULATE(2, j + 2 * LANES)
        ACCUMULATE(3, j + 3 * LANES)
    }
    if (j < body) { ACCUMULATE(0, j) j += LANES; }   /* the last blocks, in chain order */
    if (j < body) { ACCUMULATE(1, j) j += LANES; }
    if (j < body) { ACCUMULATE(2, j) }
#undef ACCUMULATE
    for (j = body; j < cols; j++)
        for (int o = 0; o < outputs; o++)
            for (int r = 0; r < rows; r++) c[0][r][o][j - body] += x[(size_t)r * cols + j] * w[(size_t)o * cols + j];
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < outputs; o++)
            out[(size_t)r * out_stride + o] = combine_chains(c[0][r][o], c[1][r][o], c[2][r][o], c[3][r][o]);
}

/* up to 4 rows x 4 outputs, chain 0 over all its blocks, then chain 1, ... (the same sums
 * in the same order as above, computed in another order of instructions) */
ALWAYS_INLINE void tile_fp32_by_chain(float *out, int out_stride, const float *x, const float *w, int cols, int rows,
                                      int outputs)
{
    FloatLanes chain[CHAINS][4][4];
    int body = cols - cols % LANES;
    for (int k = 0; k < CHAINS; k++) {
        FloatLanes acc[4][4] = {{0}};
        for (int j = k * LANES; j < body; j += CHAIN_STRIDE) {
            FloatLanes weights[4], inputs[4];
            for (int o = 0; o < outputs; o++) weights[o] = load_floats(w + (size_t)o * cols + j);
            for (int r = 0; r < rows; r++) inputs[r] = load_floats(x + (size_t)r * cols + j);
            for (int o = 0; o < outputs; o++)
                for (int r = 0; r < rows; r++) acc[r][o] += inputs[r] * weights[o];
        }
        if (k == 0)
            for (int j = body; j < cols; j++)
                for (int o = 0; o < outputs; o++)
                    for (int r = 0; r < rows; r++) acc[r][o][j - body] += x[(size_t)r * cols + j] * w[(size_t)o * cols + j];
        for (int r = 0; r < rows; r++)
            for (int o = 0; o < outputs; o++) chain[k][r][o] = acc[r][o];
    }
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < outputs; o++)
            out[(size_t)r * out_stride + o] = combine_chains(chain[0][r][o], chain[1][r][o], chain[2][r][o], chain[3][r][o]);
}

/* the tile functions with constant sizes, so the compiler keeps each tile in registers */
static void tile_fp32(float *out, int out_stride, const float *x, const float *w, int cols, int rows, int outputs)
{
    if (outputs == 4 && rows == 4) tile_fp32_by_chain(out, out_stride, x, w, cols, 4, 4);
    else if (outputs == 4 && rows == 3) tile_fp32_by_chain(out, out_stride, x, w, cols, 3, 4);
    else if (outputs == 4 && rows == 2) tile_fp32_by_chain(out, out_stride, x, w, cols, 2, 4);
    else if (outputs == 2 && rows == 2) tile_fp32_streaming(out, out_stride, x, w, cols, 2, 2);
    else if (outputs == 2 && rows == 1) tile_fp32_streaming(out, out_stride, x, w, cols, 1, 2);
    else if (outputs == 1 && rows == 2) tile_fp32_streaming(out, out_stride, x, w, cols, 2, 1);
    else
        for (int r = 0; r < rows; r++)
            for (int o = 0; o < outputs; o++)
                out[(size_t)r * out_stride + o] = dot_fp32(x + (size_t)r * cols, w + (size_t)o * cols, cols);
}

static void matmul_fp32(float *out, const float *x, int rows, const WeightMatrix *m, int first, int last)
{
    int cols = m->cols, out_stride = m->rows;
    if (rows == 1) {
        for (int i = first; i < last; i++) out[i] = dot_fp32(x, m->fp32 + (size_t)i * cols, cols);
        return;
    }
    /* tiles of 2 x 2 for a few rows, 4 x 4 for many; rows in blocks that stay in L2 */
    int row_tile = rows < FEW_ROWS ? 2 : 4, output_tile = row_tile;
    for (int block = 0; block < rows; block += ROW_BLOCK) {
        int block_rows = smaller(ROW_BLOCK, rows - block);
        for (int i = first; i < last; i += output_tile) {
            int outputs = smaller(output_tile, last - i);
            const float *w = m->fp32 + (size_t)i * cols;
            if (row_tile == 4 && i + 3 * output_tile <= last)   /* by-chain tiles read lines out of order: fetch ahead */
                for (size_t line = 0; line < (size_t)output_tile * cols; line += 64 / sizeof(float))
                    __builtin_prefetch(w + 2 * (size_t)output_tile * cols + line);
            for (int r = block; r < block + block_rows; r += row_tile)
                tile_fp32(out + (size_t)r * out_stride + i, out_stride, x + (size_t)r * cols, w, cols,
                          smaller(row_tile, block + block_rows - r), outputs);
        }
    }
}

/* ----------------------------------------------------------------------------------
 * INT8, weight-only: within a group of group_size values the products x * (float)q are
 * summed lane by lane, as above; then the group's partial sums are multiplied by its scale
 * and added to the accumulator — one multiply by the scale per group, not per weight. */

ALWAYS_INLINE void tile_int8(float *out, int out_stride, const float *x, const int8_t *w, const float *scales,
                             int cols, int group_size, int rows, int outputs)
{
    FloatLanes acc[INT8_ROW_TILE][OUTPUT_TILE] = {{0}};
    int groups = cols / group_size, body = group_size - group_size % LANES;
    for (int g = 0; g < groups; g++) {
        FloatLanes part[INT8_ROW_TILE][OUTPUT_TILE] = {{0}};
        const float *xg = x + (size_t)g * group_size;
        const int8_t *wg = w + (size_t)g * group_size;
        /* Fetch the same group of the next tile's rows now: four rows read 16 bytes at a
         * time are a pattern the prefetcher follows poorly (measured: 10 GB/s without
         * this line, 30-37 GB/s with it). */
        for (int o = 0; o < outputs; o++) __builtin_prefetch(wg + (size_t)(o + OUTPUT_TILE) * cols);
        for (int j = 0; j < body; j += LANES) {
            FloatLanes weights[OUTPUT_TILE], inputs[INT8_ROW_TILE];
            for (int o = 0; o < outputs; o++) weights[o] = load_int8_as_floats(wg + (size_t)o * cols + j);
            for (int r = 0; r < rows; r++) inputs[r] = load_floats(xg + (size_t)r * cols + j);
            for (int o = 0; o < outputs; o++)
                for (int r = 0; r < rows; r++) part[r][o] += inputs[r] * weights[o];
        }
        for (int j = body; j < group_size; j++)
            for (int o = 0; o < outputs; o++)
                for (int r = 0; r < rows; r++)
                    part[r][o][j - body] += xg[(size_t)r * cols + j] * (float)wg[(size_t)o * cols + j];
        for (int o = 0; o < outputs; o++) {
            float scale = scales[(size_t)o * groups + g];
            for (int r = 0; r < rows; r++) acc[r][o] += scale * part[r][o];
        }
    }
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < outputs; o++) out[(size_t)r * out_stride + o] = sum_lanes(acc[r][o]);
}

static void tile_int8_any(float *out, int out_stride, const float *x, const int8_t *w, const float *scales, int cols,
                          int group_size, int rows, int outputs)
{
    int groups = cols / group_size;
    /* the usual groups (64, and 32 for widths such as 288) as constants: their loops unroll
     * into straight-line code */
    if (outputs == 4 && rows == 2 && group_size == 64) tile_int8(out, out_stride, x, w, scales, cols, 64, 2, 4);
    else if (outputs == 4 && rows == 1 && group_size == 64) tile_int8(out, out_stride, x, w, scales, cols, 64, 1, 4);
    else if (outputs == 4 && rows == 2 && group_size == 32) tile_int8(out, out_stride, x, w, scales, cols, 32, 2, 4);
    else if (outputs == 4 && rows == 1 && group_size == 32) tile_int8(out, out_stride, x, w, scales, cols, 32, 1, 4);
    else if (outputs == 4 && rows == 2) tile_int8(out, out_stride, x, w, scales, cols, group_size, 2, 4);
    else if (outputs == 4 && rows == 1) tile_int8(out, out_stride, x, w, scales, cols, group_size, 1, 4);
    else
        for (int r = 0; r < rows; r++)
            for (int o = 0; o < outputs; o++)
                tile_int8(out + (size_t)r * out_stride + o, out_stride, x + (size_t)r * cols, w + (size_t)o * cols,
                          scales + (size_t)o * groups, cols, group_size, 1, 1);
}

static void matmul_int8(float *out, const float *x, int rows, const WeightMatrix *m, int first, int last)
{
    int cols = m->cols, out_stride = m->rows, groups = cols / m->group_size;
    for (int block = 0; block < rows; block += ROW_BLOCK) {
        int block_rows = smaller(ROW_BLOCK, rows - block);
        for (int i = first; i < last; i += OUTPUT_TILE) {
            int outputs = smaller(OUTPUT_TILE, last - i);
            const int8_t *w = m->int8 + (size_t)i * cols;
            const float *scales = m->scales + (size_t)i * groups;
            for (int r = block; r < block + block_rows; r += INT8_ROW_TILE)
                tile_int8_any(out + (size_t)r * out_stride + i, out_stride, x + (size_t)r * cols, w, scales, cols,
                              m->group_size, smaller(INT8_ROW_TILE, block + block_rows - r), outputs);
        }
    }
}

/* ----------------------------------------------------------------------------------
 * The entry point */

void llama_matmul(float *out, const float *x, int rows, const WeightMatrix *w, int first_output, int last_output)
{
    if (w->format == WEIGHTS_INT8) matmul_int8(out, x, rows, w, first_output, last_output);
    else matmul_fp32(out, x, rows, w, first_output, last_output);
}
