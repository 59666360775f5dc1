/* blocks.c — the blocks of blocks.h: RMSNorm, RoPE, softmax, one head of attention over
 * the KV cache, the SwiGLU gate and the residual add. They run on one row at a time and
 * are cheap beside the matrix multiplications (a few percent of a decode step); the
 * attention loop is the exception at long contexts, where it reads the whole KV cache. */
#include "blocks.h"

#include <math.h>
#include <string.h>

#include "../simd/lanes.h"

void llama_rmsnorm(float *out, const float *x, const float *weight, int size)
{
    float sum_of_squares = dot_product(x, x, size);
    float inverse_rms = 1.0f / sqrtf(sum_of_squares / (float)size + 1e-5f);
    for (int i = 0; i < size; i++) out[i] = weight[i] * (inverse_rms * x[i]);
}

void llama_rope(float *vector, int size, int head_dim, const float *angle_cos, const float *angle_sin)
{
    for (int head = 0; head < size; head += head_dim)
        for (int i = 0; i < head_dim / 2; i++) {
            float *pair = vector + head + 2 * i;
            float v0 = pair[0], v1 = pair[1];
            pair[0] = v0 * angle_cos[i] - v1 * angle_sin[i];
            pair[1] = v0 * angle_sin[i] + v1 * angle_cos[i];
        }
}

void llama_softmax(float *x, int size)
{
    float largest = x[0];
    for (int i = 1; i < size; i++) largest = x[i] > largest ? x[i] : largest;
    float sum = 0.0f;
    for (int i = 0; i < size; i++) {
        x[i] = expf(x[i] - largest);   /* subtracting the max: exp never overflows */
        sum += x[i];
    }
    for (int i = 0; i < size; i++) x[i] /= sum;
}

void llama_attend(float *out, const float *query, const float *keys, const float *values, int length, int stride, int head_dim,
            float *scores)
{
    float scale = 1.0f / sqrtf((float)head_dim);
    for (int t = 0; t < length; t++) {
        scores[t] = dot_product(query, keys + (size_t)t * stride, head_dim) * scale;
    }
    llama_softmax(scores, length);
    /* the weighted sum of values, one register of the output at a time, so that the sum
     * stays in a register instead of going through memory once per position */
    int body = head_dim - head_dim % LANES;
    for (int i = 0; i < body; i += LANES) {
        simd_float_lanes sum = {0};
        for (int t = 0; t < length; t++) sum += scores[t] * load_floats(values + (size_t)t * stride + i);
        store_floats(out + i, sum);
    }
    for (int i = body; i < head_dim; i++) {
        float sum = 0.0f;
        for (int t = 0; t < length; t++) sum += scores[t] * values[(size_t)t * stride + i];
        out[i] = sum;
    }
}

void llama_swiglu(float *gate, const float *up, int size)
{
    for (int i = 0; i < size; i++) gate[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
}

void llama_add_into(float *x, const float *y, int size)
{
    for (int i = 0; i < size; i++) x[i] += y[i];
}
