/* order.c — every path of the FP32 and INT8 matrix kernels sums each dot product in the one
 * order that matmul.c's comments document, bit for bit (INT4's order is checked in int4.c):
 * one row (decode), tiles of a few rows (a batch), many rows (prefill), every remainder of
 * rows, columns and outputs, and a thread's share of the outputs. The order is transcribed
 * here as scalar code, one fused multiply-add at a time (fmaf: what the kernels' `sum +=
 * a * b` compiles to), so a kernel that adds in any other order — or rounds a product
 * before adding it — fails.
 *
 * That order is what makes a sequence decoded in a batch get, bit for bit, the logits it
 * gets alone (cache.c); the double-precision tolerance checks are layers.c and int8.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_probes.h"
#include "llama.h"
#include "matmul.h"
#include "quantize.h"
#include "reference.h"

enum { MAX_LANES = 16, CHAINS = 4 };

/* lanes.h's sum_lanes: the upper half of the lanes onto the lower half until one is left */
static float sum_lanes(float *lane, int lanes)
{
    for (int n = lanes; n > 1; n /= 2)
        for (int i = 0; i < n / 2; i++) lane[i] += lane[i + n / 2];
    return lane[0];
}

/* FP32: element j to lane j % LANES of chain (j / LANES) % 4, the last cols % LANES
 * elements to chain 0, each chain front to back; sum_lanes((c0 + c1) + (c2 + c3)). */
static float documented_fp32(const float *x, const float *w, int cols, int lanes)
{
    float chain[CHAINS][MAX_LANES] = {{0}}, combined[MAX_LANES];
    int body = cols - cols % lanes;
    for (int j = 0; j < body; j++) chain[j / lanes % CHAINS][j % lanes] = fmaf(x[j], w[j], chain[j / lanes % CHAINS][j % lanes]);
    for (int j = body; j < cols; j++) chain[0][j - body] = fmaf(x[j], w[j], chain[0][j - body]);
    for (int l = 0; l < lanes; l++) combined[l] = (chain[0][l] + chain[1][l]) + (chain[2][l] + chain[3][l]);
    return sum_lanes(combined, lanes);
}

/* INT8: within a group, element j to lane (j - group start) % LANES (the group's last
 * group_size % LANES elements to lanes 0, 1, ...), front to back; then
 * accumulator = scale * group sum + accumulator, lane by lane; sum_lanes(accumulator). */
static float documented_int8(const float *x, const int8_t *q, const float *scales, int cols, int group_size, int lanes)
{
    float accumulator[MAX_LANES] = {0};
    int body = group_size - group_size % lanes;
    for (int g = 0; g < cols / group_size; g++) {
        float part[MAX_LANES] = {0};
        for (int k = 0; k < group_size; k++) {
            int j = g * group_size + k, lane = k < body ? k % lanes : k - body;
            part[lane] = fmaf(x[j], (float)q[j], part[lane]);
        }
        for (int l = 0; l < lanes; l++) accumulator[l] = fmaf(scales[g], part[l], accumulator[l]);
    }
    return sum_lanes(accumulator, lanes);
}

/* llama_matmul over rows x outputs (outputs [first, last) only) against the documented order */
static void check(int rows, int cols, int outputs, int first, int last, int group_size)
{
    int lanes = perfmodel_simd_float_lanes();
    cr_assert(lanes <= MAX_LANES, "%d lanes", lanes);
    float *w = malloc((size_t)outputs * cols * sizeof(float)), *x = malloc((size_t)rows * cols * sizeof(float));
    float *out = malloc((size_t)rows * outputs * sizeof(float)), *scales = malloc((size_t)outputs * cols * sizeof(float));
    int8_t *q = malloc((size_t)outputs * cols);
    fill_random(w, outputs * cols, 1.0f, (uint64_t)rows * 7919 + (uint64_t)cols * 31 + (uint64_t)outputs);
    fill_random(x, rows * cols, 1.0f, (uint64_t)cols * 104729 + (uint64_t)rows);
    llama_weight_matrix m = {.rows = outputs, .cols = cols, .format = WEIGHTS_FP32, .fp32 = w};
    if (group_size) {
        llama_quantize_rows(q, scales, w, (int64_t)outputs * cols, group_size);
        m = (llama_weight_matrix){.rows = outputs, .cols = cols, .format = WEIGHTS_INT8, .int8 = q, .scales = scales,
                           .group_size = group_size};
    }
    llama_matmul(out, x, rows, &m, first, last);
    for (int r = 0; r < rows; r++)
        for (int i = first; i < last; i++) {
            const float *xr = x + (size_t)r * cols;
            float expected = group_size ? documented_int8(xr, q + (size_t)i * cols, scales + (size_t)i * (cols / group_size), cols,
                                                          group_size, lanes)
                                        : documented_fp32(xr, w + (size_t)i * cols, cols, lanes);
            float got = out[(size_t)r * outputs + i];
            cr_assert(memcmp(&got, &expected, sizeof got) == 0,
                      "%s, rows %d, cols %d, outputs %d [%d, %d): out[%d][%d] = %a, the documented order gives %a",
                      group_size ? "INT8" : "FP32", rows, cols, outputs, first, last, r, i, got, expected);
        }
    free(w), free(x), free(out), free(scales), free(q);
}

static const int row_counts[] = {1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 32, 33, 70};
enum { ROW_COUNTS = sizeof row_counts / sizeof row_counts[0] };

Test(order, fp32_every_path_sums_in_the_documented_order, .timeout = 60)
{
    int cols[] = {1, 15, 16, 17, 48, 63, 64, 65, 80, 112, 200, 288};
    int outputs[] = {1, 2, 3, 4, 5, 7, 9, 13};
    for (int r = 0; r < ROW_COUNTS; r++)
        for (int c = 0; c < 12; c++)
            for (int o = 0; o < 8; o++) check(row_counts[r], cols[c], outputs[o], 0, outputs[o], 0);
    for (int r = 0; r < ROW_COUNTS; r++) {
        check(row_counts[r], 288, 29, 4, 20, 0);   /* a thread's share: starts on a multiple of 4 */
        check(row_counts[r], 288, 29, 24, 29, 0);
    }
}

/* every INT8 case of at least least_rows rows */
static void check_int8(int least_rows)
{
    int cols[] = {16, 32, 48, 64, 96, 128, 288, 320};
    int groups[] = {8, 16, 24, 32, 64};
    int outputs[] = {1, 3, 4, 5, 8, 9, 12, 13, 17};
    for (int r = 0; r < ROW_COUNTS; r++) {
        if (row_counts[r] < least_rows) continue;
        for (int c = 0; c < 8; c++)
            for (int g = 0; g < 5; g++) {
                if (cols[c] % groups[g]) continue;
                for (int o = 0; o < 9; o++) check(row_counts[r], cols[c], outputs[o], 0, outputs[o], groups[g]);
            }
        check(row_counts[r], 320, 29, 4, 20, 64);   /* a thread's share */
        check(row_counts[r], 288, 29, 12, 29, 32);
        /* wide rows: 2112 columns, so matmul.c takes the rows in blocks of its smallest, 4 (a
         * block's inputs stay in L1), with a last block of 1, 2 or 3 rows; in groups of 64 and
         * 96, and of 1056 and 2112 (half a row, a whole one). 288 and 320 above: blocks of 20
         * and 16. */
        int wide_groups[] = {64, 96, 1056, 2112};
        for (int g = 0; g < 4; g++) check(row_counts[r], 2112, 7, 0, 7, wide_groups[g]);
    }
    /* From 16 rows a tile of outputs may be converted to floats first, where 3 of its rows
     * fit the buffer (12 288 floats): 4224 columns do not, and take the tiles in registers */
    check(16, 4224, 5, 0, 5, 64), check(33, 4224, 5, 0, 5, 96);
}

/* Many rows take one of two paths, whichever this core runs faster (matmul.h): each of them */
Test(order, int8_every_path_sums_in_the_documented_order, .timeout = 60)
{
    llama_matmul_set_many_rows(LLAMA_MANY_ROWS_IN_REGISTERS);
    check_int8(1);
}

Test(order, int8_dequantized_tiles_sum_in_the_documented_order, .timeout = 60)
{
    llama_matmul_set_many_rows(LLAMA_MANY_ROWS_DEQUANTIZED);
    check_int8(MATMUL_MANY_ROWS);
}

Test(order, which_many_rows_path_is_measured, .timeout = 10)
{
    llama_weight_format formats[] = {WEIGHTS_INT8, WEIGHTS_INT4};
    int rows[] = {1, 15, 16, 31, 32, 70};
    for (int f = 0; f < 2; f++)
        for (int r = 0; r < 6; r++) {
            double ratio = -1;
            int dequantize = llama_matmul_dequantizes(formats[f], rows[r], &ratio);
            if (rows[r] < MATMUL_MANY_ROWS) {
                cr_assert(dequantize == 0 && ratio == 0, "%d rows: dequantize %d, ratio %g", rows[r], dequantize, ratio);
                continue;
            }
            cr_assert(isfinite(ratio) && ratio > 0.1 && ratio < 10 && dequantize == (ratio < MATMUL_BUFFER_MARGIN),
                      "format %d, %d rows: the buffer's time over the registers' %g, yet dequantize = %d", formats[f],
                      rows[r], ratio, dequantize);
        }
    cr_assert(llama_matmul_dequantizes(WEIGHTS_FP32, 64, NULL) == 0, "FP32 has no buffer");
}
