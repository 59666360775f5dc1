/* matmul.c — the matrix kernels, FP32 and weight-only INT8 and INT4 (see matmul.h for the
 * contract).
 *
 * How they are fast: a dot product is kept as independent partial sums in SIMD registers
 * (vector types: see lib/simd/lanes.h), several rows and outputs are computed at once so that each
 * value loaded serves more than one FMA, and the weights stream through the caches in the
 * order the hardware prefetcher follows (with software prefetches where it does not). At
 * one row (decode) every weight byte is read exactly once a step, which is what the
 * performance model assumes. The FP32 section below explains its two code paths and the
 * INT8 and INT4 sections theirs; every path adds each sum in its format's one documented order,
 * which tests/llama/order.c checks bit for bit against a scalar transcription. */
#include "matmul.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "../simd/lanes.h"

enum {
    OUTPUT_TILE = MATMUL_OUTPUT_TILE,
    /* INT8 and INT4 tiles keep a partial sum per group beside each accumulator: rows x
     * outputs x 2 registers. One row (decode) takes 4 outputs at a time in INT8, and in
     * INT4 4 with AVX-512 and 8 with AVX2; 2 or 3 rows, 2 x 4; 4 rows or more, 4 x 3, each
     * converted weight serving 4 rows (INT8 keeps 2 x 4 where there are 16 vector
     * registers: see matmul_quantized). INT4's 8 outputs at one row, with their zero
     * points, spill with AVX-512's wider unpacking, so it takes 4 there (the figures:
     * data/measured/cpu/engine-kernels.md). */
    INT8_ROW_OUTPUTS = 4, INT4_ROW_OUTPUTS = LANES == 16 ? 4 : 8, MOST_TILE_OUTPUTS = 8,
    INT8_FEW_ROWS = 2, INT8_FEW_OUTPUTS = 4, INT8_MANY_ROWS = 4, INT8_MANY_OUTPUTS = 3,
    INT8_PREFETCH_ROWS = 16,/* how far ahead of its tile INT8 and INT4 ask for weights, in rows */
    INT8_FEW_ROWS_PREFETCH_ROWS = 4,   /* INT8 at one or two rows, into L1 (and more into L2) */
    ROW_BLOCK = 64,         /* rows whose activations stay in L2 while a weight tile is reused */
    QUANTIZED_BLOCK_BYTES = 24 * 1024,   /* the inputs INT8 and INT4 keep in L1 (half of it) */
};

static int smaller(int a, int b) { return a < b ? a : b; }

/* ----------------------------------------------------------------------------------
 * FP32. Every dot product is summed in one order, whatever the code path: element j goes
 * to lane j % LANES of chain (j / LANES) % CHAINS (the last cols % LANES elements to chain
 * 0), each chain adds its blocks front to back, and the result is
 * sum_lanes((chain0 + chain1) + (chain2 + chain3)). Four chains because an FMA waits 4
 * cycles for the one before it: a single row needs four in flight to stream at full speed.
 *
 * Two ways to walk the matrix:
 *   one row (decode)       dot_fp32: one weight row at a time, front to back, prefetching
 *                          ahead — memory-bound, every byte read once;
 *   two rows or more       tile_fp32: 2 rows x 3 outputs, each with its four chains (24
 *                          accumulators), the blocks in order. Each weight loaded serves 2
 *                          rows and each input 3 outputs: 5 loads feed 6 FMAs, so the
 *                          FMA units, not the loads, set the pace. A tile of outputs is
 *                          read from memory once and then served from L1 to every other
 *                          pair of rows; while those pairs compute, the next tile of
 *                          outputs is prefetched, a share per pair, so that the memory
 *                          keeps streaming under the FMAs.
 *   8 rows or more, where  tile_fp32 with tiles of 1 row x 3 outputs: the 2 x 3 tile's 24
 *   there are 16 vector    accumulators do not fit AVX2's 16 registers, and the spills
 *   registers (AVX2)       cost more than the loads 1 x 3 adds (4 feed 3 FMAs). Below 8
 *                          rows 2 x 3, reading each weight for two rows at once, stays
 *                          faster (data/measured/cpu/engine-kernels.md). */

enum { CHAINS = 4, CHAIN_STRIDE = CHAINS * LANES, TILE_ROWS = 2, TILE_OUTPUTS = 3 };
enum { ONE_ROW_TILES_FROM = LANES < 16 ? 8 : 1 << 30 };   /* rows from which AVX2 takes 1 x 3 tiles */

/* A decode row asks for its weights ahead as lanes.h's prefetch_stream_line says: the
 * hardware prefetcher alone keeps too few lines in flight, from L3 and from DRAM. */
ALWAYS_INLINE float combine_chains(simd_float_lanes c0, simd_float_lanes c1, simd_float_lanes c2, simd_float_lanes c3)
{
    return sum_lanes((c0 + c1) + (c2 + c3));
}

ALWAYS_INLINE void prefetch_ahead(const float *w)
{
    for (int line = 0; line < CHAIN_STRIDE; line += CACHE_LINE_BYTES / (int)sizeof(float)) prefetch_stream_line(w + line);
}

/* one row, one output: the four chains side by side */
ALWAYS_INLINE float dot_fp32(const float *x, const float *w, int cols)
{
    simd_float_lanes c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
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

/* Up to TILE_ROWS rows x TILE_OUTPUTS outputs side by side, each with its four chains; the
 * blocks in order. `prefetch_lines` cache lines from `prefetch` are asked for along the way,
 * a few per step, into L2: into L1 they would evict the tile being worked on. */
ALWAYS_INLINE void tile_fp32(float *out, int out_stride, const float *x, const float *w, int cols, int rows, int outputs,
                             const char *prefetch, int prefetch_lines)
{
    simd_float_lanes c[CHAINS][TILE_ROWS][TILE_OUTPUTS] = {{{0}}};
    int body = cols - cols % LANES, steps = body / CHAIN_STRIDE, j = 0;
    int lines_per_step = steps > 0 ? (prefetch_lines + steps - 1) / steps : 0;
    /* each row's own pointer, as INT8's tiles keep them: computed in the loop, the addresses
     * chain one on another */
    const float *weight_row[TILE_OUTPUTS], *input_row[TILE_ROWS];
    for (int o = 0; o < outputs; o++) weight_row[o] = w + (size_t)o * cols;
    for (int r = 0; r < rows; r++) input_row[r] = x + (size_t)r * cols;
#define ACCUMULATE(chain, at)                                                                                   \
    for (int o = 0; o < outputs; o++) {                                                                         \
        simd_float_lanes weight = load_floats(weight_row[o] + (at));                                                  \
        for (int r = 0; r < rows; r++) c[chain][r][o] += load_floats(input_row[r] + (at)) * weight;             \
    }
    for (; j + CHAIN_STRIDE <= body; j += CHAIN_STRIDE) {
        for (int k = 0; k < lines_per_step && prefetch_lines > 0; k++, prefetch_lines--, prefetch += CACHE_LINE_BYTES)
            __builtin_prefetch(prefetch, 0, 2);
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

/* tile_fp32 with constant sizes, so the compiler keeps the tile in registers */
static void tile_fp32_any(float *out, int out_stride, const float *x, const float *w, int cols, int rows, int outputs,
                          const char *prefetch, int prefetch_lines)
{
    if (rows == 2 && outputs == 3) tile_fp32(out, out_stride, x, w, cols, 2, 3, prefetch, prefetch_lines);
    else if (rows == 2 && outputs == 2) tile_fp32(out, out_stride, x, w, cols, 2, 2, prefetch, prefetch_lines);
    else if (rows == 2 && outputs == 1) tile_fp32(out, out_stride, x, w, cols, 2, 1, prefetch, prefetch_lines);
    else if (rows == 1 && outputs == 3) tile_fp32(out, out_stride, x, w, cols, 1, 3, prefetch, prefetch_lines);
    else if (rows == 1 && outputs == 2) tile_fp32(out, out_stride, x, w, cols, 1, 2, prefetch, prefetch_lines);
    else tile_fp32(out, out_stride, x, w, cols, 1, 1, prefetch, prefetch_lines);
}

static void matmul_fp32(float *out, const float *x, int rows, const llama_weight_matrix *m, int first, int last)
{
    int cols = m->cols, out_stride = m->rows;
    if (rows == 1) {
        for (int i = first; i < last; i++) out[i] = dot_fp32(x, m->fp32 + (size_t)i * cols, cols);
        return;
    }
    int tile_rows = rows >= ONE_ROW_TILES_FROM ? 1 : TILE_ROWS;
    for (int block = 0; block < rows; block += ROW_BLOCK) {
        int block_rows = smaller(ROW_BLOCK, rows - block), tiles = (block_rows + tile_rows - 1) / tile_rows;
        for (int i = first; i < last; i += TILE_OUTPUTS) {
            int outputs = smaller(TILE_OUTPUTS, last - i);
            const float *w = m->fp32 + (size_t)i * cols;
            /* the next tile's weights, in equal shares over this tile's tiles of rows */
            int next_lines = (int)((size_t)smaller(TILE_OUTPUTS, last - i - outputs) * cols * sizeof(float) / CACHE_LINE_BYTES);
            const char *next = (const char *)(w + (size_t)outputs * cols);
            for (int t = 0; t < tiles; t++) {
                int r = block + t * tile_rows, from = next_lines * t / tiles, to = next_lines * (t + 1) / tiles;
                tile_fp32_any(out + (size_t)r * out_stride + i, out_stride, x + (size_t)r * cols, w, cols,
                              smaller(tile_rows, block + block_rows - r), outputs, next + (size_t)from * CACHE_LINE_BYTES, to - from);
            }
        }
    }
}

/* ----------------------------------------------------------------------------------
 * INT8, weight-only: within a group of group_size values the products x * (float)q are
 * summed lane by lane (element k of the group to lane k % LANES, the last group_size % LANES
 * to lanes 0, 1, ...), front to back; then the group's partial sums are multiplied by its
 * scale and added to the accumulator — one multiply by the scale per group, not per
 * weight — and the result is sum_lanes(accumulator).
 *
 * Converting a weight from int8 to float costs two instructions beside the FMA it feeds
 * (sign-extend, convert). One core converts and multiplies faster than its memory delivers
 * weights (make bench PART=engine prints both), but not so much faster that the conversions
 * hide: at one row INT8 decode spends most of its time converting, and the memory has to
 * stream under that work, which it does only in part. The tiles' multiply-adds (one per 16
 * bytes, where FP32 has one per 64) cost as much as the conversions: the more instructions
 * lie between two loads, the fewer misses the out-of-order window holds when a prefetch comes
 * late (day 27's "nearer a sum than a max"). One row (decode) takes 4 outputs at a time (8
 * accumulators); 2 or 3 rows take tiles of 2 rows x 4 outputs, and 4 rows or more tiles of
 * 4 x 3, where each converted weight serves 4 rows (with AVX-512; with AVX2, see
 * matmul_quantized): the sizes that measured fastest (data/measured/cpu/engine-kernels.md).
 * Each group adds one multiply-add by its scale for every four of its own (group 64, 16
 * lanes), so the tiles cannot pass 80 % of the FMA peak. */

/* Asks for the cache lines of the `bytes` bytes from `from` on past `ahead` into L1 and,
 * where `far` is not NULL, for the same lines past `far` into L2. A tile asks for the same
 * number of bytes at every step (its groups a step times its outputs, constants where the
 * tile's sizes are), so the loop unrolls into straight prefetches; near the end of a matrix
 * it asks for a few lines past what the next tile reads, which costs nothing (a prefetch
 * does not fault). Asked for as a range cut to the matrix's last group, the loop's bounds
 * and branches would run each group. */
ALWAYS_INLINE void prefetch_span(const char *ahead, const char *far, size_t from, size_t bytes)
{
    for (size_t at = from; at < from + bytes; at += CACHE_LINE_BYTES) {
        __builtin_prefetch(ahead + at, 0, 3);
        if (far) __builtin_prefetch(far + at, 0, 2);
    }
}

/* A tile in INT8's order, on int8 weights from memory or, `dequantized`, on weights already
 * converted to floats (each exactly: q, or q - zero) and in L1 */
ALWAYS_INLINE void tile_grouped(float *out, int out_stride, const float *x, const void *w, const float *scales,
                                int cols, int group_size, int rows, int outputs, int dequantized)
{
    simd_float_lanes acc[INT8_MANY_ROWS][MOST_TILE_OUTPUTS] = {{0}};
    int groups = cols / group_size, body = group_size - group_size % LANES;
    int groups_a_line = group_size < CACHE_LINE_BYTES ? CACHE_LINE_BYTES / group_size : 1;
    /* the tile INT8_PREFETCH_ROWS rows further on: as many bytes as this one, contiguous.
     * At one or two rows, where the weights stream from memory under little work, 4 rows
     * on into L1, and PREFETCH_FAR_BYTES on into L2 as dot_fp32 asks */
    int few_rows = rows <= INT8_FEW_ROWS;
    const char *ahead = (const char *)w + (size_t)(few_rows ? INT8_FEW_ROWS_PREFETCH_ROWS : INT8_PREFETCH_ROWS) * cols;
    const char *far = few_rows ? (const char *)w + PREFETCH_FAR_BYTES : NULL;
    /* each row's own pointer: computed as w + o * cols in the loop, clang chains the
     * addresses one on another (16 dependent adds a group) */
    size_t weight_bytes = dequantized ? sizeof(float) : 1;
    const char *weight_row[MOST_TILE_OUTPUTS];
    const float *scale_row[MOST_TILE_OUTPUTS], *input_row[INT8_MANY_ROWS];
    for (int o = 0; o < outputs; o++) weight_row[o] = (const char *)w + (size_t)o * cols * weight_bytes, scale_row[o] = scales + (size_t)o * groups;
    for (int r = 0; r < rows; r++) input_row[r] = x + (size_t)r * cols;
    for (int first_group = 0; first_group < groups; first_group += groups_a_line) {
        /* Ask now, into L1, for the lines of the tile ahead that match the bytes this step
         * reads, in address order: rows read a few bytes at a time, side by side, are a
         * pattern the hardware prefetcher follows poorly. */
        if (!dequantized)
            prefetch_span(ahead, far, (size_t)first_group * group_size * outputs, (size_t)groups_a_line * group_size * outputs);
        for (int g = first_group; g < first_group + groups_a_line && g < groups; g++) {
            simd_float_lanes part[INT8_MANY_ROWS][MOST_TILE_OUTPUTS] = {{0}};
            size_t at = (size_t)g * group_size;
            for (int j = 0; j < body; j += LANES) {
                simd_float_lanes weights[MOST_TILE_OUTPUTS], inputs[INT8_MANY_ROWS];
                for (int o = 0; o < outputs; o++)
                    weights[o] = dequantized ? load_floats((const float *)weight_row[o] + at + j)
                                             : load_int8_as_floats((const int8_t *)weight_row[o] + at + j);
                for (int r = 0; r < rows; r++) inputs[r] = load_floats(input_row[r] + at + j);
                for (int o = 0; o < outputs; o++)
                    for (int r = 0; r < rows; r++) part[r][o] += inputs[r] * weights[o];
            }
            for (int j = body; j < group_size; j++)
                for (int o = 0; o < outputs; o++)
                    for (int r = 0; r < rows; r++)
                        part[r][o][j - body] += input_row[r][at + j] * (dequantized ? ((const float *)weight_row[o])[at + j]
                                                                                    : (float)((const int8_t *)weight_row[o])[at + j]);
            for (int o = 0; o < outputs; o++) {
                float scale = scale_row[o][g];
                for (int r = 0; r < rows; r++) acc[r][o] += scale * part[r][o];
            }
        }
    }
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < outputs; o++) out[(size_t)r * out_stride + o] = sum_lanes(acc[r][o]);
}

/* tile_grouped with constant sizes, on int8 weights or `dequantized` ones */
ALWAYS_INLINE void tile_grouped_any(float *out, int out_stride, const float *x, const void *w, const float *scales,
                                    int cols, int group_size, int rows, int outputs, int dequantized)
{
    int groups = cols / group_size;
    size_t weight_bytes = dequantized ? sizeof(float) : 1;
    /* the usual groups (64, and 32 for widths such as 288) as constants: their loops unroll
     * into straight-line code; decode's tile first. Inlined into matmul_quantized: as a
     * function of its own, clang left INT4's tiles in memory (data/measured/cpu/engine-kernels.md) */
    if (outputs == 4 && rows == 1 && group_size == 64) tile_grouped(out, out_stride, x, w, scales, cols, 64, 1, 4, dequantized);
    else if (outputs == 3 && rows == 4 && group_size == 64) tile_grouped(out, out_stride, x, w, scales, cols, 64, 4, 3, dequantized);
    else if (outputs == 3 && rows == 4 && group_size == 32) tile_grouped(out, out_stride, x, w, scales, cols, 32, 4, 3, dequantized);
    else if (outputs == 3 && rows == 4) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 4, 3, dequantized);
    else if (outputs == 3 && rows == 3) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 3, 3, dequantized);
    else if (outputs == 3 && rows == 2) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 2, 3, dequantized);
    else if (outputs == 3 && rows == 1) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 1, 3, dequantized);
    else if (outputs == 2 && rows == 4) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 4, 2, dequantized);
    else if (outputs == 2 && rows == 3) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 3, 2, dequantized);
    else if (outputs == 2 && rows == 2) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 2, 2, dequantized);
    else if (outputs == 2 && rows == 1) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 1, 2, dequantized);
    else if (outputs == 4 && rows == 2 && group_size == 64) tile_grouped(out, out_stride, x, w, scales, cols, 64, 2, 4, dequantized);
    else if (outputs == 4 && rows == 2 && group_size == 32) tile_grouped(out, out_stride, x, w, scales, cols, 32, 2, 4, dequantized);
    else if (outputs == 4 && rows == 1 && group_size == 32) tile_grouped(out, out_stride, x, w, scales, cols, 32, 1, 4, dequantized);
    else if (outputs == 4 && rows == 2) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 2, 4, dequantized);
    else if (outputs == 4 && rows == 1) tile_grouped(out, out_stride, x, w, scales, cols, group_size, 1, 4, dequantized);
    else
        for (int r = 0; r < rows; r++)
            for (int o = 0; o < outputs; o++)
                tile_grouped(out + (size_t)r * out_stride + o, out_stride, x + (size_t)r * cols,
                             (const char *)w + (size_t)o * cols * weight_bytes, scales + (size_t)o * groups, cols, group_size, 1, 1,
                             dequantized);
}

/* ----------------------------------------------------------------------------------
 * INT4, weight-only (llama.h's format): INT8's order with q - zero in place of q. Within a
 * group the products x * (float)(q - zero) are summed lane by lane (element k of the group
 * to lane k % LANES, the last group_size % LANES to lanes 0, 1, ...), front to back; the
 * group's partial sums are multiplied by its scale and added to the accumulator; the
 * result is sum_lanes(accumulator). q - zero is a small integer, exact in a float, so each
 * product is x times the dequantized weight before the scale.
 *
 * The nibbles are unpacked in registers, in one of two ways, with the same values. Both
 * put nibble i in the low bits of 32-bit lane i and OR it into the bits of the float 2^23,
 * which makes 2^23 + q; subtracting 2^23 + zero leaves q - zero, exactly:
 *   portable      LANES / 2 bytes (LANES values) are copied into every 32-bit lane, 4
 *                 bytes a lane (8 lanes of AVX2 hold one word; 16 of AVX-512, two), and
 *                 lane i shifted right by 4 x (i % 8) bits and masked: with AVX2, a
 *                 broadcast, one variable shift (vpsrlvd), an AND, an OR and the
 *                 subtraction, fewer than the byte shuffles it replaced;
 *   AVX-512 VBMI  8 bytes (16 values) are loaded into every 64-bit lane, and one
 *                 multishift (vpmultishiftqb) copies nibble i to 32-bit lane i; with one
 *                 vpternlogd for the mask and the OR, three instructions a register, as
 *                 INT8's sign-extend and convert are two.
 * Either way INT4 at one row is bound by the instructions on one core of this kind, not
 * by memory (day 25 measures the same of the learner's GEMV). The tiles are INT8's. */

/* A group's zero point as the unpacking subtracts it: 2^23 + zero in every lane */
typedef simd_float_lanes ZeroLanes;

typedef uint32_t WordLanes __attribute__((vector_size(LANES * sizeof(uint32_t))));

/* made as the unpacking makes 2^23 + q, by OR-ing the zero point into the float's bits: a
 * broadcast of one integer (converting the byte to float and adding 2^23 takes four
 * instructions more a group and output) */
ALWAYS_INLINE ZeroLanes zero_lanes(int zero)
{
    WordLanes bits = (WordLanes){0} + (0x4b000000u | (uint32_t)zero);
    ZeroLanes value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

#if defined(__AVX512VBMI__)   /* implies AVX-512: LANES == 16 */
#include <immintrin.h>

/* LANES values from LANES / 2 bytes, minus the zero point */
ALWAYS_INLINE simd_float_lanes load_int4_lanes(const uint8_t *p, ZeroLanes zero)
{
    long long bytes;
    memcpy(&bytes, p, sizeof bytes);
    /* for output byte b of 64-bit lane l, the bit at which its 8 bits start: 4 * (2l + b / 4),
     * so that 32-bit lane i starts with nibble i (bytes 1-3 and 5-7 take what they will) */
    const __m512i nibble_at = _mm512_set_epi64(0x3c3c3c3c38383838, 0x3434343430303030, 0x2c2c2c2c28282828, 0x2424242420202020,
                                               0x1c1c1c1c18181818, 0x1414141410101010, 0x0c0c0c0c08080808, 0x0404040400000000);
    __m512i nibbles = _mm512_multishift_epi64_epi8(nibble_at, _mm512_set1_epi64(bytes));
    /* (nibbles & 15) | bits of 2^23: the truth table of (a & b) | c is 0xea */
    __m512i biased = _mm512_ternarylogic_epi32(nibbles, _mm512_set1_epi32(15), _mm512_set1_epi32(0x4b000000), 0xea);
    simd_float_lanes value;
    memcpy(&value, &biased, sizeof value);
    return value - zero;   /* (2^23 + q) - (2^23 + zero): exact */
}

#else

/* LANES values from LANES / 2 bytes, minus the zero point */
ALWAYS_INLINE simd_float_lanes load_int4_lanes(const uint8_t *p, ZeroLanes zero)
{
    uint32_t words[LANES / 8];
    memcpy(words, p, sizeof words);
    WordLanes spread, shift;
    for (int i = 0; i < LANES; i++) spread[i] = words[i / 8], shift[i] = 4 * (i % 8);
    WordLanes biased = ((spread >> shift) & 15) | 0x4b000000;
    simd_float_lanes value;
    memcpy(&value, &biased, sizeof value);
    return value - zero;   /* (2^23 + q) - (2^23 + zero): exact */
}
#endif

/* 2 x LANES values from LANES bytes, minus the zero point: elements 0 .. LANES-1 in *first,
 * the next LANES in *second */
ALWAYS_INLINE void load_int4_pairs(const uint8_t *p, ZeroLanes zero, simd_float_lanes *first, simd_float_lanes *second)
{
    *first = load_int4_lanes(p, zero);
    *second = load_int4_lanes(p + LANES / 2, zero);
}

ALWAYS_INLINE int int4_at(const uint8_t *row, size_t element)
{
    return element % 2 == 0 ? row[element / 2] & 15 : row[element / 2] >> 4;
}

ALWAYS_INLINE void tile_int4(float *out, int out_stride, const float *x, const uint8_t *w, const float *scales,
                             const uint8_t *zeros, int cols, int group_size, int rows, int outputs)
{
    simd_float_lanes acc[INT8_MANY_ROWS][MOST_TILE_OUTPUTS] = {{0}};
    int groups = cols / group_size, pairs = group_size - group_size % (2 * LANES), body = group_size - group_size % LANES;
    int groups_a_line = group_size < 2 * CACHE_LINE_BYTES ? 2 * CACHE_LINE_BYTES / group_size : 1;   /* a line holds 128 values */
    const char *ahead = (const char *)(w + (size_t)INT8_PREFETCH_ROWS * (cols / 2));
    const uint8_t *weight_row[MOST_TILE_OUTPUTS], *zero_row[MOST_TILE_OUTPUTS];
    const float *scale_row[MOST_TILE_OUTPUTS], *input_row[INT8_MANY_ROWS];
    for (int o = 0; o < outputs; o++)
        weight_row[o] = w + (size_t)o * (cols / 2), scale_row[o] = scales + (size_t)o * groups, zero_row[o] = zeros + (size_t)o * groups;
    for (int r = 0; r < rows; r++) input_row[r] = x + (size_t)r * cols;
    for (int first_group = 0; first_group < groups; first_group += groups_a_line) {
        /* as INT8 does, the lines of the tile INT8_PREFETCH_ROWS rows ahead that match these */
        prefetch_span(ahead, NULL, (size_t)first_group * group_size / 2 * outputs, (size_t)groups_a_line * group_size / 2 * outputs);
        for (int g = first_group; g < first_group + groups_a_line && g < groups; g++) {
            simd_float_lanes part[INT8_MANY_ROWS][MOST_TILE_OUTPUTS] = {{0}};
            ZeroLanes zero[MOST_TILE_OUTPUTS];
            for (int o = 0; o < outputs; o++) zero[o] = zero_lanes(zero_row[o][g]);
            size_t at = (size_t)g * group_size;
            int j = 0;
            for (; j < pairs; j += 2 * LANES) {
                simd_float_lanes first[MOST_TILE_OUTPUTS], second[MOST_TILE_OUTPUTS];
                for (int o = 0; o < outputs; o++) load_int4_pairs(weight_row[o] + (at + j) / 2, zero[o], &first[o], &second[o]);
                for (int r = 0; r < rows; r++) {
                    simd_float_lanes in_first = load_floats(input_row[r] + at + j), in_second = load_floats(input_row[r] + at + j + LANES);
                    for (int o = 0; o < outputs; o++) part[r][o] += in_first * first[o];
                    for (int o = 0; o < outputs; o++) part[r][o] += in_second * second[o];
                }
            }
            if (j < body) {   /* one block of LANES left */
                simd_float_lanes weights[MOST_TILE_OUTPUTS];
                for (int o = 0; o < outputs; o++) weights[o] = load_int4_lanes(weight_row[o] + (at + j) / 2, zero[o]);
                for (int r = 0; r < rows; r++) {
                    simd_float_lanes in = load_floats(input_row[r] + at + j);
                    for (int o = 0; o < outputs; o++) part[r][o] += in * weights[o];
                }
            }
            for (j = body; j < group_size; j++)
                for (int o = 0; o < outputs; o++)
                    for (int r = 0; r < rows; r++)
                        part[r][o][j - body] += input_row[r][at + j] * (float)(int4_at(weight_row[o], at + j) - zero_row[o][g]);
            for (int o = 0; o < outputs; o++) {
                float scale = scale_row[o][g];
                for (int r = 0; r < rows; r++) acc[r][o] += scale * part[r][o];
            }
        }
    }
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < outputs; o++) out[(size_t)r * out_stride + o] = sum_lanes(acc[r][o]);
}

ALWAYS_INLINE void tile_int4_any(float *out, int out_stride, const float *x, const uint8_t *w, const float *scales,
                                 const uint8_t *zeros, int cols, int group_size, int rows, int outputs)
{
    int groups = cols / group_size;
    if (outputs == 8 && rows == 1 && group_size == 64) tile_int4(out, out_stride, x, w, scales, zeros, cols, 64, 1, 8);
    else if (outputs == 8 && rows == 1 && group_size == 32) tile_int4(out, out_stride, x, w, scales, zeros, cols, 32, 1, 8);
    else if (outputs == 8 && rows == 1) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 1, 8);
    else if (outputs == 4 && rows == 1 && group_size == 64) tile_int4(out, out_stride, x, w, scales, zeros, cols, 64, 1, 4);
    else if (outputs == 4 && rows == 1 && group_size == 32) tile_int4(out, out_stride, x, w, scales, zeros, cols, 32, 1, 4);
    else if (outputs == 4 && rows == 1) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 1, 4);
    else if (outputs == 4 && rows == 2 && group_size == 64) tile_int4(out, out_stride, x, w, scales, zeros, cols, 64, 2, 4);
    else if (outputs == 4 && rows == 2) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 2, 4);
    else if (outputs == 3 && rows == 4 && group_size == 64) tile_int4(out, out_stride, x, w, scales, zeros, cols, 64, 4, 3);
    else if (outputs == 3 && rows == 4 && group_size == 32) tile_int4(out, out_stride, x, w, scales, zeros, cols, 32, 4, 3);
    else if (outputs == 3 && rows == 4) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 4, 3);
    else if (outputs == 3 && rows == 3) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 3, 3);
    else if (outputs == 3 && rows == 2) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 2, 3);
    else if (outputs == 3 && rows == 1) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 1, 3);
    else if (outputs == 2 && rows == 4) tile_int4(out, out_stride, x, w, scales, zeros, cols, group_size, 4, 2);
    else
        for (int r = 0; r < rows; r++)
            for (int o = 0; o < outputs; o++)
                tile_int4(out + (size_t)r * out_stride + o, out_stride, x + (size_t)r * cols, w + (size_t)o * (cols / 2),
                          scales + (size_t)o * groups, zeros + (size_t)o * groups, cols, group_size, 1, 1);
}

/* ----------------------------------------------------------------------------------
 * Many rows (a large batch, prefill): every tile of outputs is converted to floats once,
 * into a buffer in L1, and multiplied from there by all the rows, a block of ROW_BLOCK at a
 * time, in INT8's order (tile_grouped). Each float is the value the tiles convert in
 * registers (q, or q - zero: exact), so the sums are the same bit for bit; each weight is
 * converted once for up to ROW_BLOCK rows instead of once for every tile of rows, and the
 * next tile's quantized bytes are asked for, a share by each tile of rows, as FP32's are.
 * Whether the buffer repays its stores and loads depends on the core: below 16 rows it never
 * does, and above, on one core it pays and on another the tiles converting in registers
 * are faster, so the engine measures which of the two pays on the core it runs on
 * (many_rows_dequantize, below; the figures of two machines: data/measured/cpu/engine-kernels.md). */
enum { DEQUANTIZED_FLOATS = 12 * 1024 };   /* the buffer: 48 KB, on the stack */

/* rows [first, first + count) of a quantized matrix as floats, count x cols */
ALWAYS_INLINE void dequantize_rows(float *to, const llama_weight_matrix *m, int first, int count, llama_weight_format format)
{
    int cols = m->cols, group_size = m->group_size;
    size_t values = (size_t)count * cols, k = 0;
    if (format == WEIGHTS_INT8) {
        const int8_t *q = m->int8 + (size_t)first * cols;
        for (; k + LANES <= values; k += LANES) store_floats(to + k, load_int8_as_floats(q + k));
        for (; k < values; k++) to[k] = (float)q[k];
        return;
    }
    const uint8_t *q = m->int4 + (size_t)first * (cols / 2), *zeros = m->zeros + (size_t)first * (cols / group_size);
    for (size_t g = 0; g < values / group_size; g++) {
        ZeroLanes zero = zero_lanes(zeros[g]);
        size_t at = g * group_size;
        for (k = 0; k + LANES <= (size_t)group_size; k += LANES) store_floats(to + at + k, load_int4_lanes(q + (at + k) / 2, zero));
        for (; k < (size_t)group_size; k++) to[at + k] = (float)(int4_at(q, at + k) - zeros[g]);
    }
}

/* outputs [first, last), where a tile of outputs fits the buffer */
static __attribute__((noinline)) void matmul_dequantized(float *out, const float *x, int rows, const llama_weight_matrix *m, int first, int last,
                                      llama_weight_format format)
{
    int cols = m->cols, out_stride = m->rows, groups = cols / m->group_size;
    int tile = INT8_MANY_OUTPUTS, row_tile = LANES == 16 ? INT8_MANY_ROWS : 2;
    size_t row_bytes = format == WEIGHTS_INT4 ? (size_t)cols / 2 : (size_t)cols;
    const char *bytes = format == WEIGHTS_INT4 ? (const char *)m->int4 : (const char *)m->int8;
    float dequantized[DEQUANTIZED_FLOATS] __attribute__((aligned(64)));
    for (int block = 0; block < rows; block += ROW_BLOCK) {
        int block_rows = smaller(ROW_BLOCK, rows - block), tiles = (block_rows + row_tile - 1) / row_tile;
        for (int i = first, outputs; i < last; i += outputs) {
            outputs = smaller(tile, last - i);
            dequantize_rows(dequantized, m, i, outputs, format);
            const float *scales = m->scales + (size_t)i * groups;
            const char *next = bytes + (size_t)(i + outputs) * row_bytes;
            int next_lines = (int)(((size_t)smaller(tile, last - i - outputs) * row_bytes + CACHE_LINE_BYTES - 1) / CACHE_LINE_BYTES);
            for (int t = 0; t < tiles; t++) {
                int r = block + t * row_tile;
                for (int line = next_lines * t / tiles; line < next_lines * (t + 1) / tiles; line++)
                    __builtin_prefetch(next + (size_t)line * CACHE_LINE_BYTES, 0, 3);
                tile_grouped_any(out + (size_t)r * out_stride + i, out_stride, x + (size_t)r * cols, dequantized, scales,
                                 cols, m->group_size, smaller(row_tile, block + block_rows - r), outputs, 1);
            }
        }
    }
}

/* ----------------------------------------------------------------------------------
 * Both quantized formats walk the matrix alike: tiles of outputs for each tile of rows,
 * a block of rows at a time */

ALWAYS_INLINE void matmul_quantized(float *out, const float *x, int rows, const llama_weight_matrix *m, int first, int last,
                                llama_weight_format format, int dequantize)
{
    int cols = m->cols, out_stride = m->rows, groups = cols / m->group_size;
    if (dequantize) {
        matmul_dequantized(out, x, rows, m, first, last, format);
        return;
    }
    /* Blocks of as many rows as keep their inputs in L1 beside the weights (at least one
     * tile of 4), as the tiles of rows re-read them for every tile of outputs: in blocks of
     * 64, 32 rows of 768 (96 KB) were read from L2 for every tile. Each block reads the
     * weights again, from L2 or L3, which costs less than the conversions they feed. */
    int row_block = QUANTIZED_BLOCK_BYTES / (cols * (int)sizeof(float)) / INT8_MANY_ROWS * INT8_MANY_ROWS;
    if (row_block < INT8_MANY_ROWS) row_block = INT8_MANY_ROWS;
    int row_outputs = format == WEIGHTS_INT4 ? INT4_ROW_OUTPUTS : INT8_ROW_OUTPUTS;
    /* The 4 x 3 tile's 24 sums fit in AVX-512's 32 vector registers, not in AVX2's 16.
     * There INT8 runs faster in tiles of 2 x 4 whatever the rows, spilling less; INT4,
     * whose unpacking costs more than the spills, still gains from serving 4 rows. */
    int many = rows >= INT8_MANY_ROWS && !(format == WEIGHTS_INT8 && LANES < 16);
    int tile = rows == 1 ? row_outputs : many ? INT8_MANY_OUTPUTS : INT8_FEW_OUTPUTS;
    int row_tile = many ? INT8_MANY_ROWS : INT8_FEW_ROWS;
    /* as many blocks as that takes, of equal sizes (whole tiles): 16 rows in 12 and 4 left
     * the second block too few rows to hide its weights' second reading */
    int blocks = (rows + row_block - 1) / row_block;
    row_block = ((rows + blocks - 1) / blocks + row_tile - 1) / row_tile * row_tile;
    for (int block = 0; block < rows; block += row_block) {
        int block_rows = smaller(row_block, rows - block);
        for (int i = first, outputs; i < last; i += outputs) {
            outputs = smaller(tile, last - i);
            if (outputs > OUTPUT_TILE && outputs < tile) outputs = OUTPUT_TILE;   /* the rest of INT4's 8s in 4s */
            const float *scales = m->scales + (size_t)i * groups;
            for (int r = block; r < block + block_rows; r += row_tile) {
                int tile_rows = smaller(row_tile, block + block_rows - r);
                if (format == WEIGHTS_INT4)
                    tile_int4_any(out + (size_t)r * out_stride + i, out_stride, x + (size_t)r * cols,
                                  m->int4 + (size_t)i * (cols / 2), scales, m->zeros + (size_t)i * groups, cols,
                                  m->group_size, tile_rows, outputs);
                else
                    tile_grouped_any(out + (size_t)r * out_stride + i, out_stride, x + (size_t)r * cols,
                                     m->int8 + (size_t)i * cols, scales, cols, m->group_size, tile_rows, outputs, 0);
            }
        }
    }
}

/* one function for each format, so that the code compiled for one does not change the
 * other's (sharing one, a change to INT4's unpacking slowed INT8's tiles in groups of 32:
 * data/measured/cpu/engine-kernels.md); `dequantize` says which path many rows take */
static __attribute__((noinline)) void matmul_int8_by(float *out, const float *x, int rows, const llama_weight_matrix *m, int first,
                                                     int last, int dequantize)
{
    matmul_quantized(out, x, rows, m, first, last, WEIGHTS_INT8, dequantize);
}

static __attribute__((noinline)) void matmul_int4_by(float *out, const float *x, int rows, const llama_weight_matrix *m, int first,
                                                     int last, int dequantize)
{
    matmul_quantized(out, x, rows, m, first, last, WEIGHTS_INT4, dequantize);
}

/* ----------------------------------------------------------------------------------
 * Many rows: in registers or from the buffer, whichever this core runs faster. Measured
 * once a format, for 16 to 31 rows at 16 and for more at 32, on a matrix of
 * MEASURED_OUTPUTS x MEASURED_COLS (weights in L2): the best of MEASURED_ROUNDS of each, side
 * by side. The buffer is taken where it takes less than MATMUL_BUFFER_MARGIN of the
 * registers' time, a margin beyond the measurement's noise: where the two tie in L2 the
 * registers, which store nothing, do no worse streamed. Both paths give the same bits: the
 * choice moves the speed only. make bench PART=engine prints the choice and the ratio. */
enum { MEASURED_OUTPUTS = 48, MEASURED_COLS = 768, MEASURED_GROUP = 64, MEASURED_ROUNDS = 7, ROW_CLASSES = 2 };
static const int class_rows[ROW_CLASSES] = {MATMUL_MANY_ROWS, 2 * MATMUL_MANY_ROWS};

static int many_rows_setting = LLAMA_MANY_ROWS_MEASURED;
static struct {
    pthread_once_t once;
    int dequantize[ROW_CLASSES];
    double ratio[ROW_CLASSES];   /* the buffer's time over the registers' */
} measured[2] = {{PTHREAD_ONCE_INIT, {0, 0}, {0, 0}}, {PTHREAD_ONCE_INIT, {0, 0}, {0, 0}}};

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void measure_many_rows(llama_weight_format format)
{
    int most_rows = class_rows[ROW_CLASSES - 1], index = format == WEIGHTS_INT4;
    size_t values = (size_t)MEASURED_OUTPUTS * MEASURED_COLS, groups = values / MEASURED_GROUP;
    float *x = malloc(sizeof(float) * (size_t)most_rows * MEASURED_COLS);
    float *out = malloc(sizeof(float) * (size_t)most_rows * MEASURED_OUTPUTS), *scales = malloc(sizeof(float) * groups);
    uint8_t *bytes = malloc(values), *zeros = malloc(groups);
    if (!x || !out || !scales || !bytes || !zeros) goto done;   /* no memory to measure in: the registers */
    for (size_t i = 0; i < (size_t)most_rows * MEASURED_COLS; i++) x[i] = (float)(i % 7) * 0.25f - 0.75f;
    for (size_t i = 0; i < values; i++) bytes[i] = (uint8_t)(i * 37);
    for (size_t g = 0; g < groups; g++) scales[g] = 0.01f, zeros[g] = 8;
    llama_weight_matrix m = {.rows = MEASURED_OUTPUTS, .cols = MEASURED_COLS, .format = format, .int8 = (const int8_t *)bytes,
                      .int4 = bytes, .scales = scales, .zeros = zeros, .group_size = MEASURED_GROUP};
    for (int c = 0; c < ROW_CLASSES; c++) {
        double best[2] = {INFINITY, INFINITY};
        for (int round = 0; round <= MEASURED_ROUNDS; round++)   /* round 0 brings both into the caches */
            for (int dequantize = 0; dequantize < 2; dequantize++) {
                double start = seconds_now();
                if (format == WEIGHTS_INT4) matmul_int4_by(out, x, class_rows[c], &m, 0, MEASURED_OUTPUTS, dequantize);
                else matmul_int8_by(out, x, class_rows[c], &m, 0, MEASURED_OUTPUTS, dequantize);
                double seconds = seconds_now() - start;
                if (round > 0 && seconds < best[dequantize]) best[dequantize] = seconds;
            }
        measured[index].ratio[c] = best[1] / best[0];
        measured[index].dequantize[c] = measured[index].ratio[c] < MATMUL_BUFFER_MARGIN;
    }
done:
    free(x), free(out), free(scales), free(bytes), free(zeros);
}

static void measure_int8(void) { measure_many_rows(WEIGHTS_INT8); }
static void measure_int4(void) { measure_many_rows(WEIGHTS_INT4); }

int llama_matmul_dequantizes(llama_weight_format format, int rows, double *ratio)
{
    if (ratio) *ratio = 0;
    if (format == WEIGHTS_FP32 || rows < MATMUL_MANY_ROWS) return 0;
    int index = format == WEIGHTS_INT4, c = rows >= class_rows[1];
    pthread_once(&measured[index].once, index ? measure_int4 : measure_int8);
    if (ratio) *ratio = measured[index].ratio[c];
    return measured[index].dequantize[c];
}

void llama_matmul_set_many_rows(int setting) { many_rows_setting = setting; }

/* whether `rows` rows of m take the buffer */
static int many_rows_dequantize(const llama_weight_matrix *m, int rows)
{
    if (rows < MATMUL_MANY_ROWS || (size_t)INT8_MANY_OUTPUTS * m->cols > DEQUANTIZED_FLOATS) return 0;
    if (many_rows_setting != LLAMA_MANY_ROWS_MEASURED) return many_rows_setting == LLAMA_MANY_ROWS_DEQUANTIZED;
    return llama_matmul_dequantizes(m->format, rows, NULL);
}

static void matmul_int8(float *out, const float *x, int rows, const llama_weight_matrix *m, int first, int last)
{
    matmul_int8_by(out, x, rows, m, first, last, many_rows_dequantize(m, rows));
}

static void matmul_int4(float *out, const float *x, int rows, const llama_weight_matrix *m, int first, int last)
{
    matmul_int4_by(out, x, rows, m, first, last, many_rows_dequantize(m, rows));
}

/* ----------------------------------------------------------------------------------
 * The entry point */

void llama_matmul(float *out, const float *x, int rows, const llama_weight_matrix *w, int first_output, int last_output)
{
    if (w->format == WEIGHTS_FP32) matmul_fp32(out, x, rows, w, first_output, last_output);
    else if (w->format == WEIGHTS_INT8) matmul_int8(out, x, rows, w, first_output, last_output);
    else matmul_int4(out, x, rows, w, first_output, last_output);
}
