/* runq_arithmetic.c — llama2.c's runq.c's arithmetic (runq_arithmetic.h says what and why).
 * Each function follows the corresponding lines of runq.c: the same operations in the same
 * order, so every float rounds as it does there. FP_CONTRACT is off: a compiler must not
 * fuse a multiply and an add into one FMA (one rounding instead of two), which runq.c built
 * with `gcc -O3` for x86-64 does not do either. gcc ignores the pragma: the Makefile builds this
 * file with -ffp-contract=off as well, so that any compiler keeps it. */
#include "runq_arithmetic.h"

#include <math.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

void llama_runq_quantize(int8_t *values, float *scales, const float *x, int rows, int cols, int group_size)
{
    int groups = cols / group_size;
    for (int r = 0; r < rows; r++)
        for (int g = 0; g < groups; g++) {
            const float *in = x + (size_t)r * cols + (size_t)g * group_size;
            int8_t *q = values + (size_t)r * cols + (size_t)g * group_size;
            float largest = 0.0f;
            for (int i = 0; i < group_size; i++)
                if (fabsf(in[i]) > largest) largest = fabsf(in[i]);
            float scale = largest / 127.0f;
            scales[(size_t)r * groups + g] = scale;
            /* round(x / scale): halves away from zero; an all-zero group is all zeros */
            for (int i = 0; i < group_size; i++) q[i] = scale > 0.0f ? (int8_t)roundf(in[i] / scale) : 0;
        }
}

void llama_runq_matmul(float *out, const int8_t *x, const float *x_scales, int rows, const llama_weight_matrix *w,
                       int first_output, int last_output)
{
    int cols = w->cols, group_size = w->group_size, groups = cols / group_size;
    for (int i = first_output; i < last_output; i++) {
        const int8_t *weights = w->int8 + (size_t)i * cols;
        const float *weight_scales = w->scales + (size_t)i * groups;
        for (int r = 0; r < rows; r++) {
            const int8_t *inputs = x + (size_t)r * cols;
            const float *input_scales = x_scales + (size_t)r * groups;
            float sum = 0.0f;
            for (int g = 0; g < groups; g++) {
                int32_t dot = 0;
                for (int k = g * group_size; k < (g + 1) * group_size; k++) dot += (int32_t)inputs[k] * (int32_t)weights[k];
                sum += (float)dot * weight_scales[g] * input_scales[g];
            }
            out[(size_t)r * w->rows + i] = sum;
        }
    }
}

void llama_runq_rmsnorm(float *out, const float *x, const float *weight, int size)
{
    float sum_of_squares = 0.0f;
    for (int j = 0; j < size; j++) sum_of_squares += x[j] * x[j];
    sum_of_squares /= (float)size;
    sum_of_squares += 1e-5f;
    float inverse_rms = 1.0f / sqrtf(sum_of_squares);
    for (int j = 0; j < size; j++) out[j] = weight[j] * (inverse_rms * x[j]);
}

void llama_runq_rope(float *q, float *k, int dim, int kv_dim, int head_dim, int position)
{
    for (int i = 0; i < dim; i += 2) {
        float frequency = 1.0f / powf(10000.0f, (float)(i % head_dim) / (float)head_dim);
        float angle = (float)position * frequency;
        float angle_cos = cosf(angle), angle_sin = sinf(angle);
        for (int which = 0; which < (i < kv_dim ? 2 : 1); which++) {
            float *pair = (which == 0 ? q : k) + i;
            float v0 = pair[0], v1 = pair[1];
            pair[0] = v0 * angle_cos - v1 * angle_sin;
            pair[1] = v0 * angle_sin + v1 * angle_cos;
        }
    }
}

void llama_runq_attend(float *out, const float *query, const float *keys, const float *values, int length, int stride,
                       int head_dim, float *scores)
{
    for (int t = 0; t < length; t++) {
        const float *key = keys + (size_t)t * stride;
        float score = 0.0f;
        for (int i = 0; i < head_dim; i++) score += query[i] * key[i];
        scores[t] = score / sqrtf((float)head_dim);
    }
    float largest = scores[0], sum = 0.0f;
    for (int t = 1; t < length; t++)
        if (scores[t] > largest) largest = scores[t];
    for (int t = 0; t < length; t++) {
        scores[t] = expf(scores[t] - largest);
        sum += scores[t];
    }
    for (int t = 0; t < length; t++) scores[t] /= sum;
    memset(out, 0, (size_t)head_dim * sizeof(float));
    for (int t = 0; t < length; t++) {
        const float *value = values + (size_t)t * stride;
        for (int i = 0; i < head_dim; i++) out[i] += scores[t] * value[i];
    }
}

void llama_runq_swiglu(float *gate, const float *up, int size)
{
    for (int i = 0; i < size; i++) {
        float value = gate[i];
        value *= 1.0f / (1.0f + expf(-value));
        value *= up[i];
        gate[i] = value;
    }
}
