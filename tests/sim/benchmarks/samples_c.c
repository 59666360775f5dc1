/* samples_c.c — the yardstick for samples.cu: each kernel's algorithm as plain C loops, a block
 * after another and, within a block, a loop over its threads between two barriers. Compiled with
 * the kernels' own optimisation (SIM_CU_FLAGS' -O1, no vectorisation; tests/sim/bench), without
 * the instrumentation, so the ratio is what simulating costs, not what a compiler option gives. */
#include "samples_c.h"

enum { TILE = 16, SCAN_BLOCK = 256, SORT_KEYS = 512 };

void matmul_tiled_in_c(const float *a, const float *b, float *c, int n)
{
    float as[TILE][TILE], bs[TILE][TILE], sum[TILE][TILE];
    for (int by = 0; by < n / TILE; by++)
        for (int bx = 0; bx < n / TILE; bx++) {
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) sum[ty][tx] = 0;
            for (int t = 0; t < n; t += TILE) {
                for (int ty = 0; ty < TILE; ty++)
                    for (int tx = 0; tx < TILE; tx++) {
                        as[ty][tx] = a[(by * TILE + ty) * n + t + tx];
                        bs[ty][tx] = b[(t + ty) * n + bx * TILE + tx];
                    }
                for (int ty = 0; ty < TILE; ty++)
                    for (int tx = 0; tx < TILE; tx++)
                        for (int k = 0; k < TILE; k++) sum[ty][tx] += as[ty][k] * bs[k][tx];
            }
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) c[(by * TILE + ty) * n + bx * TILE + tx] = sum[ty][tx];
        }
}

void scan_blocks_in_c(const int *in, int *out, int count)
{
    int s[2 * SCAN_BLOCK];
    for (int base = 0; base < count; base += 2 * SCAN_BLOCK) {
        for (int i = 0; i < 2 * SCAN_BLOCK; i++) s[i] = in[base + i];
        int offset = 1;
        for (int d = SCAN_BLOCK; d > 0; d >>= 1) {
            for (int t = 0; t < d; t++) s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
            offset *= 2;
        }
        s[2 * SCAN_BLOCK - 1] = 0;
        for (int d = 1; d < 2 * SCAN_BLOCK; d *= 2) {
            offset >>= 1;
            for (int t = 0; t < d; t++) {
                int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
                int left = s[ai];
                s[ai] = s[bi];
                s[bi] += left;
            }
        }
        for (int i = 0; i < 2 * SCAN_BLOCK; i++) out[base + i] = s[i];
    }
}

void bitonic_blocks_in_c(unsigned *keys, int count)
{
    for (int base = 0; base < count; base += SORT_KEYS) {
        unsigned *s = keys + base;
        for (int size = 2; size <= SORT_KEYS; size <<= 1)
            for (int stride = size / 2; stride > 0; stride >>= 1)
                for (int t = 0; t < SORT_KEYS / 2; t++) {
                    int ascending = (t & (size / 2)) == 0;
                    int pos = 2 * t - (t & (stride - 1));
                    unsigned x = s[pos], y = s[pos + stride];
                    if ((x > y) == ascending) s[pos] = y, s[pos + stride] = x;
                }
    }
}

void transpose_in_c(const float *in, float *out, int n)
{
    for (int by = 0; by < n / TILE; by++)
        for (int bx = 0; bx < n / TILE; bx++)
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) {
                    int x = bx * TILE + tx, y = by * TILE + ty;
                    out[x * n + y] = in[y * n + x];
                }
}

void vector_add_in_c(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}
