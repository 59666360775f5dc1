/* features.cu — an ordinary CUDA C program, not a lab, using warp shuffles, atomics,
 * cuBLAS and a captured CUDA graph. lib/sim/tools/simcc must build and run it unchanged:
 *   lib/sim/tools/simcc -o features tests/sim/programs/features.cu -lcublas && ./features
 *   nvcc -o features tests/sim/programs/features.cu -lcublas && ./features     (on a GPU) */
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        cudaError_t error = (call);                                                                 \
        if (error != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(error)); \
            exit(EXIT_FAILURE);                                                                     \
        }                                                                                           \
    } while (0)

/* Each warp sums its 32 values with shuffles; lane 0 adds the warp's sum atomically. */
__global__ void sum_with_shuffles(const int *x, int n, int *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int value = i < n ? x[i] : 0;
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(total, value);
}

__global__ void scale(float *x, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

int main()
{
    /* 1. shuffles and atomics */
    const int n = 10000;
    int *host = (int *)malloc(n * sizeof(int)), *x, *total, sum = 0, expected = 0;
    for (int i = 0; i < n; i++) host[i] = i % 7, expected += i % 7;
    CHECK(cudaMalloc(&x, n * sizeof(int)));
    CHECK(cudaMalloc(&total, sizeof(int)));
    CHECK(cudaMemcpy(x, host, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(total, 0, sizeof(int)));
    sum_with_shuffles<<<(n + 255) / 256, 256>>>(x, n, total);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, total, sizeof(int), cudaMemcpyDeviceToHost));
    printf("shuffles and atomics: sum = %d (expected %d)\n", sum, expected);

    /* 2. cuBLAS: C = A B for 2 x 2 column-major matrices */
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4], one = 1, zero = 0, *da, *db, *dc;
    CHECK(cudaMalloc(&da, sizeof a));
    CHECK(cudaMalloc(&db, sizeof b));
    CHECK(cudaMalloc(&dc, sizeof c));
    CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS ||
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, da, 2, db, 2, &zero, dc, 2) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS failed\n");
        return 1;
    }
    CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
    printf("cublasSgemm: C = [%g %g; %g %g] (expected [23 31; 34 46])\n", c[0], c[2], c[1], c[3]);
    cublasDestroy(handle);

    /* 3. a captured graph of three launches, replayed twice */
    float *y, y0 = 1;
    CHECK(cudaMalloc(&y, sizeof(float)));
    CHECK(cudaMemcpy(y, &y0, sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < 3; k++) scale<<<1, 32, 0, stream>>>(y, 1, 2.0f);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(&y0, y, sizeof(float), cudaMemcpyDeviceToHost));
    printf("graph replayed twice: y = %g (expected 64)\n", y0);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    free(host);
    return sum == expected && c[0] == 23 && y0 == 64 ? 0 : 1;
}
