/* cpu.c — Day 22 driver: what FlashAttention is judged against, on the host. Do not edit.
 *
 * attention_reference is day 18's double-precision reference (labs/18-attention-naive/driver/
 * reference.c, copied here so that day 22 does not depend on your day 18): its own error, about
 * 1e-16 relative, is far below a float kernel's. attention_naive_cpu is day 18's algorithm in
 * float on the CPU, the one the driver times against yours: it writes all n x n scores to
 * memory, softmaxes them in place, and reads them back for P v. Its loops have the same shape
 * as a tiled version's (a dot product over c, then a multiply-add across a row of v), so that
 * the two differ in where the scores live, not in how well the compiler vectorises them. */
#include "lab.h"

#include <math.h>
#include <stdlib.h>

void attention_reference(const float *q, const float *k, const float *v, float *want, int n, int d, int causal)
{
    double scale = 1.0 / sqrt((double)d);
    double *row = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int keys = causal ? i + 1 : n;   /* query i sees keys 0 .. keys - 1 */
        double max = -INFINITY, sum = 0;
        for (int j = 0; j < keys; j++) {
            double dot = 0;
            for (int c = 0; c < d; c++) dot += (double)q[(size_t)i * d + c] * k[(size_t)j * d + c];
            row[j] = dot * scale;
            max = fmax(max, row[j]);
        }
        for (int j = 0; j < keys; j++) sum += row[j] = exp(row[j] - max);
        for (int c = 0; c < d; c++) {
            double total = 0;
            for (int j = 0; j < keys; j++) total += row[j] / sum * v[(size_t)j * d + c];
            want[(size_t)i * d + c] = (float)total;
        }
    }
    free(row);
}

void attention_naive_cpu(const float *q, const float *k, const float *v, float *scores, float *out, int n, int d,
                         int causal)
{
    float scale = 1.0f / sqrtf((float)d);
    for (int i = 0; i < n; i++) {   /* step 1: S = q k^T * scale, -inf where masked */
        float *row = scores + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            if (causal && j > i) {
                row[j] = -INFINITY;
                continue;
            }
            float dot = 0;
            for (int c = 0; c < d; c++) dot += q[(size_t)i * d + c] * k[(size_t)j * d + c];
            row[j] = dot * scale;
        }
    }
    for (int i = 0; i < n; i++) {   /* step 2: P = softmax(S), row by row, in place */
        float *row = scores + (size_t)i * n, max = -INFINITY, sum = 0;
        for (int j = 0; j < n; j++) max = fmaxf(max, row[j]);
        for (int j = 0; j < n; j++) sum += row[j] = expf(row[j] - max);
        for (int j = 0; j < n; j++) row[j] /= sum;
    }
    for (int i = 0; i < n; i++) {   /* step 3: out = P v */
        float *o = out + (size_t)i * d;
        for (int c = 0; c < d; c++) o[c] = 0;
        for (int j = 0; j < n; j++) {
            float p = scores[(size_t)i * n + j];
            for (int c = 0; c < d; c++) o[c] += p * v[(size_t)j * d + c];
        }
    }
}

static float uniform(unsigned *seed, float low, float high)
{
    *seed = *seed * 1664525u + 1013904223u;
    return low + (high - low) * (float)(*seed >> 8) / 16777216.0f;
}

void fill_attention_inputs(float *q, float *k, float *v, int n, int d, float spread, unsigned seed)
{
    for (size_t i = 0; i < (size_t)n * d; i++)
        q[i] = uniform(&seed, -spread, spread), k[i] = uniform(&seed, -spread, spread), v[i] = uniform(&seed, -1, 1);
}

double flash_predicted_bytes(int n, int d, int causal, int tile)
{
    double row = 4.0 * d, bytes = 2 * row * n;   /* q in, out back: once each */
    int tiles = (n + tile - 1) / tile;
    for (int query_tile = 0; query_tile < tiles; query_tile++) {
        int key_tiles = causal ? query_tile + 1 : tiles;
        for (int key_tile = 0; key_tile < key_tiles; key_tile++) {
            int keys = n - key_tile * tile < tile ? n - key_tile * tile : tile;
            bytes += 2 * row * keys;   /* that tile's rows of k and of v */
        }
    }
    return bytes;
}
