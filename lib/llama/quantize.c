/* quantize.c — weight-only INT8 with group-wise scales, as llama2.c's runq.c stores it:
 * each run of `group_size` consecutive values of a row shares one FP32 scale,
 * scale = max|w| / 127, and w is stored as round(w / scale) in [-127, 127], so no value
 * moves by more than scale / 2. And weight-only INT4 as day 25 teaches it (llama.h gives
 * the formulas and the layout): a scale and a zero point per group, two values a byte, the
 * low nibble first; no value moves by more than scale / 2 either. Activations, norms and
 * the KV cache stay FP32: only the bytes of the weight matrices — the bytes decode is
 * bound by — shrink, to a quarter plus 4 bytes a group (INT8) or an eighth plus 5 (INT4). */
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

static int clamp_nibble(long v) { return v < 0 ? 0 : v > 15 ? 15 : (int)v; }

void llama_quantize_int4_rows(uint8_t *packed, float *scales, uint8_t *zeros, const float *weights, int64_t count,
                              int group_size)
{
    for (int64_t group = 0; group < count / group_size; group++) {
        const float *w = weights + group * group_size;
        float lo = 0.0f, hi = 0.0f;   /* the range holds 0, so the zero point lies in 0..15 */
        for (int i = 0; i < group_size; i++) lo = fminf(lo, w[i]), hi = fmaxf(hi, w[i]);
        float scale = (hi - lo) / 15.0f;
        int zero = scale > 0.0f ? clamp_nibble(lrintf(-lo / scale)) : 0;
        scales[group] = scale;
        zeros[group] = (uint8_t)zero;
        uint8_t *bytes = packed + group * group_size / 2;
        for (int i = 0; i < group_size; i += 2) {
            int even = scale > 0.0f ? clamp_nibble(lrintf(w[i] / scale) + zero) : 0;
            int odd = scale > 0.0f ? clamp_nibble(lrintf(w[i + 1] / scale) + zero) : 0;
            bytes[i / 2] = (uint8_t)(even | odd << 4);
        }
    }
}

void llama_dequantize_row(float *out, const llama_weight_matrix *m, int row)
{
    if (m->format == WEIGHTS_FP32) {
        memcpy(out, m->fp32 + (size_t)row * (size_t)m->cols, (size_t)m->cols * sizeof(float));
        return;
    }
    if (m->format == WEIGHTS_INT4) {
        size_t groups = (size_t)(m->cols / m->group_size), first_group = (size_t)row * groups;
        const uint8_t *bytes = m->int4 + (size_t)row * (size_t)(m->cols / 2);
        for (int i = 0; i < m->cols; i++) {
            int q = i % 2 == 0 ? bytes[i / 2] & 15 : bytes[i / 2] >> 4;
            size_t g = first_group + (size_t)(i / m->group_size);
            out[i] = (float)(q - m->zeros[g]) * m->scales[g];
        }
        return;
    }
    const int8_t *values = m->int8 + (size_t)row * (size_t)m->cols;
    const float *scales = m->scales + (size_t)row * (size_t)(m->cols / m->group_size);
    for (int i = 0; i < m->cols; i++) out[i] = (float)values[i] * scales[i / m->group_size];
}

/* ----------------------------------------------------------------------------------
 * A whole transformer */

static const llama_tensor_kind vector_kinds[] = {TENSOR_RMS_ATTENTION, TENSOR_RMS_FFN, TENSOR_RMS_FINAL};

/* Both formats: every matrix quantized into one block of values (and, for INT4, the zero
 * points after them) and one of scales, each in the order a decode step reads the matrices
 * (llama_step_matrix), the norm vectors copied beside the scales so that the FP32 block can
 * go. */
static int quantize_transformer(llama_transformer *t, llama_weight_format format, int group_size, char *error, size_t error_size)
{
    const llama_config *c = &t->config;
    const char *name = format == WEIGHTS_INT4 ? "INT4" : "INT8";
    if (t->format != WEIGHTS_FP32) {
        snprintf(error, error_size, "the model is already %s: quantize FP32 weights", t->format == WEIGHTS_INT4 ? "INT4" : "INT8");
        return -1;
    }
    if ((format == WEIGHTS_INT4 ? llama_check_int4_group_size : llama_check_group_size)(c, group_size, error, error_size) != 0)
        return -1;
    int64_t matrices = llama_matrix_parameter_count(c), vectors = llama_parameter_count(c) - matrices;
    int64_t groups = matrices / group_size;
    /* INT8: a byte a value; INT4: half a byte a value, then a byte of zero point a group */
    size_t value_bytes = format == WEIGHTS_INT4 ? (size_t)(matrices / 2 + groups) : (size_t)matrices;
    uint8_t *values = llama_allocate_large_pages(value_bytes);
    float *scales = malloc((size_t)(groups + vectors) * sizeof(float));
    if (!values || !scales) {
        free(values);
        free(scales);
        snprintf(error, error_size, "out of memory: %s weights need %.2f GB", name,
                 llama_weights_bytes_of(c, format, group_size) * 1e-9);
        return -1;
    }
    uint8_t *zeros = values + matrices / 2;
    int64_t value_offset = 0, scale_offset = 0;
    llama_tensor_kind kind;
    int layer;
    for (int index = 0; llama_step_matrix(c, index, &kind, &layer); index++) {
        llama_weight_matrix *m = llama_matrix_slot(t, kind, layer);
        int64_t count = (int64_t)m->rows * m->cols;
        llama_weight_matrix q = {.rows = m->rows, .cols = m->cols, .format = format, .scales = scales + scale_offset,
                          .group_size = group_size};
        if (format == WEIGHTS_INT4) {
            q.int4 = values + value_offset / 2, q.zeros = zeros + scale_offset;
            llama_quantize_int4_rows(values + value_offset / 2, scales + scale_offset, zeros + scale_offset, m->fp32, count,
                                     group_size);
        } else {
            q.int8 = (const int8_t *)values + value_offset;
            llama_quantize_rows((int8_t *)values + value_offset, scales + scale_offset, m->fp32, count, group_size);
        }
        *m = q;
        value_offset += count;
        scale_offset += count / group_size;
    }
    if (c->shared_classifier) t->classifier = t->token_embedding;
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
    if (format == WEIGHTS_INT4) t->int4_storage = values;
    else t->int8_storage = (int8_t *)values;
    t->scale_storage = scales;
    t->format = format;
    t->group_size = group_size;
    t->weights_bytes = llama_weights_bytes_of(c, format, group_size);
    return 0;
}

int llama_quantize_transformer(llama_transformer *t, int group_size, char *error, size_t error_size)
{
    return quantize_transformer(t, WEIGHTS_INT8, group_size, error, error_size);
}

int llama_quantize_transformer_int4(llama_transformer *t, int group_size, char *error, size_t error_size)
{
    return quantize_transformer(t, WEIGHTS_INT4, group_size, error, error_size);
}
