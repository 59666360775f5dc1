/* texture_wrong_type.cu — planted bug: a texture of float texels fetched as int. CUDA's fetch must ask
 * for the type the texels read as (a GPU returns the float's bits, or garbage); the simulator stops
 * the launch and says what the texels are. */
#include <cstdio>
#include <cstring>

__global__ void copy_out(int *out, cudaTextureObject_t image)
{
    int x = threadIdx.x;
    out[x] = tex2D<int>(image, x + 0.5f, 0.5f);
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
    int *out;
    cudaMalloc(&out, 32 * sizeof(int));
    copy_out<<<1, 32>>>(out, image);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
