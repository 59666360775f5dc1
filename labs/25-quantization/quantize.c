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
    // TODO: for each row, scale = max|w| / 127 (a row of zeros: scale 0 and every value 0), and
    //       values = w / scale rounded to the nearest integer (lrintf or roundf; a cast truncates).
    (void)w, (void)rows, (void)cols, (void)values, (void)scales;
}

void dequantize_int8(const int8_t *values, const float *scales, int rows, int cols, float *out)
{
    // TODO: out = value x the scale of its row.
    (void)values, (void)scales, (void)rows, (void)cols, (void)out;
}

void gemv_int8(const int8_t *values, const float *scales, const float *x, float *y, int rows, int cols)
{
    // TODO: y_r = scale_r x sum_j (float)q_rj x x_j. Copy gemv_fp32's loop (driver/reference.c):
    //       16 partial sums, then the tail, then one multiply by the scale per row.
    (void)values, (void)scales, (void)x, (void)y, (void)rows, (void)cols;
}

/* ---------------------------------------------------------------------------------
 * INT4, a scale and a zero point per group of a row */

int int4_row_bytes(int cols)
{
    // TODO: two values a byte, an odd row rounded up.
    (void)cols;
    return 0;
}

int int4_groups_per_row(int cols, int group_size)
{
    // TODO: cols / group_size, rounded up (the last group of a row may be shorter).
    (void)cols, (void)group_size;
    return 0;
}

void quantize_int4_groups(const float *w, int rows, int cols, int group_size, uint8_t *packed, float *scales,
                          uint8_t *zeros)
{
    // TODO: for each group of each row: lo = min(0, min w), hi = max(0, max w), scale = (hi - lo) / 15,
    //       zero = round(-lo / scale), q = clamp(round(w / scale) + zero, 0, 15) (scale 0: all 0).
    //       Pack q into byte j / 2 of the row, the even element in the low 4 bits; clear the bytes
    //       first, so that an odd row's last high nibble is 0.
    (void)w, (void)rows, (void)cols, (void)group_size, (void)packed, (void)scales, (void)zeros;
}

int int4_value(const uint8_t *packed, int cols, int row, int col)
{
    // TODO: byte col / 2 of the row (rows are int4_row_bytes(cols) apart): low nibble for an even col.
    (void)packed, (void)cols, (void)row, (void)col;
    return -1;
}

void dequantize_int4(const uint8_t *packed, const float *scales, const uint8_t *zeros, int rows, int cols,
                     int group_size, float *out)
{
    // TODO: out = (q - zero) x scale of the element's group; q - zero in int, it may be negative.
    (void)packed, (void)scales, (void)zeros, (void)rows, (void)cols, (void)group_size, (void)out;
}

void gemv_int4(const uint8_t *packed, const float *scales, const uint8_t *zeros, const float *x, float *y, int rows,
               int cols, int group_size)
{
    // TODO: for each row, for each group: sum (q - zero) x x_j over its elements, times the group's
    //       scale; y_r = the sum over the row's groups.
    (void)packed, (void)scales, (void)zeros, (void)x, (void)y, (void)rows, (void)cols, (void)group_size;
}
