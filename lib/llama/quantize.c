/* quantize.c — weight-only INT8 with group-wise scales, as llama2.c's runq.c stores it:
 * each run of `group_size` consecutive values of a row shares one FP32 scale,
 * scale = max|w| / 127, and w is stored as round(w / scale) in [-127, 127], so no value
 * moves by more than scale / 2. Activations, norms and the KV cache stay FP32: only the
 * bytes of the weight matrices — the bytes decode is bound by — shrink, to a quarter plus
 * 4 bytes a group. */
#include "quantize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "weights.h"

/* ----------------------------------------------------------------------------------
 * One matrix */

void llama_quantize_rows(int8_t *values, float *scales, const float *weights, int64_t count, int group_size)
{
    for (int64_t group = 0; group < count / group_size; group++) {
        const float *w = weights + group * group_size;
        float largest = 0.0f;
        for (int i = 0; i < group_size; i++) largest = fmaxf(largest, fabsf(w[i]));
        float scale = largest / 127.0f;
        scales[group] = scale;
        for (int i = 0; i < group_size; i++)
            values[group * group_size + i] = scale > 0.0f ? (int8_t)lrintf(w[i] / scale) : 0;
    }
}

void llama_dequantize_row(float *out, const WeightMatrix *m, int row)
{
    if (m->format == WEIGHTS_FP32) {
        memcpy(out, m->fp32 + (size_t)row * (size_t)m->cols, (size_t)m->cols * sizeof(float));
        return;
    }
    const int8_t *values = m->int8 + (size_t)row * (size_t)m->cols;
    const float *scales = m->scales + (size_t)row * (size_t)(m->cols / m->group_size);
    for (int i = 0; i < m->cols; i++) out[i] = (float)values[i] * scales[i / m->group_size];
}

/* ----------------------------------------------------------------------------------
 * A whole transformer */

static const TensorKind matrix_kinds[] = {TENSOR_EMBEDDING, TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO,
                                          TENSOR_W1, TENSOR_W2, TENSOR_W3, TENSOR_CLASSIFIER};
static const TensorKind vector_kinds[] = {TENSOR_RMS_ATTENTION, TENSOR_RMS_FFN, TENSOR_RMS_FINAL};

int llama_quantize_transformer(Transformer *t, int group_size, char *error, size_t error_size)
{
    const LlamaConfig *c = &t->config;
    if (t->format != WEIGHTS_FP32) {
        snprintf(error, error_size, "the model is already INT8");
        return -1;
    }
    if (llama_check_group_size(c, group_size, error, error_size) != 0) return -1;
    int64_t matrices = llama_matrix_parameter_count(c), vectors = llama_parameter_count(c) - matrices;
    int8_t *values = llama_allocate_weight_memory((size_t)matrices);
    float *scales = malloc((size_t)(matrices / group_size + vectors) * sizeof(float));
    if (!values || !scales) {
        free(values);
        free(scales);
        snprintf(error, error_size, "out of memory: INT8 weights need %.2f GB", llama_weights_bytes_of(c, WEIGHTS_INT8, group_size) * 1e-9);
        return -1;
    }
    int64_t value_offset = 0, scale_offset = 0;
    for (size_t k = 0; k < sizeof matrix_kinds / sizeof matrix_kinds[0]; k++) {
        TensorKind kind = matrix_kinds[k];
        if (!llama_tensor_present(c, kind)) continue;
        for (int layer = 0; layer < (llama_tensor_is_per_layer(kind) ? c->n_layers : 1); layer++) {
            WeightMatrix *m = llama_matrix_slot(t, kind, layer);
            int64_t count = (int64_t)m->rows * m->cols;
            llama_quantize_rows(values + value_offset, scales + scale_offset, m->fp32, count, group_size);
            *m = (WeightMatrix){.rows = m->rows, .cols = m->cols, .format = WEIGHTS_INT8, .int8 = values + value_offset,
                                .scales = scales + scale_offset, .group_size = group_size};
            value_offset += count;
            scale_offset += count / group_size;
        }
    }
    if (c->shared_classifier) t->classifier = t->token_embedding;
    /* the norm vectors stay FP32; copy them beside the scales so the FP32 block can go */
    for (size_t k = 0; k < sizeof vector_kinds / sizeof vector_kinds[0]; k++)
        for (int layer = 0; layer < (llama_tensor_is_per_layer(vector_kinds[k]) ? c->n_layers : 1); layer++) {
            float *copy = scales + scale_offset;
            memcpy(copy, llama_get_tensor(t, vector_kinds[k], layer), (size_t)c->dim * sizeof(float));
            llama_set_tensor(t, vector_kinds[k], layer, copy);
            scale_offset += c->dim;
        }
    free(t->fp32_storage);
    t->fp32_storage = NULL;
    if (t->mapping) {
        munmap(t->mapping, t->mapping_bytes);
        t->mapping = NULL;
    }
    t->int8_storage = values;
    t->scale_storage = scales;
    t->format = WEIGHTS_INT8;
    t->group_size = group_size;
    t->weights_bytes = llama_weights_bytes_of(c, WEIGHTS_INT8, group_size);
    return 0;
}
