/* cuda_runtime.h (simulator) — the CUDA names, for .cu files compiled as C++ for the CPU.
 *
 * lib/sim/tools/simcc compiles a .cu file with clang++ and includes this header first, as nvcc
 * includes the real one. Together with the launch and __shared__ rewriting done by
 * tools/cu2sim, it lets the same source run on the simulator: the qualifiers vanish,
 * the built-in variables read the running CUDA thread's indices, __syncthreads() is a
 * barrier among the block's fibers, and a launch runs the whole grid before it returns.
 * Only what the book uses is here; anything else is a compile error, not a surprise. */
#ifndef SIM_CUDA_RUNTIME_H
#define SIM_CUDA_RUNTIME_H

#ifndef __cplusplus
#error "the simulator compiles .cu files as C++: use lib/sim/tools/simcc, not a C compiler"
#endif

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>         /* before clock() is defined below: <time.h> declares the C library's */
#include <memory>        /* before __noinline__ is defined: libstdc++ spells the attribute that way */
#include <tuple>
#include <type_traits>
#include <utility>

#include "../sim.h"
#include "cuda_runtime_api.h"
#include "sim_metrics.h"

#define SIM_CUDA 1

/* __CUDA_ARCH__ is not defined. nvcc compiles a .cu file twice, defining it (as 800, 900, ...) only
 * in the pass that compiles device code; the simulator compiles host and device code in one pass
 * for the CPU, which is the host pass. So `#ifndef __CUDA_ARCH__` host code stays host code, and
 * device code tested with `#ifdef __CUDA_ARCH__` or `#if __CUDA_ARCH__ >= 800` takes the path nvcc's
 * host pass takes (lib/sim/README.md, "Where it differs from a GPU"). A program can tell it runs on
 * the simulator by SIM_CUDA. */
#ifdef __CUDA_ARCH__
#error "__CUDA_ARCH__ is defined: the simulator compiles one host pass, where CUDA leaves it undefined (lib/sim/README.md)"
#endif

/* ---------------------------------------------------------------------------------
 * Qualifiers: on the CPU every function runs anywhere and every variable is host memory */

#define __global__ __attribute__((noinline))   /* kernels are never inlined on a GPU either */
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __launch_bounds__(...)

/* ---------------------------------------------------------------------------------
 * Vector types and dim3 */

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* CUDA's vector types (vector_types.h): a 2-vector is aligned to twice its element, a 4-vector to
 * four times it, at most 16 bytes; 1- and 3-vectors to their element. CUDA 13 deprecates the 4-vectors
 * of 8-byte elements (long4, ulong4, longlong4, ulonglong4, double4) for the _16a and _32a types that
 * name their alignment; so does the simulator, and __NV_NO_VECTOR_DEPRECATION_DIAG silences it, as there. */
#ifdef __NV_NO_VECTOR_DEPRECATION_DIAG
#define SIM_VECTOR_DEPRECATED(name)
#else
#define SIM_VECTOR_DEPRECATED(name) __attribute__((deprecated("use " #name "4_16a or " #name "4_32a")))
#endif
#define SIM_VECTOR_TYPES_123(T, name)                                                  \
    struct name##1 { T x; };                                                          \
    struct alignas(2 * sizeof(T)) name##2 { T x, y; };                                \
    struct name##3 { T x, y, z; };                                                    \
    static inline name##1 make_##name##1(T x) { return name##1{x}; }                  \
    static inline name##2 make_##name##2(T x, T y) { return name##2{x, y}; }          \
    static inline name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; }
#define SIM_VECTOR_TYPE_4(T, name, ...)                                                \
    struct __VA_ARGS__ alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) name##4 { T x, y, z, w; };
#define SIM_MAKE_4(T, name, suffix) \
    static inline name##4##suffix make_##name##4##suffix(T x, T y, T z, T w) { return name##4##suffix{x, y, z, w}; }
#define SIM_SMALL_VECTOR_TYPES(T, name) SIM_VECTOR_TYPES_123(T, name) SIM_VECTOR_TYPE_4(T, name) SIM_MAKE_4(T, name, )
#define SIM_WIDE_VECTOR_TYPES(T, name)                                                 \
    SIM_VECTOR_TYPES_123(T, name) SIM_VECTOR_TYPE_4(T, name, SIM_VECTOR_DEPRECATED(name)) \
    struct alignas(16) name##4_16a { T x, y, z, w; };                                 \
    struct alignas(32) name##4_32a { T x, y, z, w; };                                 \
    SIM_MAKE_4(T, name, _16a) SIM_MAKE_4(T, name, _32a)                               \
    _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wdeprecated-declarations\"") \
    SIM_MAKE_4(T, name, ) _Pragma("clang diagnostic pop")
SIM_SMALL_VECTOR_TYPES(signed char, char)
SIM_SMALL_VECTOR_TYPES(unsigned char, uchar)
SIM_SMALL_VECTOR_TYPES(short, short)
SIM_SMALL_VECTOR_TYPES(unsigned short, ushort)
SIM_SMALL_VECTOR_TYPES(int, int)
SIM_SMALL_VECTOR_TYPES(float, float)
SIM_WIDE_VECTOR_TYPES(long, long)
SIM_WIDE_VECTOR_TYPES(unsigned long, ulong)
SIM_WIDE_VECTOR_TYPES(long long, longlong)
SIM_WIDE_VECTOR_TYPES(unsigned long long, ulonglong)
SIM_WIDE_VECTOR_TYPES(double, double)
/* uint3 is sim.h's (the built-in variables are uint3s); the other uint vectors are as above. */
struct uint1 { unsigned int x; };
struct alignas(8) uint2 { unsigned int x, y; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
static inline uint1 make_uint1(unsigned x) { return uint1{x}; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
#undef SIM_VECTOR_TYPES_123
#undef SIM_VECTOR_TYPE_4
#undef SIM_MAKE_4
#undef SIM_SMALL_VECTOR_TYPES
#undef SIM_WIDE_VECTOR_TYPES
#undef SIM_VECTOR_DEPRECATED

/* ---------------------------------------------------------------------------------
 * Built-in variables: the running CUDA thread's, kept in thread-local variables */

/* On x86-64 they are read from thread-local storage by instructions of their own, out of sight
 * of the access checks: they are special registers on a GPU, not memory, and they never change
 * during a thread's life, so the compiler may read them once. The variables are the main
 * program's (lib/sim), and a .cu file may be linked into a shared library loaded with it (a lab's
 * code: tools/build/build-lab), so their place is taken from the GOT (the initial-exec model). */
#if defined(__x86_64__)
namespace sim {
template <int OFFSET> static inline __attribute__((always_inline)) uint3 builtin()
{
    uint3 v;
    unsigned long tls_offset;
    __asm__("movq sim_builtins@gottpoff(%%rip), %3\n\t"
            "movl %%fs:%c4(%3), %0\n\t"
            "movl %%fs:%c5(%3), %1\n\t"
            "movl %%fs:%c6(%3), %2"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(tls_offset)
            : "i"(OFFSET), "i"(OFFSET + 4), "i"(OFFSET + 8));
    return v;
}
} /* namespace sim */
#define threadIdx (sim::builtin<0>())
#define blockIdx (sim::builtin<12>())
#define blockDim (sim::builtin<24>())
#define gridDim (sim::builtin<36>())
#else
#define threadIdx (sim_builtins.thread_idx)
#define blockIdx (sim_builtins.block_idx)
#define blockDim (sim_builtins.block_dim)
#define gridDim (sim_builtins.grid_dim)
#endif
#define warpSize 32

/* In a kernel, steps of the running CUDA thread, not cycles (sim.h: sim_clock); in host code, the C
 * library's clock(). */
#define clock() sim_clock()
namespace std { using ::sim_clock; }
static inline long long int clock64() { return sim_clock64(); }

#define __syncthreads() sim_syncthreads_at(__FILE__, __LINE__)
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* ---------------------------------------------------------------------------------
 * Warp collectives: a value of up to 8 bytes travels as its bits */

namespace sim {
template <typename T> static inline unsigned long long to_bits(T value)
{
    static_assert(sizeof(T) <= 8, "a shuffled value has at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof value);
    return bits;
}
template <typename T> static inline T from_bits(unsigned long long bits)
{
    T value;
    memcpy(&value, &bits, sizeof value);
    return value;
}
template <typename T>
static inline T shuffle(const char *file, int line, sim_collective_kind kind, unsigned mask, T value, int argument,
                        int width = 32)
{
    return from_bits<T>(sim_warp_collective(kind, mask, to_bits(value), argument, width, file, line));
}
} /* namespace sim */

#define __shfl_sync(...) sim::shuffle(__FILE__, __LINE__, COLLECTIVE_SHFL, __VA_ARGS__)
#define __shfl_up_sync(...) sim::shuffle(__FILE__, __LINE__, COLLECTIVE_SHFL_UP, __VA_ARGS__)
#define __shfl_down_sync(...) sim::shuffle(__FILE__, __LINE__, COLLECTIVE_SHFL_DOWN, __VA_ARGS__)
#define __shfl_xor_sync(...) sim::shuffle(__FILE__, __LINE__, COLLECTIVE_SHFL_XOR, __VA_ARGS__)
#define __ballot_sync(mask, predicate) \
    ((unsigned)sim_warp_collective(COLLECTIVE_BALLOT, (mask), (predicate) != 0, 0, 32, __FILE__, __LINE__))
#define __any_sync(mask, predicate) \
    ((int)sim_warp_collective(COLLECTIVE_ANY, (mask), (predicate) != 0, 0, 32, __FILE__, __LINE__))
#define __all_sync(mask, predicate) \
    ((int)sim_warp_collective(COLLECTIVE_ALL, (mask), (predicate) != 0, 0, 32, __FILE__, __LINE__))
#define __syncwarp(...) sim_syncwarp(__FILE__, __LINE__, ##__VA_ARGS__)
static inline void sim_syncwarp(const char *file, int line, unsigned mask = 0xffffffffu)
{
    sim_warp_collective(COLLECTIVE_SYNCWARP, mask, 0, 0, 32, file, line);
}
#define __activemask() sim_activemask()

/* C's classification macros, unqualified, as device code writes them (C++ has them in std::). */
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

/* CUDA's integer min and max by name, and for a signed and an unsigned operand: both converted to
 * unsigned, as CUDA's math headers do. */
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline unsigned min(int a, unsigned b) { return umin((unsigned)a, b); }
static inline unsigned min(unsigned a, int b) { return umin(a, (unsigned)b); }
static inline unsigned max(int a, unsigned b) { return umax((unsigned)a, b); }
static inline unsigned max(unsigned a, int b) { return umax(a, (unsigned)b); }
static inline unsigned long long min(long long a, unsigned long long b) { return ullmin((unsigned long long)a, b); }
static inline unsigned long long min(unsigned long long a, long long b) { return ullmin(a, (unsigned long long)b); }
static inline unsigned long long max(long long a, unsigned long long b) { return ullmax((unsigned long long)a, b); }
static inline unsigned long long max(unsigned long long a, long long b) { return ullmax(a, (unsigned long long)b); }

/* Device code may call min and max on mixed integer and float types. */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }

/* ---------------------------------------------------------------------------------
 * Atomics, for the types CUDA defines them for (another type is a compile error, as with nvcc) */

#define SIM_INTEGER_ATOMICS(T, F)                                                                            \
    static inline T atomicAdd(T *a, T v) { return F(SIM_ATOMIC_ADD, a, v, 0); }                          \
    static inline T atomicExch(T *a, T v) { return F(SIM_ATOMIC_EXCH, a, v, 0); }                        \
    static inline T atomicMin(T *a, T v) { return F(SIM_ATOMIC_MIN, a, v, 0); }                          \
    static inline T atomicMax(T *a, T v) { return F(SIM_ATOMIC_MAX, a, v, 0); }                          \
    static inline T atomicCAS(T *a, T compare, T v) { return F(SIM_ATOMIC_CAS, a, v, compare); }         \
    static inline T atomicAnd(T *a, T v) { return F(SIM_ATOMIC_AND, a, v, 0); }                          \
    static inline T atomicOr(T *a, T v) { return F(SIM_ATOMIC_OR, a, v, 0); }                            \
    static inline T atomicXor(T *a, T v) { return F(SIM_ATOMIC_XOR, a, v, 0); }
SIM_INTEGER_ATOMICS(int, sim_atomic_int)
SIM_INTEGER_ATOMICS(unsigned int, sim_atomic_uint)
SIM_INTEGER_ATOMICS(unsigned long long, sim_atomic_ull)
#undef SIM_INTEGER_ATOMICS
static inline int atomicSub(int *a, int v) { return sim_atomic_int(SIM_ATOMIC_SUB, a, v, 0); }
static inline unsigned atomicSub(unsigned *a, unsigned v) { return sim_atomic_uint(SIM_ATOMIC_SUB, a, v, 0); }
static inline long long atomicMin(long long *a, long long v) { return sim_atomic_ll(SIM_ATOMIC_MIN, a, v, 0); }
static inline long long atomicMax(long long *a, long long v) { return sim_atomic_ll(SIM_ATOMIC_MAX, a, v, 0); }
static inline unsigned atomicInc(unsigned *a, unsigned v) { return sim_atomic_uint(SIM_ATOMIC_INC, a, v, 0); }
static inline unsigned atomicDec(unsigned *a, unsigned v) { return sim_atomic_uint(SIM_ATOMIC_DEC, a, v, 0); }
static inline float atomicAdd(float *a, float v) { return sim_atomic_float(SIM_ATOMIC_ADD, a, v); }
static inline float atomicExch(float *a, float v) { return sim_atomic_float(SIM_ATOMIC_EXCH, a, v); }
static inline double atomicAdd(double *a, double v) { return sim_atomic_double(SIM_ATOMIC_ADD, a, v); }

/* ---------------------------------------------------------------------------------
 * Math: the fast intrinsics compute what their names say, at full precision here
 * (macros where the C library already declares the name for itself) */

#define __expf(x) expf(x)
#define __exp10f(x) powf(10.0f, (x))
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __sincosf(x, s, c) (*(s) = sinf(x), *(c) = cosf(x))
#define __powf(x, y) powf((x), (y))

static inline float __fdividef(float x, float y) { return x / y; }
static inline float fdividef(float x, float y) { return x / y; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline int __float2int_rn(float x) { return (int)rintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)rintf(x); }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
static inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
static inline float __uint_as_float(unsigned i) { float x; memcpy(&x, &i, 4); return x; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, 8); return x; }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
static inline int __mul24(int a, int b) { return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
/* Loads and stores with a cache hint (read-only, streaming, L2 only, ...): one ordinary access here,
 * checked and counted like any other; the hint changes where a GPU keeps the line, not the value. */
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return *p; }
template <typename T> static inline T __ldca(const T *p) { return *p; }
template <typename T> static inline T __ldcs(const T *p) { return *p; }
template <typename T> static inline T __ldlu(const T *p) { return *p; }
template <typename T> static inline T __ldcv(const T *p) { return *p; }
template <typename T> static inline void __stwb(T *p, T v) { *p = v; }
template <typename T> static inline void __stcg(T *p, T v) { *p = v; }
template <typename T> static inline void __stcs(T *p, T v) { *p = v; }
template <typename T> static inline void __stwt(T *p, T v) { *p = v; }

/* ---------------------------------------------------------------------------------
 * Host API conveniences that CUDA declares with C++ default arguments or templates */

static inline cudaError_t cudaEventRecord(cudaEvent_t event) { return cudaEventRecord(event, 0); }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
    return cudaMemcpyAsync(d, s, n, k, 0);
}
template <typename T> static inline cudaError_t cudaMalloc(T **pointer, size_t bytes)
{
    return cudaMalloc(reinterpret_cast<void **>(pointer), bytes);
}
template <typename T> static inline cudaError_t cudaMallocManaged(T **pointer, size_t bytes,
                                                               unsigned int flags = cudaMemAttachGlobal)
{
    return cudaMallocManaged(reinterpret_cast<void **>(pointer), bytes, flags);
}
static inline cudaError_t cudaMemPrefetchAsync(const void *pointer, size_t bytes, cudaMemLocation location,
                                               unsigned int flags)
{
    return cudaMemPrefetchAsync(pointer, bytes, location, flags, 0);
}
template <typename T> static inline cudaError_t cudaMallocHost(T **pointer, size_t bytes)
{
    return cudaMallocHost(reinterpret_cast<void **>(pointer), bytes);
}
static inline cudaError_t cudaMallocHost(void **pointer, size_t bytes, unsigned int flags)
{
    return cudaHostAlloc(pointer, bytes, flags);
}
template <typename T> static inline cudaError_t cudaMallocHost(T **pointer, size_t bytes, unsigned int flags)
{
    return cudaHostAlloc(reinterpret_cast<void **>(pointer), bytes, flags);
}
template <typename T> static inline cudaError_t cudaHostAlloc(T **pointer, size_t bytes, unsigned int flags)
{
    return cudaHostAlloc(reinterpret_cast<void **>(pointer), bytes, flags);
}
template <typename T> static inline cudaError_t cudaHostGetDevicePointer(T **device_pointer, void *host_pointer,
                                                                      unsigned int flags)
{
    return cudaHostGetDevicePointer(reinterpret_cast<void **>(device_pointer), host_pointer, flags);
}
template <typename T> static inline cudaError_t cudaMallocPitch(T **pointer, size_t *pitch, size_t width, size_t height)
{
    return cudaMallocPitch(reinterpret_cast<void **>(pointer), pitch, width, height);
}
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind)
{
    return cudaMemcpy2DAsync(d, dpitch, s, spitch, width, height, kind, 0);
}
static inline cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height)
{
    return cudaMemset2DAsync(p, pitch, value, width, height, 0);
}

/* A cooperative launch is refused: the simulated GPU reports cudaDevAttrCooperativeLaunch = 0. */
static inline cudaError_t cudaLaunchCooperativeKernel(const void *kernel, dim3 grid, dim3 block, void **arguments,
                                                      size_t shared_bytes, cudaStream_t stream)
{
    return sim_launch_cooperative(kernel);
}
template <typename T>
static inline cudaError_t cudaLaunchCooperativeKernel(T *kernel, dim3 grid, dim3 block, void **arguments,
                                                      size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    return sim_launch_cooperative(reinterpret_cast<const void *>(kernel));
}
template <typename T>
static inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *source, size_t bytes,
                                             size_t offset = 0, cudaMemcpyKind = cudaMemcpyHostToDevice)
{
    return sim_memcpy_symbol((void *)&symbol, sizeof(T), (void *)source, bytes, offset, 1);
}
template <typename T>
static inline cudaError_t cudaMemcpyFromSymbol(void *destination, const T &symbol, size_t bytes,
                                               size_t offset = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost)
{
    return sim_memcpy_symbol((void *)&symbol, sizeof(T), destination, bytes, offset, 0);
}

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <typename... P>
static inline cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attribute, int value)
{
    if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaErrorNotSupported;
    return sim_set_max_dynamic_shared(reinterpret_cast<const void *>(kernel), value);
}

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01   /* waits alike here: launches run on the calling thread */
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04

/* ---------------------------------------------------------------------------------
 * Launches and shared memory, as tools/cu2sim rewrites them */

namespace sim {

/* `k<<<grid, block, smem, stream>>>(args...)` becomes
 * `sim::launcher(k, "k", __FILE__, __LINE__, grid, block, smem, stream)(args...)`.
 * The arguments are converted to the kernel's parameter types once, at the launch, as
 * CUDA copies them into the launch; every CUDA thread then calls the kernel with them. */
/* Unpacks the parameters and calls the kernel: the simulator's own code, so its reads of the
 * parameter block are not watched (kernels are never inlined into it). */
template <typename Packed, size_t... I>
__attribute__((no_sanitize("coverage"), always_inline)) static inline void call_with(Packed *l, std::index_sequence<I...>)
{
    l->kernel(std::get<I>(l->values)...);
}
template <typename Packed> __attribute__((no_sanitize("coverage"))) static void start_thread(void *p)
{
    Packed *l = static_cast<Packed *>(p);
    call_with(l, std::make_index_sequence<std::tuple_size<decltype(l->values)>::value>{});
}

template <typename... P> struct launch_statement {
    void (*kernel)(P...);
    sim_launch_request request;

    template <typename... A> cudaError_t operator()(A &&...arguments) const
    {
        static_assert(sizeof...(A) == sizeof...(P), "wrong number of arguments in a kernel launch");
        using parameters = std::tuple<typename std::decay<P>::type...>;
        struct packed { void (*kernel)(P...); parameters values; };
        packed launch{kernel, parameters(std::forward<A>(arguments)...)};
        sim_launch_request r = request;
        r.run_thread = &start_thread<packed>;
        r.arguments = &launch;
        r.arguments_bytes = sizeof launch;
        return sim_launch(&r);
    }
};

template <typename... P>
static inline launch_statement<P...> launcher(void (*kernel)(P...), const char *name, const char *file,
                                              int line, dim3 grid, dim3 block, size_t shared_bytes = 0,
                                              cudaStream_t stream = 0)
{
    launch_statement<P...> s;
    s.kernel = kernel;
    s.request = sim_launch_request{name, file, line, reinterpret_cast<const void *>(kernel),
                                   grid, block, shared_bytes, stream, nullptr, nullptr, 0};
    return s;
}

/* cudaLaunchKernel(kernel, grid, block, arguments, shared_bytes, stream): arguments[i] points at the
 * kernel's i-th argument, each copied into the launch as <<< >>> copies them. */
template <typename... P, size_t... I>
static inline cudaError_t launch_from_array(void (*kernel)(P...), const char *name, const char *file, int line,
                                            dim3 grid, dim3 block, void **arguments, size_t shared_bytes,
                                            cudaStream_t stream, std::index_sequence<I...>)
{
    return launcher(kernel, name, file, line, grid, block, shared_bytes, stream)(
        *static_cast<typename std::decay<P>::type *>(arguments[I])...);
}

/* A listed kernel's entry (SIM_LIST_KERNEL): its address, and a launch that knows its parameters. */
template <auto K> static const void *kernel_address() { return reinterpret_cast<const void *>(K); }
template <typename... P> static constexpr size_t parameter_count(void (*)(P...)) { return sizeof...(P); }
template <auto K>
static cudaError_t launch_listed(const char *name, const char *file, int line, uint3 grid, uint3 block,
                                 void **arguments, size_t shared_bytes, cudaStream_t stream)
{
    return launch_from_array(K, name, file, line, grid, block, arguments, shared_bytes, stream,
                             std::make_index_sequence<parameter_count(K)>{});
}

} // namespace sim

/* The kernel as a function: its parameter types are known. */
template <typename... P>
static inline cudaError_t sim_launch_kernel(const char *file, int line, void (*kernel)(P...), dim3 grid, dim3 block,
                                            void **arguments, size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    const sim_listed_kernel *listed = sim_find_listed_kernel(reinterpret_cast<const void *>(kernel));
    return sim::launch_from_array(kernel, listed ? listed->name : "kernel", file, line, grid, block, arguments,
                                  shared_bytes, stream, std::index_sequence_for<P...>{});
}

/* The kernel as a void *: found in the program's list of kernels. */
static inline cudaError_t sim_launch_kernel(const char *file, int line, const void *kernel, dim3 grid, dim3 block,
                                            void **arguments, size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    const sim_listed_kernel *listed = sim_find_listed_kernel(kernel);
    if (!listed) return sim_unlisted_kernel(kernel, file, line);
    return listed->launch(listed->name, file, line, grid, block, arguments, shared_bytes, stream);
}

#define cudaLaunchKernel(...) sim_launch_kernel(__FILE__, __LINE__, __VA_ARGS__)

/* What lib/sim/tools/cu2sim writes after each kernel it lists: data only, in the section the
 * runtime searches (sim_find_listed_kernel). */
#define SIM_LIST_KERNEL(kernel, line)                                                                 \
    __attribute__((used, section("sim_kernels"))) static sim_listed_kernel sim_listed_##kernel##_##line = { \
        #kernel, &sim::kernel_address<&kernel>, &sim::launch_listed<&kernel>};

namespace sim {

/* The shape of a shared array, for messages that name an element: tile[4][17]. */
template <typename T> static inline const sim_shape *shape_of()
{
    static const sim_shape shape = {sizeof(typename std::remove_all_extents<T>::type), (int)std::rank<T>::value,
                                    {std::extent<T, 0>::value, std::extent<T, 1>::value, std::extent<T, 2>::value,
                                     std::extent<T, 3>::value}};
    return &shape;
}

/* `__shared__` at file scope: each use finds the running block's copy. */
template <typename T> struct static_shared {
    const char *name;
    T &get() const { return *static_cast<T *>(sim_shared_static(this, sizeof(T), alignof(T), name, shape_of<T>())); }
    operator T &() const { return get(); }
    template <typename I> auto &operator[](I i) const { return get()[i]; }
    T &operator=(const T &value) const { return get() = value; }
};
template <typename T> struct dynamic_shared {
    const char *name;
    T *get() const { return static_cast<T *>(sim_shared_dynamic(name, sizeof(T))); }
    operator T *() const { return get(); }
    template <typename I> T &operator[](I i) const { return get()[i]; }
};

} /* namespace sim */

#include "sim_texture_fetch.h"   /* tex1Dfetch, tex1D, tex2D: after the vector types they return */

#endif
