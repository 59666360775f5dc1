/* samples_streams.cu — written the way NVIDIA's simpleStreams and matrixMulCUBLAS samples are: the
 * host thread asked to block, not spin, while it waits (cudaSetDeviceFlags(cudaDeviceBlockingSync |
 * cudaDeviceMapHost)), events made with cudaEventBlockingSync, the device's canMapHostMemory read
 * before mapping pinned memory, the toolkit's device_launch_parameters.h included by name, and
 * cublas_v2.h bringing __nv_bfloat16 and the CUBLAS_API_H_ guard that helper_cuda.h tests.
 * lib/sim/tools/simcc must build and run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o samples_streams tests/sim/programs/samples_streams.cu && ./samples_streams */
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <device_launch_parameters.h>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
static void check(cudaError_t result, const char *call, const char *file, int line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result, cudaGetErrorName(result),
                call);
        exit(EXIT_FAILURE);
    }
}

#ifndef CUBLAS_API_H_
#error "cublas_v2.h should define CUBLAS_API_H_, as CUDA's does through cublas_api.h"
#endif

__global__ void init_array(int *g_data, const int *factor, int iterations)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iterations; i++) g_data[idx] += *factor;
}

/* bfloat16 rounds 1 + 2^-9 to 1: eight bits of mantissa */
__global__ void to_bfloat16(const float *in, float *out)
{
    __nv_bfloat16 b = __float2bfloat16(in[threadIdx.x]);
    out[threadIdx.x] = __bfloat162float(b);
}

int main()
{
    const int n = 16 * 1024, streams = 4, iterations = 5;
    cudaDeviceProp prop;
    checkCudaErrors(cudaSetDeviceFlags(cudaDeviceBlockingSync | cudaDeviceMapHost));
    unsigned int flags = 0;
    checkCudaErrors(cudaGetDeviceFlags(&flags));
    checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
    if (!prop.canMapHostMemory) {
        printf("the device cannot map host memory\n");
        return EXIT_FAILURE;
    }
    int blocking = (flags & cudaDeviceScheduleMask) == cudaDeviceBlockingSync, mapped = flags & cudaDeviceMapHost;
    printf("device flags: blocking sync %s, map host %s\n", blocking ? "yes" : "no", mapped ? "yes" : "no");
    cudaError_t two_ways = cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield);
    printf("two ways of waiting at once refused: %s\n", two_ways == cudaErrorInvalidValue ? "yes" : "no");
    cudaGetLastError();

    int *h_a, *d_a, *d_c, c = 5;
    checkCudaErrors(cudaHostAlloc((void **)&h_a, n * sizeof(int), cudaHostAllocMapped));
    checkCudaErrors(cudaMalloc((void **)&d_a, n * sizeof(int)));
    checkCudaErrors(cudaMalloc((void **)&d_c, sizeof(int)));
    checkCudaErrors(cudaMemset(d_a, 0, n * sizeof(int)));
    checkCudaErrors(cudaMemcpy(d_c, &c, sizeof(int), cudaMemcpyHostToDevice));

    cudaStream_t stream[streams];
    for (int i = 0; i < streams; i++) checkCudaErrors(cudaStreamCreate(&stream[i]));
    cudaEvent_t start, stop;
    checkCudaErrors(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
    checkCudaErrors(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    checkCudaErrors(cudaEventRecord(start, 0));
    int per_stream = n / streams;
    for (int i = 0; i < streams; i++)
        init_array<<<per_stream / 512, 512, 0, stream[i]>>>(d_a + i * per_stream, d_c, iterations);
    for (int i = 0; i < streams; i++)
        checkCudaErrors(cudaMemcpyAsync(h_a + i * per_stream, d_a + i * per_stream, per_stream * sizeof(int),
                                        cudaMemcpyDeviceToHost, stream[i]));
    checkCudaErrors(cudaEventRecord(stop, 0));
    checkCudaErrors(cudaEventSynchronize(stop));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += h_a[i] != c * iterations;
    printf("%d streams, %d elements: %s\n", streams, n, wrong ? "FAILED" : "every element is 25");

    float h_in[2] = {1.0f + 1.0f / 512, 3.0f}, h_out[2], *d_in, *d_out;
    checkCudaErrors(cudaMalloc((void **)&d_in, sizeof h_in));
    checkCudaErrors(cudaMalloc((void **)&d_out, sizeof h_out));
    checkCudaErrors(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    to_bfloat16<<<1, 2>>>(d_in, d_out);
    checkCudaErrors(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    printf("bfloat16 through cublas_v2.h: %g -> %g, %g -> %g\n", h_in[0], h_out[0], h_in[1], h_out[1]);

    for (int i = 0; i < streams; i++) checkCudaErrors(cudaStreamDestroy(stream[i]));
    checkCudaErrors(cudaEventDestroy(start));
    checkCudaErrors(cudaEventDestroy(stop));
    checkCudaErrors(cudaFreeHost(h_a));
    checkCudaErrors(cudaFree(d_a));
    checkCudaErrors(cudaFree(d_c));
    checkCudaErrors(cudaFree(d_in));
    checkCudaErrors(cudaFree(d_out));
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
