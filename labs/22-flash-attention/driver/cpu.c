/* cpu.c — Day 22 driver: what FlashAttention is judged against, on the host, and the CPU
 * version's one way to load a tile (copy_tile, which counts the bytes it copies). Do not edit.
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
#include <string.h>

/* One count per thread: the checks read it around one call, and the driver's timing runs alone. */
static _Thread_local long long bytes_copied;

void copy_tile(float (*tile)[MAX_HEAD_DIM], const float *matrix, int first, int rows, int d)
{
    for (int r = 0; r < rows; r++) memcpy(tile[r], matrix + (size_t)(first + r) * d, sizeof(float) * (size_t)d);
    bytes_copied += (long long)rows * d * (long long)sizeof(float);
}

long long copied_tile_bytes(void) { return bytes_copied; }

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
