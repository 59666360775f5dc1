/* texture_after_free.cu — planted bug: the array under a texture is freed before the kernel reads
 * it. The fetch reads the array's memory with an ordinary load, so it is reported as any read of
 * freed memory is, naming the line that made the array. */
#include <cstdio>
#include <cstring>

__global__ void copy_out(float *out, cudaTextureObject_t image)
{
    int x = threadIdx.x;
    out[x] = tex2D<float>(image, x + 0.5f, 0.5f);
}

int main()
{
    cudaChannelFormatDesc floats = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    cudaMallocArray(&array, &floats, 32, 8);
    cudaResourceDesc resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc description;
    memset(&description, 0, sizeof description);
    cudaTextureObject_t image;
    cudaCreateTextureObject(&image, &resource, &description, NULL);
    float *out;
    cudaMalloc(&out, 32 * sizeof(float));
    cudaFreeArray(array);
    copy_out<<<1, 32>>>(out, image);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
