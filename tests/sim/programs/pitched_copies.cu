/* pitched_copies.cu — a 2-D array in pitched device memory, as NVIDIA's samples and image codes keep
 * one: cudaMallocPitch pads each row, a kernel indexes rows by the pitch, cudaMemcpy2D copies host to
 * device, device to device (into a narrower pitched array) and back, cudaMemset2D clears a band, and
 * cudaMemcpy2DAsync copies a sub-rectangle on a stream. The result is checked against the host.
 *   lib/sim/tools/simcc -o pitched_copies tests/sim/programs/pitched_copies.cu && ./pitched_copies
 *   nvcc -o pitched_copies tests/sim/programs/pitched_copies.cu && ./pitched_copies      (on a GPU) */
#include <cstdio>
#include <cstdlib>

#define checkCudaErrors(call)                                                                         \
    do {                                                                                              \
        cudaError_t error_ = (call);                                                                  \
        if (error_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(error_)); \
            exit(EXIT_FAILURE);                                                                       \
        }                                                                                             \
    } while (0)

/* Each element doubled, plus its column: rows are `pitch` bytes apart, not width * sizeof(float). */
__global__ void double_plus_column(float *image, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float *row = (float *)((char *)image + y * pitch);
    row[x] = 2 * row[x] + x;
}

int main(void)
{
    const int width = 100, height = 37;          /* 400-byte rows */
    const size_t row_bytes = width * sizeof(float);
    float *host = (float *)malloc(row_bytes * height), *back = (float *)malloc(row_bytes * height);
    for (int i = 0; i < width * height; i++) host[i] = (float)(i % 251);

    float *image, *copy;
    size_t pitch, copy_pitch;
    checkCudaErrors(cudaMallocPitch((void **)&image, &pitch, row_bytes, height));
    checkCudaErrors(cudaMallocPitch(&copy, &copy_pitch, row_bytes, height));
    printf("pitch: %s\n", pitch >= row_bytes && pitch % 32 == 0 && pitch == copy_pitch ? "whole rows, aligned" : "WRONG");

    checkCudaErrors(cudaMemcpy2D(image, pitch, host, row_bytes, row_bytes, height, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    double_plus_column<<<grid, block>>>(image, pitch, width, height);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy2D(copy, copy_pitch, image, pitch, row_bytes, height, cudaMemcpyDeviceToDevice));
    checkCudaErrors(cudaMemset2D(copy, copy_pitch, 0, row_bytes, 3));                       /* rows 0..2 */

    /* A 10 x 5 sub-rectangle at column 20, row 30 of the original back over column 0, row 0, on a stream. */
    cudaStream_t stream;
    checkCudaErrors(cudaStreamCreate(&stream));
    checkCudaErrors(cudaMemcpy2DAsync(copy, copy_pitch, host + 30 * width + 20, row_bytes, 10 * sizeof(float), 5,
                                      cudaMemcpyHostToDevice, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    checkCudaErrors(cudaMemcpy2D(back, row_bytes, copy, copy_pitch, row_bytes, height, cudaMemcpyDeviceToHost));

    int wrong = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float want = y < 3 ? 0.0f : 2 * host[y * width + x] + x;
            if (y < 5 && x < 10) want = host[(30 + y) * width + 20 + x];
            wrong += back[y * width + x] != want;
        }
    printf("%d x %d floats through cudaMemcpy2D, a kernel, cudaMemset2D and cudaMemcpy2DAsync: %d wrong\n", width,
           height, wrong);
    printf("%s\n", wrong == 0 ? "Test PASSED" : "Test FAILED");
    checkCudaErrors(cudaStreamDestroy(stream));
    checkCudaErrors(cudaFree(image));
    checkCudaErrors(cudaFree(copy));
    free(host);
    free(back);
    return wrong != 0;
}
