/* reference.c — Day 15 driver: the inputs, the double-precision reference and the BF16
 * conversions, shared by the driver and the tests. Do not edit.
 *
 * The reference reads each operand row-major with its own leading dimension and transpose flag,
 * straight from the definition, and sums in double, so that the rounding of cuBLAS's float sums
 * is what the bound measures (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3). */
#include "lab.h"

#include <math.h>
#include <string.h>

void fill_matrix(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) % 2000001) / 1e6f - 1.0f;
    }
}

double gemm_reference(const gemm_case *g, const float *a, const float *b, float *want)
{
    double u = ldexp(1.0, -24), largest_magnitude = 0, largest_value = 0;
    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++) {
            double sum = 0, magnitude = 0;
            for (int p = 0; p < g->k; p++) {
                double x = g->transpose_a ? a[(size_t)p * g->lda + i] : a[(size_t)i * g->lda + p];
                double y = g->transpose_b ? b[(size_t)j * g->ldb + p] : b[(size_t)p * g->ldb + j];
                sum += x * y, magnitude += fabs(x * y);
            }
            want[(size_t)i * g->ldc + j] = (float)sum;
            largest_magnitude = fmax(largest_magnitude, magnitude);
            largest_value = fmax(largest_value, fabs(sum));
        }
    return g->k * u / (1 - g->k * u) * largest_magnitude + u * largest_value;
}

uint16_t float_to_bf16(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40);   /* NaN stays NaN */
    bits += 0x7fffu + ((bits >> 16) & 1);                                              /* to nearest even */
    return (uint16_t)(bits >> 16);
}

float bf16_to_float(uint16_t bits)
{
    uint32_t wide = (uint32_t)bits << 16;
    float x;
    memcpy(&x, &wide, 4);
    return x;
}
