/* samples_textures.cu — textures the way NVIDIA's samples use them (dct8x8, simpleTexture, and the
 * tex1Dfetch of older ones): a float image copied into a CUDA array with cudaMemcpy2DToArray and read
 * back with tex2D at integer-plus-half coordinates, point filtering, Clamp past the edges; the same
 * image with normalised coordinates, linear filtering and Wrap, shifted by a third of a texel (the
 * Programming Guide's "Texture Fetching" formula, with its 9-bit weights, computed on the host);
 * Border; a uchar4 array read as normalised floats; tex1Dfetch of ints in linear memory; pitched
 * memory from cudaMallocPitch read with tex2D. Each is compared with the host's answer.
 *   lib/sim/tools/simcc -o samples_textures tests/sim/programs/samples_textures.cu && ./samples_textures
 *   nvcc -o samples_textures tests/sim/programs/samples_textures.cu && ./samples_textures   (on a GPU) */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define checkCudaErrors(call)                                                                                          \
    do {                                                                                                               \
        cudaError_t status_ = (call);                                                                                  \
        if (status_ != cudaSuccess) {                                                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_));                           \
            exit(EXIT_FAILURE);                                                                                        \
        }                                                                                                              \
    } while (0)

enum { W = 40, H = 24 };

/* Each thread reads the texel under it, moved by (dx, dy): outside the image for the edge threads. */
__global__ void read_shifted(float *out, cudaTextureObject_t image, float dx, float dy, int normalized)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float u = x + 0.5f + dx, v = y + 0.5f + dy;
    if (normalized) u /= W, v /= H;
    out[y * W + x] = tex2D<float>(image, u, v);
}

__global__ void read_colours(float4 *out, cudaTextureObject_t colours, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float4>(colours, i + 0.5f);
}

__global__ void fetch_ints(int *out, cudaTextureObject_t values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n + 4) out[i] = tex1Dfetch<int>(values, i - 2); /* two before the start, two past the end */
}

/* The host's texel under a mode: Clamp, Wrap, or Border (-1 for outside). */
static int host_address(int i, int n, int mode)
{
    if (mode == cudaAddressModeWrap) return ((i % n) + n) % n;
    if (mode == cudaAddressModeBorder) return i < 0 || i >= n ? -1 : i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static float host_texel(const float *image, int i, int j, float border)
{
    return i < 0 || j < 0 ? border : image[j * W + i];
}

/* Bilinear filtering at texel coordinates (x, y), as the guide gives it: weights of 8 fractional bits
 * (or, to show that they matter, exact ones). */
static float host_linear(const float *image, float x, float y, int mode, float border, int exact_weights = 0)
{
    float bx = x - 0.5f, by = y - 0.5f, fx = floorf(bx), fy = floorf(by);
    float a = nearbyintf((bx - fx) * 256) / 256, b = nearbyintf((by - fy) * 256) / 256;
    if (exact_weights) a = bx - fx, b = by - fy;
    int i0 = host_address((int)fx, W, mode), i1 = host_address((int)fx + 1, W, mode);
    int j0 = host_address((int)fy, H, mode), j1 = host_address((int)fy + 1, H, mode);
    return (1 - a) * (1 - b) * host_texel(image, i0, j0, border) + a * (1 - b) * host_texel(image, i1, j0, border) +
           (1 - a) * b * host_texel(image, i0, j1, border) + a * b * host_texel(image, i1, j1, border);
}

static cudaTextureObject_t make_texture(const cudaResourceDesc &resource, cudaTextureAddressMode mode,
                                        cudaTextureFilterMode filter, cudaTextureReadMode read, int normalized)
{
    cudaTextureDesc description;
    memset(&description, 0, sizeof description);
    description.addressMode[0] = description.addressMode[1] = mode;
    description.filterMode = filter;
    description.readMode = read;
    description.normalizedCoords = normalized;
    description.borderColor[0] = -1.0f;
    cudaTextureObject_t texture;
    checkCudaErrors(cudaCreateTextureObject(&texture, &resource, &description, NULL));
    return texture;
}

static int count_differences(const float *a, const float *b, int n, float tolerance)
{
    int differ = 0;
    for (int i = 0; i < n; i++) differ += !(fabsf(a[i] - b[i]) <= tolerance);
    return differ;
}

int main(void)
{
    static float image[W * H], result[W * H], expected[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) image[y * W + x] = (float)((x * 7 + y * 13) % 29) - 10.0f;

    cudaChannelFormatDesc floats = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t array;
    checkCudaErrors(cudaMallocArray(&array, &floats, W, H));
    checkCudaErrors(
        cudaMemcpy2DToArray(array, 0, 0, image, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    float *d_result;
    checkCudaErrors(cudaMalloc(&d_result, sizeof result));
    dim3 block(16, 8), grid((W + 15) / 16, (H + 7) / 8);

    /* Point filtering, Clamp: moved 3 texels right and 2 up, the edge texels repeat. */
    cudaTextureObject_t point =
        make_texture(resource, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
    read_shifted<<<grid, block>>>(d_result, point, 3.0f, -2.0f, 0);
    checkCudaErrors(cudaMemcpy(result, d_result, sizeof result, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            expected[y * W + x] =
                image[host_address(y - 2, H, cudaAddressModeClamp) * W + host_address(x + 3, W, cudaAddressModeClamp)];
    printf("point, clamp: %d texels differ of %d\n", count_differences(result, expected, W * H, 0.0f), W * H);

    /* Linear filtering, normalised coordinates, Wrap: a third of a texel left, a quarter down. */
    cudaTextureObject_t linear =
        make_texture(resource, cudaAddressModeWrap, cudaFilterModeLinear, cudaReadModeElementType, 1);
    read_shifted<<<grid, block>>>(d_result, linear, -1.0f / 3, 0.25f, 1);
    checkCudaErrors(cudaMemcpy(result, d_result, sizeof result, cudaMemcpyDeviceToHost));
    int differ_exact = 0;
    for (int exact = 1; exact >= 0; exact--) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float u = (x + 0.5f - 1.0f / 3) / W, v = (y + 0.5f + 0.25f) / H;
                expected[y * W + x] =
                    host_linear(image, (u - floorf(u)) * W, (v - floorf(v)) * H, cudaAddressModeWrap, 0, exact);
            }
        if (exact) differ_exact = count_differences(result, expected, W * H, 1e-5f);
    }
    printf("linear, wrap, normalised: %d texels differ of %d by more than 1e-5 (%d from exact weights, not 9-bit)\n",
           count_differences(result, expected, W * H, 1e-5f), W * H, differ_exact);

    /* Linear filtering, Border: half a texel right, so the last column blends with the border colour -1. */
    cudaTextureObject_t border =
        make_texture(resource, cudaAddressModeBorder, cudaFilterModeLinear, cudaReadModeElementType, 0);
    read_shifted<<<grid, block>>>(d_result, border, 0.5f, 0.0f, 0);
    checkCudaErrors(cudaMemcpy(result, d_result, sizeof result, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            expected[y * W + x] = host_linear(image, x + 1.0f, y + 0.5f, cudaAddressModeBorder, -1.0f);
    printf("linear, border: %d texels differ of %d; texel (%d,0) %.1f next to the border -1 reads %.2f\n",
           count_differences(result, expected, W * H, 1e-5f), W * H, W - 1, image[W - 1], result[W - 1]);

    /* A 1-D array of uchar4 read as normalised floats: 255 is 1.0. */
    enum { COLOURS = 256 };
    uchar4 colours[COLOURS];
    for (int i = 0; i < COLOURS; i++) colours[i] = make_uchar4(i, 255 - i, i / 2, 255);
    cudaChannelFormatDesc bytes4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t colour_array;
    checkCudaErrors(cudaMallocArray(&colour_array, &bytes4, COLOURS));
    checkCudaErrors(cudaMemcpyToArray(colour_array, 0, 0, colours, sizeof colours, cudaMemcpyHostToDevice));
    cudaResourceDesc colour_resource;
    memset(&colour_resource, 0, sizeof colour_resource);
    colour_resource.resType = cudaResourceTypeArray;
    colour_resource.res.array.array = colour_array;
    cudaTextureObject_t colour_texture =
        make_texture(colour_resource, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, 0);
    float4 *d_colours, read_back[COLOURS];
    checkCudaErrors(cudaMalloc(&d_colours, sizeof read_back));
    read_colours<<<COLOURS / 64, 64>>>(d_colours, colour_texture, COLOURS);
    checkCudaErrors(cudaMemcpy(read_back, d_colours, sizeof read_back, cudaMemcpyDeviceToHost));
    int colour_differences = 0;
    for (int i = 0; i < COLOURS; i++)
        colour_differences += read_back[i].x != i / 255.0f || read_back[i].y != (255 - i) / 255.0f ||
                              read_back[i].z != (i / 2) / 255.0f || read_back[i].w != 1.0f;
    printf("uchar4 as normalised floats: %d of %d differ; texel 51 reads (%.1f, %.1f, %.1f, %.1f)\n",
           colour_differences, COLOURS, read_back[51].x, read_back[51].y, read_back[51].z, read_back[51].w);

    /* tex1Dfetch of ints in linear memory, Border: out of range reads the border colour, here 0 after the cast. */
    enum { N = 100 };
    int values[N], fetched[N + 4], *d_values, *d_fetched;
    for (int i = 0; i < N; i++) values[i] = 3 * i - 50 + (i == 7 ? 2000000001 : 0);
    checkCudaErrors(cudaMalloc(&d_values, sizeof values));
    checkCudaErrors(cudaMalloc(&d_fetched, sizeof fetched));
    checkCudaErrors(cudaMemcpy(d_values, values, sizeof values, cudaMemcpyHostToDevice));
    cudaResourceDesc linear_resource;
    memset(&linear_resource, 0, sizeof linear_resource);
    linear_resource.resType = cudaResourceTypeLinear;
    linear_resource.res.linear.devPtr = d_values;
    linear_resource.res.linear.desc = cudaCreateChannelDesc<int>();
    linear_resource.res.linear.sizeInBytes = sizeof values;
    cudaTextureDesc int_description;
    memset(&int_description, 0, sizeof int_description);
    int_description.addressMode[0] = cudaAddressModeBorder;
    int_description.readMode = cudaReadModeElementType;
    cudaTextureObject_t int_texture;
    checkCudaErrors(cudaCreateTextureObject(&int_texture, &linear_resource, &int_description, NULL));
    fetch_ints<<<1, 128>>>(d_fetched, int_texture, N);
    checkCudaErrors(cudaMemcpy(fetched, d_fetched, sizeof fetched, cudaMemcpyDeviceToHost));
    int int_differences = 0;
    for (int i = 0; i < N; i++) int_differences += fetched[i + 2] != values[i];
    printf("tex1Dfetch<int>: %d of %d differ; index -1 reads %d, index %d reads %d, index 7 reads %d\n",
           int_differences, N, fetched[1], N, fetched[N + 2], fetched[9]);

    /* Pitched memory (cudaMallocPitch, 512-byte rows) read with tex2D, point filtering. */
    float *pitched;
    size_t pitch;
    checkCudaErrors(cudaMallocPitch((void **)&pitched, &pitch, W * sizeof(float), H));
    checkCudaErrors(
        cudaMemcpy2D(pitched, pitch, image, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc pitched_resource;
    memset(&pitched_resource, 0, sizeof pitched_resource);
    pitched_resource.resType = cudaResourceTypePitch2D;
    pitched_resource.res.pitch2D.devPtr = pitched;
    pitched_resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    pitched_resource.res.pitch2D.width = W;
    pitched_resource.res.pitch2D.height = H;
    pitched_resource.res.pitch2D.pitchInBytes = pitch;
    cudaTextureObject_t pitched_texture =
        make_texture(pitched_resource, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
    read_shifted<<<grid, block>>>(d_result, pitched_texture, 0.0f, 0.0f, 0);
    checkCudaErrors(cudaMemcpy(result, d_result, sizeof result, cudaMemcpyDeviceToHost));
    printf("pitched memory (pitch %zu bytes): %d texels differ of %d\n", pitch,
           count_differences(result, image, W * H, 0.0f), W * H);

    checkCudaErrors(cudaDestroyTextureObject(point));
    checkCudaErrors(cudaDestroyTextureObject(linear));
    checkCudaErrors(cudaDestroyTextureObject(border));
    checkCudaErrors(cudaDestroyTextureObject(colour_texture));
    checkCudaErrors(cudaDestroyTextureObject(int_texture));
    checkCudaErrors(cudaDestroyTextureObject(pitched_texture));
    checkCudaErrors(cudaFreeArray(array));
    checkCudaErrors(cudaFreeArray(colour_array));
    checkCudaErrors(cudaFree(pitched));
    checkCudaErrors(cudaFree(d_result));
    checkCudaErrors(cudaFree(d_colours));
    checkCudaErrors(cudaFree(d_values));
    checkCudaErrors(cudaFree(d_fetched));
    printf("Test passed\n");
    return 0;
}
