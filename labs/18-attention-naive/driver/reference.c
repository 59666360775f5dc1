/* reference.c — Day 18 driver: attention in double precision, the answer every run is judged
 * against. Do not edit.
 *
 * The same steps as the kernels (scores, a max-subtracted softmax, the weighted sum), in
 * double: its own error (about 1e-16 relative) is far below the float kernels' (about 1e-7).
 * A masked score is left out of its row altogether, so each row's weights sum to 1 over the
 * keys j <= i that query i may see. */
#include "lab.h"

#include <math.h>
#include <stdlib.h>

void attention_reference(const float *q, const float *k, const float *v, float *want, float *probabilities, int n,
                         int d, int causal)
{
    double scale = 1.0 / sqrt((double)d);
    double *row = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int keys = causal ? i + 1 : n;   /* query i sees keys 0 .. keys - 1 */
        double max = -INFINITY, sum = 0;
        for (int j = 0; j < keys; j++) {
            double dot = 0;
            for (int c = 0; c < d; c++) dot += (double)q[(size_t)i * d + c] * k[(size_t)j * d + c];
            row[j] = dot * scale;
            max = fmax(max, row[j]);
        }
        for (int j = 0; j < keys; j++) sum += row[j] = exp(row[j] - max);
        for (int j = 0; j < n; j++) {
            row[j] = j < keys ? row[j] / sum : 0.0;
            if (probabilities) probabilities[(size_t)i * n + j] = (float)row[j];
        }
        for (int c = 0; c < d; c++) {
            double total = 0;
            for (int j = 0; j < keys; j++) total += row[j] * v[(size_t)j * d + c];
            want[(size_t)i * d + c] = (float)total;
        }
    }
    free(row);
}
