/* int4.c — weight-only INT4 (day 25's format: a scale and a zero point per group, two
 * values a byte, the low nibble first): the quantizer against the chapter's hand-worked
 * group and its half-a-scale bound, the kernel bit for bit against its documented order and
 * within a derived tolerance of the FP32 kernel on the dequantized weights, the model's
 * tokens against an FP32 model of those weights, and the inputs it refuses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_probes.h"
#include "llama.h"
#include "matmul.h"
#include "quantize.h"
#include "reference.h"
#include "weights.h"

static char error[512];

/* Day 25's group {-1.5, 0, 3, 1}: lo -1.5, hi 3, scale 0.3, zero 5; stored as 0, 5, 15, 8,
 * which pack low nibble first as 0x50 0x8f (tests/25-quantization.c checks the learner's the same). */
Test(int4, the_chapters_group_by_hand, .timeout = 10)
{
    const float w[] = {-1.5f, 0, 3, 1};
    uint8_t packed[2], zero;
    float scale, back[4];
    llama_quantize_int4_rows(packed, &scale, &zero, w, 4, 4);
    cr_assert(fabsf(scale - 0.3f) <= 1e-6f && zero == 5, "scale %g (want 0.3), zero %d (want 5)", scale, zero);
    cr_assert(packed[0] == 0x50 && packed[1] == 0x8f, "packed as 0x%02x 0x%02x, want 0x50 0x8f (low nibble first)", packed[0],
              packed[1]);
    llama_weight_matrix m = {.rows = 1, .cols = 4, .format = WEIGHTS_INT4, .int4 = packed, .scales = &scale, .zeros = &zero, .group_size = 4};
    llama_dequantize_row(back, &m, 0);
    for (int j = 0; j < 4; j++)
        cr_assert(fabsf(back[j] - w[j]) <= scale / 2, "element %d: %g comes back as %g, more than scale / 2 away", j, w[j], back[j]);
}

Test(int4, no_value_moves_more_than_half_a_scale, .timeout = 10)
{
    enum { COUNT = 64 * 40, GROUP = 64 };
    float w[COUNT], scales[COUNT / GROUP], back[COUNT];
    uint8_t packed[COUNT / 2], zeros[COUNT / GROUP];
    fill_random(w, COUNT, 0.1f, 1);
    w[5] = 3.0f;                                       /* an outlier */
    memset(w + 2 * GROUP, 0, GROUP * sizeof(float));   /* an all-zero group: scale 0, zero 0 */
    for (int i = 0; i < GROUP; i++) w[3 * GROUP + i] = 0.5f + 0.01f * i, w[4 * GROUP + i] = -0.5f - 0.01f * i;   /* one-signed */
    llama_quantize_int4_rows(packed, scales, zeros, w, COUNT, GROUP);
    llama_weight_matrix m = {.rows = 1, .cols = COUNT, .format = WEIGHTS_INT4, .int4 = packed, .scales = scales, .zeros = zeros,
                      .group_size = GROUP};
    llama_dequantize_row(back, &m, 0);
    for (int g = 0; g < COUNT / GROUP; g++) {
        cr_assert(zeros[g] <= 15, "group %d: zero point %d", g, zeros[g]);
        for (int i = 0; i < GROUP; i++) {
            int k = g * GROUP + i;
            cr_assert(fabs((double)back[k] - w[k]) <= scales[g] / 2 * (1 + 1e-5) + 1e-7, "value %d: %g came back as %g "
                      "(scale %g, zero %d)", k, w[k], back[k], scales[g], zeros[g]);
        }
    }
    cr_assert(scales[2] == 0 && zeros[2] == 0 && packed[GROUP] == 0, "the zero group");
    cr_assert(zeros[3] == 0 && zeros[4] == 15, "a positive group's zero point is 0 (%d), a negative one's 15 (%d)", zeros[3], zeros[4]);
}

/* The documented order (matmul.c): within a group, element k to lane k % LANES (the last
 * group_size % LANES to lanes 0, 1, ...), x * (q - zero) front to back; accumulator =
 * scale * group sum + accumulator, lane by lane; then lanes.h's sum_lanes. */
static float documented_int4(const float *x, const llama_weight_matrix *m, int output, int lanes)
{
    float accumulator[16] = {0};
    int cols = m->cols, group_size = m->group_size, groups = cols / group_size, body = group_size - group_size % lanes;
    const uint8_t *row = m->int4 + (size_t)output * cols / 2;
    for (int g = 0; g < groups; g++) {
        float part[16] = {0};
        int zero = m->zeros[(size_t)output * groups + g];
        for (int k = 0; k < group_size; k++) {
            int j = g * group_size + k, lane = k < body ? k % lanes : k - body;
            int q = j % 2 == 0 ? row[j / 2] & 15 : row[j / 2] >> 4;
            part[lane] = fmaf(x[j], (float)(q - zero), part[lane]);
        }
        for (int l = 0; l < lanes; l++) accumulator[l] = fmaf(m->scales[(size_t)output * groups + g], part[l], accumulator[l]);
    }
    for (int n = lanes; n > 1; n /= 2)
        for (int i = 0; i < n / 2; i++) accumulator[i] += accumulator[i + n / 2];
    return accumulator[0];
}

/* INT4 of a seeded outputs x cols matrix, and the same dequantized as an FP32 matrix */
typedef struct {
    uint8_t *packed, *zeros;
    float *scales, *dequantized;
    llama_weight_matrix int4, fp32;
} TestMatrix;

static TestMatrix make_matrix(int outputs, int cols, int group, uint64_t seed)
{
    TestMatrix t;
    float *w = malloc((size_t)outputs * cols * sizeof(float));
    fill_random(w, outputs * cols, 1.0f, seed);
    t.packed = malloc((size_t)outputs * cols / 2), t.zeros = malloc((size_t)outputs * cols / group);
    t.scales = malloc((size_t)outputs * cols / group * sizeof(float));
    t.dequantized = malloc((size_t)outputs * cols * sizeof(float));
    llama_quantize_int4_rows(t.packed, t.scales, t.zeros, w, (int64_t)outputs * cols, group);
    t.int4 = (llama_weight_matrix){.rows = outputs, .cols = cols, .format = WEIGHTS_INT4, .int4 = t.packed, .scales = t.scales,
                            .zeros = t.zeros, .group_size = group};
    for (int i = 0; i < outputs; i++) llama_dequantize_row(t.dequantized + (size_t)i * cols, &t.int4, i);
    t.fp32 = (llama_weight_matrix){.rows = outputs, .cols = cols, .format = WEIGHTS_FP32, .fp32 = t.dequantized};
    free(w);
    return t;
}

static void free_matrix(TestMatrix *t) { free(t->packed), free(t->zeros), free(t->scales), free(t->dequantized); }

/* the kernel on every case of at least least_rows rows, against the documented order */
static void check_kernel_order(int least_rows)
{
    /* and wide rows: 2112 columns, so matmul.c takes the rows in blocks of 4 (a block's inputs
     * stay in L1); in groups up to half a row and a whole one. From 16 rows each tile of
     * outputs may be converted to floats first (matmul.h): 16, 17 and 70 rows (ROW_BLOCK is 64) */
    int rows[] = {1, 2, 3, 4, 5, 9, 15, 16, 17, 70}, cols[] = {16, 64, 96, 288, 2112}, groups[] = {2, 4, 16, 32, 64, 96, 1056, 2112};
    int outputs = 13, lanes = perfmodel_simd_float_lanes();
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 5; c++)
            for (int g = 0; g < 8; g++) {
                int n = rows[r], k = cols[c], group = groups[g];
                if (k % group || n < least_rows) continue;
                TestMatrix m = make_matrix(outputs, k, group, 5 + c + g);
                float *x = malloc((size_t)n * k * sizeof(float)), *out = malloc((size_t)n * outputs * sizeof(float));
                fill_random(x, n * k, 1.0f, 9 + r);
                llama_matmul(out, x, n, &m.int4, 0, outputs);
                for (int row = 0; row < n; row++)
                    for (int i = 0; i < outputs; i++) {
                        float want = documented_int4(x + (size_t)row * k, &m.int4, i, lanes);
                        cr_assert(out[(size_t)row * outputs + i] == want, "rows %d cols %d group %d: out[%d][%d] = %.9g, the "
                                  "documented order gives %.9g", n, k, group, row, i, out[(size_t)row * outputs + i], want);
                    }
                free(x), free(out), free_matrix(&m);
            }
}

/* Many rows take one of two paths, whichever this core runs faster (matmul.h): each of them */
Test(int4, kernel_sums_in_the_documented_order, .timeout = 20)
{
    llama_matmul_set_many_rows(LLAMA_MANY_ROWS_IN_REGISTERS);
    check_kernel_order(1);
}

Test(int4, dequantized_tiles_sum_in_the_documented_order, .timeout = 20)
{
    llama_matmul_set_many_rows(LLAMA_MANY_ROWS_DEQUANTIZED);
    check_kernel_order(15);
}

/* The tolerance, derived: each output is a sum of cols products of exact weights (q - zero)
 * and inputs, scaled by a group's scale and added group after group; the dequantized
 * weights (q - zero) x scale are rounded once to FP32. Each of the two results is within
 * n u sum |w x| of the exact value, n = cols + 2 cols / group + 5 operations on the longest
 * chain (u = 2^-24, the unit roundoff), the dequantized weights' rounding adding u sum |w x|:
 * the two kernels differ by at most 2 (n + 1) u sum |w x|. */
Test(int4, kernel_equals_fp32_on_the_dequantized_weights, .timeout = 20)
{
    int rows[] = {1, 2, 4, 8}, cols[] = {64, 288, 768}, groups[] = {4, 32, 64}, outputs = 21;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++)
            for (int g = 0; g < 3; g++) {
                int n = rows[r], k = cols[c], group = groups[g];
                if (k % group) continue;
                TestMatrix m = make_matrix(outputs, k, group, 50 + c + g);
                float *x = malloc((size_t)n * k * sizeof(float)), *a = malloc((size_t)n * outputs * sizeof(float));
                float *b = malloc((size_t)n * outputs * sizeof(float));
                fill_random(x, n * k, 1.0f, 90 + r);
                llama_matmul(a, x, n, &m.int4, 0, outputs);
                llama_matmul(b, x, n, &m.fp32, 0, outputs);
                double steps = k + 2.0 * k / group + 5, u = ldexp(1.0, -24);
                for (int row = 0; row < n; row++)
                    for (int i = 0; i < outputs; i++) {
                        double magnitude = 0;
                        for (int j = 0; j < k; j++) magnitude += fabs((double)x[(size_t)row * k + j] * m.dequantized[(size_t)i * k + j]);
                        double tolerance = 2 * (steps + 1) * u * magnitude, d = fabs((double)a[row * outputs + i] - b[row * outputs + i]);
                        cr_assert(d <= tolerance, "rows %d cols %d group %d: out[%d][%d]: INT4 %.9g, FP32 on the dequantized "
                                  "weights %.9g, %g apart (tolerance %g)", n, k, group, row, i, a[row * outputs + i],
                                  b[row * outputs + i], d, tolerance);
                    }
                free(x), free(a), free(b), free_matrix(&m);
            }
}

/* An INT4 model, and an FP32 model whose every matrix holds the INT4 model's weights
 * dequantized (the same seed, then each FP32 matrix overwritten): greedy decoding gives the
 * same tokens, the logits agree within FP32 rounding, and both agree with double precision. */
static void check_int4_model(const char *shape, int group, int n)
{
    llama_config c;
    cr_assert(llama_named_shape(shape, &c, error, sizeof error) == 0, "%s", error);
    llama_transformer int4, fp32;
    cr_assert(llama_build_transformer_generated(&int4, &c, 31, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(&fp32, &c, 31, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer_int4(&int4, group, error, sizeof error) == 0, "%s", error);
    cr_assert(int4.format == WEIGHTS_INT4 && int4.fp32_storage == NULL && int4.group_size == group, "the FP32 bytes are released");
    cr_assert(int4.weights_bytes == llama_weights_bytes_of(&c, WEIGHTS_INT4, group), "weights_bytes");
    const llama_tensor_kind kinds[] = {TENSOR_EMBEDDING, TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO, TENSOR_W1, TENSOR_W2, TENSOR_W3, TENSOR_CLASSIFIER};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!llama_tensor_present(&c, kinds[k])) continue;
        for (int layer = 0; layer < (llama_tensor_is_per_layer(kinds[k]) ? c.n_layers : 1); layer++) {
            const llama_weight_matrix *q = llama_matrix_slot(&int4, kinds[k], layer), *f = llama_matrix_slot(&fp32, kinds[k], layer);
            for (int row = 0; row < q->rows; row++) llama_dequantize_row((float *)f->fp32 + (size_t)row * f->cols, q, row);
        }
    }
    llama_session a, b;
    cr_assert(llama_build_session(&a, &int4, 1, n + 1, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&b, &fp32, 1, n + 1, 1, error, sizeof error) == 0, "%s", error);
    int *tokens = malloc((size_t)(n + 1) * sizeof(int)), token = 1, vocab = c.vocab_size;
    float *exact = malloc((size_t)vocab * sizeof(float));
    double largest_difference = 0, largest = 0;
    for (int p = 0; p < n; p++) {
        tokens[p] = token;
        const float *la = llama_decode_batch(&a, (int[]){0}, &token, 1, error, sizeof error);
        cr_assert(la, "%s", error);
        int from_int4 = llama_argmax(la, vocab);
        memcpy(exact, la, (size_t)vocab * sizeof(float));
        const float *lb = llama_decode_batch(&b, (int[]){0}, &token, 1, error, sizeof error);
        cr_assert(lb, "%s", error);
        for (int i = 0; i < vocab; i++)
            largest = fmax(largest, fabs(lb[i])), largest_difference = fmax(largest_difference, isnan(exact[i]) ? INFINITY : fabs(exact[i] - lb[i]));
        token = llama_argmax(lb, vocab);
        cr_assert(from_int4 == token, "%s: step %d, the INT4 model chose token %d, the FP32 model of its weights %d", shape, p,
                  from_int4, token);
    }
    cr_assert(largest_difference <= 1e-4 * largest, "%s: INT4 logits differ from the FP32 model of the same weights by %g "
              "(largest logit %g)", shape, largest_difference, largest);
    double *expected = malloc((size_t)n * vocab * sizeof(double)), reference_largest;
    reference_forward(&int4, tokens, n, expected);
    double d = max_difference(exact, expected + (size_t)(n - 1) * vocab, vocab, &reference_largest);
    cr_assert(d <= 1e-5 * reference_largest, "%s: INT4 logits differ from double precision on the same weights by %g", shape, d);
    free(tokens), free(exact), free(expected);
    llama_free_session(&a), llama_free_session(&b);
    llama_free_transformer(&int4), llama_free_transformer(&fp32);
}

Test(int4, tokens_of_the_fp32_model_of_its_weights_tiny, .timeout = 30) { check_int4_model("tiny", 16, 32); }
Test(int4, tokens_of_the_fp32_model_of_its_weights_260K, .timeout = 60) { check_int4_model("260K", 4, 24); }
Test(int4, tokens_of_the_fp32_model_of_its_weights_15M, .timeout = 120) { check_int4_model("15M", 32, 16); }

/* A sequence decoded in a batch gets the logits it gets alone, bit for bit (the kernel's
 * order does not depend on the rows), and its prefill's logits too. */
Test(int4, batch_and_prefill_give_the_logits_of_one_sequence_alone, .timeout = 30)
{
    llama_config c;
    cr_assert(llama_named_shape("260K", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 7, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 4, error, sizeof error) == 0, "%s", error);
    enum { BATCH = 5, LENGTH = 9 };
    llama_session alone, together;
    cr_assert(llama_build_session(&alone, &t, 1, LENGTH, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&together, &t, BATCH, LENGTH, 2, error, sizeof error) == 0, "%s", error);
    int tokens[BATCH][LENGTH], sequences[BATCH];
    for (int s = 0; s < BATCH; s++) {
        sequences[s] = s;
        for (int p = 0; p < LENGTH; p++) tokens[s][p] = (s * 37 + p * 11 + 3) % c.vocab_size;
    }
    float *batch_logits = malloc((size_t)BATCH * LENGTH * c.vocab_size * sizeof(float));
    for (int p = 0; p < LENGTH; p++) {
        int step[BATCH];
        for (int s = 0; s < BATCH; s++) step[s] = tokens[s][p];
        const float *l = llama_decode_batch(&together, sequences, step, BATCH, error, sizeof error);
        cr_assert(l, "%s", error);
        for (int s = 0; s < BATCH; s++)
            memcpy(batch_logits + ((size_t)s * LENGTH + p) * c.vocab_size, l + (size_t)s * c.vocab_size, c.vocab_size * sizeof(float));
    }
    for (int s = 0; s < BATCH; s++) {
        llama_reset_sequence(&alone, 0);
        const float *rows = llama_prefill_rows(&alone, 0, tokens[s], LENGTH, error, sizeof error);
        cr_assert(rows, "%s", error);
        cr_assert(memcmp(rows, batch_logits + (size_t)s * LENGTH * c.vocab_size, (size_t)LENGTH * c.vocab_size * sizeof(float)) == 0,
                  "sequence %d: its logits in a batch of %d differ from its prefill's alone", s, BATCH);
    }
    free(batch_logits);
    llama_free_session(&alone), llama_free_session(&together);
    llama_free_transformer(&t);
}

Test(int4, bytes_are_an_eighth_plus_a_scale_and_a_zero_point_a_group, .timeout = 30)
{
    llama_config c;
    cr_assert(llama_named_shape("15M", &c, error, sizeof error) == 0, "%s", error);
    int64_t matrices = llama_matrix_parameter_count(&c), norms = llama_parameter_count(&c) - matrices;
    cr_assert(llama_weights_bytes_of(&c, WEIGHTS_INT4, 32) == matrices / 2 + 5 * (matrices / 32) + 4 * norms);
    /* what a decode step counts: every matrix once as stored, and one embedding row */
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 32, error, sizeof error) == 0, "%s", error);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 1, 4, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_decode_batch(&s, (int[]){0}, (int[]){5}, 1, error, sizeof error), "%s", error);
    double step = (double)(matrices / 2 + 5 * (matrices / 32)) + c.dim / 2.0 + 5.0 * c.dim / 32;
    cr_assert(s.counters.weight_bytes == step, "a decode step counts %.0f weight bytes, want %.0f", s.counters.weight_bytes, step);
    llama_free_session(&s);
    llama_free_transformer(&t);
}

/* What INT4 refuses, each with the reason: an odd group size, one that does not divide the
 * rows, quantizing twice, a checkpoint (llama2.c has no INT4), INT8 activations. */
Test(int4, bad_inputs_are_refused_with_the_reason, .timeout = 10)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);   /* dim 48, hidden_dim 112 */
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 3, error, sizeof error) != 0 && strstr(error, "group size 3 is odd") &&
              strstr(error, "two values a byte"), "group size 3: %s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 1, error, sizeof error) != 0 && strstr(error, "is odd"), "group size 1: %s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 32, error, sizeof error) != 0 && strstr(error, "group size 32 does not divide dim 48") &&
              strstr(error, "use a divisor of 16"), "group size 32: %s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 24, error, sizeof error) != 0 && strstr(error, "does not divide hidden_dim 112"),
              "group size 24: %s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 0, error, sizeof error) != 0 && strstr(error, "at least 1"), "group size 0: %s", error);
    cr_assert(t.format == WEIGHTS_FP32, "a refused group size leaves the model FP32");
    cr_assert(llama_quantize_transformer_int4(&t, 8, error, sizeof error) == 0 && t.group_size == 8, "group size 8: %s", error);
    cr_assert(llama_quantize_transformer_int4(&t, 8, error, sizeof error) != 0 && strstr(error, "already INT4"), "twice: %s", error);
    cr_assert(llama_quantize_transformer(&t, 8, error, sizeof error) != 0 && strstr(error, "already INT4"), "INT4 to INT8: %s", error);
    cr_assert(llama_write_checkpoint(&t, "/nonexistent/int4.bin", 2, error, sizeof error) != 0 &&
              strstr(error, "an INT4 model cannot be written"), "writing INT4: %s", error);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 1, 4, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_set_int8_activations(&s, 1, error, sizeof error) != 0 && strstr(error, "need INT8 weights"), "INT4: %s", error);
    llama_free_session(&s);
    llama_free_transformer(&t);
}
