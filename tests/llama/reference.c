/* reference.c — the tests' helpers of reference.h: the engine's plain path
 * (lib/llama/reference.c) as the tests call it, a comparison, seeded inputs. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void reference_forward(const llama_transformer *t, const int *tokens, int n, double *logits)
{
    char error[256];
    if (llama_reference_forward(t, tokens, n, logits, error, sizeof error) != 0) {
        fprintf(stderr, "reference_forward: %s\n", error);
        abort();
    }
}

double max_difference(const float *a, const double *b, int n, double *largest)
{
    double difference = 0.0, biggest = 0.0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (isnan(d)) d = INFINITY;   /* NaN never passes */
        difference = fmax(difference, d);
        biggest = fmax(biggest, fabs(b[i]));
    }
    if (largest) *largest = biggest;
    return difference;
}

void fill_random(float *x, int n, float scale, uint64_t seed)
{
    uint64_t state = llama_seed_generator(seed);
    for (int i = 0; i < n; i++) x[i] = scale * (2.0f * llama_random_unit(&state) - 1.0f);
}
