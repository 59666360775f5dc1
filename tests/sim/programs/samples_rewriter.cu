/* samples_rewriter.cu — valid CUDA that NVIDIA's samples and llm.c write and that a rewriter must
 * leave meaning what nvcc makes it mean: a kernel with a default argument launched without it
 * (shfl_scan's `int *partial_sums = NULL`), the __shared__ qualifier after the type
 * (threadFenceReduction's `extern float __shared__ smem[]`), and host variables named like the
 * built-in variables (llm.c's `dim3 gridDim(...)`, a helper's `dim3 blockDim` parameter), which
 * exist in device code only. lib/sim/tools/simcc must build and run it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o samples_rewriter tests/sim/programs/samples_rewriter.cu && ./samples_rewriter */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
static void check(cudaError_t result, const char *call, const char *file, int line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result, cudaGetErrorName(result),
                call);
        exit(EXIT_FAILURE);
    }
}

/* An inclusive scan of each block's values; the block's total goes to partial_sums when one is given. */
__global__ void block_scan(int *data, int *partial_sums = NULL)
{
    extern int __shared__ sums[];
    sums[threadIdx.x] = data[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
        int add = threadIdx.x >= offset ? sums[threadIdx.x - offset] : 0;
        __syncthreads();
        sums[threadIdx.x] += add;
        __syncthreads();
    }
    data[blockIdx.x * blockDim.x + threadIdx.x] = sums[threadIdx.x];
    if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) partial_sums[blockIdx.x] = sums[threadIdx.x];
}

/* Each block's sum, the qualifier after the type. */
__global__ void block_sum(const float *in, float *out)
{
    extern float __shared__ smem[];
    smem[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = smem[0];
}

/* A host helper whose parameter is named like the built-in. */
static void launch_sums(const float *in, float *out, dim3 gridDim, dim3 blockDim)
{
    block_sum<<<gridDim, blockDim, blockDim.x * sizeof(float)>>>(in, out);
    checkCudaErrors(cudaGetLastError());
}

int main()
{
    const int blocks = 4, threads = 64, n = blocks * threads;
    int h[n], *d, *partial, h_partial[blocks];
    for (int i = 0; i < n; i++) h[i] = 1;
    checkCudaErrors(cudaMalloc((void **)&d, sizeof h));
    checkCudaErrors(cudaMalloc((void **)&partial, sizeof h_partial));
    dim3 gridDim(blocks), blockDim(threads);
    checkCudaErrors(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    block_scan<<<gridDim, blockDim, threads * sizeof(int)>>>(d);
    checkCudaErrors(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("scan without partial sums (the default NULL): last of block 0 = %d, of block 3 = %d\n", h[threads - 1],
           h[n - 1]);
    block_scan<<<gridDim, blockDim, threads * sizeof(int)>>>(d, partial);
    checkCudaErrors(cudaMemcpy(h_partial, partial, sizeof h_partial, cudaMemcpyDeviceToHost));
    printf("scan of the scan, block totals: %d %d %d %d\n", h_partial[0], h_partial[1], h_partial[2], h_partial[3]);
    printf("host dim3 gridDim(%u) and blockDim(%u): the program's own variables\n", gridDim.x, blockDim.x);

    float hf[n], *in, *out, sums[blocks];
    for (int i = 0; i < n; i++) hf[i] = 0.5f;
    checkCudaErrors(cudaMalloc((void **)&in, sizeof hf));
    checkCudaErrors(cudaMalloc((void **)&out, sizeof sums));
    checkCudaErrors(cudaMemcpy(in, hf, sizeof hf, cudaMemcpyHostToDevice));
    launch_sums(in, out, dim3(blocks), dim3(threads));
    checkCudaErrors(cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost));
    printf("extern float __shared__: block sums %g %g %g %g\n", sums[0], sums[1], sums[2], sums[3]);
    checkCudaErrors(cudaFree(d));
    checkCudaErrors(cudaFree(partial));
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return 0;
}
