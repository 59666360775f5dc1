/* reference.c — the double-precision reference of reference.h. Deliberately plain: one
 * loop per formula, RoPE's angles computed here (not read from the engine's table), the
 * attention of position p over positions 0..p recomputed from the projections of every
 * earlier token. */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quantize.h"

/* W (rows x cols, any format) times each of n rows of x (n x cols) -> out (n x rows) */
static void reference_matmul(double *out, const double *x, int n, const WeightMatrix *w)
{
    float *row = malloc((size_t)w->cols * sizeof(float));
    for (int i = 0; i < w->rows; i++) {
        llama_dequantize_row(row, w, i);
        for (int r = 0; r < n; r++) {
            double sum = 0.0;
            for (int j = 0; j < w->cols; j++) sum += x[(size_t)r * w->cols + j] * (double)row[j];
            out[(size_t)r * w->rows + i] = sum;
        }
    }
    free(row);
}

static void reference_rmsnorm(double *out, const double *x, const float *weight, int size)
{
    double sum = 0.0;
    for (int i = 0; i < size; i++) sum += x[i] * x[i];
    double inverse_rms = 1.0 / sqrt(sum / size + 1e-5);
    for (int i = 0; i < size; i++) out[i] = x[i] * inverse_rms * weight[i];
}

static void reference_rope(double *v, int size, int head_dim, int position)
{
    for (int head = 0; head < size; head += head_dim)
        for (int i = 0; i < head_dim / 2; i++) {
            double angle = position * pow(10000.0, -2.0 * i / head_dim);
            double a = v[head + 2 * i], b = v[head + 2 * i + 1];
            v[head + 2 * i] = a * cos(angle) - b * sin(angle);
            v[head + 2 * i + 1] = a * sin(angle) + b * cos(angle);
        }
}

void reference_forward(const Transformer *t, const int *tokens, int n, double *logits)
{
    const LlamaConfig *c = &t->config;
    int dim = c->dim, hidden = c->hidden_dim, head_dim = dim / c->n_heads, kv_dim = c->n_kv_heads * head_dim;
    int group = c->n_heads / c->n_kv_heads;
    double *x = calloc((size_t)n * dim, sizeof(double)), *xb = calloc((size_t)n * dim, sizeof(double));
    double *q = calloc((size_t)n * dim, sizeof(double)), *k = calloc((size_t)n * kv_dim, sizeof(double));
    double *v = calloc((size_t)n * kv_dim, sizeof(double)), *attention = calloc((size_t)n * dim, sizeof(double));
    double *h1 = calloc((size_t)n * hidden, sizeof(double)), *h3 = calloc((size_t)n * hidden, sizeof(double));
    double *projected = calloc((size_t)n * dim, sizeof(double)), *weights = calloc((size_t)n, sizeof(double));
    float *row = malloc((size_t)dim * sizeof(float));

    for (int p = 0; p < n; p++) {
        llama_dequantize_row(row, &t->token_embedding, tokens[p]);
        for (int i = 0; i < dim; i++) x[(size_t)p * dim + i] = row[i];
    }
    for (int l = 0; l < c->n_layers; l++) {
        const LayerWeights *w = &t->layers[l];
        for (int p = 0; p < n; p++) reference_rmsnorm(xb + (size_t)p * dim, x + (size_t)p * dim, w->rms_attention, dim);
        reference_matmul(q, xb, n, &w->wq);
        reference_matmul(k, xb, n, &w->wk);
        reference_matmul(v, xb, n, &w->wv);
        for (int p = 0; p < n; p++) {
            reference_rope(q + (size_t)p * dim, dim, head_dim, p);
            reference_rope(k + (size_t)p * kv_dim, kv_dim, head_dim, p);
        }
        /* causal attention: position p over positions 0..p, head h reading KV head h / group */
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
                double *out = attention + (size_t)p * dim + (size_t)h * head_dim;
                for (int i = 0; i < head_dim; i++) {
                    double value = 0.0;
                    for (int s = 0; s <= p; s++) value += weights[s] / sum * v[(size_t)s * kv_dim + (size_t)(h / group) * head_dim + i];
                    out[i] = value;
                }
            }
        reference_matmul(projected, attention, n, &w->wo);
        for (size_t i = 0; i < (size_t)n * dim; i++) x[i] += projected[i];
        for (int p = 0; p < n; p++) reference_rmsnorm(xb + (size_t)p * dim, x + (size_t)p * dim, w->rms_ffn, dim);
        reference_matmul(h1, xb, n, &w->w1);
        reference_matmul(h3, xb, n, &w->w3);
        for (size_t i = 0; i < (size_t)n * hidden; i++) h1[i] = h1[i] / (1.0 + exp(-h1[i])) * h3[i];
        reference_matmul(projected, h1, n, &w->w2);
        for (size_t i = 0; i < (size_t)n * dim; i++) x[i] += projected[i];
    }
    for (int p = 0; p < n; p++) reference_rmsnorm(xb + (size_t)p * dim, x + (size_t)p * dim, t->rms_final, dim);
    reference_matmul(logits, xb, n, &t->classifier);
    free(x), free(xb), free(q), free(k), free(v), free(attention), free(h1), free(h3), free(projected), free(weights), free(row);
}

double max_difference(const float *a, const double *b, int n, double *largest)
{
    double difference = 0.0, biggest = 0.0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (isnan(d)) d = INFINITY;   /* NaN never passes */
        difference = fmax(difference, d);
        biggest = fmax(biggest, fabs(b[i]));
    }
    if (largest) *largest = biggest;
    return difference;
}

void fill_random(float *x, int n, float scale, uint64_t seed)
{
    uint64_t state = llama_seed_generator(seed);
    for (int i = 0; i < n; i++) x[i] = scale * (2.0f * llama_random_unit(&state) - 1.0f);
}
