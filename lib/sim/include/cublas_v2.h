/* cublas_v2.h (simulator) — the part of cuBLAS the book uses, run on the CPU by the system
 * BLAS (lib/sim/cublas.c), with cuBLAS's conventions exactly: column-major storage, leading
 * dimensions, transposes, alpha and beta read through host pointers by default, device
 * pointers for the matrices, and its status codes for invalid arguments. The numeric values
 * of the enums are cuBLAS's own. Usable from C and C++. */
#ifndef SIM_CUBLAS_V2_H
#define SIM_CUBLAS_V2_H
/* The guard of CUDA's cublas_api.h, which cublas_v2.h includes: NVIDIA's samples' helper_cuda.h defines
 * its cuBLAS error names only when it sees it. */
#ifndef CUBLAS_API_H_
#define CUBLAS_API_H_
#endif

#include "cuda_runtime_api.h"
#ifdef __cplusplus
/* As CUDA's cublas_api.h does: __half and __nv_bfloat16 come with cuBLAS. */
#include "cuda_bf16.h"
#include "cuda_fp16.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14, CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum {
    CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2, CUBLAS_TF32_TENSOR_OP_MATH = 3
} cublasMath_t;
typedef enum {
    CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_32F_FAST_16F = 74, CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_COMPUTE_64F = 70
} cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } cublasGemmAlgo_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14 } cudaDataType;
typedef cudaDataType cudaDataType_t;
typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
const char *cublasGetStatusString(cublasStatus_t status);
const char *cublasGetStatusName(cublasStatus_t status);

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                           const float *beta, float *C, int ldc);
cublasStatus_t cublasSgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float *alpha,
                           const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float *alpha, const float *A, int lda,
                                         long long strideA, const float *B, int ldb, long long strideB,
                                         const float *beta, float *C, int ldc, long long strideC, int batchCount);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long strideC, int batchCount, cublasComputeType_t computeType,
                                          cublasGemmAlgo_t algo);

/* Vectors and matrices to and from the device (column-major, strided), as cuBLAS copies them. */
cublasStatus_t cublasSetVector(int n, int element_size, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasGetVector(int n, int element_size, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasSetMatrix(int rows, int cols, int element_size, const void *a, int lda, void *b, int ldb);
cublasStatus_t cublasGetMatrix(int rows, int cols, int element_size, const void *a, int lda, void *b, int ldb);

#ifdef __cplusplus
}
#endif

/* cuBLAS's own headers name the functions *_v2 and define the plain names as macros for them;
 * code that calls the _v2 names directly finds the same functions here. */
#define cublasCreate_v2 cublasCreate
#define cublasDestroy_v2 cublasDestroy
#define cublasSetStream_v2 cublasSetStream
#define cublasGetStream_v2 cublasGetStream
#define cublasSetPointerMode_v2 cublasSetPointerMode
#define cublasSgemm_v2 cublasSgemm
#define cublasSgemv_v2 cublasSgemv

#endif
