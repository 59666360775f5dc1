/* samples_c.h — the algorithms of samples.cu's kernels as plain C loops (samples_c.c). */
#ifndef SAMPLES_C_H
#define SAMPLES_C_H
#ifdef __cplusplus
extern "C" {
#endif
void matmul_tiled_in_c(const float *a, const float *b, float *c, int n);
void scan_blocks_in_c(const int *in, int *out, int count);
void bitonic_blocks_in_c(unsigned *keys, int count);
void transpose_in_c(const float *in, float *out, int n);
void vector_add_in_c(const float *a, const float *b, float *c, int n);
#ifdef __cplusplus
}
#endif
#endif
