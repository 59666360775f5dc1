/* llmc_cublaslt.cu — a matmul forward pass the way llm.c's dev/cuda/matmul_forward.cu (version 3) and
 * llmc/matmul.cuh do it: cuBLASLt with the bias fused into the epilogue (CUBLASLT_EPILOGUE_BIAS) for
 * out = inp @ weight^T + bias in row-major storage (which cuBLASLt, column-major, sees as
 * out^T = op_T(weight) inp^T), then the GELU epilogue that keeps its input (GELU_AUX_BIAS) and a strided
 * batch, each validated against a CPU reference as llm.c's validate_result does.
 * lib/sim/tools/simcc must build and run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o llmc_cublaslt tests/sim/programs/llmc_cublaslt.cu && ./llmc_cublaslt
 *   nvcc -o llmc_cublaslt tests/sim/programs/llmc_cublaslt.cu -lcublas -lcublasLt && ./llmc_cublaslt   (on a GPU) */
#include <cublasLt.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))
void cublasCheck(cublasStatus_t status, const char *file, int line)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        printf("[cuBLAS ERROR]: %d %s %d\n", status, file, line);
        exit(EXIT_FAILURE);
    }
}
#define cublasCheck(status) { cublasCheck((status), __FILE__, __LINE__); }

static cublasLtHandle_t cublaslt_handle;
static size_t cublaslt_workspace_size = 32 * 1024 * 1024;
static void *cublaslt_workspace;

float *make_random_float(size_t n)
{
    float *a = (float *)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) a[i] = (float)(rand() / (double)RAND_MAX) * 2.0f - 1.0f;
    return a;
}

float gelu_cpu(float x) { return 0.5f * x * (1.0f + tanhf(sqrtf(2.0f / (float)M_PI) * (x + 0.044715f * x * x * x))); }

/* out (BT, OC) = inp (BT, C) @ weight (OC, C)^T + bias (OC), optionally through GELU. */
void matmul_forward_cpu(float *out, float *pre_gelu, const float *inp, const float *weight, const float *bias, int BT,
                        int C, int OC, int gelu)
{
    for (int bt = 0; bt < BT; bt++)
        for (int o = 0; o < OC; o++) {
            float val = bias ? bias[o] : 0.0f;
            for (int i = 0; i < C; i++) val += inp[bt * C + i] * weight[o * C + i];
            if (pre_gelu) pre_gelu[bt * OC + o] = val;
            out[bt * OC + o] = gelu ? gelu_cpu(val) : val;
        }
}

/* As llm.c's matmul_cublaslt: D (m x n, column-major) = op(A) op(B) + bias, A = weight, B = inp. */
void matmul_cublaslt(float *d, const float *a, const float *b, const float *bias, int m, int n, int k,
                     float *pre_gelu, int batch_count, long long stride_a, long long stride_b, long long stride_out)
{
    if (((uintptr_t)a % 16) != 0 || ((uintptr_t)b % 16) != 0 || ((uintptr_t)d % 16) != 0 ||
        ((uintptr_t)bias % 16) != 0) {
        printf("All cuBLASLt pointers must be aligned!\n");
        exit(EXIT_FAILURE);
    }
    cublasLtMatmulDesc_t operationDesc;
    cublasCheck(cublasLtMatmulDescCreate(&operationDesc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t opNoTranspose = CUBLAS_OP_N, opTranspose = CUBLAS_OP_T;
    cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_TRANSA, &opTranspose, sizeof(opTranspose)));
    cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_TRANSB, &opNoTranspose, sizeof(opNoTranspose)));

    cublasLtMatrixLayout_t ALayout, BLayout, CLayout, DLayout;
    cublasCheck(cublasLtMatrixLayoutCreate(&ALayout, CUDA_R_32F, k, m, k));
    cublasCheck(cublasLtMatrixLayoutCreate(&BLayout, CUDA_R_32F, k, n, k));
    cublasCheck(cublasLtMatrixLayoutCreate(&CLayout, CUDA_R_32F, m, n, m));
    cublasCheck(cublasLtMatrixLayoutCreate(&DLayout, CUDA_R_32F, m, n, m));
    if (batch_count) {
        cublasLtMatrixLayout_t layouts[4] = {ALayout, BLayout, CLayout, DLayout};
        long long strides[4] = {stride_a, stride_b, stride_out, stride_out};
        for (int i = 0; i < 4; i++) {
            cublasCheck(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch_count, sizeof(batch_count)));
            cublasCheck(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i], sizeof(strides[i])));
        }
    }

    cublasLtMatmulPreference_t preference;
    cublasCheck(cublasLtMatmulPreferenceCreate(&preference));
    cublasCheck(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &cublaslt_workspace_size, sizeof(cublaslt_workspace_size)));

    cublasLtEpilogue_t epilogue = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    if (pre_gelu) {
        int64_t gelu_ld = m;
        cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &gelu_ld, sizeof(gelu_ld)));
        cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &pre_gelu, sizeof(pre_gelu)));
        epilogue = bias ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX;
    }
    cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    if (bias) {
        cublasDataType_t bias_data_type = CUDA_R_32F;
        cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_data_type, sizeof(bias_data_type)));
        cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    }
    cublasDataType_t scale_type = CUDA_R_32F;
    cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale_type, sizeof(scale_type)));

    int returnedResults = 0;
    cublasLtMatmulHeuristicResult_t heuristic;
    cublasLtMatmulAlgoGetHeuristic(cublaslt_handle, operationDesc, ALayout, BLayout, CLayout, DLayout, preference, 1,
                                   &heuristic, &returnedResults);
    if (returnedResults == 0) {
        printf("No cuBLASLt algorithm: m: %d, n: %d, k: %d, bias: %d\n", n, m, k, bias != NULL);
        exit(EXIT_FAILURE);
    }
    const float alpha = 1.0f, beta = 0.0f;
    cublasCheck(cublasLtMatmul(cublaslt_handle, operationDesc, &alpha, a, ALayout, b, BLayout, &beta, d, CLayout, d,
                               DLayout, &heuristic.algo, cublaslt_workspace, cublaslt_workspace_size, 0));
    cublasCheck(cublasLtMatmulPreferenceDestroy(preference));
    cublasCheck(cublasLtMatmulDescDestroy(operationDesc));
    cublasCheck(cublasLtMatrixLayoutDestroy(ALayout));
    cublasCheck(cublasLtMatrixLayoutDestroy(BLayout));
    cublasCheck(cublasLtMatrixLayoutDestroy(CLayout));
    cublasCheck(cublasLtMatrixLayoutDestroy(DLayout));
    cudaCheck(cudaGetLastError());
}

/* As llm.c's validate_result: every element within tolerance + |reference| * FLT_EPSILON-ish. */
int validate_result(const float *device_result, const float *cpu_reference, const char *name, size_t n, float tolerance)
{
    float *out_gpu = (float *)malloc(n * sizeof(float));
    cudaCheck(cudaMemcpy(out_gpu, device_result, n * sizeof(float), cudaMemcpyDeviceToHost));
    int faults = 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(cpu_reference[i] - out_gpu[i]) > tolerance + fabsf(cpu_reference[i]) * 1.2e-7f) {
            if (faults++ < 5)
                printf("Mismatch of %s at %zu: CPU_ref: %f vs GPU: %f\n", name, i, cpu_reference[i], out_gpu[i]);
        }
    free(out_gpu);
    printf("%s: %s\n", name, faults ? "FAILED" : "OK");
    return faults;
}

int main(void)
{
    srand(0);
    const int B = 2, T = 24, C = 48, OC = 4 * C, BT = B * T;
    cublasCheck(cublasLtCreate(&cublaslt_handle));
    cudaCheck(cudaMalloc(&cublaslt_workspace, cublaslt_workspace_size));

    float *inp = make_random_float(BT * C), *weight = make_random_float(OC * C), *bias = make_random_float(OC);
    float *out = (float *)malloc(BT * OC * sizeof(float)), *pre = (float *)malloc(BT * OC * sizeof(float));
    float *d_out, *d_pre, *d_inp, *d_weight, *d_bias;
    cudaCheck(cudaMalloc(&d_out, BT * OC * sizeof(float)));
    cudaCheck(cudaMalloc(&d_pre, BT * OC * sizeof(float)));
    cudaCheck(cudaMalloc(&d_inp, BT * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_weight, OC * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_bias, OC * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp, BT * C * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_weight, weight, OC * C * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_bias, bias, OC * sizeof(float), cudaMemcpyHostToDevice));

    int faults = 0;
    matmul_forward_cpu(out, NULL, inp, weight, bias, BT, C, OC, 0);
    matmul_cublaslt(d_out, d_weight, d_inp, d_bias, OC, BT, C, NULL, 0, 0, 0, 0);
    faults += validate_result(d_out, out, "out (bias epilogue)", BT * OC, 1e-4f);

    matmul_forward_cpu(out, pre, inp, weight, bias, BT, C, OC, 1);
    matmul_cublaslt(d_out, d_weight, d_inp, d_bias, OC, BT, C, d_pre, 0, 0, 0, 0);
    faults += validate_result(d_out, out, "out (GELU_AUX_BIAS epilogue)", BT * OC, 1e-4f);
    faults += validate_result(d_pre, pre, "pre_gelu (its aux output)", BT * OC, 1e-4f);

    /* Each of the B batches by its own weights: the first B * OC/B rows of weight, one block per batch. */
    const int per = OC / B;
    for (int b = 0; b < B; b++)
        matmul_forward_cpu(out + b * T * per, NULL, inp + b * T * C, weight + b * per * C, NULL, T, C, per, 0);
    matmul_cublaslt(d_out, d_weight, d_inp, NULL, per, T, C, NULL, B, (long long)per * C, (long long)T * C,
                    (long long)T * per);
    faults += validate_result(d_out, out, "out (strided batch)", BT * per, 1e-4f);

    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(d_pre));
    cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_weight));
    cudaCheck(cudaFree(d_bias));
    cudaCheck(cudaFree(cublaslt_workspace));
    cublasCheck(cublasLtDestroy(cublaslt_handle));
    free(inp), free(weight), free(bias), free(out), free(pre);
    return faults != 0;
}
