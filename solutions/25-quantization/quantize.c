/* quantize.c — Day 25: weight-only quantization, INT8 per channel and INT4 per group, and the
 * GEMVs that read each format.
 *
 * What you write today, in the order of lab.h (whose comments fix the formulas and the layout):
 *   1. quantize_int8_per_channel, dequantize_int8: scale = max|w| / 127 per row, round to nearest.
 *   2. gemv_int8: y_r = scale_r x sum_j q_rj x_j — the scale once per row, after the sum.
 *   3. int4_row_bytes, int4_groups_per_row, quantize_int4_groups, int4_value, dequantize_int4:
 *      groups of group_size within a row, a zero point each, two values a byte, low nibble first.
 *   4. gemv_int4: per group, scale_g x sum_j (q_j - zero_g) x_j.
 *
 * Rules: plain C and the C library (roundf, lrintf, fabsf), not lib/llama, whose own INT8 the
 * checks compare yours with. Every element comes back within scale / 2 of what went in. The
 * GEMVs sum in float, in 16 partial sums as driver/reference.c's gemv_fp32 does: the check
 * times your gemv_int8 against it on an 8192 x 8192 matrix, past the caches in both formats.
 *
 * Check:  make check DAY=25        Stuck?  make hint DAY=25
 */
#include "lab.h"

#include <math.h>

enum { PARTIAL_SUMS = 16 };

/* ---------------------------------------------------------------------------------
 * INT8, one scale per row */

void quantize_int8_per_channel(const float *w, int rows, int cols, int8_t *values, float *scales)
{
    for (int r = 0; r < rows; r++) {
        const float *row = w + (size_t)r * cols;
        float largest = 0;
        for (int j = 0; j < cols; j++) largest = fmaxf(largest, fabsf(row[j]));
        float scale = largest / 127.0f;   // the largest |w| becomes 127, not 1
        scales[r] = scale;
        for (int j = 0; j < cols; j++)
            values[(size_t)r * cols + j] = scale > 0 ? (int8_t)lrintf(row[j] / scale) : 0;   // nearest, not truncated
    }
}

void dequantize_int8(const int8_t *values, const float *scales, int rows, int cols, float *out)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) out[(size_t)r * cols + j] = (float)values[(size_t)r * cols + j] * scales[r];
}

void gemv_int8(const int8_t *values, const float *scales, const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const int8_t *row = values + (size_t)r * cols;
        float partial[PARTIAL_SUMS] = {0};
        int j = 0;
        for (; j + PARTIAL_SUMS <= cols; j += PARTIAL_SUMS)
            for (int k = 0; k < PARTIAL_SUMS; k++) partial[k] += (float)row[j + k] * x[j + k];
        float sum = 0;
        for (; j < cols; j++) sum += (float)row[j] * x[j];
        for (int k = 0; k < PARTIAL_SUMS; k++) sum += partial[k];
        y[r] = sum * scales[r];   // one multiply per row: the scale is common to the whole row
    }
}

/* ---------------------------------------------------------------------------------
 * INT4, a scale and a zero point per group of a row */

int int4_row_bytes(int cols) { return (cols + 1) / 2; }

int int4_groups_per_row(int cols, int group_size) { return (cols + group_size - 1) / group_size; }

static int clamp_nibble(long v) { return v < 0 ? 0 : v > 15 ? 15 : (int)v; }

void quantize_int4_groups(const float *w, int rows, int cols, int group_size, uint8_t *packed, float *scales,
                          uint8_t *zeros)
{
    int row_bytes = int4_row_bytes(cols), groups = int4_groups_per_row(cols, group_size);
    for (int r = 0; r < rows; r++) {
        const float *row = w + (size_t)r * cols;
        uint8_t *bytes = packed + (size_t)r * row_bytes;
        for (int b = 0; b < row_bytes; b++) bytes[b] = 0;
        for (int g = 0; g < groups; g++) {
            int first = g * group_size, last = first + group_size < cols ? first + group_size : cols;
            float lo = 0, hi = 0;   // the range always holds 0, so the zero point lies in 0..15
            for (int j = first; j < last; j++) lo = fminf(lo, row[j]), hi = fmaxf(hi, row[j]);
            float scale = (hi - lo) / 15.0f;
            int zero = scale > 0 ? clamp_nibble(lrintf(-lo / scale)) : 0;   // lo maps to 0: zero = -lo / scale
            scales[(size_t)r * groups + g] = scale;
            zeros[(size_t)r * groups + g] = (uint8_t)zero;
            for (int j = first; j < last; j++) {
                int q = scale > 0 ? clamp_nibble(lrintf(row[j] / scale) + zero) : 0;
                bytes[j / 2] |= (uint8_t)(j % 2 == 0 ? q : q << 4);   // even element low, odd element high
            }
        }
    }
}

int int4_value(const uint8_t *packed, int cols, int row, int col)
{
    uint8_t byte = packed[(size_t)row * int4_row_bytes(cols) + col / 2];
    return col % 2 == 0 ? byte & 15 : byte >> 4;
}

void dequantize_int4(const uint8_t *packed, const float *scales, const uint8_t *zeros, int rows, int cols,
                     int group_size, float *out)
{
    int groups = int4_groups_per_row(cols, group_size);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            size_t g = (size_t)r * groups + j / group_size;
            out[(size_t)r * cols + j] = (float)(int4_value(packed, cols, r, j) - zeros[g]) * scales[g];   // signed: q - zero
        }
}

void gemv_int4(const uint8_t *packed, const float *scales, const uint8_t *zeros, const float *x, float *y, int rows,
               int cols, int group_size)
{
    int row_bytes = int4_row_bytes(cols), groups = int4_groups_per_row(cols, group_size);
    for (int r = 0; r < rows; r++) {
        const uint8_t *bytes = packed + (size_t)r * row_bytes;
        float total = 0;
        for (int g = 0; g < groups; g++) {
            int first = g * group_size, last = first + group_size < cols ? first + group_size : cols;
            float zero = zeros[(size_t)r * groups + g], partial[PARTIAL_SUMS] = {0};
            int j = first;   // even: group_size is even, so a byte never holds two groups
            for (; j + PARTIAL_SUMS <= last; j += PARTIAL_SUMS)
                for (int k = 0; k < PARTIAL_SUMS; k += 2) {
                    uint8_t byte = bytes[(j + k) / 2];
                    partial[k] += ((float)(byte & 15) - zero) * x[j + k];        // low nibble: the even element
                    partial[k + 1] += ((float)(byte >> 4) - zero) * x[j + k + 1];
                }
            float sum = 0;
            for (; j < last; j++) sum += ((float)int4_value(packed, cols, r, j) - zero) * x[j];
            for (int k = 0; k < PARTIAL_SUMS; k++) sum += partial[k];
            total += sum * scales[(size_t)r * groups + g];   // one multiply per group
        }
        y[r] = total;
    }
}
