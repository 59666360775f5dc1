/* matmul.h — inside the engine: the one operation that takes almost all of its time.
 *
 *   out[r][i] = sum_j x[r][j] * W[i][j]     for rows r < rows, outputs first <= i < last
 *
 * x is (rows, W.cols) and out is (rows, W.rows), both row-major. One row is decode's
 * matrix-vector product (every weight is read to do 2 FLOPs: memory-bound); many rows are
 * prefill's or a batch's matrix-matrix product (each weight read once serves every row).
 * Every out[r][i] is summed in the same order whatever `rows` is, so a sequence decoded in
 * a batch gets bit for bit the logits it gets alone. */
#ifndef LLAMA_MATMUL_H
#define LLAMA_MATMUL_H

#include "llama.h"

void llama_matmul(float *out, const float *x, int rows, const WeightMatrix *w, int first_output, int last_output);

/* A thread's share of the outputs starts on a multiple of this many (the INT8 tiles of 4
 * and 8 outputs then stay whole inside a share). */
#define MATMUL_OUTPUT_TILE 4

#endif
