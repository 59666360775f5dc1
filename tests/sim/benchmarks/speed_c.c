/* speed_c.c — the work of speed.cu's kernels as plain C loops, the yardstick for the
 * simulator's slowdown. Compiled as ordinary C (-O2, not instrumented). */
void add_in_c(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}

void exchange_in_c(float *x, int n, float *slot, int rounds)
{
    for (int block = 0; block < n; block += 256)
        for (int r = 0; r < rounds; r++) {
            for (int t = 0; t < 256; t++) slot[t] = x[block + t];
            for (int t = 0; t < 256; t++) x[block + t] += slot[(t + 1) % 256];
        }
}
