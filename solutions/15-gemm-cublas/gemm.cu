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
 * Three things follow, and each is a classic mistake when forgotten:
 *   - the operands swap: B goes first, A second;
 *   - the sizes swap: cuBLAS's m is our n, its n is our m (k stays);
 *   - each operand keeps its own transpose flag, and its own leading dimension, which is the
 *     row stride of the row-major array (the padded width, not the number of columns).
 *
 * alpha = 1 and beta = 0 are read through host pointers (cuBLAS's default pointer mode). The
 * handle is the caller's: its settings (the math mode above all) are left as they were found.
 *
 * Check:  make check DAY=15        Stuck?  make hint DAY=15
 */
#include "lab.h"

static cublasOperation_t op(int transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; }

extern "C" cublasStatus_t gemm_row_major(cublasHandle_t handle, int transpose_a, int transpose_b, int m, int n,
                                         int k, const float *a, int lda, const float *b, int ldb, float *c, int ldc)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm(handle, op(transpose_b), op(transpose_a), n, m, k, &one, b, ldb, a, lda, &zero, c, ldc);
}

extern "C" cublasStatus_t gemm_row_major_bf16(cublasHandle_t handle, int m, int n, int k, const uint16_t *a,
                                              int lda, const uint16_t *b, int ldb, float *c, int ldc)
{
    const float one = 1.0f, zero = 0.0f;   // FP32 compute: alpha and beta are floats
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, ldb, a, CUDA_R_16BF, lda,
                        &zero, c, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

extern "C" cublasStatus_t gemm_row_major_batched(cublasHandle_t handle, int m, int n, int k, const float *a,
                                                 long long stride_a, const float *b, long long stride_b, float *c,
                                                 long long stride_c, int batches)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, stride_b, a, k,
                                     stride_a, &zero, c, n, stride_c, batches);
}

/* One call for the whole batch, so one launch; 2 FLOPs (a multiply and an add) for each of the k
 * terms of each of the m x n elements of each product, counted in double: 2 m n k passes 2^31 at
 * sizes a Transformer uses. */
extern "C" gemm_batch_cost predict_batch_cost(int m, int n, int k, int batches)
{
    gemm_batch_cost cost = {1, 2.0 * m * n * k * batches};
    return cost;
}
