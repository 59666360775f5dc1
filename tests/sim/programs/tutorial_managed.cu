/* tutorial_managed.cu — written the way NVIDIA's best-known first CUDA program is (the blog post "An
 * Even Easier Introduction to CUDA"): unified memory from cudaMallocManaged, initialised on the host,
 * a grid-stride add kernel, cudaDeviceSynchronize before the host reads the result, the maximum error;
 * then CUDA 13's prefetch and advice (a cudaMemLocation, not a device number), and a copy between
 * managed and ordinary device memory with each cudaMemcpyKind that names it. simcc must build and run
 * it unchanged; so must nvcc.
 *   lib/sim/tools/simcc -o tutorial_managed tests/sim/programs/tutorial_managed.cu && ./tutorial_managed
 *   nvcc -o tutorial_managed tests/sim/programs/tutorial_managed.cu && ./tutorial_managed   (on a GPU) */
#include <cmath>
#include <cstdio>

__global__ void add(int n, float *x, float *y)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

static int failed(cudaError_t error, const char *what)
{
    if (error == cudaSuccess) return 0;
    printf("%s: %s\n", what, cudaGetErrorString(error));
    return 1;
}

int main(void)
{
    int n = 1 << 16;
    float *x, *y;
    if (failed(cudaMallocManaged(&x, n * sizeof(float)), "cudaMallocManaged x") ||
        failed(cudaMallocManaged(&y, n * sizeof(float)), "cudaMallocManaged y"))
        return 1;
    for (int i = 0; i < n; i++) x[i] = 1.0f, y[i] = 2.0f;   /* the host writes unified memory directly */

    cudaMemLocation device = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
    if (failed(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, device), "cudaMemAdvise") ||
        failed(cudaMemPrefetchAsync(x, n * sizeof(float), device, 0), "cudaMemPrefetchAsync to the GPU") ||
        failed(cudaMemPrefetchAsync(y, n * sizeof(float), device, 0, 0), "cudaMemPrefetchAsync y"))
        return 1;
    int block = 256, grid = (n + block - 1) / block / 4;   /* fewer threads than elements: the loop strides */
    add<<<grid, block>>>(n, x, y);
    if (failed(cudaGetLastError(), "launch") || failed(cudaDeviceSynchronize(), "the kernel"))
        return 1;
    if (failed(cudaMemPrefetchAsync(y, n * sizeof(float), host, 0), "cudaMemPrefetchAsync to the host")) return 1;

    float max_error = 0.0f;
    for (int i = 0; i < n; i++) max_error = fmaxf(max_error, fabsf(y[i] - 3.0f));
    printf("%d elements, %d blocks of %d threads: max error %g\n", n, grid, block, max_error);

    /* unified memory is device memory and host memory at once: either kind may name it */
    float *plain, back[4];
    if (failed(cudaMalloc(&plain, 4 * sizeof(float)), "cudaMalloc") ||
        failed(cudaMemcpy(plain, y, 4 * sizeof(float), cudaMemcpyDeviceToDevice), "managed to device") ||
        failed(cudaMemcpy(back, plain, 4 * sizeof(float), cudaMemcpyDeviceToHost), "device to host") ||
        failed(cudaMemcpy(x, back, 4 * sizeof(float), cudaMemcpyHostToHost), "host to managed, as host") ||
        failed(cudaMemcpy(x + 4, y, 4 * sizeof(float), cudaMemcpyDefault), "managed to managed"))
        return 1;
    printf("copied back: %g %g %g %g, then %g\n", back[0], back[1], back[2], back[3], x[4]);
    cudaFree(plain);
    cudaFree(x);
    cudaFree(y);
    return max_error == 0.0f ? 0 : 1;
}
