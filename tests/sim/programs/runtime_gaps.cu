/* runtime_gaps.cu — the smaller parts of CUDA that real programs use and the book's labs do not:
 * every vector type with its make_ function, loads and stores with cache hints (__ldg, __ldcs,
 * __stcs ...), umin and min of a signed and an unsigned int, isfinite unqualified in device code,
 * cuBLAS's _v2 names and its strided vector and matrix copies. lib/sim/tools/simcc must build and
 * run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o runtime_gaps tests/sim/programs/runtime_gaps.cu && ./runtime_gaps
 *   nvcc -o runtime_gaps tests/sim/programs/runtime_gaps.cu -lcublas && ./runtime_gaps      (on a GPU) */
#include <cublas_v2.h>
#include <cstdio>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t error_ = (call);                                                  \
        if (error_ != cudaSuccess) {                                                  \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(error_));    \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

__global__ void vectors(const uchar4 *pixels, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = __ldg(&pixels[i]);
    short2 s = make_short2((short)p.x, (short)p.y);
    longlong2 l = make_longlong2(p.z, p.w);
    __stcs(&out[i], make_float4(s.x, s.y, (float)l.x, (float)l.y));
}

__global__ void hints_and_math(const float *x, int *finite, unsigned *smallest, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __ldcs(&x[i]);
    finite[i] = isfinite(v) ? 1 : 0;
    int negative = -1;
    smallest[i] = min(negative, (unsigned)i) == (unsigned)i ? umin(i, 7u) : 99u;   /* -1 as unsigned is the largest */
}

int main(void)
{
    const int n = 64;
    uchar4 pixels[n];
    for (int i = 0; i < n; i++) pixels[i] = make_uchar4(i, 2 * i, 3 * i, 255 - i);
    uchar4 *dp;
    float4 *dout, out[n];
    CHECK(cudaMalloc(&dp, sizeof pixels));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMemcpy(dp, pixels, sizeof pixels, cudaMemcpyHostToDevice));
    vectors<<<2, 32>>>(dp, dout, n);
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int vector_ok = 1;
    for (int i = 0; i < n; i++)
        vector_ok &= out[i].x == i && out[i].y == 2 * i && out[i].z == (unsigned char)(3 * i) && out[i].w == 255 - i;

    float x[n];
    for (int i = 0; i < n; i++) x[i] = i % 3 == 0 ? 1.0f / 0.0f : (float)i;
    float *dx;
    int *dfinite, finite[n];
    unsigned *dsmall, small[n];
    CHECK(cudaMalloc(&dx, sizeof x));
    CHECK(cudaMalloc(&dfinite, sizeof finite));
    CHECK(cudaMalloc(&dsmall, sizeof small));
    CHECK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    hints_and_math<<<1, n>>>(dx, dfinite, dsmall, n);
    CHECK(cudaMemcpy(finite, dfinite, sizeof finite, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(small, dsmall, sizeof small, cudaMemcpyDeviceToHost));
    int finite_count = 0, math_ok = 1;
    for (int i = 0; i < n; i++) finite_count += finite[i], math_ok &= small[i] == (unsigned)(i < 7 ? i : 7);

    cublasHandle_t handle;
    float host[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0}, *dv;
    CHECK(cudaMalloc(&dv, sizeof host));
    int blas_ok = cublasCreate_v2(&handle) == CUBLAS_STATUS_SUCCESS &&
                  cublasSetVector(4, sizeof(float), host, 2, dv, 1) == CUBLAS_STATUS_SUCCESS &&   /* 1 3 5 7 */
                  cublasGetVector(4, sizeof(float), dv, 1, back, 2) == CUBLAS_STATUS_SUCCESS &&   /* into 0 2 4 6 */
                  cublasSetMatrix(2, 2, sizeof(float), host, 4, dv, 2) == CUBLAS_STATUS_SUCCESS &&  /* 1 2 5 6 */
                  cublasGetMatrix(2, 2, sizeof(float), dv, 2, back + 4, 2) == CUBLAS_STATUS_SUCCESS &&
                  cublasDestroy_v2(handle) == CUBLAS_STATUS_SUCCESS;
    blas_ok &= back[0] == 1 && back[2] == 3 && back[4] == 1 && back[5] == 2 && back[6] == 5 && back[7] == 6;
    printf("vector types and cache hints: %s; isfinite: %d of %d finite; min/umin: %s; cuBLAS _v2 and copies: %s\n",
           vector_ok ? "exact" : "WRONG", finite_count, n, math_ok ? "exact" : "WRONG", blas_ok ? "exact" : "WRONG");
    cudaFree(dp), cudaFree(dout), cudaFree(dx), cudaFree(dfinite), cudaFree(dsmall), cudaFree(dv);
    return !(vector_ok && math_ok && blas_ok && finite_count == n - 22);
}
