/* reference.c — Day 25 driver: the FP32 GEMV your INT8 and INT4 GEMVs are timed against.
 * Do not edit.
 *
 * y = W x, one dot product per row. One running sum would make every addition wait for the one
 * before it (4 cycles on this kind of core): 16 partial sums, element j to sum j % 16, let the
 * compiler keep four 4-float registers busy, and the loop then runs as fast as memory delivers
 * the matrix — for a matrix far larger than the caches, about 4 bytes a weight at the DRAM's
 * rate. Your gemv_int8 reads 1 byte a weight: written the same way, it is faster by as much as
 * the conversion of each int8 to a float lets it be. */
#include "lab.h"

enum { PARTIAL_SUMS = 16 };

void gemv_fp32(const float *w, const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *row = w + (size_t)r * cols;
        float partial[PARTIAL_SUMS] = {0};
        int j = 0;
        for (; j + PARTIAL_SUMS <= cols; j += PARTIAL_SUMS)
            for (int k = 0; k < PARTIAL_SUMS; k++) partial[k] += row[j + k] * x[j + k];
        float sum = 0;
        for (; j < cols; j++) sum += row[j] * x[j];
        for (int k = 0; k < PARTIAL_SUMS; k++) sum += partial[k];
        y[r] = sum;
    }
}
