/* reference.c — Day 17 driver: softmax and RMSNorm in double precision, the answers every
 * version is judged against. Do not edit.
 *
 * Double has 11 bits of exponent to float's 8, but exp(1e4) overflows double too: the
 * reference subtracts the row's max like any stable softmax, and sums in double, so its own
 * error (about 1e-16 relative) is far below the float kernels' (about 1e-7). */
#include "lab.h"

#include <math.h>
#include <stddef.h>

void softmax_reference(const float *x, float *want, int rows, int n)
{
    for (int r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * n;
        float *out = want + (size_t)r * n;
        double max = -INFINITY, sum = 0;
        for (int i = 0; i < n; i++) max = fmax(max, row[i]);
        if (max == -INFINITY) {   /* fully masked: all zeros, by the lab's convention */
            for (int i = 0; i < n; i++) out[i] = 0;
            continue;
        }
        for (int i = 0; i < n; i++) sum += exp((double)row[i] - max);
        for (int i = 0; i < n; i++) out[i] = (float)(exp((double)row[i] - max) / sum);
    }
}

void rmsnorm_reference(const float *x, const float *weight, float *want, int rows, int n, float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * n;
        double squares = 0;
        for (int i = 0; i < n; i++) squares += (double)row[i] * row[i];
        double scale = 1.0 / sqrt(squares / n + eps);
        for (int i = 0; i < n; i++) want[(size_t)r * n + i] = (float)(row[i] * scale * weight[i]);
    }
}
