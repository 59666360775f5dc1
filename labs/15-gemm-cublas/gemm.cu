/* gemm.cu — Day 15: calling cuBLAS, which stores matrices column-major, for row-major ones.
 *
 * cuBLAS reads a matrix with leading dimension ld as COLUMNS: element (i, j) at [i + j * ld].
 * Our matrices are ROW-MAJOR: (i, j) at [i * ld + j]. The same bytes, read column-major, are
 * the transpose: a row-major m x k matrix with leading dimension lda IS a column-major k x m
 * matrix with the same lda, and nothing has to be copied. So instead of C = A · B, ask cuBLAS
 * for the transpose, which it writes column-major, that is, C row-major:
 *
 *     C^T (n x m) = B^T (n x k) · A^T (k x m)          (the row-major trick)
 *
 * Work out from that line what each argument of cublasSgemm must be: which operand goes first,
 * what cuBLAS's m and n are, which transpose flag goes with which operand, and what a leading
 * dimension is for a row-major array whose rows may be padded (lab.h says what lda means).
 *
 * alpha = 1 and beta = 0 are read through host pointers (cuBLAS's default pointer mode).
 *
 * Check:  make check DAY=15        Stuck?  make hint DAY=15
 */
#include "lab.h"

static cublasOperation_t op(int transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; }

extern "C" cublasStatus_t gemm_row_major(cublasHandle_t handle, int transpose_a, int transpose_b, int m, int n,
                                         int k, const float *a, int lda, const float *b, int ldb, float *c, int ldc)
{
    const float one = 1.0f, zero = 0.0f;
    // TODO: one call of cublasSgemm(handle, transa, transb, m, n, k, &one, A, lda, B, ldb, &zero, C, ldc)
    //       that computes C^T = op(B)^T · op(A)^T in cuBLAS's column-major view; return its status.
    (void)handle, (void)transpose_a, (void)transpose_b, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b;
    (void)ldb, (void)c, (void)ldc, (void)one, (void)zero, (void)op;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

extern "C" cublasStatus_t gemm_row_major_bf16(cublasHandle_t handle, int m, int n, int k, const uint16_t *a,
                                              int lda, const uint16_t *b, int ldb, float *c, int ldc)
{
    const float one = 1.0f, zero = 0.0f;   // FP32 compute: alpha and beta are floats
    // TODO: the same trick through cublasGemmEx: A and B of type CUDA_R_16BF, C of CUDA_R_32F,
    //       compute type CUBLAS_COMPUTE_32F, algorithm CUBLAS_GEMM_DEFAULT.
    (void)handle, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)c, (void)ldc;
    (void)one, (void)zero;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

extern "C" cublasStatus_t gemm_row_major_batched(cublasHandle_t handle, int m, int n, int k, const float *a,
                                                 long long stride_a, const float *b, long long stride_b, float *c,
                                                 long long stride_c, int batches)
{
    const float one = 1.0f, zero = 0.0f;
    // TODO: the same trick through cublasSgemmStridedBatched; each matrix is packed, so its
    //       leading dimension is its number of columns. A stride travels with its operand.
    (void)handle, (void)m, (void)n, (void)k, (void)a, (void)stride_a, (void)b, (void)stride_b, (void)c;
    (void)stride_c, (void)batches, (void)one, (void)zero;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
