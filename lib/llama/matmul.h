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

void llama_matmul(float *out, const float *x, int rows, const llama_weight_matrix *w, int first_output, int last_output);

/* A thread's share of the outputs starts on a multiple of this many (the INT8 tiles of 4
 * and 8 outputs then stay whole inside a share). */
#define MATMUL_OUTPUT_TILE 4

/* From MATMUL_MANY_ROWS rows on, INT8 and INT4 take one of two paths with the same bits:
 * tiles that convert the weights in registers, or each tile of outputs converted once into
 * a buffer for all the rows (matmul.c). Which is faster depends on the core, so the engine
 * measures both, once a format (at 16 rows for 16 to 31, at 32 for more), when it first
 * needs to know (a session of a quantized model asks when it is made):
 * llama_matmul_dequantizes says whether `rows` rows take the buffer and, in *ratio when not
 * NULL, the buffer's measured time over the registers' (0 below MATMUL_MANY_ROWS).
 * llama_matmul_set_many_rows overrides the choice (the tests take each path); set it before
 * any thread multiplies. */
enum { MATMUL_MANY_ROWS = 16 };
#define MATMUL_BUFFER_MARGIN 0.95   /* the buffer is taken where it takes less than this of the registers' time */
enum { LLAMA_MANY_ROWS_MEASURED = -1, LLAMA_MANY_ROWS_IN_REGISTERS = 0, LLAMA_MANY_ROWS_DEQUANTIZED = 1 };
int llama_matmul_dequantizes(llama_weight_format format, int rows, double *ratio);
void llama_matmul_set_many_rows(int setting);

#endif
