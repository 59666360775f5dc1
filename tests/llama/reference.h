/* reference.h — a second, independent implementation of the toy Llama for the tests: every
 * value in double precision, the whole sequence recomputed from scratch (no KV cache, no
 * tiles, no lanes), written the way the maths is written. The engine is held against it. */
#ifndef LLAMA_TEST_REFERENCE_H
#define LLAMA_TEST_REFERENCE_H

#include "llama.h"

/* Logits after each of the n tokens (n x vocab_size doubles, row p = the logits that
 * predict token p + 1), from the transformer's weights (INT8 weights dequantized). */
void reference_forward(const Transformer *t, const int *tokens, int n, double *logits);

/* The largest |a[i] - b[i]| and the largest |b[i]|, over n values. */
double max_difference(const float *a, const double *b, int n, double *largest);

/* Fills x with uniform values in [-scale, scale) from a seeded stream. */
void fill_random(float *x, int n, float scale, uint64_t seed);

#endif
