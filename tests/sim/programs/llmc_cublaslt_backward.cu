/* llmc_cublaslt_backward.cu — the backward pass of a matmul with GELU the way llm.c's llmc/matmul.cuh
 * runs it on cuBLASLt: the input gradient with the GELU gradient fused (CUBLASLT_EPILOGUE_DGELU, the
 * pre-GELU activations as the aux input), the weight gradient accumulated (beta = 1) with the bias
 * gradient fused (CUBLASLT_EPILOGUE_BGRADB), and the forward pass in BF16 with a BF16 bias (llm.c's
 * ENABLE_BF16 build), each validated against a CPU reference.
 *   lib/sim/tools/simcc -o llmc_cublaslt_backward tests/sim/programs/llmc_cublaslt_backward.cu && ./llmc_cublaslt_backward
 *   nvcc -o llmc_cublaslt_backward tests/sim/programs/llmc_cublaslt_backward.cu -lcublas -lcublasLt   (on a GPU) */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define cudaCheck(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { printf("[CUDA ERROR] %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define cublasCheck(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { printf("[cuBLAS ERROR]: %d %s %d\n", s_, __FILE__, __LINE__); exit(1); } } while (0)

static cublasLtHandle_t handle;

/* D (m x n) = op(A) op(B) + beta D, column-major, with `epilogue` and its bias and aux pointers. */
static void matmul(void *d, const void *a, const void *b, cudaDataType type, int m, int n, int k, bool trans_a,
                   bool trans_b, float beta, cublasLtEpilogue_t epilogue, void *bias, void *aux)
{
    cublasLtMatmulDesc_t desc;
    cublasCheck(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    if (bias) {
        cublasDataType_t bias_type = type;
        cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
        cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    }
    if (aux) {
        int64_t ld = m;
        cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
        cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
    }
    cublasLtMatrixLayout_t la, lb, ld;
    cublasCheck(trans_a ? cublasLtMatrixLayoutCreate(&la, type, k, m, k) : cublasLtMatrixLayoutCreate(&la, type, m, k, m));
    cublasCheck(trans_b ? cublasLtMatrixLayoutCreate(&lb, type, n, k, n) : cublasLtMatrixLayoutCreate(&lb, type, k, n, k));
    cublasCheck(cublasLtMatrixLayoutCreate(&ld, type, m, n, m));
    cublasLtMatmulPreference_t preference;
    cublasCheck(cublasLtMatmulPreferenceCreate(&preference));
    cublasLtMatmulHeuristicResult_t heuristic;
    int found = 0;
    cublasCheck(cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, ld, ld, preference, 1, &heuristic, &found));
    if (!found) { printf("No cuBLASLt algorithm\n"); exit(1); }
    const float alpha = 1.0f;
    cublasCheck(cublasLtMatmul(handle, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &heuristic.algo, NULL, 0, 0));
    cublasCheck(cublasLtMatmulPreferenceDestroy(preference));
    cublasCheck(cublasLtMatrixLayoutDestroy(la));
    cublasCheck(cublasLtMatrixLayoutDestroy(lb));
    cublasCheck(cublasLtMatrixLayoutDestroy(ld));
    cublasCheck(cublasLtMatmulDescDestroy(desc));
}

static float random_float() { return (float)(rand() / (double)RAND_MAX) * 2.0f - 1.0f; }
static float gelu_grad(float x)
{
    float s = sqrtf(2.0f / (float)M_PI), t = tanhf(s * (x + 0.044715f * x * x * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * s * (1.0f + 3.0f * 0.044715f * x * x);
}
template <typename T> static T *to_device(const T *host, size_t n)
{
    T *device;
    cudaCheck(cudaMalloc(&device, n * sizeof(T)));
    cudaCheck(cudaMemcpy(device, host, n * sizeof(T), cudaMemcpyHostToDevice));
    return device;
}
/* Elements of `device` (converted to float) that differ from `reference` by more than the tolerance. */
template <typename T> static int mismatches(const T *device, const float *reference, size_t n, float relative)
{
    T *got = (T *)malloc(n * sizeof(T));
    cudaCheck(cudaMemcpy(got, device, n * sizeof(T), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += fabsf((float)got[i] - reference[i]) > 1e-4f + relative * fabsf(reference[i]);
    free(got);
    return wrong;
}

int main(void)
{
    srand(1);
    const int BT = 32, C = 24, OC = 40;
    cublasCheck(cublasLtCreate(&handle));
    /* Row-major inp (BT, C), weight (OC, C), dout (BT, OC), pre_gelu (BT, C): the GELU came before this matmul. */
    float *inp = new float[BT * C], *weight = new float[OC * C], *dout = new float[BT * OC], *pre = new float[BT * C];
    float *dweight = new float[OC * C];
    for (int i = 0; i < BT * C; i++) inp[i] = random_float(), pre[i] = 2 * random_float();
    for (int i = 0; i < OC * C; i++) weight[i] = random_float(), dweight[i] = random_float();
    for (int i = 0; i < BT * OC; i++) dout[i] = random_float();
    float *d_inp = to_device(inp, BT * C), *d_weight = to_device(weight, OC * C), *d_dout = to_device(dout, BT * OC);
    float *d_pre = to_device(pre, BT * C), *d_dweight = to_device(dweight, OC * C), *d_dinp, *d_dbias;
    cudaCheck(cudaMalloc(&d_dinp, BT * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_dbias, OC * sizeof(float)));

    /* dinp (BT, C) = (dout @ weight) * gelu'(pre): column-major C x BT = weight (C x OC) dout (OC x BT). */
    float *dinp_ref = new float[BT * C], *dweight_ref = new float[OC * C], *dbias_ref = new float[OC];
    for (int bt = 0; bt < BT; bt++)
        for (int c = 0; c < C; c++) {
            float sum = 0;
            for (int o = 0; o < OC; o++) sum += dout[bt * OC + o] * weight[o * C + c];
            dinp_ref[bt * C + c] = sum * gelu_grad(pre[bt * C + c]);
        }
    matmul(d_dinp, d_weight, d_dout, CUDA_R_32F, C, BT, OC, false, false, 0.0f, CUBLASLT_EPILOGUE_DGELU, NULL, d_pre);
    int wrong_dinp = mismatches(d_dinp, dinp_ref, BT * C, 1e-5f);
    printf("dinp (DGELU epilogue): %d of %d wrong\n", wrong_dinp, BT * C);

    /* dweight (OC, C) += dout^T @ inp, dbias (OC) = the column sums of dout: column-major
     * C x OC = inp (C x BT) dout^T (BT x OC), and BGRADB sums op(B) = dout^T over BT. */
    for (int o = 0; o < OC; o++) {
        dbias_ref[o] = 0;
        for (int bt = 0; bt < BT; bt++) dbias_ref[o] += dout[bt * OC + o];
        for (int c = 0; c < C; c++) {
            float sum = dweight[o * C + c];
            for (int bt = 0; bt < BT; bt++) sum += dout[bt * OC + o] * inp[bt * C + c];
            dweight_ref[o * C + c] = sum;
        }
    }
    matmul(d_dweight, d_inp, d_dout, CUDA_R_32F, C, OC, BT, false, true, 1.0f, CUBLASLT_EPILOGUE_BGRADB, d_dbias, NULL);
    int wrong_dweight = mismatches(d_dweight, dweight_ref, OC * C, 1e-5f), wrong_dbias = mismatches(d_dbias, dbias_ref, OC, 1e-5f);
    printf("dweight (accumulated): %d of %d wrong; dbias (BGRADB epilogue): %d of %d wrong\n", wrong_dweight, OC * C,
           wrong_dbias, OC);

    /* Forward in BF16: out (BT, OC) = inp @ weight^T + bias, every operand rounded to BF16 first. */
    __nv_bfloat16 *inp16 = new __nv_bfloat16[BT * C], *weight16 = new __nv_bfloat16[OC * C], *bias16 = new __nv_bfloat16[OC];
    for (int i = 0; i < BT * C; i++) inp16[i] = __float2bfloat16(inp[i]);
    for (int i = 0; i < OC * C; i++) weight16[i] = __float2bfloat16(weight[i]);
    for (int i = 0; i < OC; i++) bias16[i] = __float2bfloat16(dout[i]);
    float *out_ref = new float[BT * OC];
    for (int bt = 0; bt < BT; bt++)
        for (int o = 0; o < OC; o++) {
            float sum = __bfloat162float(bias16[o]);
            for (int c = 0; c < C; c++) sum += __bfloat162float(inp16[bt * C + c]) * __bfloat162float(weight16[o * C + c]);
            out_ref[bt * OC + o] = sum;
        }
    __nv_bfloat16 *d_inp16 = to_device(inp16, BT * C), *d_weight16 = to_device(weight16, OC * C);
    __nv_bfloat16 *d_bias16 = to_device(bias16, OC), *d_out16;
    cudaCheck(cudaMalloc(&d_out16, BT * OC * sizeof(__nv_bfloat16)));
    matmul(d_out16, d_weight16, d_inp16, CUDA_R_16BF, OC, BT, C, true, false, 0.0f, CUBLASLT_EPILOGUE_BIAS, d_bias16, NULL);
    int wrong_out = mismatches(d_out16, out_ref, BT * OC, 1.0f / 128);
    printf("out in BF16 (bias epilogue): %d of %d beyond BF16's rounding\n", wrong_out, BT * OC);
    cublasCheck(cublasLtDestroy(handle));
    return wrong_dinp + wrong_dweight + wrong_dbias + wrong_out != 0;
}
