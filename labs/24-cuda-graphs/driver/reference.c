/* reference.c — Day 24 driver: the toy decoder's steps on the CPU, the same arithmetic in the
 * same order as model.cu's kernels, and the seeded weights both use. Do not edit. */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const float NORM_EPSILON = 1e-5f, ROPE_BASE = 10000.0f;

size_t decode_weight_count(decode_config c)
{
    size_t dim = (size_t)c.dim, hidden = (size_t)c.hidden;
    size_t layer = 2 * dim + 4 * dim * dim + 3 * hidden * dim;
    return (size_t)c.vocab * dim + (size_t)c.layers * layer + dim + (size_t)c.vocab * dim;
}

/* A uniform number in [-1, 1) from a 32-bit xorshift state. */
static float uniform(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    *state = x;
    return (float)(x >> 8) / 8388608.0f - 1.0f;
}

static float *fill(float *w, size_t count, float spread, float offset, unsigned *state)
{
    for (size_t i = 0; i < count; i++) w[i] = offset + spread * uniform(state);
    return w + count;
}

void decode_fill_weights(decode_config c, unsigned seed, float *w)
{
    unsigned state = seed * 2654435761u + 12345u;
    size_t dim = (size_t)c.dim, hidden = (size_t)c.hidden;
    float row = 1.0f / sqrtf((float)dim), down = 1.0f / sqrtf((float)hidden);
    w = fill(w, (size_t)c.vocab * dim, 1.0f, 0, &state);            /* embedding */
    for (int l = 0; l < c.layers; l++) {
        w = fill(w, dim, 0.1f, 1.0f, &state);                        /* attention norm */
        w = fill(w, 4 * dim * dim, row, 0, &state);                  /* wq, wk, wv, wo */
        w = fill(w, dim, 0.1f, 1.0f, &state);                        /* MLP norm */
        w = fill(w, 2 * hidden * dim, row, 0, &state);               /* w_gate, w_up */
        w = fill(w, dim * hidden, down, 0, &state);                  /* w_down */
    }
    w = fill(w, dim, 0.1f, 1.0f, &state);                            /* final norm */
    fill(w, (size_t)c.vocab * dim, row, 0, &state);                  /* logits */
}

static void rmsnorm(const float *x, const float *weight, float *out, int dim)
{
    float sum = 0;
    for (int i = 0; i < dim; i++) sum += x[i] * x[i];
    float inverse_rms = 1.0f / sqrtf(sum / dim + NORM_EPSILON);
    for (int i = 0; i < dim; i++) out[i] = weight[i] * (inverse_rms * x[i]);
}

static void gemv(const float *w, const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        float sum = 0;
        for (int c = 0; c < cols; c++) sum += w[(size_t)r * cols + c] * x[c];
        y[r] = sum;
    }
}

void decode_reference(decode_config c, unsigned seed, int steps, float *all_logits, int *tokens)
{
    int dim = c.dim, hidden = c.hidden, max = c.max_positions;
    float *weights = malloc(sizeof(float) * decode_weight_count(c));
    decode_fill_weights(c, seed, weights);
    float *x = malloc(sizeof(float) * dim), *xb = malloc(sizeof(float) * dim), *xb2 = malloc(sizeof(float) * dim);
    float *q = malloc(sizeof(float) * dim), *k = malloc(sizeof(float) * dim), *v = malloc(sizeof(float) * dim);
    float *att = malloc(sizeof(float) * dim), *hb = malloc(sizeof(float) * hidden), *hb2 = malloc(sizeof(float) * hidden);
    float *key_cache = calloc((size_t)c.layers * max * dim, sizeof(float));
    float *value_cache = calloc((size_t)c.layers * max * dim, sizeof(float));
    float scores[MAX_POSITIONS];
    tokens[0] = (int)(seed % (unsigned)c.vocab);
    for (int pos = 0; pos < steps && pos < max; pos++) {
        const float *w = weights;
        memcpy(x, w + (size_t)tokens[pos] * dim, sizeof(float) * dim);
        w += (size_t)c.vocab * dim;
        for (int l = 0; l < c.layers; l++) {
            const float *attention_norm = w, *wq = w + dim, *wk = wq + dim * dim, *wv = wk + dim * dim;
            const float *wo = wv + dim * dim, *mlp_norm = wo + dim * dim, *w_gate = mlp_norm + dim;
            const float *w_up = w_gate + (size_t)hidden * dim, *w_down = w_up + (size_t)hidden * dim;
            w = w_down + (size_t)dim * hidden;
            float *keys = key_cache + (size_t)l * max * dim, *values = value_cache + (size_t)l * max * dim;
            rmsnorm(x, attention_norm, xb, dim);
            gemv(wq, xb, q, dim, dim), gemv(wk, xb, k, dim, dim), gemv(wv, xb, v, dim, dim);
            for (int i = 0; i < dim; i += 2) {
                float frequency = 1.0f / powf(ROPE_BASE, (float)(i % c.head_dim) / (float)c.head_dim);
                float angle = pos * frequency, co = cosf(angle), si = sinf(angle);
                float q0 = q[i], q1 = q[i + 1], k0 = k[i], k1 = k[i + 1];
                q[i] = q0 * co - q1 * si, q[i + 1] = q0 * si + q1 * co;
                k[i] = k0 * co - k1 * si, k[i + 1] = k0 * si + k1 * co;
            }
            memcpy(keys + (size_t)pos * dim, k, sizeof(float) * dim);
            memcpy(values + (size_t)pos * dim, v, sizeof(float) * dim);
            float scale = 1.0f / sqrtf((float)c.head_dim);
            for (int h = 0; h < c.heads; h++) {
                int offset = h * c.head_dim;
                for (int j = 0; j <= pos; j++) {
                    float dot = 0;
                    for (int e = 0; e < c.head_dim; e++) dot += q[offset + e] * keys[(size_t)j * dim + offset + e];
                    scores[j] = dot * scale;
                }
                float top = scores[0], sum = 0;
                for (int j = 1; j <= pos; j++) top = fmaxf(top, scores[j]);
                for (int j = 0; j <= pos; j++) scores[j] = expf(scores[j] - top), sum += scores[j];
                for (int j = 0; j <= pos; j++) scores[j] /= sum;
                for (int e = 0; e < c.head_dim; e++) {
                    float out = 0;
                    for (int j = 0; j <= pos; j++) out += scores[j] * values[(size_t)j * dim + offset + e];
                    att[offset + e] = out;
                }
            }
            gemv(wo, att, xb2, dim, dim);
            for (int i = 0; i < dim; i++) x[i] += xb2[i];
            rmsnorm(x, mlp_norm, xb, dim);
            gemv(w_gate, xb, hb, hidden, dim), gemv(w_up, xb, hb2, hidden, dim);
            for (int i = 0; i < hidden; i++) hb[i] = hb[i] / (1.0f + expf(-hb[i])) * hb2[i];
            gemv(w_down, hb, xb2, dim, hidden);
            for (int i = 0; i < dim; i++) x[i] += xb2[i];
        }
        float *logits = all_logits + (size_t)pos * c.vocab;
        rmsnorm(x, w, xb, dim);
        gemv(w + dim, xb, logits, c.vocab, dim);
        int best = 0;
        for (int i = 1; i < c.vocab; i++)
            if (logits[i] > logits[best]) best = i;
        tokens[pos + 1] = best;
    }
    free(weights), free(x), free(xb), free(xb2), free(q), free(k), free(v), free(att), free(hb), free(hb2);
    free(key_cache), free(value_cache);
}
