/* sim_textures.h (simulator) — CUDA's texture objects and CUDA arrays, host side, in C as CUDA's
 * driver_types.h and cuda_runtime_api.h declare them (included by cuda_runtime_api.h).
 *
 * A CUDA array here is device memory like any other (one allocation, rows packed without padding),
 * so a kernel's texture fetch reads it through the same checks as any load (lib/sim/textures.c
 * keeps the objects; sim_texture_fetch.h does the fetch in the kernel's own code). Enumerator
 * values and field orders are CUDA's. */
#ifndef SIM_TEXTURES_H
#define SIM_TEXTURES_H

#include <stddef.h>

#ifdef __cplusplus
#define SIM_DEFAULT_ARGUMENT(value) = value
extern "C" {
#else
#define SIM_DEFAULT_ARGUMENT(value)
#endif

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1, cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc {
    int x, y, z, w;   /* bits of each channel */
    enum cudaChannelFormatKind f;
};
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);

typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
#define cudaArrayDefault 0x00

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height SIM_DEFAULT_ARGUMENT(0), unsigned int flags SIM_DEFAULT_ARGUMENT(0));
cudaError_t cudaFreeArray(cudaArray_t array);
/* Offsets and widths in bytes, heights in rows, as CUDA's. */
cudaError_t cudaMemcpy2DToArray(cudaArray_t destination, size_t width_offset, size_t height_offset, const void *source,
                                size_t source_pitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *destination, size_t destination_pitch, cudaArray_const_t source,
                                  size_t width_offset, size_t height_offset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToArray(cudaArray_t destination, size_t width_offset, size_t height_offset, const void *source,
                              size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *destination, cudaArray_const_t source, size_t width_offset,
                                size_t height_offset, size_t bytes, enum cudaMemcpyKind kind);

enum cudaResourceType {
    cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};
struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct { cudaArray_t array; } array;
        struct { cudaMipmappedArray_t mipmap; } mipmap;
        struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
    } res;
};
enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2, cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};
struct cudaResourceViewDesc;   /* views are not simulated: pass NULL */
typedef unsigned long long cudaTextureObject_t;

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texture, const struct cudaResourceDesc *resource,
                                    const struct cudaTextureDesc *description,
                                    const struct cudaResourceViewDesc *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *resource, cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *description, cudaTextureObject_t texture);

/* What a fetch needs of a texture object, copied out for the fetching thread (textures.c). */
typedef struct sim_texture_view {
    const unsigned char *texels;   /* device memory: texel (0, 0) */
    size_t pitch;                  /* bytes from one row to the next */
    int width, height;             /* texels; height 1 for a 1-D texture */
    int dimensions;                /* 1 (linear memory or a 1-D array) or 2 */
    int linear_memory;             /* cudaResourceTypeLinear: tex1Dfetch only */
    int channels, channel_bytes;   /* 1, 2 or 4 channels of 1, 2 or 4 bytes */
    enum cudaChannelFormatKind kind;
    enum cudaTextureAddressMode address_mode[2];
    enum cudaTextureFilterMode filter;
    enum cudaTextureReadMode read_mode;
    int normalized_coordinates;
    float border[4];
} sim_texture_view;
/* The texture's view, or the launch stops with a message naming `function` (an object never
 * created, or destroyed). Device code only. */
sim_texture_view sim_texture_get(cudaTextureObject_t texture, const char *function);

#ifdef __cplusplus
}
#endif
#undef SIM_DEFAULT_ARGUMENT

#endif
