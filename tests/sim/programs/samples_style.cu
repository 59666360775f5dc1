/* samples_style.cu — a program written the way NVIDIA's CUDA samples are: its helpers are defined
 * only when the CUDA runtime's headers say they are present (__DRIVER_TYPES_H__, __CUDA_RUNTIME_H__,
 * CUDART_VERSION), it picks its device by asking cudaDeviceGetAttribute, and it checks its own
 * result ("Test PASSED"). lib/sim/tools/simcc must build and run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o samples_style tests/sim/programs/samples_style.cu && ./samples_style
 *   nvcc -o samples_style tests/sim/programs/samples_style.cu && ./samples_style     (on a GPU) */
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
template <typename T> void check_result(T result, const char *call, const char *file, int line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
                cudaGetErrorName(result), call);
        exit(EXIT_FAILURE);
    }
}
#define checkErrors(call) check_result((call), #call, __FILE__, __LINE__)
#endif

#ifdef __CUDA_RUNTIME_H__
/* The device with the most SMs, as the samples' device finders do (by attribute, not by property). */
static int pick_device(void)
{
    int count = 0, best = 0, best_sms = -1;
    checkErrors(cudaGetDeviceCount(&count));
    for (int d = 0; d < count; d++) {
        int mode = -1, sms = 0, major = 0;
        checkErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d));
        checkErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
        checkErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d));
        if (mode != cudaComputeModeProhibited && major >= 1 && sms > best_sms) best = d, best_sms = sms;
    }
    checkErrors(cudaSetDevice(best));
    return best;
}
#endif

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(void)
{
#if !defined(CUDART_VERSION) || CUDART_VERSION < 11000
    printf("needs the CUDA 11 runtime API or later\n");
    return 2;
#endif
    int device = pick_device();
    int threads = 0, sms = 0;
    checkErrors(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, device));
    checkErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int n = 50000;
    size_t bytes = n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) a[i] = (float)(i % 97) / 7.0f, b[i] = (float)(i % 31) / 3.0f;
    float *da, *db, *dc;
    checkErrors(cudaMalloc((void **)&da, bytes));
    checkErrors(cudaMalloc((void **)&db, bytes));
    checkErrors(cudaMalloc((void **)&dc, bytes));
    checkErrors(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    checkErrors(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    checkErrors(cudaProfilerStart());
    int per_block = threads < 256 ? threads : 256;
    vector_add<<<(n + per_block - 1) / per_block, per_block>>>(da, db, dc, n);
    checkErrors(cudaGetLastError());
    checkErrors(cudaProfilerStop());
    checkErrors(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += c[i] != a[i] + b[i];
    checkErrors(cudaFree(da));
    checkErrors(cudaFree(db));
    checkErrors(cudaFree(dc));
    free(a), free(b), free(c);
    printf("device %d, %s SMs: %d elements, %d wrong\n%s\n", device, sms > 0 ? "some" : "no", n, wrong,
           wrong ? "Test FAILED" : "Test PASSED");
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
