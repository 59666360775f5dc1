/* reference.c — the toy Llama as its maths is written: read this first. One loop per formula, in
 * double precision, the whole sequence recomputed from scratch for every position (no KV cache, no
 * tiles, no SIMD lanes, no threads), RoPE's angles computed here rather than read from the engine's
 * table. It is slow on purpose, and every fast path of the engine (forward.c over matmul.c's
 * kernels, FP32, INT8 and INT4, one row or many, one thread or several) is held against it by
 * tests/llama: the same logits within the rounding of float against double. The layer, as run.c
 * has it:
 *     x += Wo · attention(rope(Wq · rmsnorm(x)), rope(Wk · rmsnorm(x)), Wv · rmsnorm(x))
 *     x += W2 · (silu(W1 · rmsnorm(x)) * W3 · rmsnorm(x))
 * and after the last layer, logits = classifier · rmsnorm(x). */
#include "llama.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "quantize.h"

/* W (rows x cols, any format: read back row by row as floats) times each of n rows of x -> out */
static void matmul(double *out, const double *x, int n, const llama_weight_matrix *w, float *row)
{
    for (int i = 0; i < w->rows; i++) {
        llama_dequantize_row(row, w, i);
        for (int r = 0; r < n; r++) {
            double sum = 0.0;
            for (int j = 0; j < w->cols; j++) sum += x[(size_t)r * w->cols + j] * (double)row[j];
            out[(size_t)r * w->rows + i] = sum;
        }
    }
}

/* x / rms(x) * weight, with the 1e-5 inside the square root as llama2.c has it */
static void rmsnorm(double *out, const double *x, const float *weight, int size)
{
    double sum = 0.0;
    for (int i = 0; i < size; i++) sum += x[i] * x[i];
    double inverse_rms = 1.0 / sqrt(sum / size + 1e-5);
    for (int i = 0; i < size; i++) out[i] = x[i] * inverse_rms * weight[i];
}

/* each head's pairs (2i, 2i + 1) rotated by position x 10000^(-2i / head_dim) */
static void rope(double *v, int size, int head_dim, int position)
{
    for (int head = 0; head < size; head += head_dim)
        for (int i = 0; i < head_dim / 2; i++) {
            double angle = position * pow(10000.0, -2.0 * i / head_dim);
            double a = v[head + 2 * i], b = v[head + 2 * i + 1];
            v[head + 2 * i] = a * cos(angle) - b * sin(angle);
            v[head + 2 * i + 1] = a * sin(angle) + b * cos(angle);
        }
}

/* causal attention: position p over positions 0..p, query head h reading key/value head h / group */
static void attention(double *out, const double *q, const double *k, const double *v, int n, const llama_config *c,
                      double *weights)
{
    int dim = c->dim, head_dim = llama_head_dim_of(c), kv_dim = llama_kv_dim_of(c), group = c->n_heads / c->n_kv_heads;
    for (int p = 0; p < n; p++)
        for (int h = 0; h < c->n_heads; h++) {
            const double *query = q + (size_t)p * dim + (size_t)h * head_dim;
            double largest = -INFINITY, sum = 0.0;
            for (int s = 0; s <= p; s++) {
                const double *key = k + (size_t)s * kv_dim + (size_t)(h / group) * head_dim;
                double dot = 0.0;
                for (int i = 0; i < head_dim; i++) dot += query[i] * key[i];
                weights[s] = dot / sqrt((double)head_dim);
                largest = fmax(largest, weights[s]);
            }
            for (int s = 0; s <= p; s++) sum += weights[s] = exp(weights[s] - largest);
            for (int i = 0; i < head_dim; i++) {
                double value = 0.0;
                for (int s = 0; s <= p; s++) value += weights[s] / sum * v[(size_t)s * kv_dim + (size_t)(h / group) * head_dim + i];
                out[(size_t)p * dim + (size_t)h * head_dim + i] = value;
            }
        }
}

int llama_reference_forward(const llama_transformer *t, const int *tokens, int n, double *logits, char *error, size_t error_size)
{
    const llama_config *c = &t->config;
    int dim = c->dim, hidden = c->hidden_dim, head_dim = llama_head_dim_of(c), kv_dim = llama_kv_dim_of(c);
    size_t rows = (size_t)n, widest = (size_t)(dim > hidden ? dim : hidden);
    double *x = calloc(rows * dim, sizeof(double)), *xb = calloc(rows * dim, sizeof(double));
    double *q = calloc(rows * dim, sizeof(double)), *k = calloc(rows * kv_dim, sizeof(double));
    double *v = calloc(rows * kv_dim, sizeof(double)), *heads = calloc(rows * dim, sizeof(double));
    double *h1 = calloc(rows * hidden, sizeof(double)), *h3 = calloc(rows * hidden, sizeof(double));
    double *projected = calloc(rows * dim, sizeof(double)), *weights = calloc(rows, sizeof(double));
    float *row = calloc(widest, sizeof(float));
    int ok = 1;
    if (!x || !xb || !q || !k || !v || !heads || !h1 || !h3 || !projected || !weights || !row) {
        snprintf(error, error_size, "out of memory for the reference forward pass of %d tokens", n);
        ok = 0;
    } else {
        for (int p = 0; p < n; p++) {
            llama_dequantize_row(row, &t->token_embedding, tokens[p]);
            for (int i = 0; i < dim; i++) x[(size_t)p * dim + i] = row[i];
        }
        for (int l = 0; l < c->n_layers; l++) {
            const llama_layer_weights *w = &t->layers[l];
            for (int p = 0; p < n; p++) rmsnorm(xb + (size_t)p * dim, x + (size_t)p * dim, w->rms_attention, dim);
            matmul(q, xb, n, &w->wq, row);
            matmul(k, xb, n, &w->wk, row);
            matmul(v, xb, n, &w->wv, row);
            for (int p = 0; p < n; p++) {
                rope(q + (size_t)p * dim, dim, head_dim, p);
                rope(k + (size_t)p * kv_dim, kv_dim, head_dim, p);
            }
            attention(heads, q, k, v, n, c, weights);
            matmul(projected, heads, n, &w->wo, row);
            for (size_t i = 0; i < rows * dim; i++) x[i] += projected[i];
            for (int p = 0; p < n; p++) rmsnorm(xb + (size_t)p * dim, x + (size_t)p * dim, w->rms_ffn, dim);
            matmul(h1, xb, n, &w->w1, row);
            matmul(h3, xb, n, &w->w3, row);
            for (size_t i = 0; i < rows * hidden; i++) h1[i] = h1[i] / (1.0 + exp(-h1[i])) * h3[i];   /* SwiGLU */
            matmul(projected, h1, n, &w->w2, row);
            for (size_t i = 0; i < rows * dim; i++) x[i] += projected[i];
        }
        for (int p = 0; p < n; p++) rmsnorm(xb + (size_t)p * dim, x + (size_t)p * dim, t->rms_final, dim);
        matmul(logits, xb, n, &t->classifier, row);
    }
    free(x), free(xb), free(q), free(k), free(v), free(heads), free(h1), free(h3), free(projected), free(weights), free(row);
    return ok ? 0 : -1;
}
