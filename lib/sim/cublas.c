/* cublas.c — cuBLAS on the CPU: the subset the book uses, computed by the system BLAS.
 *
 * Every call first validates as cuBLAS does (a NULL handle is NOT_INITIALIZED; a negative
 * size, an unknown transpose, a leading dimension smaller than the rows it must span is
 * INVALID_VALUE) and then checks that each matrix, as its sizes and leading dimension say
 * it will be read or written, lies inside one live cudaMalloc allocation: a host pointer or
 * an overrun makes a real cuBLAS kernel fault, so here it is reported and leaves the sticky
 * cudaErrorIllegalAddress behind. cublasGemmEx takes the combinations of types and compute type
 * that cuBLAS's table lists, and refuses the rest with CUBLAS_STATUS_NOT_SUPPORTED, as cuBLAS does.
 * Half and bfloat16 inputs are widened to float; FP32 inputs are narrowed first where the compute
 * type allows a GPU to (TF32, FP16 or BF16), as its Tensor Cores would. cuBLASLt (cublaslt.c)
 * multiplies through sim_gemm_to_floats, below. cublasGemmStridedBatchedEx is cublasGemmEx over a batch. */
#include "initcheck.h"
#include "internal.h"
#include "runtime.h"

#include <cublas_v2.h>
#include <sim_formats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The system BLAS (OpenBLAS), declared here to need no particular cblas.h. */
enum { CBLAS_COL_MAJOR = 102, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc);
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy);

struct cublasContext { cudaStream_t stream; cublasMath_t math; cublasPointerMode_t pointer_mode; };

/* ---------------------------------------------------------------------------------
 * Handles and status strings */

cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    *handle = sim_try_alloc(1, sizeof **handle);
    return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if ((unsigned)mode > CUBLAS_TF32_TENSOR_OP_MATH) return CUBLAS_STATUS_INVALID_VALUE;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if ((unsigned)mode > CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

static const struct { cublasStatus_t status; const char *name, *text; } statuses[] = {
    {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success"},
    {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
    {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"},
    {CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required"},
    {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"},
    {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"},
    {CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"},
    {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported"},
};

const char *cublasGetStatusName(cublasStatus_t status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i].status == status) return statuses[i].name;
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i].status == status) return statuses[i].text;
    return "unknown status";
}

/* ---------------------------------------------------------------------------------
 * Checking arguments and matrices */

static int valid_operation(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
static int at_least_one(int x) { return x > 1 ? x : 1; }

/* A rows x cols column-major matrix with leading dimension ld, of elements of `element`
 * bytes, must lie inside one live allocation. Reports and returns 0 if it does not.
 * (cublaslt.c checks its matrices with it too.) */
int sim_matrix_on_device(const char *call, const char *name, const void *pointer, int rows, int cols, int ld,
                            size_t element)
{
    if (rows == 0 || cols == 0) return 1;
    size_t span = ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * element;
    const allocation *a = sim_is_device_address((uintptr_t)pointer) ? sim_find_allocation((uintptr_t)pointer) : NULL;
    const char *why = NULL;
    char detail[160];
    if (!a || a->freed) {
        why = !pointer ? "is NULL" : a ? "points into memory that cudaFree has released"
                                       : "is not device memory (a host pointer?): cuBLAS reads matrices on the GPU";
    } else if ((uintptr_t)pointer + span > a->start + a->bytes) {
        snprintf(detail, sizeof detail, "spans %zu bytes (%d x %d with leading dimension %d), %zu past the end of "
                 "its %zu-byte allocation", span, rows, cols, ld, (size_t)((uintptr_t)pointer + span - a->start - a->bytes),
                 a->bytes);
        why = detail;
    }
    if (!why) return 1;
    fprintf(stderr, "sim: %s: %s %s\n", call, name, why);
    sim_record_error(cudaErrorIllegalAddress);   /* as the faulting kernel would leave it */
    return 0;
}

/* How FP32 inputs are narrowed before the multiply when the compute type allows it. */
typedef enum { KEEP_FP32, TO_TF32, TO_FP16, TO_BF16 } input_rounding;

/* TF32 keeps 10 mantissa bits; the rounding is to nearest, ties away from zero, as PTX's
 * cvt.rna.tf32.f32 (the conversion for Tensor Core inputs) is documented to do. */
static float round_input(float x, input_rounding rounding)
{
    unsigned bits;
    switch (rounding) {
    case KEEP_FP32: return x;
    case TO_FP16: return sim_half_bits_to_float(sim_float_to_half_bits(x, SIM_TO_NEAREST_EVEN));
    case TO_BF16: return sim_bfloat16_bits_to_float(sim_float_to_bfloat16_bits(x, SIM_TO_NEAREST_EVEN));
    case TO_TF32:
        memcpy(&bits, &x, 4);
        if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & ~0x1fffu;
        memcpy(&x, &bits, 4);
        return x;
    }
    return x;
}

/* A float copy of a matrix of any supported type (rows x cols, leading dimension ld). */
static float *widened(const void *data, cudaDataType type, int rows, int cols, int ld, input_rounding rounding)
{
    size_t count = (size_t)(cols - 1) * (size_t)ld + (size_t)rows, i;
    float *out = sim_try_alloc(count, sizeof *out);
    if (!out) return NULL;
    for (i = 0; i < count; i++) {
        float v;
        if (type == CUDA_R_32F) {
            v = ((const float *)data)[i];
        } else {
            unsigned short h = ((const unsigned short *)data)[i];
            v = type == CUDA_R_16BF ? sim_bfloat16_bits_to_float(h) : sim_half_bits_to_float(h);
        }
        out[i] = round_input(v, rounding);
    }
    return out;
}

/* How a compute type lets a GPU narrow FP32 inputs (`math`: the handle's math mode, which can ask
 * for TF32 under CUBLAS_COMPUTE_32F; cuBLASLt has none and passes CUBLAS_DEFAULT_MATH). */
static input_rounding rounding_for(cublasComputeType_t compute, cudaDataType input_type, cublasMath_t math)
{
    if (input_type != CUDA_R_32F) return KEEP_FP32;
    if (compute == CUBLAS_COMPUTE_32F_FAST_TF32 || (compute == CUBLAS_COMPUTE_32F && math == CUBLAS_TF32_TENSOR_OP_MATH))
        return TO_TF32;
    if (compute == CUBLAS_COMPUTE_32F_FAST_16F) return TO_FP16;
    if (compute == CUBLAS_COMPUTE_32F_FAST_16BF) return TO_BF16;
    return KEEP_FP32;
}

/* alpha op(A) op(B) + beta C as a new m x n float matrix (leading dimension m), for cublaslt.c: its
 * epilogues work on the float result before it is stored in D's type. C is read only when beta is
 * not 0, as cuBLAS reads it. NULL when memory runs out. */
float *sim_gemm_to_floats(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, float alpha,
                          const void *A, cudaDataType a_type, int lda, const void *B, cudaDataType b_type, int ldb,
                          float beta, const void *C, cudaDataType c_type, int ldc, cublasComputeType_t compute)
{
    int a_rows = transa == CUBLAS_OP_N ? m : k, a_cols = transa == CUBLAS_OP_N ? k : m;
    int b_rows = transb == CUBLAS_OP_N ? k : n, b_cols = transb == CUBLAS_OP_N ? n : k;
    float *d = sim_try_alloc((size_t)m * (size_t)n, sizeof *d);
    if (!d) return NULL;
    if (beta != 0)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                size_t at = (size_t)j * (size_t)ldc + (size_t)i;
                d[(size_t)j * m + i] = c_type == CUDA_R_32F ? ((const float *)C)[at]
                                     : c_type == CUDA_R_16BF ? sim_bfloat16_bits_to_float(((const unsigned short *)C)[at])
                                                             : sim_half_bits_to_float(((const unsigned short *)C)[at]);
            }
    if (k == 0) {
        for (size_t i = 0; i < (size_t)m * n; i++) d[i] *= beta;
        return d;
    }
    input_rounding rounding = rounding_for(compute, a_type, CUBLAS_DEFAULT_MATH);
    float *a = widened(A, a_type, a_rows, a_cols, lda, rounding), *b = widened(B, b_type, b_rows, b_cols, ldb, rounding);
    if (a && b)
        cblas_sgemm(CBLAS_COL_MAJOR, transa == CUBLAS_OP_N ? CBLAS_NO_TRANS : CBLAS_TRANS,
                    transb == CUBLAS_OP_N ? CBLAS_NO_TRANS : CBLAS_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, d, m);
    else
        free(d), d = NULL;
    free(a);
    free(b);
    return d;
}

/* ---------------------------------------------------------------------------------
 * Counting: on a GPU each of these calls runs as a kernel of the library's, so nsys lists a launch
 * per call (a strided batch is one call: its products share the launch). While the metrics count
 * (sim_metrics.h), each call that computed something is recorded as one launch under the call's
 * name, with the FLOPs its sizes imply (2 m n k a product) declared for it and nothing else counted:
 * the library's kernel is not instrumented. A flop count declared for the next kernel
 * (sim_declare_flops) before such a call is taken by the call: declare after it. */
static void count_as_one_launch(const char *call, int m, int n, double flops)
{
    if (m == 0 || n == 0 || !sim_metrics_enabled()) return;
    sim_launch_request r;
    memset(&r, 0, sizeof r);
    r.kernel_name = call;
    sim_declare_flops(flops);
    sim_metrics_begin_launch(&r);
    sim_metrics_end_launch(0);
}

/* ---------------------------------------------------------------------------------
 * The routines */

/* cublasGemmEx's table of the combinations cuBLAS supports (cuBLAS Library User Guide, cublasGemmEx),
 * within the types this header has:
 *   CUBLAS_COMPUTE_32F, _32F_PEDANTIC               A = B = CUDA_R_16BF, C = CUDA_R_16BF or CUDA_R_32F
 *                                                   A = B = CUDA_R_16F,  C = CUDA_R_16F or CUDA_R_32F
 *                                                   A = B = C = CUDA_R_32F
 *   CUBLAS_COMPUTE_32F_FAST_16F, _FAST_16BF, _TF32  A = B = C = CUDA_R_32F only: each allows narrowing
 *                                                   FP32 inputs; 16-bit inputs take CUBLAS_COMPUTE_32F
 *   CUBLAS_COMPUTE_16F (all CUDA_R_16F), _64F (all CUDA_R_64F): cuBLAS's, not simulated here.
 * Anything else cuBLAS answers with CUBLAS_STATUS_NOT_SUPPORTED, and so does the simulator: NULL when
 * the combination is supported, else why not. */
static const char *gemm_ex_refusal(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute)
{
    int fp32_compute = compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC;
    int fast = compute == CUBLAS_COMPUTE_32F_FAST_16F || compute == CUBLAS_COMPUTE_32F_FAST_16BF ||
               compute == CUBLAS_COMPUTE_32F_FAST_TF32;
    if (compute == CUBLAS_COMPUTE_16F || compute == CUBLAS_COMPUTE_64F)
        return "cuBLAS supports this compute type (with every matrix of its own type); the simulator does not";
    if (!fp32_compute && !fast) return "not a compute type of cublasGemmEx";
    if (fast && (a != CUDA_R_32F || b != CUDA_R_32F || c != CUDA_R_32F))
        return "the FAST compute types take FP32 matrices only (A, B and C CUDA_R_32F): they allow cuBLAS to narrow "
               "FP32 inputs; 16-bit inputs take CUBLAS_COMPUTE_32F (cublasGemmEx's table of supported combinations)";
    int sixteen_bit = a == CUDA_R_16F || a == CUDA_R_16BF;
    if (a != b) return "A and B must have the same type (cublasGemmEx's table of supported combinations)";
    if ((a == CUDA_R_32F && c != CUDA_R_32F) || (a != CUDA_R_32F && (!sixteen_bit || (c != a && c != CUDA_R_32F))))
        return "not a combination of cublasGemmEx's table: FP32 in, FP32 out; or FP16 or BF16 in, the same type or "
               "FP32 out";
    return NULL;
}

static const char *type_name(cudaDataType type)
{
    return type == CUDA_R_32F ? "CUDA_R_32F" : type == CUDA_R_16F ? "CUDA_R_16F" : type == CUDA_R_16BF ? "CUDA_R_16BF"
         : type == CUDA_R_64F ? "CUDA_R_64F" : "(unknown)";
}

static const char *compute_name(cublasComputeType_t compute)
{
    switch (compute) {
    case CUBLAS_COMPUTE_16F: return "CUBLAS_COMPUTE_16F";
    case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case CUBLAS_COMPUTE_32F_FAST_16F: return "CUBLAS_COMPUTE_32F_FAST_16F";
    case CUBLAS_COMPUTE_32F_FAST_16BF: return "CUBLAS_COMPUTE_32F_FAST_16BF";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
    }
    return "(unknown)";
}

static cublasStatus_t check_gemm(const char *call, cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int m, int n, int k, const void *alpha, const void *beta,
                                 int lda, int ldb, int ldc)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid_operation(transa) || !valid_operation(transb) || m < 0 || n < 0 || k < 0 || !alpha || !beta ||
        lda < at_least_one(transa == CUBLAS_OP_N ? m : k) || ldb < at_least_one(transb == CUBLAS_OP_N ? k : n) ||
        ldc < at_least_one(m)) {
        fprintf(stderr, "sim: %s: invalid arguments (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d): each leading dimension "
                "must be at least the number of rows its matrix has as stored (column-major)\n", call, m, n, k,
                lda, ldb, ldc);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t gemm_typed(const char *call, cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int m, int n, int k, float alpha, const void *A,
                                 cudaDataType a_type, int lda, const void *B, cudaDataType b_type, int ldb, float beta,
                                 void *C, cudaDataType c_type, int ldc, input_rounding rounding)
{
    int a_rows = transa == CUBLAS_OP_N ? m : k, a_cols = transa == CUBLAS_OP_N ? k : m;
    int b_rows = transb == CUBLAS_OP_N ? k : n, b_cols = transb == CUBLAS_OP_N ? n : k;
    size_t a_size = a_type == CUDA_R_32F ? 4 : 2, b_size = b_type == CUDA_R_32F ? 4 : 2, c_size = c_type == CUDA_R_32F ? 4 : 2;
    if (!sim_matrix_on_device(call, "A", A, a_rows, a_cols, lda, a_size) ||
        !sim_matrix_on_device(call, "B", B, b_rows, b_cols, ldb, b_size) ||
        !sim_matrix_on_device(call, "C", C, m, n, ldc, c_size))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    float *a = k ? widened(A, a_type, a_rows, a_cols, lda, rounding) : NULL;
    float *b = k ? widened(B, b_type, b_rows, b_cols, ldb, rounding) : NULL;
    float *c = c_type == CUDA_R_32F ? (float *)C : widened(C, c_type, m, n, ldc, KEEP_FP32);
    float zero = 0;
    cblas_sgemm(CBLAS_COL_MAJOR, transa == CUBLAS_OP_N ? CBLAS_NO_TRANS : CBLAS_TRANS,
                transb == CUBLAS_OP_N ? CBLAS_NO_TRANS : CBLAS_TRANS, m, n, k, alpha, a ? a : &zero, lda,
                b ? b : &zero, ldb, beta, c, ldc);
    if (c_type != CUDA_R_32F) {                  /* narrow the result back, rounding to nearest even */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                size_t at = (size_t)j * (size_t)ldc + (size_t)i;
                ((unsigned short *)C)[at] = c_type == CUDA_R_16BF ? sim_float_to_bfloat16_bits(c[at], SIM_TO_NEAREST_EVEN)
                                                                  : sim_float_to_half_bits(c[at], SIM_TO_NEAREST_EVEN);
            }
        free(c);
    }
    sim_initcheck_matrix_written(C, m, n, ldc, c_size);
    free(a);
    free(b);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                           const float *beta, float *C, int ldc)
{
    cublasStatus_t status = check_gemm("cublasSgemm", handle, transa, transb, m, n, k, alpha, beta, lda, ldb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    input_rounding rounding = handle->math == CUBLAS_TF32_TENSOR_OP_MATH ? TO_TF32 : KEEP_FP32;
    status = gemm_typed("cublasSgemm", handle, transa, transb, m, n, k, *alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F,
                        ldb, *beta, C, CUDA_R_32F, ldc, rounding);
    if (status == CUBLAS_STATUS_SUCCESS) count_as_one_launch("cublasSgemm", m, n, 2.0 * m * n * k);
    return status;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    (void)algo;
    cublasStatus_t status = check_gemm("cublasGemmEx", handle, transa, transb, m, n, k, alpha, beta, lda, ldb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    const char *refused = gemm_ex_refusal(Atype, Btype, Ctype, computeType);
    if (refused) {
        fprintf(stderr, "sim: cublasGemmEx: input types %s and %s, output %s, compute type %s: %s\n", type_name(Atype),
                type_name(Btype), type_name(Ctype), compute_name(computeType), refused);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    /* FP32 inputs may be narrowed: the FAST compute types allow it and a GPU does it, so the
     * simulator does too rather than silently computing more exactly than the GPU would. */
    input_rounding rounding = rounding_for(computeType, Atype, handle->math);
    status = gemm_typed("cublasGemmEx", handle, transa, transb, m, n, k, *(const float *)alpha, A, Atype, lda, B, Btype,
                        ldb, *(const float *)beta, C, Ctype, ldc, rounding);
    if (status == CUBLAS_STATUS_SUCCESS) count_as_one_launch("cublasGemmEx", m, n, 2.0 * m * n * k);
    return status;
}

/* cublasGemmEx over a batch: strides in elements of each matrix's type, the same table of types, every
 * matrix of the batch checked before any is computed, and one launch for all of it (llm.c's attention). */
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long strideC, int batchCount, cublasComputeType_t computeType,
                                          cublasGemmAlgo_t algo)
{
    (void)algo;
    const char *call = "cublasGemmStridedBatchedEx";
    cublasStatus_t status = check_gemm(call, handle, transa, transb, m, n, k, alpha, beta, lda, ldb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (batchCount < 0) {
        fprintf(stderr, "sim: %s: batchCount %d is negative\n", call, batchCount);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    const char *refused = gemm_ex_refusal(Atype, Btype, Ctype, computeType);
    if (refused) {
        fprintf(stderr, "sim: %s: input types %s and %s, output %s, compute type %s: %s\n", call, type_name(Atype),
                type_name(Btype), type_name(Ctype), compute_name(computeType), refused);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    size_t a_size = Atype == CUDA_R_32F ? 4 : 2, b_size = Btype == CUDA_R_32F ? 4 : 2;
    size_t c_size = Ctype == CUDA_R_32F ? 4 : 2;
    int a_rows = transa == CUBLAS_OP_N ? m : k, a_cols = transa == CUBLAS_OP_N ? k : m;
    int b_rows = transb == CUBLAS_OP_N ? k : n, b_cols = transb == CUBLAS_OP_N ? n : k;
    for (int i = 0; i < batchCount; i++) {   /* a fault in any product would stop the GPU's one kernel */
        char name[40];
        const char *a = (const char *)A + i * strideA * (long long)a_size;
        const char *b = (const char *)B + i * strideB * (long long)b_size;
        char *c = (char *)C + i * strideC * (long long)c_size;
        snprintf(name, sizeof name, "A of product %d", i);
        if (!sim_matrix_on_device(call, name, a, a_rows, a_cols, lda, a_size)) return CUBLAS_STATUS_EXECUTION_FAILED;
        snprintf(name, sizeof name, "B of product %d", i);
        if (!sim_matrix_on_device(call, name, b, b_rows, b_cols, ldb, b_size)) return CUBLAS_STATUS_EXECUTION_FAILED;
        snprintf(name, sizeof name, "C of product %d", i);
        if (!sim_matrix_on_device(call, name, c, m, n, ldc, c_size)) return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    input_rounding rounding = rounding_for(computeType, Atype, handle->math);
    for (int i = 0; i < batchCount; i++) {
        status = gemm_typed(call, handle, transa, transb, m, n, k, *(const float *)alpha,
                            (const char *)A + i * strideA * (long long)a_size, Atype, lda,
                            (const char *)B + i * strideB * (long long)b_size, Btype, ldb, *(const float *)beta,
                            (char *)C + i * strideC * (long long)c_size, Ctype, ldc, rounding);
        if (status != CUBLAS_STATUS_SUCCESS) return status;
    }
    count_as_one_launch(call, m, batchCount ? n : 0, 2.0 * m * n * k * batchCount);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb, long long strideB,
                                         const float *beta, float *C, int ldc, long long strideC, int batchCount)
{
    cublasStatus_t status =
        check_gemm("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, alpha, beta, lda, ldb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (batchCount < 0) return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < batchCount; i++) {
        status = gemm_typed("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, *alpha, A + i * strideA,
                            CUDA_R_32F, lda, B + i * strideB, CUDA_R_32F, ldb, *beta, C + i * strideC, CUDA_R_32F, ldc,
                            handle->math == CUBLAS_TF32_TENSOR_OP_MATH ? TO_TF32 : KEEP_FP32);
        if (status != CUBLAS_STATUS_SUCCESS) return status;
    }
    count_as_one_launch("cublasSgemmStridedBatched", m, batchCount ? n : 0, 2.0 * m * n * k * batchCount);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float *alpha,
                           const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid_operation(trans) || m < 0 || n < 0 || incx == 0 || incy == 0 || lda < at_least_one(m) || !alpha || !beta) {
        fprintf(stderr, "sim: cublasSgemv: invalid arguments (m=%d n=%d lda=%d incx=%d incy=%d)\n", m, n, lda, incx, incy);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    int x_length = trans == CUBLAS_OP_N ? n : m, y_length = trans == CUBLAS_OP_N ? m : n;
    int step_x = incx < 0 ? -incx : incx, step_y = incy < 0 ? -incy : incy;
    if (!sim_matrix_on_device("cublasSgemv", "A", A, m, n, lda, 4) ||
        !sim_matrix_on_device("cublasSgemv", "x", x, x_length ? 1 : 0, x_length, step_x, 4) ||
        !sim_matrix_on_device("cublasSgemv", "y", y, y_length ? 1 : 0, y_length, step_y, 4))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    cblas_sgemv(CBLAS_COL_MAJOR, trans == CUBLAS_OP_N ? CBLAS_NO_TRANS : CBLAS_TRANS, m, n, *alpha, A, lda, x, incx,
                *beta, y, incy);
    sim_initcheck_matrix_written(y, 1, y_length, step_y, 4);
    count_as_one_launch("cublasSgemv", m, n, 2.0 * m * n);
    return CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------
 * Vectors and matrices to and from the device: strided copies, each element through cudaMemcpy,
 * so that a device pointer that is not one, or an access past an allocation, is refused as CUDA's
 * copies refuse it (with cuBLAS's status: CUBLAS_STATUS_MAPPING_ERROR). */

static cublasStatus_t copy_strided(int count, int element_size, const void *from, int from_step, void *to, int to_step)
{
    if (count < 0 || element_size <= 0 || from_step <= 0 || to_step <= 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (from_step == 1 && to_step == 1)
        return cudaMemcpy(to, from, (size_t)count * (size_t)element_size, cudaMemcpyDefault) == cudaSuccess
                   ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
    for (int i = 0; i < count; i++)
        if (cudaMemcpy((char *)to + (size_t)i * to_step * element_size,
                       (const char *)from + (size_t)i * from_step * element_size, (size_t)element_size,
                       cudaMemcpyDefault) != cudaSuccess)
            return CUBLAS_STATUS_MAPPING_ERROR;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetVector(int n, int element_size, const void *x, int incx, void *y, int incy)
{
    return copy_strided(n, element_size, x, incx, y, incy);
}

cublasStatus_t cublasGetVector(int n, int element_size, const void *x, int incx, void *y, int incy)
{
    return copy_strided(n, element_size, x, incx, y, incy);
}

static cublasStatus_t copy_matrix(int rows, int cols, int element_size, const void *a, int lda, void *b, int ldb)
{
    if (rows < 0 || cols < 0 || element_size <= 0 || lda < (rows > 1 ? rows : 1) || ldb < (rows > 1 ? rows : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int j = 0; j < cols; j++) {
        cublasStatus_t status = copy_strided(rows, element_size, (const char *)a + (size_t)j * lda * element_size, 1,
                                             (char *)b + (size_t)j * ldb * element_size, 1);
        if (status != CUBLAS_STATUS_SUCCESS) return status;
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int element_size, const void *a, int lda, void *b, int ldb)
{
    return copy_matrix(rows, cols, element_size, a, lda, b, ldb);
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int element_size, const void *a, int lda, void *b, int ldb)
{
    return copy_matrix(rows, cols, element_size, a, lda, b, ldb);
}
