/* lab.h — Day 18: the interface between your code, the driver and the tests. Day 22
 * (FlashAttention) keeps the same shapes and compares its bytes with these.
 * Driver file: do not edit. */
#ifndef DAY18_LAB_H
#define DAY18_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels 1 and 3 use SCORE_TILE x SCORE_TILE blocks; kernel 2 one block of ROW_THREADS per row. */
enum { SCORE_TILE = 16, ROW_THREADS = 256, ATTENTION_KERNELS = 3 };

/* ---- attention.cu (yours) ---- */
/* One head of attention on device pointers: q, k, v and out are [n][d] row-major floats, scores
 * is n x n floats of scratch (row i holds query i's scores, then its softmax).
 *   out = softmax(q k^T / sqrt(d)) v, with, when causal, every score of key j > query i masked.
 * Returns the launches' error (cudaErrorInvalidValue for n < 1 or d < 1). */
cudaError_t attention_forward(const float *q, const float *k, const float *v, float *scores, float *out, int n,
                              int d, int causal);

/* Where element (row, column) of a row-major matrix of `columns` columns lies, in elements: the
 * same function the kernels use, on the host. Right for every row, column and columns an int can
 * hold (an n x n matrix passes 2^31 elements at n = 46 341). */
size_t row_major_offset_on_host(int row, int column, int columns);

/* Your prediction: the global bytes, loads plus stores, that kernel 1, 2 or 3 (scores, softmax,
 * weighted sum) moves for one head without the causal mask, n and d multiples of 16; -1 for any
 * other kernel number. */
double attention_predicted_kernel_bytes(int kernel, int n, int d);

/* ---- run.cu (driver): host arrays in and out ---- */
typedef struct attention_run {
    const char *error;                   /* NULL, or the CUDA error the run ended with */
    long long written_past_end;          /* floats written in the guards after scores and out (must be 0) */
    int counted;                         /* 1 when the simulator counted the fields below */
    int launches;                        /* kernel launches the run made */
    double footprint_bytes;              /* device memory the run allocated: q, k, v, out and scores */
    double global_load_bytes;            /* 32 x the global sectors loaded, all launches */
    double global_store_bytes;           /* 32 x the global sectors stored, all launches */
    double kernel_load_bytes[ATTENTION_KERNELS];    /* the same, launch by launch (the first three) */
    double kernel_store_bytes[ATTENTION_KERNELS];
    double kernel_blocks[ATTENTION_KERNELS];        /* blocks each of the first three launched */
} attention_run;

/* Copies q, k, v ([n][d] each) to the device, poisons scores and out (each followed by a guard),
 * runs attention_forward, copies out back, and the scores (the softmax) into probabilities
 * unless it is NULL. With count_metrics, the simulator counts the launches. */
attention_run gpu_attention(const float *q, const float *k, const float *v, float *out, float *probabilities, int n,
                            int d, int causal, int count_metrics);
/* On a real GPU: the median microseconds of `repeats` runs (events, after a warm-up) of
 * attention_forward on zeros. On the simulator: -1 (its time is this CPU's, not a GPU's). */
double gpu_attention_microseconds(int n, int d, int causal, int repeats);

/* ---- reference.c (driver): double precision on the host ---- */
/* want = attention computed in double from the float inputs, then rounded to float; the
 * probabilities too, when probabilities is not NULL (n x n). */
void attention_reference(const float *q, const float *k, const float *v, float *want, float *probabilities, int n,
                         int d, int causal);

#ifdef __cplusplus
}
#endif

#endif
