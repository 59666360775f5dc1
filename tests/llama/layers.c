/* layers.c — every block of the engine against double precision: RMSNorm, RoPE, softmax,
 * one head of attention, SwiGLU, the FP32 matrix kernel over every tile shape and thread
 * share, and the whole forward pass (GQA, tied and untied classifiers) against
 * reference.c's independent implementation.
 *
 * Tolerances are stated beside each check. FP32 rounds at 6e-8 relative per operation; a
 * sum of n terms can drift by about n * 6e-8 of the sum of their magnitudes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "llama.h"
#include "matmul.h"
#include "reference.h"

/* ----------------------------------------------------------------------------------
 * The small blocks */

Test(blocks, rmsnorm_matches_double, .timeout = 10)
{
    int sizes[] = {1, 7, 16, 17, 48, 288, 1000};
    for (int s = 0; s < 7; s++) {
        int n = sizes[s];
        float *x = malloc(n * sizeof(float)), *w = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
        fill_random(x, n, 3.0f, 10 + s);
        fill_random(w, n, 1.0f, 20 + s);
        llama_rmsnorm(out, x, w, n);
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[i] * x[i];
        double inverse_rms = 1.0 / sqrt(sum / n + 1e-5);
        for (int i = 0; i < n; i++) {
            double expected = x[i] * inverse_rms * w[i];
            cr_assert(fabs(out[i] - expected) <= 1e-5 * (fabs(expected) + 1e-3), "size %d, element %d: %g, double gives %g",
                      n, i, out[i], expected);
        }
        llama_rmsnorm(x, x, w, n);   /* in place, as the classifier's final norm may be */
        cr_assert(memcmp(x, out, n * sizeof(float)) == 0, "size %d: in-place rmsnorm differs", n);
        free(x), free(w), free(out);
    }
}

Test(blocks, rope_rotates_each_pair_by_its_angle, .timeout = 10)
{
    llama_config c;
    char error[256];
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    int head_dim = llama_head_dim_of(&c), size = c.dim;
    float v[64], original[64];
    for (int position = 0; position < c.seq_len; position += 13) {
        fill_random(original, size, 1.0f, position);
        memcpy(v, original, sizeof v);
        llama_rope(v, size, head_dim, t.rope_cos + position * head_dim / 2, t.rope_sin + position * head_dim / 2);
        for (int head = 0; head < size; head += head_dim)
            for (int i = 0; i < head_dim / 2; i++) {
                double angle = position * pow(10000.0, -2.0 * i / head_dim), a = original[head + 2 * i], b = original[head + 2 * i + 1];
                double x = a * cos(angle) - b * sin(angle), y = a * sin(angle) + b * cos(angle);
                cr_assert(fabs(v[head + 2 * i] - x) < 1e-5 && fabs(v[head + 2 * i + 1] - y) < 1e-5,
                          "position %d, pair %d: (%g, %g), double gives (%g, %g)", position, i, v[head + 2 * i],
                          v[head + 2 * i + 1], x, y);
            }
    }
    llama_free_transformer(&t);
}

Test(blocks, softmax_matches_double_without_overflow, .timeout = 10)
{
    float x[5] = {1e4f, -1e4f, 9999.0f, 0.0f, 1e4f};
    llama_softmax(x, 5);
    double e = exp(-1.0), total = 2 + e;
    double expected[5] = {1 / total, 0, e / total, 0, 1 / total};
    for (int i = 0; i < 5; i++)
        cr_assert(isfinite(x[i]) && fabs(x[i] - expected[i]) < 1e-6, "logits near 1e4: p[%d] = %g, expected %g", i, x[i], expected[i]);
    float y[300];
    fill_random(y, 300, 20.0f, 5);
    double largest = -1e30, sum = 0, copy[300];
    for (int i = 0; i < 300; i++) copy[i] = y[i], largest = fmax(largest, y[i]);
    for (int i = 0; i < 300; i++) sum += exp(copy[i] - largest);
    llama_softmax(y, 300);
    for (int i = 0; i < 300; i++) {
        double p = exp(copy[i] - largest) / sum;
        cr_assert(fabs(y[i] - p) <= 1e-6 * p + 1e-12, "p[%d] = %g, double gives %g", i, y[i], p);
    }
}

Test(blocks, attention_head_matches_double, .timeout = 10)
{
    int head_dims[] = {2, 16, 48, 64, 70};
    for (int d = 0; d < 5; d++)
        for (int length = 1; length <= 70; length += 23) {
            int head_dim = head_dims[d], stride = head_dim * 3;   /* keys of one head sit stride floats apart */
            float *q = malloc(head_dim * sizeof(float)), *keys = malloc((size_t)length * stride * sizeof(float));
            float *values = malloc((size_t)length * stride * sizeof(float)), *out = malloc(head_dim * sizeof(float));
            float *scores = malloc(length * sizeof(float));
            fill_random(q, head_dim, 2.0f, 1 + d);
            fill_random(keys, length * stride, 2.0f, 2 + d);
            fill_random(values, length * stride, 1.0f, 3 + d);
            llama_attend(out, q, keys, values, length, stride, head_dim, scores);
            double weights[70], largest = -1e30, sum = 0;
            for (int t = 0; t < length; t++) {
                double dot = 0;
                for (int i = 0; i < head_dim; i++) dot += (double)q[i] * keys[(size_t)t * stride + i];
                weights[t] = dot / sqrt((double)head_dim);
                largest = fmax(largest, weights[t]);
            }
            for (int t = 0; t < length; t++) sum += weights[t] = exp(weights[t] - largest);
            for (int i = 0; i < head_dim; i++) {
                double expected = 0;
                for (int t = 0; t < length; t++) expected += weights[t] / sum * values[(size_t)t * stride + i];
                cr_assert(fabs(out[i] - expected) < 1e-5, "head_dim %d, length %d, value %d: %g, double gives %g", head_dim,
                          length, i, out[i], expected);
            }
            free(q), free(keys), free(values), free(out), free(scores);
        }
}

Test(blocks, swiglu_matches_double, .timeout = 10)
{
    float gate[100], up[100], original[100];
    fill_random(gate, 100, 8.0f, 1);
    fill_random(up, 100, 2.0f, 2);
    memcpy(original, gate, sizeof gate);
    llama_swiglu(gate, up, 100);
    for (int i = 0; i < 100; i++) {
        double g = original[i], expected = g / (1 + exp(-g)) * up[i];
        cr_assert(fabs(gate[i] - expected) <= 1e-6 * (fabs(expected) + 1), "element %d: %g, double gives %g", i, gate[i], expected);
    }
}

/* ----------------------------------------------------------------------------------
 * The FP32 matrix kernel: every combination of rows (tiles of 4 and their remainders),
 * columns (vector blocks, chains and a scalar tail) and output ranges (thread shares) */

static void check_matmul(int rows, int cols, int outputs, int first, int last)
{
    float *w = malloc((size_t)outputs * cols * sizeof(float)), *x = malloc((size_t)rows * cols * sizeof(float));
    float *out = malloc((size_t)rows * outputs * sizeof(float));
    fill_random(w, outputs * cols, 1.0f, rows * 1000 + cols);
    fill_random(x, rows * cols, 1.0f, cols * 1000 + outputs);
    for (int i = 0; i < rows * outputs; i++) out[i] = NAN;   /* every output in [first, last) must be written */
    llama_weight_matrix m = {.rows = outputs, .cols = cols, .format = WEIGHTS_FP32, .fp32 = w};
    llama_matmul(out, x, rows, &m, first, last);
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < outputs; i++) {
            float got = out[(size_t)r * outputs + i];
            if (i < first || i >= last) {
                cr_assert(isnan(got), "rows %d cols %d: output %d outside [%d, %d) was written", rows, cols, i, first, last);
                continue;
            }
            double expected = 0, magnitude = 0;
            for (int j = 0; j < cols; j++) {
                expected += (double)x[(size_t)r * cols + j] * w[(size_t)i * cols + j];
                magnitude += fabs((double)x[(size_t)r * cols + j] * w[(size_t)i * cols + j]);
            }
            cr_assert(fabs(got - expected) <= 1e-6 * magnitude + 1e-30, "rows %d cols %d outputs %d [%d,%d): out[%d][%d] = %.9g, "
                      "double gives %.9g", rows, cols, outputs, first, last, r, i, got, expected);
        }
    free(w), free(x), free(out);
}

Test(llama_matmul, fp32_matches_double_for_every_tile_shape, .timeout = 30)
{
    int rows[] = {1, 2, 3, 4, 5, 8, 9, 67};
    int cols[] = {1, 15, 16, 17, 63, 64, 65, 80, 112, 288};
    int outputs[] = {1, 3, 4, 5, 13};
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 10; c++)
            for (int o = 0; o < 5; o++) check_matmul(rows[r], cols[c], outputs[o], 0, outputs[o]);
    check_matmul(5, 288, 13, 4, 12);   /* a thread's share: starts on a tile boundary */
    check_matmul(1, 288, 13, 8, 13);
    check_matmul(130, 64, 9, 0, 9);    /* more rows than one L2 block of rows */
}

/* ----------------------------------------------------------------------------------
 * The whole model against the double-precision reference */

static void check_forward(const char *shape, int tied, int n)
{
    llama_config c;
    char error[256];
    cr_assert(llama_named_shape(shape, &c, error, sizeof error) == 0, "%s", error);
    c.shared_classifier = tied;
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 7, error, sizeof error) == 0, "%s", error);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 1, n, 1, error, sizeof error) == 0, "%s", error);
    int tokens[64];
    uint64_t state = llama_seed_generator(99);
    for (int i = 0; i < n; i++) tokens[i] = (int)(llama_random_u32(&state) % (uint32_t)c.vocab_size);
    double *expected = malloc((size_t)n * c.vocab_size * sizeof(double));
    reference_forward(&t, tokens, n, expected);
    /* the prompt minus its last token in one prefill, then the last token as a decode step:
     * both paths are held against the reference */
    const float *logits = llama_prefill(&s, 0, tokens, n - 1, error, sizeof error);
    cr_assert(logits, "%s", error);
    double largest, difference = max_difference(logits, expected + (size_t)(n - 2) * c.vocab_size, c.vocab_size, &largest);
    cr_assert(difference <= 1e-5 * largest, "%s (%s classifier): prefill logits differ from double by %g (largest %g)", shape,
              tied ? "tied" : "untied", difference, largest);
    logits = llama_decode_batch(&s, (int[]){0}, &tokens[n - 1], 1, error, sizeof error);
    cr_assert(logits, "%s", error);
    difference = max_difference(logits, expected + (size_t)(n - 1) * c.vocab_size, c.vocab_size, &largest);
    cr_assert(difference <= 1e-5 * largest, "%s (%s classifier): decode logits differ from double by %g (largest %g)", shape,
              tied ? "tied" : "untied", difference, largest);
    cr_assert(largest > 1.0, "%s: logits this small (%g) would make the comparison meaningless", shape, largest);
    free(expected);
    llama_free_session(&s);
    llama_free_transformer(&t);
}

Test(forward, grouped_query_untied_matches_double, .timeout = 30) { check_forward("tiny", 0, 40); }
Test(forward, grouped_query_tied_matches_double, .timeout = 30) { check_forward("tiny", 1, 23); }
Test(forward, multi_head_matches_double, .timeout = 30) { check_forward("tiny-mha", 0, 31); }
Test(forward, llama2c_260K_shape_matches_double, .timeout = 60) { check_forward("260K", 1, 20); }
