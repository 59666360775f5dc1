/* int8.c — weight-only INT8: the quantizer's error bound, the INT8 kernel against double
 * precision on the dequantized weights, the model's logits within a stated tolerance of
 * FP32's, and the bytes the format saves. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"
#include "matmul.h"
#include "quantize.h"
#include "runq_arithmetic.h"
#include "reference.h"
#include "weights.h"

static char error[512];

Test(int8, no_value_moves_more_than_half_a_scale, .timeout = 10)
{
    enum { COUNT = 64 * 40, GROUP = 64 };
    float w[COUNT], scales[COUNT / GROUP];
    int8_t q[COUNT];
    fill_random(w, COUNT, 0.1f, 1);
    w[5] = 3.0f;                                      /* an outlier: its group's scale grows, the others' do not */
    memset(w + 2 * GROUP, 0, GROUP * sizeof(float));  /* an all-zero group: scale 0, no division by it */
    llama_quantize_rows(q, scales, w, COUNT, GROUP);
    for (int g = 0; g < COUNT / GROUP; g++) {
        float largest = 0;
        for (int i = 0; i < GROUP; i++) largest = fmaxf(largest, fabsf(w[g * GROUP + i]));
        cr_assert(scales[g] == largest / 127.0f, "group %d: scale %g, max|w| / 127 = %g", g, scales[g], largest / 127.0f);
        for (int i = 0; i < GROUP; i++) {
            int k = g * GROUP + i;
            double error_bound = scales[g] / 2 * (1 + 1e-6);
            cr_assert(q[k] >= -127 && q[k] <= 127, "value %d quantized to %d", k, q[k]);
            cr_assert(fabs((double)q[k] * scales[g] - w[k]) <= error_bound, "value %d: %g became %d x %g (error %g > scale/2)",
                      k, w[k], q[k], scales[g], fabs((double)q[k] * scales[g] - w[k]));
        }
    }
    cr_assert(scales[2] == 0 && q[2 * GROUP] == 0, "the zero group");
    cr_assert(q[5] == 127, "the largest value of a group maps to 127, got %d", q[5]);
}

Test(int8, kernel_matches_double_on_the_dequantized_weights, .timeout = 20)
{
    int rows[] = {1, 2, 3, 5, 8}, cols[] = {16, 64, 96, 288}, groups[] = {16, 32, 64}, outputs = 13;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 4; c++)
            for (int g = 0; g < 3; g++) {
                int n = rows[r], k = cols[c], group = groups[g];
                if (k % group) continue;
                float *w = malloc((size_t)outputs * k * sizeof(float)), *x = malloc((size_t)n * k * sizeof(float));
                float *scales = malloc((size_t)outputs * k / group * sizeof(float)), *out = malloc((size_t)n * outputs * sizeof(float));
                int8_t *q = malloc((size_t)outputs * k);
                fill_random(w, outputs * k, 1.0f, 5 + r + c);
                fill_random(x, n * k, 1.0f, 9 + g);
                llama_quantize_rows(q, scales, w, (int64_t)outputs * k, group);
                llama_weight_matrix m = {.rows = outputs, .cols = k, .format = WEIGHTS_INT8, .int8 = q, .scales = scales, .group_size = group};
                llama_matmul(out, x, n, &m, 0, outputs);
                for (int row = 0; row < n; row++)
                    for (int i = 0; i < outputs; i++) {
                        double expected = 0, magnitude = 0;
                        for (int j = 0; j < k; j++) {
                            double weight = (double)q[(size_t)i * k + j] * scales[((size_t)i * k + j) / group];
                            expected += x[(size_t)row * k + j] * weight;
                            magnitude += fabs(x[(size_t)row * k + j] * weight);
                        }
                        cr_assert(fabs(out[(size_t)row * outputs + i] - expected) <= 1e-6 * magnitude,
                                  "rows %d cols %d group %d: out[%d][%d] = %g, double gives %g", n, k, group, row, i,
                                  out[(size_t)row * outputs + i], expected);
                    }
                free(w), free(x), free(scales), free(out), free(q);
            }
}

/* The tolerance, stated: INT8 moves each weight by up to scale/2 = max|w| / 254 of its
 * group, an error that adds up through the layers. On these shapes the logits of the INT8
 * model stay within 5% of the largest FP32 logit, and the INT8 model agrees with the
 * double-precision reference of its own (dequantized) weights to FP32 precision. */
static void check_int8_model(const char *shape, int n)
{
    llama_config c;
    cr_assert(llama_named_shape(shape, &c, error, sizeof error) == 0, "%s", error);
    llama_transformer fp32, int8;
    cr_assert(llama_build_transformer_generated(&fp32, &c, 21, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(&int8, &c, 21, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer(&int8, llama_int8_group_size(&c, 64), error, sizeof error) == 0, "%s", error);
    cr_assert(int8.format == WEIGHTS_INT8 && int8.fp32_storage == NULL, "the FP32 bytes are released");
    int *tokens = malloc(n * sizeof(int));
    uint64_t state = llama_seed_generator(22);
    for (int i = 0; i < n; i++) tokens[i] = (int)(llama_random_u32(&state) % (uint32_t)c.vocab_size);
    llama_session a, b;
    cr_assert(llama_build_session(&a, &fp32, 1, n, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&b, &int8, 1, n, 1, error, sizeof error) == 0, "%s", error);
    float *exact = malloc(c.vocab_size * sizeof(float));
    memcpy(exact, llama_prefill(&a, 0, tokens, n, error, sizeof error), c.vocab_size * sizeof(float));
    const float *quantized = llama_prefill(&b, 0, tokens, n, error, sizeof error);
    double largest = 0, difference = 0;
    for (int i = 0; i < c.vocab_size; i++) {
        largest = fmax(largest, fabs(exact[i]));
        difference = fmax(difference, isnan(quantized[i]) ? INFINITY : fabs(quantized[i] - exact[i]));
    }
    cr_assert(difference <= 0.05 * largest, "%s: INT8 logits differ from FP32 by %g, more than 5%% of the largest (%g)", shape,
              difference, largest);
    cr_assert(difference > 0, "%s: INT8 logits equal FP32's exactly: the INT8 weights are not in use", shape);
    double *expected = malloc((size_t)n * c.vocab_size * sizeof(double));
    reference_forward(&int8, tokens, n, expected);
    double reference_largest, reference_difference =
        max_difference(quantized, expected + (size_t)(n - 1) * c.vocab_size, c.vocab_size, &reference_largest);
    cr_assert(reference_difference <= 1e-5 * reference_largest, "%s: INT8 logits differ from double on the same weights by %g",
              shape, reference_difference);
    free(tokens), free(exact), free(expected);
    llama_free_session(&a), llama_free_session(&b);
    llama_free_transformer(&fp32), llama_free_transformer(&int8);
}

Test(int8, logits_within_tolerance_of_fp32_tiny, .timeout = 30) { check_int8_model("tiny", 30); }
Test(int8, logits_within_tolerance_of_fp32_260K, .timeout = 60) { check_int8_model("260K", 24); }

Test(int8, bytes_are_a_quarter_plus_the_scales, .timeout = 30)
{
    llama_config c;
    cr_assert(llama_named_shape("15M", &c, error, sizeof error) == 0, "%s", error);
    int64_t matrices = llama_matrix_parameter_count(&c), norms = llama_parameter_count(&c) - matrices;
    cr_assert(llama_parameter_count(&c) == 15191712, "llama2.c's stories15M has 15 191 712 parameters, counted %lld",
              (long long)llama_parameter_count(&c));
    cr_assert(llama_weights_bytes_of(&c, WEIGHTS_FP32, 64) == 4 * llama_parameter_count(&c));
    cr_assert(llama_weights_bytes_of(&c, WEIGHTS_INT8, 64) == matrices + 4 * (matrices / 64) + 4 * norms);
    /* the 260K shape's dim 64 and hidden 172: 172 = 4 x 43, so the group halves to 4 */
    cr_assert(llama_named_shape("260K", &c, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_int8_group_size(&c, 64) == 4, "260K: group %d", llama_int8_group_size(&c, 64));
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer(&t, 4, error, sizeof error) == 0, "%s", error);
    cr_assert(t.group_size == 4 && t.weights_bytes == llama_weights_bytes_of(&c, WEIGHTS_INT8, 4), "260K INT8: group %d, %lld bytes",
              t.group_size, (long long)t.weights_bytes);
    cr_assert(llama_quantize_transformer(&t, 64, error, sizeof error) != 0 && strstr(error, "already INT8"), "quantizing twice: %s", error);
    llama_free_transformer(&t);
}

/* Both quantized formats store their matrices in the order a decode step reads them (layer
 * by layer: wq, wk, wv, wo, w1, w3, w2; then the classifier, then the embedding where it is
 * a matrix of its own), each starting where the one before ends, values and scales alike,
 * so that a matrix's prefetches run on into the next one read (quantize.c). */
static void check_step_order(int shared_classifier, llama_weight_format format)
{
    static const llama_tensor_kind layer_kinds[] = {TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO, TENSOR_W1, TENSOR_W3, TENSOR_W2};
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    c.shared_classifier = shared_classifier;
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    int group = 16;
    cr_assert((format == WEIGHTS_INT4 ? llama_quantize_transformer_int4 : llama_quantize_transformer)(&t, group, error, sizeof error) == 0,
              "%s", error);
    const llama_weight_matrix *order[64];
    int count = 0;
    for (int l = 0; l < c.n_layers; l++)
        for (int k = 0; k < 7; k++) order[count++] = llama_matrix_slot(&t, layer_kinds[k], l);
    order[count++] = &t.classifier;
    if (!shared_classifier) order[count++] = &t.token_embedding;
    const char *names[] = {"wq", "wk", "wv", "wo", "w1", "w3", "w2"};
    for (int i = 1; i < count; i++) {
        const llama_weight_matrix *before = order[i - 1], *m = order[i];
        size_t values = (size_t)before->rows * before->cols;
        const void *expected = format == WEIGHTS_INT4 ? (const void *)(before->int4 + values / 2) : (const void *)(before->int8 + values);
        const void *at = format == WEIGHTS_INT4 ? (const void *)m->int4 : (const void *)m->int8;
        const char *name = i < 7 * c.n_layers ? names[i % 7] : i == 7 * c.n_layers ? "the classifier" : "the embedding";
        cr_assert(at == expected, "%s, classifier %s: matrix %d of the step (%s, layer %d) is stored %td bytes from the end of "
                  "the one the step reads before it, not right after it",
                  format == WEIGHTS_INT4 ? "INT4" : "INT8", shared_classifier ? "shared" : "separate", i, name,
                  i < 7 * c.n_layers ? i / 7 : -1, (const char *)at - (const char *)expected);
        cr_assert(m->scales == before->scales + values / group, "matrix %d of the step (%s): its scales do not follow", i, name);
        if (format == WEIGHTS_INT4) cr_assert(m->zeros == before->zeros + values / group, "matrix %d (%s): its zero points do not follow", i, name);
    }
    cr_assert(order[0] == &t.layers[0].wq && (format == WEIGHTS_INT4 ? (void *)t.int4_storage == (void *)t.layers[0].wq.int4
                                                                    : (void *)t.int8_storage == (void *)t.layers[0].wq.int8),
              "the first layer's wq opens the block");
    llama_free_transformer(&t);
}

Test(int8, matrices_are_stored_in_the_order_a_step_reads_them, .timeout = 20)
{
    check_step_order(1, WEIGHTS_INT8);
    check_step_order(0, WEIGHTS_INT8);
    check_step_order(1, WEIGHTS_INT4);
    check_step_order(0, WEIGHTS_INT4);
}

/* A group size that does not divide a row is refused, naming the dimension; nothing is
 * rounded to another group size behind the caller's back. */
Test(int8, group_sizes_that_do_not_divide_the_rows_are_refused, .timeout = 10)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);   /* dim 48, hidden_dim 112 */
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer(&t, 7, error, sizeof error) != 0 && strstr(error, "group size 7 does not divide dim 48") &&
              strstr(error, "use a divisor of 16"), "group size 7: %s", error);
    cr_assert(llama_quantize_transformer(&t, 24, error, sizeof error) != 0 && strstr(error, "does not divide hidden_dim 112"),
              "group size 24 divides dim but not hidden_dim: %s", error);
    cr_assert(llama_quantize_transformer(&t, 0, error, sizeof error) != 0 && strstr(error, "at least 1"), "group size 0: %s", error);
    cr_assert(t.format == WEIGHTS_FP32, "a refused group size leaves the model FP32");
    cr_assert(llama_quantize_transformer(&t, 8, error, sizeof error) == 0 && t.group_size == 8, "group size 8: %s", error);
    llama_free_transformer(&t);
}

/* INT8 activations (runq.c's arithmetic): the multiplication is runq.c's sum, exactly, and
 * the model's logits stay close to those of weight-only INT8 on the same weights. */
Test(int8, int8_activations_multiply_as_runq_does, .timeout = 10)
{
    enum { ROWS = 3, COLS = 96, OUTPUTS = 5, GROUP = 32 };
    float x[ROWS * COLS], w[OUTPUTS * COLS], x_scales[ROWS * COLS / GROUP], w_scales[OUTPUTS * COLS / GROUP], out[ROWS * OUTPUTS];
    int8_t xq[ROWS * COLS], wq[OUTPUTS * COLS];
    fill_random(x, ROWS * COLS, 2.0f, 3);
    fill_random(w, OUTPUTS * COLS, 0.5f, 4);
    x[7] = 0.0f;   /* a zero among the values */
    llama_quantize_rows(wq, w_scales, w, OUTPUTS * COLS, GROUP);
    llama_runq_quantize(xq, x_scales, x, ROWS, COLS, GROUP);
    llama_weight_matrix m = {.rows = OUTPUTS, .cols = COLS, .format = WEIGHTS_INT8, .int8 = wq, .scales = w_scales, .group_size = GROUP};
    llama_runq_matmul(out, xq, x_scales, ROWS, &m, 0, OUTPUTS);
    for (int r = 0; r < ROWS; r++) {
        for (int g = 0; g < COLS / GROUP; g++) {
            float largest = 0;
            for (int k = 0; k < GROUP; k++) largest = fmaxf(largest, fabsf(x[r * COLS + g * GROUP + k]));
            cr_assert(x_scales[r * COLS / GROUP + g] == largest / 127.0f, "row %d group %d: scale", r, g);
            for (int k = 0; k < GROUP; k++) {
                int j = r * COLS + g * GROUP + k;
                cr_assert(xq[j] == (int8_t)round(x[j] / x_scales[r * COLS / GROUP + g]), "x[%d] = %g quantized to %d", j, x[j], xq[j]);
            }
        }
        for (int i = 0; i < OUTPUTS; i++) {
            volatile float expected = 0.0f;   /* one rounding per operation, groups front to back */
            for (int g = 0; g < COLS / GROUP; g++) {
                int32_t dot = 0;
                for (int k = 0; k < GROUP; k++) dot += xq[r * COLS + g * GROUP + k] * wq[i * COLS + g * GROUP + k];
                volatile float term = (float)dot * w_scales[i * COLS / GROUP + g];
                term = term * x_scales[r * COLS / GROUP + g];
                expected = expected + term;
            }
            cr_assert(out[r * OUTPUTS + i] == expected, "out[%d][%d] = %.9g, runq.c's sum is %.9g", r, i, out[r * OUTPUTS + i],
                      (double)expected);
        }
    }
    /* a half rounds away from zero, as C's round() does (lrintf would give 2 and -2) */
    float halves[4] = {2.5f, -2.5f, 127.0f, 0.0f}, half_scale;
    int8_t rounded[4];
    llama_runq_quantize(rounded, &half_scale, halves, 1, 4, 4);
    cr_assert(half_scale == 1.0f && rounded[0] == 3 && rounded[1] == -3 && rounded[2] == 127, "halves: %d %d", rounded[0], rounded[1]);
}

Test(int8, int8_activations_stay_close_and_need_int8_weights, .timeout = 30)
{
    llama_config c;
    cr_assert(llama_named_shape("260K", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 5, error, sizeof error) == 0, "%s", error);
    llama_session a, b;
    cr_assert(llama_build_session(&a, &t, 1, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_set_int8_activations(&a, 1, error, sizeof error) != 0 && strstr(error, "need INT8 weights"), "FP32: %s", error);
    llama_free_session(&a);
    cr_assert(llama_quantize_transformer(&t, 4, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&a, &t, 1, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&b, &t, 1, 16, 2, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_set_int8_activations(&b, 1, error, sizeof error) == 0, "%s", error);
    int tokens[16];
    uint64_t state = llama_seed_generator(6);
    for (int i = 0; i < 16; i++) tokens[i] = (int)(llama_random_u32(&state) % (uint32_t)c.vocab_size);
    float *weight_only = malloc(c.vocab_size * sizeof(float));
    memcpy(weight_only, llama_prefill(&a, 0, tokens, 16, error, sizeof error), c.vocab_size * sizeof(float));
    const float *both = llama_prefill(&b, 0, tokens, 16, error, sizeof error);
    double largest = 0, difference = 0;
    for (int i = 0; i < c.vocab_size; i++) {
        largest = fmax(largest, fabs(weight_only[i]));
        difference = fmax(difference, isnan(both[i]) ? INFINITY : fabs(both[i] - weight_only[i]));
    }
    cr_assert(difference > 0, "INT8 activations give weight-only INT8's logits exactly: the mode is not in use");
    cr_assert(difference <= 0.05 * largest, "INT8 activations move the logits by %g, more than 5%% of the largest (%g)",
              difference, largest);
    free(weight_only);
    llama_free_session(&a), llama_free_session(&b);
    llama_free_transformer(&t);
}
