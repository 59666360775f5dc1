/* reference.c — Day 23 driver: the chain in double precision, the answer both the unfused chain
 * and the fused kernel are judged against. Do not edit.
 *
 * The float kernels round x + bias, the activation and residual + v each to float; where the
 * residual nearly cancels v, h is small and its relative error large, so the checks allow an
 * error relative to the largest output of the comparison as well (tests/23-kernel-fusion.c). */
#include "lab.h"

#include <math.h>
#include <stddef.h>

static double activate_exactly(double value, int activation)
{
    if (activation == ACTIVATION_SILU) return value / (1.0 + exp(-value));
    if (activation == ACTIVATION_GELU) return 0.5 * value * (1.0 + erf(value / sqrt(2.0)));
    return value;
}

void chain_reference(const chain_inputs *in, float *h, float *y)
{
    for (int r = 0; r < in->rows; r++) {
        size_t start = (size_t)r * in->n;
        double squares = 0;
        for (int i = 0; i < in->n; i++) {
            double value = in->residual[start + i] + activate_exactly((double)in->x[start + i] + in->bias[i],
                                                                      in->activation);
            squares += value * value;
            h[start + i] = (float)value;
        }
        double scale = 1.0 / sqrt(squares / in->n + in->eps);
        for (int i = 0; i < in->n; i++) {
            double value = in->residual[start + i] + activate_exactly((double)in->x[start + i] + in->bias[i],
                                                                      in->activation);
            y[start + i] = (float)(value * scale * in->weight[i]);
        }
    }
}
