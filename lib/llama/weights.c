/* weights.c — where a model's tensors live: the order of each llama2.c file version,
 * pointers laid over a block of FP32 values (a mapped file or generated memory), seeded
 * generation of weights for any shape, RoPE's table, and llama_free_transformer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "weights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ----------------------------------------------------------------------------------
 * The kinds of tensor and each file version's order (llama2.c's export.py:
 * legacy_export for version 0, version1_export for versions 1 and 2) */

static const int version0_order[] = {
    TENSOR_EMBEDDING, TENSOR_RMS_ATTENTION, TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO,
    TENSOR_RMS_FFN, TENSOR_W1, TENSOR_W2, TENSOR_W3, TENSOR_RMS_FINAL,
    TENSOR_ROPE_COS, TENSOR_ROPE_SIN, TENSOR_CLASSIFIER, -1,
};
static const int version1_order[] = {
    TENSOR_RMS_ATTENTION, TENSOR_RMS_FFN, TENSOR_RMS_FINAL, TENSOR_EMBEDDING,
    TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO, TENSOR_W1, TENSOR_W2, TENSOR_W3,
    TENSOR_CLASSIFIER, -1,
};

const int *llama_tensor_order(int version) { return version == 0 ? version0_order : version1_order; }

int llama_tensor_is_per_layer(llama_tensor_kind kind)
{
    return kind == TENSOR_RMS_ATTENTION || kind == TENSOR_RMS_FFN || (kind >= TENSOR_WQ && kind <= TENSOR_WO) ||
           (kind >= TENSOR_W1 && kind <= TENSOR_W3);
}

const char *llama_tensor_name(llama_tensor_kind kind)
{
    static const char *const names[TENSOR_KINDS] = {
        [TENSOR_EMBEDDING] = "tok_embeddings", [TENSOR_RMS_ATTENTION] = "attention_norm", [TENSOR_WQ] = "wq",
        [TENSOR_WK] = "wk", [TENSOR_WV] = "wv", [TENSOR_WO] = "wo", [TENSOR_RMS_FFN] = "ffn_norm", [TENSOR_W1] = "w1",
        [TENSOR_W2] = "w2", [TENSOR_W3] = "w3", [TENSOR_RMS_FINAL] = "norm", [TENSOR_ROPE_COS] = "freqs_cos",
        [TENSOR_ROPE_SIN] = "freqs_sin", [TENSOR_CLASSIFIER] = "output",
    };
    return kind >= 0 && kind < TENSOR_KINDS ? names[kind] : "?";
}

int llama_tensor_is_matrix(llama_tensor_kind kind)
{
    return kind == TENSOR_EMBEDDING || kind == TENSOR_CLASSIFIER || (kind >= TENSOR_WQ && kind <= TENSOR_WO) ||
           (kind >= TENSOR_W1 && kind <= TENSOR_W3);
}

void llama_tensor_shape(const llama_config *c, llama_tensor_kind kind, int *rows, int *cols)
{
    int kv_dim = llama_kv_dim_of(c);
    switch (kind) {
    case TENSOR_EMBEDDING: case TENSOR_CLASSIFIER: *rows = c->vocab_size; *cols = c->dim; return;
    case TENSOR_RMS_ATTENTION: case TENSOR_RMS_FFN: case TENSOR_RMS_FINAL: *rows = 1; *cols = c->dim; return;
    case TENSOR_WQ: case TENSOR_WO: *rows = c->dim; *cols = c->dim; return;
    case TENSOR_WK: case TENSOR_WV: *rows = kv_dim; *cols = c->dim; return;
    case TENSOR_W1: case TENSOR_W3: *rows = c->hidden_dim; *cols = c->dim; return;
    case TENSOR_W2: *rows = c->dim; *cols = c->hidden_dim; return;
    case TENSOR_ROPE_COS: case TENSOR_ROPE_SIN: *rows = c->seq_len; *cols = llama_head_dim_of(c) / 2; return;
    default: *rows = *cols = 0; return;
    }
}

int llama_tensor_present(const llama_config *c, llama_tensor_kind kind)
{
    return kind != TENSOR_CLASSIFIER || !c->shared_classifier;
}

/* Stored in this order, a matrix's prefetches (matmul.c) run on into the next one a step
 * reads, so that it starts with its first lines on their way and no prefetch fetches what
 * the step does not read next. Stored as llama2.c's files order them (every layer's wq, then
 * every layer's wk, ...), the prefetches past each matrix's end would fetch the same matrix
 * of the next layer. */
int llama_step_matrix(const llama_config *c, int index, llama_tensor_kind *kind, int *layer)
{
    static const llama_tensor_kind in_a_layer[] = {TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO, TENSOR_W1, TENSOR_W3, TENSOR_W2};
    int per_layer = (int)(sizeof in_a_layer / sizeof in_a_layer[0]), in_layers = c->n_layers * per_layer;
    if (index < 0 || index > in_layers + !c->shared_classifier) return 0;
    *layer = index < in_layers ? index / per_layer : 0;
    if (index < in_layers) *kind = in_a_layer[index % per_layer];
    else *kind = index == in_layers && !c->shared_classifier ? TENSOR_CLASSIFIER : TENSOR_EMBEDDING;
    return 1;
}

/* ----------------------------------------------------------------------------------
 * Where each tensor sits in a Transformer */

llama_weight_matrix *llama_matrix_slot(llama_transformer *t, llama_tensor_kind kind, int layer)
{
    switch (kind) {
    case TENSOR_EMBEDDING: return &t->token_embedding;
    case TENSOR_CLASSIFIER: return &t->classifier;
    case TENSOR_WQ: return &t->layers[layer].wq;
    case TENSOR_WK: return &t->layers[layer].wk;
    case TENSOR_WV: return &t->layers[layer].wv;
    case TENSOR_WO: return &t->layers[layer].wo;
    case TENSOR_W1: return &t->layers[layer].w1;
    case TENSOR_W2: return &t->layers[layer].w2;
    case TENSOR_W3: return &t->layers[layer].w3;
    default: return NULL;
    }
}

void llama_set_tensor(llama_transformer *t, llama_tensor_kind kind, int layer, const float *data)
{
    llama_weight_matrix *matrix = llama_matrix_slot(t, kind, layer);
    if (matrix) {
        int rows, cols;
        llama_tensor_shape(&t->config, kind, &rows, &cols);
        *matrix = (llama_weight_matrix){.rows = rows, .cols = cols, .format = WEIGHTS_FP32, .fp32 = data};
        if (kind == TENSOR_EMBEDDING && t->config.shared_classifier) t->classifier = *matrix;
        return;
    }
    switch (kind) {
    case TENSOR_RMS_ATTENTION: t->layers[layer].rms_attention = data; return;
    case TENSOR_RMS_FFN: t->layers[layer].rms_ffn = data; return;
    case TENSOR_RMS_FINAL: t->rms_final = data; return;
    default: return;   /* RoPE's stored table: ignored, we compute our own */
    }
}

const float *llama_get_tensor(const llama_transformer *t, llama_tensor_kind kind, int layer)
{
    switch (kind) {
    case TENSOR_RMS_ATTENTION: return t->layers[layer].rms_attention;
    case TENSOR_RMS_FFN: return t->layers[layer].rms_ffn;
    case TENSOR_RMS_FINAL: return t->rms_final;
    case TENSOR_ROPE_COS: return t->rope_cos;
    case TENSOR_ROPE_SIN: return t->rope_sin;
    default: return llama_matrix_slot((llama_transformer *)t, kind, layer)->fp32;
    }
}

int64_t llama_lay_out_tensors(llama_transformer *t, const llama_config *c, int version, const float *body)
{
    int64_t offset = 0;
    for (const int *kind = llama_tensor_order(version); *kind >= 0; kind++) {
        if (!llama_tensor_present(c, *kind)) continue;
        int rows, cols, layers = llama_tensor_is_per_layer(*kind) ? c->n_layers : 1;
        llama_tensor_shape(c, *kind, &rows, &cols);
        for (int layer = 0; layer < layers; layer++) {
            if (body) llama_set_tensor(t, *kind, layer, body + offset);
            offset += (int64_t)rows * cols;
        }
    }
    return offset;
}

/* ----------------------------------------------------------------------------------
 * Memory, and what every Transformer needs beside its weights */

void *llama_allocate_large_pages(size_t bytes)
{
    const size_t large_page = 2u << 20;
    void *memory = NULL;
    if (posix_memalign(&memory, large_page, bytes ? bytes : 1) != 0) return NULL;
    madvise(memory, bytes, MADV_HUGEPAGE);   /* a hint; ignored where unsupported */
    return memory;
}

int llama_prepare_transformer(llama_transformer *t, const llama_config *c, char *error, size_t error_size)
{
    memset(t, 0, sizeof *t);
    t->config = *c;
    t->format = WEIGHTS_FP32;
    int half = llama_head_dim_of(c) / 2;
    t->layers = calloc((size_t)c->n_layers, sizeof *t->layers);
    t->rope_cos = malloc((size_t)c->seq_len * (size_t)half * sizeof(float));
    t->rope_sin = malloc((size_t)c->seq_len * (size_t)half * sizeof(float));
    if (!t->layers || !t->rope_cos || !t->rope_sin) {
        snprintf(error, error_size, "out of memory preparing a model with %d layers and seq_len %d", c->n_layers, c->seq_len);
        llama_free_transformer(t);
        return -1;
    }
    /* RoPE rotates pair i of every head by the angle position * 10000^(-2i / head_dim);
     * computed in double, so the table is as exact as a float can hold. */
    for (int position = 0; position < c->seq_len; position++)
        for (int i = 0; i < half; i++) {
            double angle = position * pow(10000.0, -2.0 * i / (2.0 * half));
            t->rope_cos[(size_t)position * half + i] = (float)cos(angle);
            t->rope_sin[(size_t)position * half + i] = (float)sin(angle);
        }
    t->weights_bytes = llama_weights_bytes_of(c, WEIGHTS_FP32, 1);
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Seeded weights. Each tensor has its own stream, so a tensor's values do not depend on
 * the order in which tensors are filled. Matrices are uniform with variance 1 / inputs
 * (outputs keep the scale of inputs); norm weights scatter around 1, so that a norm
 * applied with the wrong layer's weights changes the result; embeddings are scaled so
 * that logits come out with a spread of a few units. */

static void fill_uniform(float *values, int64_t count, float half_width, float center, uint64_t seed)
{
    uint64_t state = llama_seed_generator(seed);
    for (int64_t i = 0; i < count; i++) values[i] = center + half_width * (2.0f * llama_random_unit(&state) - 1.0f);
}

int llama_build_transformer_generated(llama_transformer *t, const llama_config *c, uint64_t seed, char *error, size_t error_size)
{
    if (llama_validate_config(c, error, error_size) != 0) return -1;
    if (llama_prepare_transformer(t, c, error, error_size) != 0) return -1;
    int64_t floats = llama_lay_out_tensors(t, c, 1, NULL);
    t->fp32_storage = llama_allocate_large_pages((size_t)floats * sizeof(float));
    if (!t->fp32_storage) {
        snprintf(error, error_size, "out of memory: the weights need %.2f GB", floats * 4e-9);
        llama_free_transformer(t);
        return -1;
    }
    llama_lay_out_tensors(t, c, 1, t->fp32_storage);
    for (int kind = 0; kind < TENSOR_KINDS; kind++) {
        if (!llama_tensor_present(c, kind) || kind == TENSOR_ROPE_COS || kind == TENSOR_ROPE_SIN) continue;
        int rows, cols, layers = llama_tensor_is_per_layer(kind) ? c->n_layers : 1;
        llama_tensor_shape(c, kind, &rows, &cols);
        for (int layer = 0; layer < layers; layer++) {
            float *values = (float *)llama_get_tensor(t, kind, layer);
            uint64_t stream = llama_seed_generator(seed) ^ ((uint64_t)kind << 40) ^ (uint64_t)layer;
            int64_t count = (int64_t)rows * cols;
            if (kind == TENSOR_RMS_ATTENTION || kind == TENSOR_RMS_FFN || kind == TENSOR_RMS_FINAL)
                fill_uniform(values, count, 0.25f, 1.0f, stream);
            else if (kind == TENSOR_EMBEDDING || kind == TENSOR_CLASSIFIER)
                fill_uniform(values, count, 3.0f * sqrtf(3.0f / (float)cols), 0.0f, stream);
            else
                fill_uniform(values, count, sqrtf(3.0f / (float)cols), 0.0f, stream);
        }
    }
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Freeing */

void llama_free_transformer(llama_transformer *t)
{
    if (!t) return;
    if (t->mapping) munmap(t->mapping, t->mapping_bytes);
    free(t->fp32_storage);
    free(t->int8_storage);
    free(t->int4_storage);
    free(t->scale_storage);
    free(t->layers);
    free(t->rope_cos);
    free(t->rope_sin);
    memset(t, 0, sizeof *t);
}
