/* cublas.cu — the cuBLAS stand-in against a double-precision reference: column-major
 * storage with padded leading dimensions, every transpose, the row-major trick, mixed
 * precision, TF32, GEMV, strided batches, cuBLAS's status codes for bad arguments, and each call
 * counted as the one launch a GPU makes for it. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <sim_metrics.h>
#include <vector>

static float value(int i, int salt) { return (float)((i * 37 + salt * 11) % 23) / 8.0f - 1.375f; }

/* C = alpha op(A) op(B) + beta C, column-major, in double. */
static void reference_gemm(char ta, char tb, int m, int n, int k, double alpha, const std::vector<float> &a, int lda,
                           const std::vector<float> &b, int ldb, double beta, std::vector<float> &c, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double sum = 0;
            for (int p = 0; p < k; p++)
                sum += (double)(ta == 'N' ? a[i + p * lda] : a[p + i * lda]) * (tb == 'N' ? b[p + j * ldb] : b[j + p * ldb]);
            c[i + j * ldc] = (float)(alpha * sum + beta * c[i + j * ldc]);
        }
}

template <typename T> static T *to_device(const std::vector<T> &host)
{
    T *device;
    cudaMalloc(&device, host.size() * sizeof(T));
    cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
    return device;
}

template <typename T> static std::vector<T> to_host(const T *device, size_t n)
{
    std::vector<T> host(n);
    cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost);
    return host;
}

static void check_sgemm(char ta, char tb)
{
    int m = 5, n = 7, k = 3;
    int a_rows = ta == 'N' ? m : k, a_cols = ta == 'N' ? k : m, b_rows = tb == 'N' ? k : n, b_cols = tb == 'N' ? n : k;
    int lda = a_rows + 2, ldb = b_rows + 1, ldc = m + 3;   /* padded: the leading dimension is not the row count */
    std::vector<float> a(lda * a_cols), b(ldb * b_cols), c(ldc * n);
    for (size_t i = 0; i < a.size(); i++) a[i] = value((int)i, 1);
    for (size_t i = 0; i < b.size(); i++) b[i] = value((int)i, 2);
    for (size_t i = 0; i < c.size(); i++) c[i] = value((int)i, 3);
    float alpha = 2.0f, beta = 0.5f;
    float *da = to_device(a), *db = to_device(b), *dc = to_device(c);
    cublasHandle_t handle;
    cr_assert_eq(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    cublasStatus_t status = cublasSgemm(handle, ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T,
                                        m, n, k, &alpha, da, lda, db, ldb, &beta, dc, ldc);
    cr_assert_eq(status, CUBLAS_STATUS_SUCCESS, "%c%c: %s", ta, tb, cublasGetStatusName(status));
    reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    std::vector<float> got = to_host(dc, c.size());
    for (size_t i = 0; i < c.size(); i++) cr_assert_float_eq(got[i], c[i], 1e-5, "%c%c: C[%zu] = %g, want %g", ta, tb, i, got[i], c[i]);
    cublasDestroy(handle);
}

Test(cublas, sgemm_column_major_every_transpose, .timeout = 10)
{
    check_sgemm('N', 'N'), check_sgemm('T', 'N'), check_sgemm('N', 'T'), check_sgemm('T', 'T');
}

Test(cublas, the_row_major_trick, .timeout = 10)
{
    /* Row-major C (m x n) = A (m x k) B (k x n) is column-major C^T = B^T A^T: swap the operands. */
    int m = 4, n = 6, k = 5;
    std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
    for (int i = 0; i < m * k; i++) a[i] = value(i, 4);
    for (int i = 0; i < k * n; i++) b[i] = value(i, 5);
    float *da = to_device(a), *db = to_device(b), *dc = to_device(c), one = 1, zero = 0;
    cublasHandle_t handle;
    cublasCreate(&handle);
    cr_assert_eq(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db, n, da, k, &zero, dc, n), CUBLAS_STATUS_SUCCESS);
    std::vector<float> got = to_host(dc, c.size());
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int p = 0; p < k; p++) want += (double)a[i * k + p] * b[p * n + j];
            cr_assert_float_eq(got[i * n + j], want, 1e-5, "row-major C[%d][%d]", i, j);
        }
    cublasDestroy(handle);
}

Test(cublas, invalid_arguments_give_cublas_status_codes, .timeout = 10, .init = cr_redirect_stderr)
{
    float *d, one = 1;
    cudaMalloc(&d, 64 * sizeof(float));
    cublasHandle_t handle;
    cublasCreate(&handle);
    cr_assert_eq(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 3, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE,
                 "lda = 3 < m = 4");
    cr_assert_eq(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 2, &one, d, 1, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE,
                 "transposed A is k x m as stored: lda must be at least k = 2");
    cr_assert_eq(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    cr_assert_eq(cublasSgemm(handle, (cublasOperation_t)7, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    cr_assert_eq(cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_NOT_INITIALIZED);
    cr_assert_eq(cublasSgemv(handle, CUBLAS_OP_N, 4, 4, &one, d, 4, d, 0, &one, d, 1), CUBLAS_STATUS_INVALID_VALUE, "incx = 0");
    cr_assert_str_eq(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "argument errors leave no CUDA error");
    cublasDestroy(handle);
}

Test(cublas, a_host_matrix_fails_like_a_faulting_kernel, .timeout = 10, .init = cr_redirect_stderr)
{
    std::vector<float> host(16, 1.0f);
    float *d, one = 1;
    cudaMalloc(&d, 16 * sizeof(float));
    cublasHandle_t handle;
    cublasCreate(&handle);
    cr_assert_eq(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, host.data(), 4, d, 4, &one, d, 4),
                 CUBLAS_STATUS_EXECUTION_FAILED);
    cr_assert_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress, "the sticky error a faulting kernel leaves");
    cudaDeviceReset();
    cudaMalloc(&d, 8 * sizeof(float));
    cr_assert_eq(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4),
                 CUBLAS_STATUS_EXECUTION_FAILED, "a 4 x 4 matrix does not fit an 8-float allocation");
    cudaDeviceReset();
    cublasDestroy(handle);
}

template <typename T> static void check_gemm_ex(cudaDataType type, T (*convert)(float))
{
    int m = 8, n = 9, k = 16;
    std::vector<T> a(m * k), b(k * n);
    std::vector<float> a_rounded(m * k), b_rounded(k * n), c(m * n, 0.0f);
    for (int i = 0; i < m * k; i++) a[i] = convert(value(i, 6) * 3.3f), a_rounded[i] = (float)a[i];
    for (int i = 0; i < k * n; i++) b[i] = convert(value(i, 7) * 0.7f), b_rounded[i] = (float)b[i];
    T *da = to_device(a), *db = to_device(b);
    float *dc = to_device(c), one = 1, zero = 0;
    cublasHandle_t handle;
    cublasCreate(&handle);
    cr_assert_eq(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, type, m, db, type, k, &zero, dc,
                              CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_SUCCESS);
    reference_gemm('N', 'N', m, n, k, 1, a_rounded, m, b_rounded, k, 0, c, m);
    std::vector<float> got = to_host(dc, c.size());
    for (int i = 0; i < m * n; i++) cr_assert_float_eq(got[i], c[i], 1e-4, "C[%d] = %g, want %g", i, got[i], c[i]);
    cublasDestroy(handle);
}

static __half to_half(float f) { return __float2half_rn(f); }
static __nv_bfloat16 to_bfloat16(float f) { return __float2bfloat16_rn(f); }

Test(cublas, gemm_ex_fp16_and_bf16_inputs_with_fp32_accumulation, .timeout = 10)
{
    check_gemm_ex<__half>(CUDA_R_16F, to_half);
    check_gemm_ex<__nv_bfloat16>(CUDA_R_16BF, to_bfloat16);
}

/* cublasGemmEx's table (cuBLAS Library User Guide): the FAST compute types allow narrowing FP32 inputs and take
 * FP32 matrices only; 16-bit inputs take CUBLAS_COMPUTE_32F. What the table leaves out is NOT_SUPPORTED. */
Test(cublas, gemm_ex_refuses_what_the_table_leaves_out, .timeout = 10, .init = cr_redirect_stderr)
{
    unsigned short *d16;
    float *d32, one = 1, zero = 0;
    cudaMalloc(&d16, 16 * sizeof(unsigned short));
    cudaMalloc(&d32, 16 * sizeof(float));
    cudaMemset(d16, 0, 16 * sizeof(unsigned short));
    cudaMemset(d32, 0, 16 * sizeof(float));
    cublasHandle_t handle;
    cublasCreate(&handle);
    auto gemm = [&](cudaDataType in, cudaDataType out, cublasComputeType_t compute) {
        const void *input = in == CUDA_R_32F ? (const void *)d32 : (const void *)d16;
        void *output = out == CUDA_R_32F ? (void *)d32 : (void *)d16;
        return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, input, in, 2, input, in, 2, &zero, output,
                            out, 2, compute, CUBLAS_GEMM_DEFAULT);
    };
    const cublasComputeType_t fast[] = {CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_COMPUTE_32F_FAST_16BF,
                                        CUBLAS_COMPUTE_32F_FAST_TF32};
    for (cublasComputeType_t compute : fast) {
        cr_assert_eq(gemm(CUDA_R_32F, CUDA_R_32F, compute), CUBLAS_STATUS_SUCCESS, "FP32, compute %d", compute);
        cr_assert_eq(gemm(CUDA_R_16BF, CUDA_R_32F, compute), CUBLAS_STATUS_NOT_SUPPORTED, "BF16, compute %d", compute);
        cr_assert_eq(gemm(CUDA_R_16F, CUDA_R_32F, compute), CUBLAS_STATUS_NOT_SUPPORTED, "FP16, compute %d", compute);
    }
    cr_assert_eq(gemm(CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F), CUBLAS_STATUS_SUCCESS);
    cr_assert_eq(gemm(CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F_PEDANTIC), CUBLAS_STATUS_SUCCESS);
    cr_assert_eq(gemm(CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F), CUBLAS_STATUS_SUCCESS);
    cr_assert_eq(gemm(CUDA_R_32F, CUDA_R_16BF, CUBLAS_COMPUTE_32F), CUBLAS_STATUS_NOT_SUPPORTED, "FP32 in, BF16 out");
    cr_assert_eq(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d16, CUDA_R_16BF, 2, d16, CUDA_R_16F, 2,
                              &zero, d32, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED, "A and B of different types");
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "a refusal leaves no CUDA error");
    cublasDestroy(handle);
}

Test(cublas, tf32_rounds_the_inputs, .timeout = 10)
{
    /* 1 + 2^-12 is exact in FP32, but TF32 keeps 10 mantissa bits: it becomes 1. */
    std::vector<float> a = {1.0f + 1.0f / 4096}, b = {1.0f}, c = {0};
    float *da = to_device(a), *db = to_device(b), *dc = to_device(c), one = 1, zero = 0;
    cublasHandle_t handle;
    cublasCreate(&handle);
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, da, CUDA_R_32F, 1, db, CUDA_R_32F, 1, &zero, dc, CUDA_R_32F, 1,
                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    cr_assert_eq(to_host(dc, 1)[0], 1.0f + 1.0f / 4096, "plain FP32 keeps it");
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, da, CUDA_R_32F, 1, db, CUDA_R_32F, 1, &zero, dc, CUDA_R_32F, 1,
                 CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    cr_assert_eq(to_host(dc, 1)[0], 1.0f, "TF32 drops it");
    cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, da, 1, db, 1, &zero, dc, 1);
    cr_assert_eq(to_host(dc, 1)[0], 1.0f, "so does Sgemm in TF32 math mode");
    cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
    std::vector<float> big = {65536.0f + 32.0f};   /* exact in FP32; BF16 keeps 8 significant bits: 65536 */
    float *dbig = to_device(big);
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, dbig, CUDA_R_32F, 1, db, CUDA_R_32F, 1, &zero, dc, CUDA_R_32F, 1,
                 CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT);
    cr_assert_eq(to_host(dc, 1)[0], 65536.0f, "FAST_16BF narrows FP32 inputs to BF16");
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, da, CUDA_R_32F, 1, db, CUDA_R_32F, 1, &zero, dc, CUDA_R_32F, 1,
                 CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_GEMM_DEFAULT);
    cr_assert_eq(to_host(dc, 1)[0], 1.0f, "FAST_16F narrows FP32 inputs to FP16: 1 + 2^-12 becomes 1");
    cublasDestroy(handle);
}

Test(cublas, sgemv_and_strided_batches, .timeout = 10)
{
    int m = 6, n = 4, batches = 3, k = 2;
    std::vector<float> a(m * n), x(2 * n), y(m, 1.0f), yt(n, 0.0f);
    for (int i = 0; i < m * n; i++) a[i] = value(i, 8);
    for (int i = 0; i < 2 * n; i++) x[i] = value(i, 9);
    float *da = to_device(a), *dx = to_device(x), *dy = to_device(y), *dyt = to_device(yt), one = 1, two = 2;
    cublasHandle_t handle;
    cublasCreate(&handle);
    cr_assert_eq(cublasSgemv(handle, CUBLAS_OP_N, m, n, &two, da, m, dx, 2, &one, dy, 1), CUBLAS_STATUS_SUCCESS);
    std::vector<float> got = to_host(dy, m);
    for (int i = 0; i < m; i++) {
        double want = 1;
        for (int j = 0; j < n; j++) want += 2.0 * a[i + j * m] * x[2 * j];
        cr_assert_float_eq(got[i], want, 1e-5, "y[%d]", i);
    }
    cr_assert_eq(cublasSgemv(handle, CUBLAS_OP_T, m, n, &one, da, m, dy, 1, &one, dyt, 1), CUBLAS_STATUS_SUCCESS);
    std::vector<float> a2(m * k * batches), b2(k * n * batches), c2(m * n * batches, 0.0f);
    for (size_t i = 0; i < a2.size(); i++) a2[i] = value((int)i, 10);
    for (size_t i = 0; i < b2.size(); i++) b2[i] = value((int)i, 11);
    float *da2 = to_device(a2), *db2 = to_device(b2), *dc2 = to_device(c2), zero = 0;
    cr_assert_eq(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da2, m, m * k, db2, k, k * n,
                                           &zero, dc2, m, m * n, batches), CUBLAS_STATUS_SUCCESS);
    std::vector<float> got2 = to_host(dc2, c2.size());
    for (int s = 0; s < batches; s++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double want = 0;
                for (int p = 0; p < k; p++) want += (double)a2[s * m * k + i + p * m] * b2[s * k * n + p + j * k];
                cr_assert_float_eq(got2[s * m * n + i + j * m], want, 1e-5, "batch %d C[%d][%d]", s, i, j);
            }
    cublasDestroy(handle);
}

/* On a GPU each call is a kernel of the library's: a strided batch is one launch, a loop of GEMMs one a product. */
Test(cublas, each_call_counts_as_one_launch, .timeout = 10, .init = cr_redirect_stderr)
{
    int m = 3, n = 4, k = 5, batches = 6;
    float *d, one = 1, zero = 0;
    cudaMalloc(&d, 3 * 64 * batches * sizeof(float));
    cudaMemset(d, 0, 3 * 64 * batches * sizeof(float));
    float *a = d, *b = d + 64 * batches, *c = d + 128 * batches;
    cublasHandle_t handle;
    cublasCreate(&handle);
    sim_metrics_enable(1);
    int first = sim_metrics_count();
    cr_assert_eq(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, 64, b, k, 64, &zero,
                                           c, m, 64, batches), CUBLAS_STATUS_SUCCESS);
    cr_assert_eq(sim_metrics_count() - first, 1, "a strided batch of %d is one launch", batches);
    const sim_launch_metrics *batch = sim_metrics_get(-1);
    cr_assert_str_eq(batch->kernel, "cublasSgemmStridedBatched");
    cr_assert_eq(batch->declared_flops, 2.0 * m * n * k * batches, "2 m n k a product: %g", batch->declared_flops);
    for (int i = 0; i < batches; i++)
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a + 64 * i, m, b + 64 * i, k, &zero, c + 64 * i,
                    m);
    cr_assert_eq(sim_metrics_count() - first, 1 + batches, "a loop of %d cublasSgemm calls is %d launches", batches,
                 batches);
    cr_assert_str_eq(sim_metrics_get(-1)->kernel, "cublasSgemm");
    cr_assert_eq(sim_metrics_get(-1)->declared_flops, 2.0 * m * n * k);
    cr_assert_eq(cublasSgemv(handle, CUBLAS_OP_N, m, n, &one, a, m, b, 1, &zero, c, 1), CUBLAS_STATUS_SUCCESS);
    cr_assert_str_eq(sim_metrics_get(-1)->kernel, "cublasSgemv");
    int before_refusal = sim_metrics_count();
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, 1, b, k, &zero, c, m);   /* lda < m: refused */
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 0, n, k, &one, a, 1, b, k, &zero, c, 1);   /* nothing to compute */
    cr_assert_eq(sim_metrics_count(), before_refusal, "a refused or empty call launches nothing");
    sim_metrics_enable(0);
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &zero, c, m);
    cr_assert_eq(sim_metrics_count(), before_refusal, "counted only while the metrics count");
    cublasDestroy(handle);
}

/* cublasGemmStridedBatchedEx (llm.c's attention): cublasGemmEx's table, strides in elements of each matrix's type,
 * every product checked before any is computed, and one launch for the batch. */
Test(cublas, gemm_strided_batched_ex_is_gemm_ex_over_a_batch, .timeout = 10, .init = cr_redirect_stderr)
{
    int m = 3, n = 4, k = 5, batches = 4, stride = 32;
    std::vector<float> a(stride * batches), b(stride * batches), c(stride * batches, 0.0f);
    std::vector<__nv_bfloat16> a16(a.size()), b16(b.size());
    for (size_t i = 0; i < a.size(); i++) {
        a16[i] = __float2bfloat16(value((int)i, 1)), a[i] = __bfloat162float(a16[i]);
        b16[i] = __float2bfloat16(value((int)i, 2)), b[i] = __bfloat162float(b16[i]);
    }
    __nv_bfloat16 *da = to_device(a16), *db = to_device(b16);
    float *dc = to_device(c), one = 1, zero = 0;
    cublasHandle_t handle;
    cublasCreate(&handle);
    sim_metrics_enable(1);
    int first = sim_metrics_count();
    cr_assert_eq(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, da, CUDA_R_16BF, k, stride,
                                            db, CUDA_R_16BF, k, stride, &zero, dc, CUDA_R_32F, m, stride, batches,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_SUCCESS);
    cr_assert_eq(sim_metrics_count() - first, 1, "a strided batch of %d is one launch", batches);
    cr_assert_str_eq(sim_metrics_get(-1)->kernel, "cublasGemmStridedBatchedEx");
    cr_assert_eq(sim_metrics_get(-1)->declared_flops, 2.0 * m * n * k * batches);
    sim_metrics_enable(0);
    std::vector<float> got = to_host(dc, c.size());
    for (int p = 0; p < batches; p++) {
        std::vector<float> pa(a.begin() + p * stride, a.begin() + (p + 1) * stride);
        std::vector<float> pb(b.begin() + p * stride, b.begin() + (p + 1) * stride), pc(stride, 0.0f);
        reference_gemm('T', 'N', m, n, k, 1, pa, k, pb, k, 0, pc, m);
        for (int i = 0; i < m * n; i++)
            cr_assert_float_eq(got[p * stride + i], pc[i], 1e-5, "product %d, C[%d] = %g, want %g", p, i,
                               got[p * stride + i], pc[i]);
    }
    cr_assert_eq(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, da, CUDA_R_16BF, k, stride,
                                            db, CUDA_R_16BF, k, stride, &zero, dc, CUDA_R_32F, m, stride, batches,
                                            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_NOT_SUPPORTED, "BF16 inputs with a FAST compute type: the table leaves it out");
    cudaMemset(dc, 0, c.size() * sizeof(float));
    cr_assert_eq(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, da, CUDA_R_16BF, k, stride,
                                            db, CUDA_R_16BF, k, stride, &zero, dc, CUDA_R_32F, m, stride, batches + 1,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 CUBLAS_STATUS_EXECUTION_FAILED, "one product more than the allocations hold");
    got = to_host(dc, c.size());
    for (size_t i = 0; i < got.size(); i++) cr_assert_eq(got[i], 0.0f, "nothing computed before the overrun was found");
    cublasDestroy(handle);
}
