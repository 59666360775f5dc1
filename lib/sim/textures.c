/* textures.c — CUDA arrays and texture objects: the host side of textures.
 *
 * A CUDA array is one device allocation (rows packed, no padding; a GPU lays its arrays out in a
 * tiled order it does not disclose, which no program can see), so that a kernel's texture fetch,
 * done in the kernel's own code (include/sim_texture_fetch.h), reads it through the access checks
 * like any load: a fetch from an array freed by cudaFreeArray is reported as a read of freed memory.
 * Copies to and from arrays are cudaMemcpy2D on that allocation, checked as every copy is.
 * A texture object is a number, 1 and up, indexing a table of what cudaCreateTextureObject was
 * given; kernels read it through sim_texture_get, a copy for the fetching thread. Objects are made
 * and destroyed by host code between launches, so workers only read the table. */
#include "internal.h"
#include "runtime.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cudaArray {
    struct cudaChannelFormatDesc desc;
    unsigned char *texels;   /* device memory */
    size_t width, height;    /* texels; height 0 for a 1-D array, as it was allocated */
    size_t texel_bytes;
};

typedef struct texture_record {
    int live;
    struct cudaResourceDesc resource;
    struct cudaTextureDesc description;
    sim_texture_view view;
} texture_record;

static texture_record *textures;
static size_t texture_count, texture_capacity;

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
    return (struct cudaChannelFormatDesc){x, y, z, w, f};
}

/* The number of channels (1, 2 or 4) and bytes per channel of a texel, or CUDA's error and a message
 * (cudaErrorNotSupported for what CUDA has and the simulator does not). */
static cudaError_t texel_format(const char *call, const struct cudaChannelFormatDesc *d, int *channels,
                                int *channel_bytes)
{
    int n = d->w ? 4 : d->z ? 3 : d->y ? 2 : 1;
    int same = (n < 2 || d->y == d->x) && (n < 3 || d->z == d->x) && (n < 4 || d->w == d->x);
    const char *why = NULL;
    cudaError_t error = cudaErrorInvalidValue;
    if (d->f == cudaChannelFormatKindNone || (unsigned)d->f > cudaChannelFormatKindFloat)
        why = "the channel kind must be Signed, Unsigned or Float";
    else if (!same || (d->x != 8 && d->x != 16 && d->x != 32))
        why = "each channel must have 8, 16 or 32 bits, all the same";
    else if (n == 3) why = "a texel has 1, 2 or 4 channels (CUDA has no 3-channel textures)";
    else if (d->f == cudaChannelFormatKindFloat && d->x != 32)
        why = "float channels of 16 bits are not simulated (use 32-bit float channels)", error = cudaErrorNotSupported;
    if (why) {
        fprintf(stderr, "sim: %s: channel format {%d, %d, %d, %d, kind %d}: %s\n", call, d->x, d->y, d->z, d->w,
                (int)d->f, why);
        return error;
    }
    *channels = n;
    *channel_bytes = d->x / 8;
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    int channels, channel_bytes;
    if (!array || !desc) return sim_record_error(cudaErrorInvalidValue);
    cudaError_t format_error = texel_format("cudaMallocArray", desc, &channels, &channel_bytes);
    if (format_error != cudaSuccess) return sim_record_error(format_error);
    *array = NULL;
    if (flags != cudaArrayDefault || width == 0 || width > 131072 || height > 65536) {
        fprintf(stderr, "sim: cudaMallocArray(width %zu, height %zu, flags 0x%x): %s\n", width, height, flags,
                flags ? "only cudaArrayDefault is simulated (no surface load/store, no texture gather)"
                      : "a 1-D array holds 1 to 131072 texels, a 2-D one up to 131072 x 65536");
        return sim_record_error(cudaErrorInvalidValue);
    }
    struct cudaArray *a = sim_alloc(1, sizeof *a);
    *a = (struct cudaArray){*desc, NULL, width, height, (size_t)channels * channel_bytes};
    cudaError_t error = sim_device_alloc((void **)&a->texels, a->texel_bytes * width * (height ? height : 1),
                                         __builtin_return_address(0));
    if (error != cudaSuccess) {
        free(a);
        return error;
    }
    *array = a;
    return cudaSuccess;
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (!array) return cudaSuccess;
    cudaError_t error = cudaFree(array->texels);
    if (error == cudaSuccess) free(array);
    return error;
}

/* The rectangle of `width` bytes by `height` rows at (width_offset bytes, height_offset rows) of the
 * array, or NULL and a message when it does not fit. */
static unsigned char *array_rectangle(const char *call, cudaArray_const_t array, size_t width_offset,
                                      size_t height_offset, size_t width, size_t height)
{
    if (!array) {
        fprintf(stderr, "sim: %s: the array is NULL\n", call);
        return NULL;
    }
    size_t row = array->width * array->texel_bytes, rows = array->height ? array->height : 1;
    if (width_offset > row || width > row - width_offset || height_offset > rows || height > rows - height_offset) {
        fprintf(stderr, "sim: %s: %zu rows of %zu bytes at byte %zu of row %zu do not fit the array's %zu rows of %zu "
                "bytes (offsets and widths are in bytes, not texels)\n", call, height, width, width_offset,
                height_offset, rows, row);
        return NULL;
    }
    return array->texels + height_offset * row + width_offset;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t destination, size_t width_offset, size_t height_offset, const void *source,
                                size_t source_pitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    unsigned char *to = array_rectangle("cudaMemcpy2DToArray", destination, width_offset, height_offset, width, height);
    if (!to) return sim_record_error(cudaErrorInvalidValue);
    return cudaMemcpy2D(to, destination->width * destination->texel_bytes, source, source_pitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArray(void *destination, size_t destination_pitch, cudaArray_const_t source,
                                  size_t width_offset, size_t height_offset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind)
{
    unsigned char *from = array_rectangle("cudaMemcpy2DFromArray", source, width_offset, height_offset, width, height);
    if (!from) return sim_record_error(cudaErrorInvalidValue);
    return cudaMemcpy2D(destination, destination_pitch, from, source->width * source->texel_bytes, width, height, kind);
}

/* The deprecated 1-D forms: `bytes` from (width_offset, height_offset) on, row after row. */
static unsigned char *array_run(const char *call, cudaArray_const_t array, size_t width_offset, size_t height_offset,
                                size_t bytes)
{
    unsigned char *start = array_rectangle(call, array, width_offset, height_offset, 0, 0);
    if (!start) return NULL;
    size_t total = array->width * array->texel_bytes * (array->height ? array->height : 1);
    if (bytes > total - (size_t)(start - array->texels)) {
        fprintf(stderr, "sim: %s: %zu bytes from byte %zu of row %zu run %zu bytes past the array's end\n", call, bytes,
                width_offset, height_offset, bytes - (total - (size_t)(start - array->texels)));
        return NULL;
    }
    return start;
}

cudaError_t cudaMemcpyToArray(cudaArray_t destination, size_t width_offset, size_t height_offset, const void *source,
                              size_t bytes, enum cudaMemcpyKind kind)
{
    unsigned char *to = array_run("cudaMemcpyToArray", destination, width_offset, height_offset, bytes);
    if (!to) return sim_record_error(cudaErrorInvalidValue);
    return cudaMemcpy(to, source, bytes, kind);
}

cudaError_t cudaMemcpyFromArray(void *destination, cudaArray_const_t source, size_t width_offset,
                                size_t height_offset, size_t bytes, enum cudaMemcpyKind kind)
{
    unsigned char *from = array_run("cudaMemcpyFromArray", source, width_offset, height_offset, bytes);
    if (!from) return sim_record_error(cudaErrorInvalidValue);
    return cudaMemcpy(destination, from, bytes, kind);
}

/* ---------------------------------------------------------------------------------
 * Texture objects */

/* Linear or pitched memory must lie in one live allocation, start on the 512-byte textureAlignment
 * and (pitched) have rows a multiple of the 32-byte texturePitchAlignment, as CUDA requires. */
static cudaError_t check_memory(const void *pointer, size_t bytes, size_t pitch, const char *what)
{
    uintptr_t p = (uintptr_t)pointer;
    const allocation *a = sim_find_allocation(p);
    const char *why = NULL;
    if (!a || a->freed) why = "is not in a live allocation from cudaMalloc";
    else if (bytes > a->start + a->bytes - p) why = "runs past the end of its allocation";
    else if (p % 512) why = "does not start on the 512-byte textureAlignment";
    else if (pitch % 32) why = "has a pitch that is not a multiple of the 32-byte texturePitchAlignment";
    if (!why) return cudaSuccess;
    fprintf(stderr, "sim: cudaCreateTextureObject: the %s at %p (%zu bytes) %s\n", what, pointer, bytes, why);
    return cudaErrorInvalidValue;
}

/* Fills in `view` from a resource; CUDA's error and a message if it would refuse it, or the simulator's. */
static cudaError_t describe_resource(const struct cudaResourceDesc *r, sim_texture_view *view)
{
    const struct cudaChannelFormatDesc *format;
    switch (r->resType) {
    case cudaResourceTypeArray: {
        cudaArray_const_t a = r->res.array.array;
        if (!a) {
            fprintf(stderr, "sim: cudaCreateTextureObject: res.array.array is NULL\n");
            return cudaErrorInvalidValue;
        }
        format = &a->desc;
        view->texels = a->texels;
        view->width = (int)a->width;
        view->height = a->height ? (int)a->height : 1;
        view->pitch = a->width * a->texel_bytes;
        view->dimensions = a->height ? 2 : 1;
        break;
    }
    case cudaResourceTypeLinear:
        format = &r->res.linear.desc;
        view->texels = r->res.linear.devPtr;
        view->dimensions = 1;
        view->linear_memory = 1;
        view->height = 1;
        break;
    case cudaResourceTypePitch2D:
        format = &r->res.pitch2D.desc;
        view->texels = r->res.pitch2D.devPtr;
        view->width = (int)r->res.pitch2D.width;
        view->height = (int)r->res.pitch2D.height;
        view->pitch = r->res.pitch2D.pitchInBytes;
        view->dimensions = 2;
        break;
    default:
        fprintf(stderr, "sim: cudaCreateTextureObject: resource type %d is not simulated (arrays, linear and "
                "pitched memory are; mipmapped arrays are not)\n", (int)r->resType);
        return r->resType == cudaResourceTypeMipmappedArray ? cudaErrorNotSupported : cudaErrorInvalidValue;
    }
    view->kind = format->f;
    cudaError_t format_error = texel_format("cudaCreateTextureObject", format, &view->channels, &view->channel_bytes);
    if (format_error != cudaSuccess) return format_error;
    size_t texel = (size_t)view->channels * view->channel_bytes;
    if (r->resType == cudaResourceTypeLinear) {
        if (r->res.linear.sizeInBytes % texel || r->res.linear.sizeInBytes / texel > (1u << 27)) {
            fprintf(stderr, "sim: cudaCreateTextureObject: sizeInBytes %zu is not a whole number of %zu-byte texels "
                    "(at most 2^27 of them)\n", r->res.linear.sizeInBytes, texel);
            return cudaErrorInvalidValue;
        }
        view->width = (int)(r->res.linear.sizeInBytes / texel);
        return check_memory(view->texels, r->res.linear.sizeInBytes, 0, "linear memory");
    }
    if (r->resType == cudaResourceTypePitch2D) {
        size_t width = r->res.pitch2D.width, height = r->res.pitch2D.height, pitch = r->res.pitch2D.pitchInBytes;
        if (!width || !height || width > 131072 || height > 65536 || width * texel > pitch) {
            fprintf(stderr, "sim: cudaCreateTextureObject: pitched memory of %zu x %zu texels of %zu bytes with a "
                    "pitch of %zu bytes: %s\n", width, height, texel, pitch,
                    width * texel > pitch ? "a row is wider than the pitch (the width is in texels, the pitch in bytes)"
                                          : "each side must be 1 to 65536 texels (131072 wide)");
            return cudaErrorInvalidValue;
        }
        return check_memory(view->texels, pitch * (height - 1) + width * texel, pitch, "pitched memory");
    }
    return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texture, const struct cudaResourceDesc *resource,
                                    const struct cudaTextureDesc *description,
                                    const struct cudaResourceViewDesc *view_description)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (!texture || !resource || !description) return sim_record_error(cudaErrorInvalidValue);
    if (view_description) {
        fprintf(stderr, "sim: cudaCreateTextureObject: resource views are not simulated (pass NULL)\n");
        return sim_record_error(cudaErrorNotSupported);
    }
    sim_texture_view view = {0};
    cudaError_t resource_error = describe_resource(resource, &view);
    if (resource_error != cudaSuccess) return sim_record_error(resource_error);
    const struct cudaTextureDesc *d = description;
    int float_result = view.kind == cudaChannelFormatKindFloat || d->readMode == cudaReadModeNormalizedFloat;
    const char *why = NULL;
    cudaError_t error = cudaErrorInvalidValue;
    for (int i = 0; i < 2; i++)
        if ((unsigned)d->addressMode[i] > cudaAddressModeBorder)
            why = "an address mode is not Wrap, Clamp, Mirror or Border";
    if ((unsigned)d->filterMode > cudaFilterModeLinear) why = "the filter mode is not Point or Linear";
    else if ((unsigned)d->readMode > cudaReadModeNormalizedFloat)
        why = "the read mode is not ElementType or NormalizedFloat";
    else if (d->readMode == cudaReadModeNormalizedFloat && view.kind != cudaChannelFormatKindFloat &&
             view.channel_bytes == 4)
        why = "cudaReadModeNormalizedFloat takes 8- and 16-bit integer channels only";
    else if (d->filterMode == cudaFilterModeLinear && !float_result)
        why = "linear filtering needs texels that read as float (float channels, or cudaReadModeNormalizedFloat)";
    else if (d->filterMode == cudaFilterModeLinear && view.linear_memory)
        why = "linear memory (cudaResourceTypeLinear) is read with tex1Dfetch, which does not filter";
    else if (d->sRGB || d->maxAnisotropy > 1 || d->seamlessCubemap)
        why = "sRGB, anisotropic filtering and cube maps are not simulated", error = cudaErrorNotSupported;
    if (why) {
        fprintf(stderr, "sim: cudaCreateTextureObject: %s\n", why);
        return sim_record_error(error);
    }
    view.address_mode[0] = d->addressMode[0];
    view.address_mode[1] = d->addressMode[1];
    view.filter = d->filterMode;
    view.read_mode = view.kind == cudaChannelFormatKindFloat ? cudaReadModeElementType : d->readMode;
    view.normalized_coordinates = d->normalizedCoords != 0;
    memcpy(view.border, d->borderColor, sizeof view.border);
    sim_grow((void **)&textures, &texture_capacity, texture_count + 1, sizeof *textures, 16);
    textures[texture_count] = (texture_record){1, *resource, *description, view};
    *texture = ++texture_count;
    return cudaSuccess;
}

static texture_record *find_texture(cudaTextureObject_t texture)
{
    return texture >= 1 && texture <= texture_count ? &textures[texture - 1] : NULL;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture)
{
    texture_record *t = find_texture(texture);
    if (!texture) return cudaSuccess;
    if (!t || !t->live) {
        fprintf(stderr, "sim: cudaDestroyTextureObject(%llu): %s\n", texture,
                t ? "already destroyed" : "not a texture object from cudaCreateTextureObject");
        return sim_record_error(cudaErrorInvalidValue);
    }
    t->live = 0;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *resource, cudaTextureObject_t texture)
{
    texture_record *t = find_texture(texture);
    if (!resource || !t || !t->live) return sim_record_error(cudaErrorInvalidValue);
    *resource = t->resource;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *description, cudaTextureObject_t texture)
{
    texture_record *t = find_texture(texture);
    if (!description || !t || !t->live) return sim_record_error(cudaErrorInvalidValue);
    *description = t->description;
    return cudaSuccess;
}

sim_texture_view sim_texture_get(cudaTextureObject_t texture, const char *function)
{
    worker *w = sim_current_worker;
    if (!w || !w->running) sim_crash("%s called from host code; texture fetches are device functions", function);
    texture_record *t = find_texture(texture);
    if (!t || !t->live)
        sim_kernel_fail(cudaErrorLaunchFailure, "%s: texture object %llu %s", function, texture,
                        t ? "was destroyed by cudaDestroyTextureObject before this launch"
                          : "was never created by cudaCreateTextureObject (is it 0, or uninitialised?)");
    return t->view;
}
