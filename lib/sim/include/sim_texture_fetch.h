/* sim_texture_fetch.h (simulator) — tex1Dfetch, tex1D and tex2D, and cudaCreateChannelDesc<T>():
 * CUDA's texture fetch done in the kernel's own code (included by cuda_runtime.h).
 *
 * A fetch follows the CUDA C++ Programming Guide's appendix "Texture Fetching": a normalised
 * coordinate is first wrapped (x - floor(x)) or mirrored, then scaled by the texture's size; point
 * filtering reads texel floor(x); linear filtering reads texels i = floor(x - 0.5) and i + 1 (and
 * j, j + 1) and blends them with alpha = frac(x - 0.5), which a GPU holds in 9-bit fixed point with
 * 8 fractional bits: so does the simulator (alpha rounded to the nearest 1/256; the guide gives the
 * format, not whether the hardware rounds or truncates, and NVIDIA's simpleTexture reference image,
 * made on a GPU, agrees best with rounding: lib/sim/README.md, Textures). A texel outside the texture is clamped to
 * the edge, wrapped (normalised coordinates only), or the border colour; the guide defines Wrap and
 * Mirror for normalised coordinates only, and with unnormalised ones the simulator clamps.
 * cudaReadModeNormalizedFloat maps 8- and 16-bit integers to [0, 1] (unsigned) or [-1, 1] (signed,
 * -128 read as -1).
 * Each texel is read with an ordinary load of this file, so the access checks see it (a texture on
 * memory since freed is reported as such) and the metrics count it as a global load; a GPU reads it
 * through its texture cache, which the metrics do not model. */
#ifndef SIM_TEXTURE_FETCH_H
#define SIM_TEXTURE_FETCH_H

namespace sim {
namespace texture {

/* What a fetch of T gives: its channels, and whether they are floats. */
template <typename T> struct result {
    static_assert(std::is_arithmetic<T>::value,
                  "a texture fetch returns a scalar or a CUDA vector type (float4, uchar4 ...)");
    enum { channels = 1, is_float = std::is_floating_point<T>::value };
    template <typename S> static T make(const S *v) { return (T)v[0]; }
};
#define SIM_TEXTURE_RESULT(V, E)                                                                               \
    template <> struct result<V##1> {                                                                          \
        enum { channels = 1, is_float = std::is_floating_point<E>::value };                                    \
        template <typename S> static V##1 make(const S *v) { return V##1{(E)v[0]}; }                           \
    };                                                                                                         \
    template <> struct result<V##2> {                                                                          \
        enum { channels = 2, is_float = std::is_floating_point<E>::value };                                    \
        template <typename S> static V##2 make(const S *v) { return V##2{(E)v[0], (E)v[1]}; }                  \
    };                                                                                                         \
    template <> struct result<V##4> {                                                                          \
        enum { channels = 4, is_float = std::is_floating_point<E>::value };                                    \
        template <typename S> static V##4 make(const S *v) { return V##4{(E)v[0], (E)v[1], (E)v[2], (E)v[3]}; } \
    };
SIM_TEXTURE_RESULT(char, signed char)
SIM_TEXTURE_RESULT(uchar, unsigned char)
SIM_TEXTURE_RESULT(short, short)
SIM_TEXTURE_RESULT(ushort, unsigned short)
SIM_TEXTURE_RESULT(int, int)
SIM_TEXTURE_RESULT(uint, unsigned int)
SIM_TEXTURE_RESULT(float, float)
#undef SIM_TEXTURE_RESULT

/* Integer texels are carried as floats only when they read as normalised floats; otherwise through
 * these bits, so a 32-bit integer keeps every bit. */
union channel {
    float f;
    int i;
    unsigned u;
};

template <typename T> static inline T make(const sim_texture_view &v, const channel *c)
{
    float floats[4] = {};
    long long integers[4] = {};
    for (int k = 0; k < v.channels; k++) {
        floats[k] = c[k].f;
        integers[k] = v.kind == cudaChannelFormatKindSigned ? (long long)c[k].i : (long long)c[k].u;
    }
    return result<T>::is_float ? result<T>::make(floats) : result<T>::make(integers);
}

/* The fetch asks for what the texture holds: as many channels, float or integer as it reads. */
template <typename T> static inline void check_result(const sim_texture_view &v, const char *function)
{
    int reads_float = v.kind == cudaChannelFormatKindFloat || v.read_mode == cudaReadModeNormalizedFloat;
    if ((int)result<T>::channels != v.channels || (int)result<T>::is_float != reads_float)
        sim_kernel_fail(cudaErrorLaunchFailure,
            "%s<T>: T has %d %s channel%s, but the texture's texels read as %d %s channel%s%s", function,
            (int)result<T>::channels, result<T>::is_float ? "float" : "integer", result<T>::channels > 1 ? "s" : "",
            v.channels, reads_float ? "float" : "integer", v.channels > 1 ? "s" : "",
            reads_float || v.channel_bytes == 4 ? "" : " (cudaReadModeNormalizedFloat would make them floats)");
}

/* Channel values of texel (i, j); i or j < 0: the border colour. */
static inline void texel(const sim_texture_view &v, int i, int j, channel *out)
{
    if (i < 0 || j < 0) {
        for (int k = 0; k < 4; k++) {
            if (v.kind == cudaChannelFormatKindFloat || v.read_mode == cudaReadModeNormalizedFloat)
                out[k].f = v.border[k];
            else if (v.kind == cudaChannelFormatKindSigned) out[k].i = (int)v.border[k];
            else out[k].u = (unsigned)v.border[k];
        }
        return;
    }
    const unsigned char *p = v.texels + (size_t)j * v.pitch + (size_t)i * v.channels * v.channel_bytes;
    int is_signed = v.kind == cudaChannelFormatKindSigned;
    for (int k = 0; k < v.channels; k++, p += v.channel_bytes) {
        if (v.kind == cudaChannelFormatKindFloat) out[k].f = *(const float *)p;
        else if (v.channel_bytes == 4) out[k].u = *(const unsigned *)p;
        else if (v.channel_bytes == 2) out[k].i = is_signed ? *(const short *)p : *(const unsigned short *)p;
        else out[k].i = is_signed ? *(const signed char *)p : *(const unsigned char *)p;
        if (v.read_mode == cudaReadModeNormalizedFloat) {
            float top = (float)((1 << (8 * v.channel_bytes - is_signed)) - 1);
            float f = (float)out[k].i / top;
            out[k].f = f < -1.0f ? -1.0f : f;
        }
    }
}

/* The coordinate in texels: a normalised one wrapped or mirrored, then scaled. */
static inline float scaled(float u, int n, cudaTextureAddressMode mode, int normalized)
{
    if (!normalized) return u;
    if (mode == cudaAddressModeWrap) u -= floorf(u);
    else if (mode == cudaAddressModeMirror) {
        float whole = floorf(u);
        u = fmodf(whole, 2.0f) != 0.0f ? 1.0f - (u - whole) : u - whole;
    }
    return u * (float)n;
}

/* Texel index i of a side of n texels under the address mode; -1 for a border texel. */
static inline int address(float i, int n, cudaTextureAddressMode mode, int normalized)
{
    if (!(i >= -1e9f)) i = -1e9f;   /* NaN and far below */
    if (i > 1e9f) i = 1e9f;
    long long k = (long long)i;
    if (mode == cudaAddressModeBorder) return k < 0 || k >= n ? -1 : (int)k;
    if (mode == cudaAddressModeWrap && normalized) return (int)(((k % n) + n) % n);
    return k < 0 ? 0 : k >= n ? n - 1 : (int)k;
}

/* alpha in 9-bit fixed point, 8 bits of fraction, as the texture unit holds it. */
static inline float weight(float fraction) { return nearbyintf(fraction * 256.0f) / 256.0f; }

template <typename T> static inline T fetch(const sim_texture_view &v, float x, float y)
{
    int norm = v.normalized_coordinates, two = v.dimensions == 2;
    float sx = scaled(x, v.width, v.address_mode[0], norm), sy = two ? scaled(y, v.height, v.address_mode[1], norm) : 0;
    channel c[4] = {}, t[4][4] = {};
    if (v.filter == cudaFilterModePoint) {
        int i = address(floorf(sx), v.width, v.address_mode[0], norm);
        int j = two ? address(floorf(sy), v.height, v.address_mode[1], norm) : 0;
        texel(v, i, j, c);
        return make<T>(v, c);
    }
    float bx = sx - 0.5f, by = sy - 0.5f, fx = floorf(bx), fy = floorf(by);
    float a = weight(bx - fx), b = two ? weight(by - fy) : 0.0f;
    int i0 = address(fx, v.width, v.address_mode[0], norm), i1 = address(fx + 1, v.width, v.address_mode[0], norm);
    int j0 = two ? address(fy, v.height, v.address_mode[1], norm) : 0;
    int j1 = two ? address(fy + 1, v.height, v.address_mode[1], norm) : 0;
    texel(v, i0, j0, t[0]);
    texel(v, i1, j0, t[1]);
    if (two) {
        texel(v, i0, j1, t[2]);
        texel(v, i1, j1, t[3]);
    }
    for (int k = 0; k < v.channels; k++)
        c[k].f = two ? (1 - a) * (1 - b) * t[0][k].f + a * (1 - b) * t[1][k].f + (1 - a) * b * t[2][k].f +
                           a * b * t[3][k].f
                     : (1 - a) * t[0][k].f + a * t[1][k].f;
    return make<T>(v, c);
}

} /* namespace texture */
} /* namespace sim */

/* An integer index into linear memory (cudaResourceTypeLinear); no filtering, Clamp or Border. */
template <typename T> static inline T tex1Dfetch(cudaTextureObject_t texture, int x)
{
    sim_texture_view v = sim_texture_get(texture, "tex1Dfetch");
    if (!v.linear_memory)
        sim_kernel_fail(cudaErrorLaunchFailure, "tex1Dfetch reads linear memory (cudaResourceTypeLinear); this texture "
                        "holds a CUDA array or pitched memory: read it with tex1D or tex2D");
    sim::texture::check_result<T>(v, "tex1Dfetch");
    sim::texture::channel c[4] = {};
    sim::texture::texel(v, sim::texture::address((float)x, v.width, v.address_mode[0], 0), 0, c);
    return sim::texture::make<T>(v, c);
}

/* A 1-D CUDA array at coordinate x. */
template <typename T> static inline T tex1D(cudaTextureObject_t texture, float x)
{
    sim_texture_view v = sim_texture_get(texture, "tex1D");
    if (v.linear_memory || v.dimensions != 1)
        sim_kernel_fail(cudaErrorLaunchFailure, "tex1D reads a 1-D CUDA array; this texture holds %s",
                        v.linear_memory ? "linear memory: read it with tex1Dfetch" : "a 2-D one: read it with tex2D");
    sim::texture::check_result<T>(v, "tex1D");
    return sim::texture::fetch<T>(v, x, 0.0f);
}

/* A 2-D CUDA array or pitched memory at (x, y). */
template <typename T> static inline T tex2D(cudaTextureObject_t texture, float x, float y)
{
    sim_texture_view v = sim_texture_get(texture, "tex2D");
    if (v.dimensions != 2)
        sim_kernel_fail(cudaErrorLaunchFailure, "tex2D reads a 2-D CUDA array or pitched memory; this texture holds %s",
                        v.linear_memory ? "linear memory: read it with tex1Dfetch" : "a 1-D array: read it with tex1D");
    sim::texture::check_result<T>(v, "tex2D");
    return sim::texture::fetch<T>(v, x, y);
}

/* What is not simulated says so at compile time, rather than as an unknown name. */
namespace sim {
namespace texture {
template <typename> struct not_simulated : std::false_type {};
} /* namespace texture */
} /* namespace sim */
#define SIM_TEXTURE_NOT_SIMULATED(name, what)                                                                  \
    template <typename T, typename... Arguments> static inline T name(cudaTextureObject_t, Arguments...)      \
    {                                                                                                          \
        static_assert(sim::texture::not_simulated<T>::value, #name ": " what " (lib/sim/README.md, Textures)"); \
        return T();                                                                                            \
    }
SIM_TEXTURE_NOT_SIMULATED(tex3D, "3-D textures are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex1DLayered, "layered textures are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex2DLayered, "layered textures are not simulated")
SIM_TEXTURE_NOT_SIMULATED(texCubemap, "cube-map textures are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex1DLod, "mipmaps (levels of detail) are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex2DLod, "mipmaps (levels of detail) are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex1DGrad, "mipmaps (gradients) are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex2DGrad, "mipmaps (gradients) are not simulated")
SIM_TEXTURE_NOT_SIMULATED(tex2Dgather, "texture gather is not simulated")
#undef SIM_TEXTURE_NOT_SIMULATED

/* cudaCreateChannelDesc<T>(): the channel format of T (char is signed, as nvcc has it on x86). */
template <typename T> static inline cudaChannelFormatDesc cudaCreateChannelDesc()
{
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define SIM_CHANNEL_DESC(T, bits, kind)                                                                        \
    template <> inline cudaChannelFormatDesc cudaCreateChannelDesc<T>()                                        \
    {                                                                                                          \
        return cudaCreateChannelDesc(bits, 0, 0, 0, kind);                                                     \
    }
#define SIM_CHANNEL_DESCS(V, bits, kind)                                                                       \
    SIM_CHANNEL_DESC(V##1, bits, kind)                                                                         \
    template <> inline cudaChannelFormatDesc cudaCreateChannelDesc<V##2>()                                     \
    {                                                                                                          \
        return cudaCreateChannelDesc(bits, bits, 0, 0, kind);                                                  \
    }                                                                                                          \
    template <> inline cudaChannelFormatDesc cudaCreateChannelDesc<V##4>()                                     \
    {                                                                                                          \
        return cudaCreateChannelDesc(bits, bits, bits, bits, kind);                                            \
    }
SIM_CHANNEL_DESC(char, 8, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESC(signed char, 8, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESC(unsigned char, 8, cudaChannelFormatKindUnsigned)
SIM_CHANNEL_DESC(short, 16, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESC(unsigned short, 16, cudaChannelFormatKindUnsigned)
SIM_CHANNEL_DESC(int, 32, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESC(unsigned int, 32, cudaChannelFormatKindUnsigned)
SIM_CHANNEL_DESC(float, 32, cudaChannelFormatKindFloat)
SIM_CHANNEL_DESCS(char, 8, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESCS(uchar, 8, cudaChannelFormatKindUnsigned)
SIM_CHANNEL_DESCS(short, 16, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESCS(ushort, 16, cudaChannelFormatKindUnsigned)
SIM_CHANNEL_DESCS(int, 32, cudaChannelFormatKindSigned)
SIM_CHANNEL_DESCS(uint, 32, cudaChannelFormatKindUnsigned)
SIM_CHANNEL_DESCS(float, 32, cudaChannelFormatKindFloat)
#undef SIM_CHANNEL_DESC
#undef SIM_CHANNEL_DESCS

#endif
