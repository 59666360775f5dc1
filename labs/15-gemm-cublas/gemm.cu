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
 * What you write today: the three functions below, one cuBLAS call each, and a prediction.
 * Work out from that line what each argument of a cuBLAS GEMM must be: which operand goes first,
 * what cuBLAS's m and n are, which transpose flag goes with which operand, and what a leading
 * dimension is for a row-major array whose rows may be padded (lab.h says what lda means).
 *
 * Rules: alpha = 1 and beta = 0, read through host pointers (cuBLAS's default pointer mode). The
 * handle is the caller's: leave its settings (its math mode above all) as you found them. Return
 * the status of your cuBLAS call, whatever it is.
 *
 * Check:  make check DAY=15        Stuck?  make hint DAY=15
 */
#include "lab.h"

static cublasOperation_t op(int transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; }

extern "C" cublasStatus_t gemm_row_major(cublasHandle_t handle, int transpose_a, int transpose_b, int m, int n,
                                         int k, const float *a, int lda, const float *b, int ldb, float *c, int ldc)
{
    const float one = 1.0f, zero = 0.0f;
    // TODO: C = op(A) · op(B) in FP32 through one cublasSgemm, for any transpose pair and any row
    //       strides lda, ldb, ldc (each at least its array's width). Nothing may be written in C's
    //       padding; a refusal from cuBLAS goes back to the caller unchanged. The idea: cuBLAS
    //       already sees A^T and B^T, so ask it for C^T and let it write C for you.
    (void)handle, (void)transpose_a, (void)transpose_b, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b;
    (void)ldb, (void)c, (void)ldc, (void)one, (void)zero, (void)op;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

extern "C" cublasStatus_t gemm_row_major_bf16(cublasHandle_t handle, int m, int n, int k, const uint16_t *a,
                                              int lda, const uint16_t *b, int ldb, float *c, int ldc)
{
    const float one = 1.0f, zero = 0.0f;   // FP32 compute: alpha and beta are floats
    // TODO: the same product, no transposes, through one cublasGemmEx: A and B hold BF16 bits
    //       (CUDA_R_16BF), C is float, the sums are FP32 (the compute type decides that, and what
    //       alpha and beta are). cuBLAS supports only the combinations of types and compute type
    //       its table lists, and refuses the rest. The idea: the trick does not depend on the type.
    (void)handle, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)c, (void)ldc;
    (void)one, (void)zero;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

extern "C" cublasStatus_t gemm_row_major_batched(cublasHandle_t handle, int m, int n, int k, const float *a,
                                                 long long stride_a, const float *b, long long stride_b, float *c,
                                                 long long stride_c, int batches)
{
    const float one = 1.0f, zero = 0.0f;
    // TODO: `batches` products C_i = A_i · B_i of packed matrices, each the stride of its operand
    //       after the last (strides in elements, possibly leaving gaps that must stay untouched),
    //       in one cublasSgemmStridedBatched: one launch for the whole batch, counted. The idea:
    //       the trick applies to every product, and a stride travels with its operand.
    (void)handle, (void)m, (void)n, (void)k, (void)a, (void)stride_a, (void)b, (void)stride_b, (void)c;
    (void)stride_c, (void)batches, (void)one, (void)zero;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

extern "C" gemm_batch_cost predict_batch_cost(int m, int n, int k, int batches)
{
    // TODO: predict, from the chapter, what your gemm_row_major_batched costs for `batches` (>= 1)
    //       products of m x k by k x n: the launches a GPU makes for it, and its FLOPs (a multiply
    //       and an add are 2). The checks hold your prediction against what the simulator counts,
    //       on sizes whose FLOPs pass 2^31. The idea: the cost of a batch is in the call, not the loop.
    (void)m, (void)n, (void)k, (void)batches;
    gemm_batch_cost cost = {0, 0};
    return cost;
}
