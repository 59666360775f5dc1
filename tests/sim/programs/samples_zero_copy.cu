/* samples_zero_copy.cu — written the way NVIDIA's samples (simpleZeroCopy, simpleHostRegister,
 * reductionMultiBlockCG) are: checkCudaErrors on every call; host memory registered with
 * cudaHostRegister(Mapped) and allocated with cudaHostAlloc(Mapped), handed to a kernel through
 * cudaHostGetDevicePointer; a grid-wide reduction that asks cudaDevAttrCooperativeLaunch first and,
 * without it, takes the two-launch path; and a __host__ __device__ function that chooses its code with
 * #ifdef __CUDA_ARCH__ (undefined on the simulator, which compiles one host pass: both paths must, and
 * do, give the same answer). lib/sim/tools/simcc must build and run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o samples_zero_copy tests/sim/programs/samples_zero_copy.cu && ./samples_zero_copy
 *   nvcc -o samples_zero_copy tests/sim/programs/samples_zero_copy.cu && ./samples_zero_copy   (on a GPU) */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;

template <typename T> void check(T result, const char *call, const char *file, int line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result, cudaGetErrorName(result),
                call);
        exit(EXIT_FAILURE);
    }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

/* The sum of the squares of a and b, rounded to an integer: device code uses the intrinsics, host
 * code the C library. */
__host__ __device__ int rounded_norm2(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __float2int_rn(__fmaf_rn(a, a, __fmul_rn(b, b)));
#else
    return (int)rintf(fmaf(a, a, b * b));
#endif
}

__global__ void norms(const float *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = rounded_norm2(in[2 * i], in[2 * i + 1]);
}

/* Block sums, then (cooperative launch) grid.sync() and one thread adds them, or (fallback) a second launch. */
__device__ void block_sum(const int *in, int *partial, int n)
{
    __shared__ int sums[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) sums[threadIdx.x] += sums[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

__global__ void reduce_cooperative(const int *in, int *partial, int n)
{
    block_sum(in, partial, n);
    cg::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int b = 1; b < (int)gridDim.x; b++) partial[0] += partial[b];
}

__global__ void block_sums(const int *in, int *partial, int n) { block_sum(in, partial, n); }

__global__ void add_partials(int *partial, int blocks)
{
    for (int b = 1; b < blocks; b++) partial[0] += partial[b];
}

int main(void)
{
    int device = 0, cooperative = 0, can_map = 0;
    checkCudaErrors(cudaSetDevice(device));
    checkCudaErrors(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDeviceProperties(&prop, device));
    can_map = prop.canUseHostPointerForRegisteredMem;

    const int n = 1000, threads = 256, blocks = (n + threads - 1) / threads;
    /* Registered memory: an ordinary allocation, page-aligned as the samples make it. */
    float *in = (float *)aligned_alloc(4096, 2 * n * sizeof(float));
    for (int i = 0; i < 2 * n; i++) in[i] = (float)((i * 7) % 13) / 4;
    checkCudaErrors(cudaHostRegister(in, 2 * n * sizeof(float), cudaHostRegisterMapped));
    int *out, *partial;
    checkCudaErrors(cudaHostAlloc((void **)&out, n * sizeof(int), cudaHostAllocMapped));
    checkCudaErrors(cudaMalloc(&partial, blocks * sizeof(int)));
    float *d_in;
    int *d_out;
    checkCudaErrors(cudaHostGetDevicePointer((void **)&d_in, in, 0));
    checkCudaErrors(cudaHostGetDevicePointer((void **)&d_out, out, 0));

    norms<<<blocks, threads>>>(d_in, d_out, n);     /* reads and writes host memory directly */
    checkCudaErrors(cudaDeviceSynchronize());
    int agree = 0, expected_sum = 0;
    for (int i = 0; i < n; i++) {
        agree += out[i] == rounded_norm2(in[2 * i], in[2 * i + 1]);
        expected_sum += out[i];
    }

    if (cooperative) {
        void *arguments[] = {&d_out, &partial, (void *)&n};
        checkCudaErrors(cudaLaunchCooperativeKernel((void *)reduce_cooperative, blocks, threads, arguments));
    } else {
        block_sums<<<blocks, threads>>>(d_out, partial, n);
        add_partials<<<1, 1>>>(partial, blocks);
    }
    int sum = 0;
    checkCudaErrors(cudaMemcpy(&sum, partial, sizeof sum, cudaMemcpyDeviceToHost));
    printf("zero-copy kernel: %d of %d norms as the host computes them (host pointers %s)\n", agree, n,
           can_map ? "usable on the device" : "mapped");
    printf("reduction (%s): %d, expected %d\n", cooperative ? "cooperative launch" : "two launches", sum, expected_sum);

    checkCudaErrors(cudaHostUnregister(in));
    checkCudaErrors(cudaFreeHost(out));
    checkCudaErrors(cudaFree(partial));
    free(in);
    int ok = agree == n && sum == expected_sum;
    printf("%s\n", ok ? "Test PASSED" : "Test FAILED");
    return !ok;
}
