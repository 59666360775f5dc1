/* reference.h — what the engine's tests hold it against: its plain path (lib/llama/reference.c,
 * every value in double precision, the whole sequence recomputed from scratch, no KV cache, no
 * tiles, no lanes, written the way the maths is written), and helpers to compare and to seed. */
#ifndef LLAMA_TEST_REFERENCE_H
#define LLAMA_TEST_REFERENCE_H

#include "llama.h"

/* llama_reference_forward, stopping the test program if it cannot run (no memory) */
void reference_forward(const llama_transformer *t, const int *tokens, int n, double *logits);

/* The largest |a[i] - b[i]| and the largest |b[i]|, over n values. */
double max_difference(const float *a, const double *b, int n, double *largest);

/* Fills x with uniform values in [-scale, scale) from a seeded stream. */
void fill_random(float *x, int n, float scale, uint64_t seed);

#endif
