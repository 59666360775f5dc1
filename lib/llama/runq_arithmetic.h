/* runq_arithmetic.h — inside the engine: llama2.c's runq.c's arithmetic, for sessions with
 * INT8 activations (llama_set_int8_activations). A forward step in that mode computes every
 * value the way runq.c does — operation for operation, in runq.c's order — so that a
 * version-2 checkpoint gives runq.c's logits, not just close ones:
 *   - the input rows of each matrix multiplication are quantized to INT8 in groups of the
 *     weights' group size (scale = max|x| / 127, rounded half away from zero), and
 *       out[r][i] = sum over groups g, front to back, of ((float)dot_g(xq[r], wq[i]) * ws[i][g]) * xs[r][g]
 *     with an exact int32 dot product per group;
 *   - RMSNorm, RoPE, attention and SwiGLU sum one value after another, and RoPE's angles
 *     are computed in float at each position, as runq.c computes them.
 * Plain loops, one output at a time: this path reproduces runq.c; matmul.c is the fast one. */
#ifndef LLAMA_RUNQ_ARITHMETIC_H
#define LLAMA_RUNQ_ARITHMETIC_H

#include "llama.h"

/* rows x cols values -> INT8 values and one scale per group of group_size (runq.c's quantize) */
void llama_runq_quantize(int8_t *values, float *scales, const float *x, int rows, int cols, int group_size);
/* x is (rows, W.cols) INT8 with (rows, W.cols / group_size) scales; out is (rows, W.rows) */
void llama_runq_matmul(float *out, const int8_t *x, const float *x_scales, int rows, const llama_weight_matrix *w,
                       int first_output, int last_output);

void llama_runq_rmsnorm(float *out, const float *x, const float *weight, int size);
/* rotates q (dim values) and k (kv_dim values) for one position */
void llama_runq_rope(float *q, float *k, int dim, int kv_dim, int head_dim, int position);
/* one head of attention for one query, like blocks.h's llama_attend */
void llama_runq_attend(float *out, const float *query, const float *keys, const float *values, int length, int stride,
                       int head_dim, float *scores);
void llama_runq_swiglu(float *gate, const float *up, int size);

#endif
