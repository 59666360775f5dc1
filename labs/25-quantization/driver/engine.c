/* engine.c — Day 25 driver: the toy Llama run with your INT8 weights. Do not edit.
 *
 * Three copies of one seeded model (lib/llama): FP32 as generated; every weight matrix
 * quantized by your quantize_int8_per_channel; every matrix quantized by lib/llama's own
 * llama_quantize_rows with one group per row (the same format, the book's code). Each matrix's
 * llama_weight_matrix slot is pointed at the INT8 values and the row scales with group_size = cols, so
 * the engine's own INT8 matrix multiplication reads your numbers. The same tokens are then
 * decoded by all three, and their logits compared step by step.
 *
 * The estimate the chapter derives, and the check holds the result to: rounding moves each
 * weight by at most scale / 2, uniformly if anything, so by scale / sqrt(12) RMS. Relative to
 * the RMS weight of its row that is crest / (127 sqrt(12)), crest = max|w| / rms(w) of the row.
 * A dot product of n inputs adds n such errors with random signs, as its value adds n
 * products: the output of one matrix is off by the same relative amount. A token passes
 * 7 matrices a layer and the classifier; in the worst case for independent errors they add in
 * quadrature, so the logits are off by at most sqrt(7 layers + 1) times one matrix's error. */
#include "lab.h"
#include "llama.h"
#include "quantize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEED = 25 };

typedef void (*row_quantizer)(const llama_weight_matrix *m, int8_t *values, float *scales);

static void yours(const llama_weight_matrix *m, int8_t *values, float *scales)
{
    quantize_int8_per_channel(m->fp32, m->rows, m->cols, values, scales);
}

static void books(const llama_weight_matrix *m, int8_t *values, float *scales)
{
    for (int r = 0; r < m->rows; r++)
        llama_quantize_rows(values + (size_t)r * m->cols, scales + r, m->fp32 + (size_t)r * m->cols, m->cols, m->cols);
}

/* Every matrix of t, in the order the engine reads them; `count` of them. */
static int matrices_of(llama_transformer *t, llama_weight_matrix **out)
{
    int count = 0;
    out[count++] = &t->token_embedding;
    for (int l = 0; l < t->config.n_layers; l++) {
        llama_layer_weights *w = &t->layers[l];
        llama_weight_matrix *each[] = {&w->wq, &w->wk, &w->wv, &w->wo, &w->w1, &w->w2, &w->w3};
        for (int k = 0; k < 7; k++) out[count++] = each[k];
    }
    if (!t->config.shared_classifier) out[count++] = &t->classifier;
    return count;
}

/* Replaces every matrix of t by its INT8 per-channel form, made by `quantize`. The FP32
 * block stays (the norm vectors live in it); llama_free_transformer frees both. */
static int quantize_model(llama_transformer *t, row_quantizer quantize, double *crest, char *error, size_t error_size)
{
    llama_weight_matrix **slots = malloc((size_t)(8 * t->config.n_layers + 2) * sizeof *slots);
    int count = matrices_of(t, slots);
    size_t values = 0, rows = 0;
    for (int k = 0; k < count; k++) values += (size_t)slots[k]->rows * slots[k]->cols, rows += (size_t)slots[k]->rows;
    int8_t *int8 = malloc(values);
    float *scales = malloc(rows * sizeof(float));
    if (!int8 || !scales) {
        free(slots), free(int8), free(scales);
        snprintf(error, error_size, "out of memory for %zu INT8 weights", values);
        return -1;
    }
    double crest_sum = 0;
    size_t at = 0, scale_at = 0;
    for (int k = 0; k < count; k++) {
        llama_weight_matrix *m = slots[k];
        for (int r = 0; crest && r < m->rows; r++) {
            double largest = 0, squares = 0;
            for (int j = 0; j < m->cols; j++) {
                double w = m->fp32[(size_t)r * m->cols + j];
                largest = fmax(largest, fabs(w)), squares += w * w;
            }
            crest_sum += squares > 0 ? largest / sqrt(squares / m->cols) : 0;
        }
        quantize(m, int8 + at, scales + scale_at);
        *m = (llama_weight_matrix){.rows = m->rows, .cols = m->cols, .format = WEIGHTS_INT8, .int8 = int8 + at,
                            .scales = scales + scale_at, .group_size = m->cols};
        at += (size_t)m->rows * m->cols, scale_at += (size_t)m->rows;
    }
    if (t->config.shared_classifier) t->classifier = t->token_embedding;
    if (crest) *crest = crest_sum / (double)rows;
    t->int8_storage = int8, t->scale_storage = scales;
    t->weights_bytes = (int64_t)values + 4 * (int64_t)rows;
    free(slots);
    return 0;
}

/* Your INT8 values and scales against the book's, matrix by matrix. */
static void compare_weights(llama_transformer *mine, llama_transformer *book, engine_comparison *out)
{
    llama_weight_matrix **a = malloc((size_t)(8 * mine->config.n_layers + 2) * sizeof *a);
    llama_weight_matrix **b = malloc((size_t)(8 * book->config.n_layers + 2) * sizeof *b);
    int count = matrices_of(mine, a);
    matrices_of(book, b);
    for (int k = 0; k < count; k++) {
        size_t n = (size_t)a[k]->rows * a[k]->cols;
        for (size_t i = 0; i < n; i++) {
            int d = abs(a[k]->int8[i] - b[k]->int8[i]);
            out->one_step_off += d == 1, out->further_off += d > 1;
        }
        out->weights += (int64_t)n;
        for (int r = 0; r < a[k]->rows; r++) {
            double want = b[k]->scales[r], d = fabs(a[k]->scales[r] - want) / (want > 0 ? want : 1);
            if (!(d <= out->largest_scale_difference)) out->largest_scale_difference = d;   /* NaN wins */
        }
    }
    free(a), free(b);
}

int engine_compare(const char *shape, int positions, engine_comparison *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    llama_config c;
    if (llama_named_shape(shape, &c, error, error_size) != 0) return -1;
    if (positions > c.seq_len) positions = c.seq_len;
    llama_transformer models[3];   /* FP32, yours, the book's */
    llama_session sessions[3];
    memset(models, 0, sizeof models), memset(sessions, 0, sizeof sessions);
    int status = 0, built = 0;
    double crest = 0;
    for (; built < 3 && status == 0; built++) {
        status = llama_build_transformer_generated(&models[built], &c, SEED, error, error_size);
        if (status == 0 && built > 0)
            status = quantize_model(&models[built], built == 1 ? yours : books, built == 1 ? &crest : NULL, error,
                                    error_size);
        if (status == 0) status = llama_build_session(&sessions[built], &models[built], 1, positions, 1, error, error_size);
    }
    if (status == 0) compare_weights(&models[1], &models[2], out);
    out->fp32_bytes = (double)models[0].weights_bytes;
    out->int8_bytes = (double)models[1].weights_bytes;
    int vocab = c.vocab_size;
    float *logits = malloc(3 * (size_t)vocab * sizeof(float));
    double squared_error = 0, squared_fp32 = 0;
    int token = 1;   /* BOS; then the FP32 model's greedy choice, fed to all three */
    for (int p = 0; p < positions && status == 0; p++) {
        for (int m = 0; m < 3 && status == 0; m++) {
            const float *l = llama_decode_batch(&sessions[m], (int[]){0}, &token, 1, error, error_size);
            if (!l) status = -1;
            else memcpy(logits + (size_t)m * vocab, l, (size_t)vocab * sizeof(float));
        }
        if (status != 0) break;
        const float *fp32 = logits, *mine = logits + vocab, *book = logits + 2 * (size_t)vocab;
        for (int i = 0; i < vocab; i++) {
            double d = fabs((double)mine[i] - book[i]), e = (double)mine[i] - fp32[i];
            if (!(d <= out->largest_yours_vs_book)) out->largest_yours_vs_book = d;   /* NaN wins */
            squared_error += e * e, squared_fp32 += (double)fp32[i] * fp32[i];
        }
        token = llama_argmax(fp32, vocab);
        out->greedy_agree += llama_argmax(mine, vocab) == token;
        out->positions++;
    }
    if (out->positions > 0) {
        double n = (double)out->positions * vocab;
        out->rms_error_vs_fp32 = sqrt(squared_error / n);
        out->rms_fp32 = sqrt(squared_fp32 / n);
    }
    out->predicted_relative = crest / (127.0 * sqrt(12.0)) * sqrt(7.0 * c.n_layers + 1.0);
    free(logits);
    for (int m = 0; m < built; m++) llama_free_session(&sessions[m]), llama_free_transformer(&models[m]);
    return status;
}
