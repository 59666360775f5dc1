/* quantize.h — inside the engine: group-wise INT8 and INT4 quantization of a block of
 * values, and reading one row of a weight matrix back as FP32 (an embedding lookup). */
#ifndef LLAMA_QUANTIZE_H
#define LLAMA_QUANTIZE_H

#include "llama.h"

/* count values of `weights` -> values and one scale per group (count % group_size == 0) */
void llama_quantize_rows(int8_t *values, float *scales, const float *weights, int64_t count, int group_size);
/* count values of `weights` -> INT4 (llama.h's format: count / 2 packed bytes, low nibble
 * first) and one scale and zero point per group (count % group_size == 0, group_size even) */
void llama_quantize_int4_rows(uint8_t *packed, float *scales, uint8_t *zeros, const float *weights, int64_t count,
                              int group_size);
/* row `row` of m as FP32 (m->cols floats) */
void llama_dequantize_row(float *out, const llama_weight_matrix *m, int row);

#endif
