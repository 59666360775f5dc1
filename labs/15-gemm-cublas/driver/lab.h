/* lab.h — Day 15: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY15_LAB_H
#define DAY15_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <cublas_v2.h>   /* usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* Every matrix here is stored ROW-MAJOR: element (i, j) of a matrix with leading dimension ld
 * is at [i * ld + j], and ld >= its number of columns (a row may be padded). cuBLAS reads and
 * writes COLUMN-MAJOR. op(X) is X, or X transposed when transpose_x is 1. */

/* ---- gemm.cu (yours): device pointers, alpha = 1, beta = 0 ---- */
/* C (m x n, leading dimension ldc) = op(A) (m x k) · op(B) (k x n).
 * A is stored m x k (lda >= k), or k x m (lda >= m) when transpose_a; B is stored k x n
 * (ldb >= n), or n x k (ldb >= k) when transpose_b. One call of cublasSgemm. */
cublasStatus_t gemm_row_major(cublasHandle_t handle, int transpose_a, int transpose_b, int m, int n, int k,
                              const float *a, int lda, const float *b, int ldb, float *c, int ldc);
/* The same product without transposes for BF16 A (m x k) and B (k x n), bits as uint16_t,
 * into a float C, computed in FP32: one call of cublasGemmEx. */
cublasStatus_t gemm_row_major_bf16(cublasHandle_t handle, int m, int n, int k, const uint16_t *a, int lda,
                                   const uint16_t *b, int ldb, float *c, int ldc);
/* `batches` products C_i = A_i · B_i, no transposes, each matrix packed (ld = its columns),
 * A_i at a + i * stride_a, B_i at b + i * stride_b, C_i at c + i * stride_c (strides in
 * elements, at least the matrix's size): one call of cublasSgemmStridedBatched. */
cublasStatus_t gemm_row_major_batched(cublasHandle_t handle, int m, int n, int k, const float *a, long long stride_a,
                                      const float *b, long long stride_b, float *c, long long stride_c, int batches);
/* Every function above leaves the handle's settings (its math mode) as it found them. */

/* What one gemm_row_major_batched of `batches` (>= 1) products of m x k by k x n costs, predicted
 * from the chapter before the simulator counts it: the launches a GPU makes for it, and its FLOPs
 * (a multiply and an add are 2). */
typedef struct gemm_batch_cost {
    int launches;
    double flops;
} gemm_batch_cost;
gemm_batch_cost predict_batch_cost(int m, int n, int k, int batches);

/* ---- run.cu (driver): host arrays in and out ---- */
typedef struct gemm_case {
    int transpose_a, transpose_b, m, n, k, lda, ldb, ldc;
} gemm_case;

/* The floats a row-major operand takes: rows x ld. */
size_t gemm_a_floats(const gemm_case *g);
size_t gemm_b_floats(const gemm_case *g);
size_t gemm_c_floats(const gemm_case *g);

typedef struct gemm_run {
    const char *error;          /* NULL, or the CUDA error the run ended with */
    cublasStatus_t status;      /* what your function returned */
    long long written_past_end; /* guard words after C that changed (must be 0) */
    cublasMath_t math_after;    /* the handle's math mode when your function returned (it found the default) */
    int counted;                /* 1 on the simulator, where the launches below were counted; 0 on a GPU */
    int launches;               /* cuBLAS calls your function made that computed something: one launch each */
    double flops;               /* the FLOPs those calls' sizes imply (2 m n k a product), summed */
    char last_call[96];         /* the name of the last of those calls ("" when none) */
} gemm_run;

/* Copies A and B to the device, poisons C (every byte 0xff: NaN) with a guard after it, hands
 * gemm_row_major the program's handle in its default math mode, counts the launches it makes
 * (on the simulator), copies all m x ldc floats of C back (the padding included). */
gemm_run gpu_gemm_row_major(const gemm_case *g, const float *a, const float *b, float *c);
/* The same for gemm_row_major_bf16 (no transposes in g). */
gemm_run gpu_gemm_row_major_bf16(const gemm_case *g, const uint16_t *a, const uint16_t *b, float *c);
/* The same for gemm_row_major_batched: a, b, c hold batches * stride floats each. */
gemm_run gpu_gemm_row_major_batched(int m, int n, int k, const float *a, long long stride_a, const float *b,
                                    long long stride_b, float *c, long long stride_c, int batches);

/* Names the convention a wrong C breaks: calls cuBLAS itself with each classic mistake's
 * arguments (operands not swapped, m and n not swapped, transposes inverted, ld = the width,
 * inputs rounded to TF32) and returns the description of the one whose C equals `got` (all
 * m x ldc floats), or NULL. A mistake that changes nothing on this shape (A first, on 1 x 1 x 1)
 * is never named. */
const char *gemm_name_the_mistake(const gemm_case *g, const float *a, const float *b, const float *got);

/* The milliseconds of one gemm_row_major of n x n x n, the median of `repeats`, after a warm-up:
 * on the simulator, this CPU's OpenBLAS behind the simulator's cuBLAS, in the calling thread's CPU
 * time (gemm_thread_seconds); on a GPU, cuBLAS, between CUDA events. */
double gemm_row_major_milliseconds(int transpose_a, int transpose_b, int n, int repeats);
/* The CPU time the calling thread has run, in seconds: a time the OS gives other programs on a
 * busy machine is not in it, as it is in the wall clock's. */
double gemm_thread_seconds(void);
/* 1 on the simulator's build, where the measured milliseconds are this CPU's BLAS; 0 on a GPU. */
int gemm_runs_on_the_cpu(void);

/* ---- main.c (driver): references on the host ---- */
/* Fills x with n floats in [-1, 1] from a seed. */
void fill_matrix(float *x, size_t n, unsigned seed);
/* want (m x ldc; the padding left as it is) = op(A) · op(B) in double, rounded to float.
 * Returns the error a float GEMM may make: gamma_k times the largest element of |op(A)|·|op(B)|
 * plus the rounding of the reference itself. */
double gemm_reference(const gemm_case *g, const float *a, const float *b, float *want);
/* BF16 bits of x, rounded to nearest even; and back. */
uint16_t float_to_bf16(float x);
float bf16_to_float(uint16_t bits);

#ifdef __cplusplus
}
#endif

#endif
