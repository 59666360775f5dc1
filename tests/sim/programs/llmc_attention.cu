/* llmc_attention.cu — causal self-attention the way llm.c's llmc/attention.cuh does it: a kernel permutes
 * qkv (B, T, 3, NH, HS) into q, k, v (B, NH, T, HS) in BF16; cublasGemmStridedBatchedEx computes every
 * head's pre-attention scores q k^T in one call (B * NH products, BF16 in and out, FP32 compute); a
 * kernel takes the scaled, causal softmax; a second strided batch multiplies by v; a kernel puts the
 * heads back side by side. Validated against a CPU reference in float, within BF16's tolerance; then the
 * same call with a FAST compute type on BF16 matrices, which cuBLAS's table refuses.
 * lib/sim/tools/simcc must build and run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o llmc_attention tests/sim/programs/llmc_attention.cu -lcublas && ./llmc_attention
 *   nvcc -o llmc_attention tests/sim/programs/llmc_attention.cu -lcublas && ./llmc_attention   (on a GPU) */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

typedef __nv_bfloat16 floatX;
#define CUBLAS_LOWP CUDA_R_16BF

void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))
void cublas_check(cublasStatus_t status, const char *file, int line)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        printf("[cuBLAS ERROR]: %d %s %d\n", status, file, line);
        exit(EXIT_FAILURE);
    }
}
#define cublasCheck(status) (cublas_check((status), __FILE__, __LINE__))

__global__ void permute_kernel(floatX *q, floatX *k, floatX *v, const floatX *inp, int B, int T, int NH, int HS)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * NH * T * HS) return;
    int b = idx / (NH * T * HS), rest = idx % (NH * T * HS);
    int nh = rest / (T * HS), t = (rest % (T * HS)) / HS, d = rest % HS;
    int from = b * T * 3 * NH * HS + t * 3 * NH * HS + nh * HS + d;
    q[idx] = inp[from];
    k[idx] = inp[from + NH * HS];
    v[idx] = inp[from + 2 * NH * HS];
}

/* One thread per row of scores: causal mask, scale, softmax, in float. */
__global__ void softmax_forward_kernel(floatX *att, const floatX *preatt, int rows, int T, float scale)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    int t = row % T;
    const floatX *in = preatt + (size_t)row * T;
    floatX *out = att + (size_t)row * T;
    float maxval = -INFINITY, sum = 0.0f;
    for (int j = 0; j <= t; j++) maxval = fmaxf(maxval, scale * __bfloat162float(in[j]));
    for (int j = 0; j <= t; j++) sum += expf(scale * __bfloat162float(in[j]) - maxval);
    for (int j = 0; j < T; j++)
        out[j] = __float2bfloat16(j <= t ? expf(scale * __bfloat162float(in[j]) - maxval) / sum : 0.0f);
}

__global__ void unpermute_kernel(const floatX *inp, floatX *out, int B, int T, int NH, int HS)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * NH * T * HS) return;
    int b = idx / (NH * T * HS), rest = idx % (NH * T * HS);
    int nh = rest / (T * HS), t = (rest % (T * HS)) / HS, d = rest % HS;
    out[b * T * NH * HS + t * NH * HS + nh * HS + d] = inp[idx];
}

static void attention_forward_cpu(float *out, const float *inp, int B, int T, int C, int NH)
{
    int HS = C / NH;
    float scale = 1.0f / sqrtf((float)HS), *weights = (float *)malloc(T * sizeof(float));
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < NH; h++) {
                const float *q = inp + b * T * 3 * C + t * 3 * C + h * HS;
                float maxval = -INFINITY, sum = 0.0f;
                for (int t2 = 0; t2 <= t; t2++) {
                    const float *k = inp + b * T * 3 * C + t2 * 3 * C + h * HS + C;
                    float dot = 0.0f;
                    for (int i = 0; i < HS; i++) dot += q[i] * k[i];
                    weights[t2] = dot * scale;
                    maxval = fmaxf(maxval, weights[t2]);
                }
                for (int t2 = 0; t2 <= t; t2++) sum += weights[t2] = expf(weights[t2] - maxval);
                float *o = out + b * T * C + t * C + h * HS;
                for (int i = 0; i < HS; i++) o[i] = 0.0f;
                for (int t2 = 0; t2 <= t; t2++) {
                    const float *v = inp + b * T * 3 * C + t2 * 3 * C + h * HS + 2 * C;
                    for (int i = 0; i < HS; i++) o[i] += weights[t2] / sum * v[i];
                }
            }
    free(weights);
}

int main(void)
{
    const int B = 2, T = 16, C = 32, NH = 4, HS = C / NH;
    const size_t n_inp = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C, n_att = (size_t)B * NH * T * T;
    float *inp = (float *)malloc(n_inp * sizeof(float)), *out = (float *)malloc(n_out * sizeof(float));
    floatX *inp_x = (floatX *)malloc(n_inp * sizeof(floatX)), *out_x = (floatX *)malloc(n_out * sizeof(floatX));
    srand(0);
    for (size_t i = 0; i < n_inp; i++) {
        inp_x[i] = __float2bfloat16((float)(rand() / (double)RAND_MAX) * 2.0f - 1.0f);
        inp[i] = __bfloat162float(inp_x[i]); /* the reference sees the same BF16 inputs */
    }
    attention_forward_cpu(out, inp, B, T, C, NH);

    floatX *d_inp, *d_qkvr, *d_preatt, *d_att, *d_vaccum, *d_out;
    cudaCheck(cudaMalloc(&d_inp, n_inp * sizeof(floatX)));
    cudaCheck(cudaMalloc(&d_qkvr, n_inp * sizeof(floatX)));
    cudaCheck(cudaMalloc(&d_preatt, n_att * sizeof(floatX)));
    cudaCheck(cudaMalloc(&d_att, n_att * sizeof(floatX)));
    cudaCheck(cudaMalloc(&d_vaccum, n_out * sizeof(floatX)));
    cudaCheck(cudaMalloc(&d_out, n_out * sizeof(floatX)));
    cudaCheck(cudaMemcpy(d_inp, inp_x, n_inp * sizeof(floatX), cudaMemcpyHostToDevice));
    cublasHandle_t cublas_handle;
    cublasCheck(cublasCreate(&cublas_handle));
    cublasComputeType_t cublas_compute = CUBLAS_COMPUTE_32F;

    floatX *q = d_qkvr, *k = d_qkvr + B * T * C, *v = d_qkvr + 2 * B * T * C;
    int block_size = 256, total = B * NH * T * HS;
    permute_kernel<<<(total + block_size - 1) / block_size, block_size>>>(q, k, v, d_inp, B, T, NH, HS);
    cudaCheck(cudaGetLastError());
    const float alpha = 1.0f, beta = 0.0f;
    /* preatt[b, h] = k^T q in cuBLAS's column-major view: (T x T) = op_T(k) (HS x T) q, one product a head. */
    cublasCheck(cublasGemmStridedBatchedEx(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, &alpha, k, CUBLAS_LOWP,
                                           HS, T * HS, q, CUBLAS_LOWP, HS, T * HS, &beta, d_preatt, CUBLAS_LOWP, T,
                                           T * T, B * NH, cublas_compute, CUBLAS_GEMM_DEFAULT));
    softmax_forward_kernel<<<(B * NH * T + 63) / 64, 64>>>(d_att, d_preatt, B * NH * T, T, 1.0f / sqrtf((float)HS));
    cudaCheck(cudaGetLastError());
    /* vaccum[b, h] = att v: (HS x T) = v (HS x T) op_N(att) in the column-major view. */
    cublasCheck(cublasGemmStridedBatchedEx(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_N, HS, T, T, &alpha, v, CUBLAS_LOWP,
                                           HS, T * HS, d_att, CUBLAS_LOWP, T, T * T, &beta, d_vaccum, CUBLAS_LOWP, HS,
                                           T * HS, B * NH, cublas_compute, CUBLAS_GEMM_DEFAULT));
    unpermute_kernel<<<(total + block_size - 1) / block_size, block_size>>>(d_vaccum, d_out, B, T, NH, HS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out_x, d_out, n_out * sizeof(floatX), cudaMemcpyDeviceToHost));

    int faults = 0;
    float worst = 0.0f;
    for (size_t i = 0; i < n_out; i++) {
        float got = __bfloat162float(out_x[i]), diff = fabsf(got - out[i]);
        worst = fmaxf(worst, diff);
        if (diff > 2e-2f + fabsf(out[i]) * 1e-2f) {
            if (faults < 5) printf("Mismatch at %zu: CPU_ref: %f vs GPU: %f\n", i, out[i], got);
            faults++;
        }
    }
    printf("attention forward, B=%d T=%d C=%d NH=%d: %d of %zu outputs outside BF16 tolerance (worst %s 0.02)\n", B, T,
           C, NH, faults, n_out, worst <= 0.02f ? "within" : "beyond");
    cublasStatus_t refused = cublasGemmStridedBatchedEx(
        cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, &alpha, k, CUBLAS_LOWP, HS, T * HS, q, CUBLAS_LOWP, HS,
        T * HS, &beta, d_preatt, CUBLAS_LOWP, T, T * T, B * NH, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    printf("BF16 matrices with CUBLAS_COMPUTE_32F_FAST_TF32: %s\n",
           refused == CUBLAS_STATUS_NOT_SUPPORTED ? "CUBLAS_STATUS_NOT_SUPPORTED" : "accepted");

    cublasCheck(cublasDestroy(cublas_handle));
    cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_qkvr));
    cudaCheck(cudaFree(d_preatt));
    cudaCheck(cudaFree(d_att));
    cudaCheck(cudaFree(d_vaccum));
    cudaCheck(cudaFree(d_out));
    free(inp);
    free(out);
    free(inp_x);
    free(out_x);
    if (faults) return EXIT_FAILURE;
    printf("All results match.\n");
    return 0;
}
