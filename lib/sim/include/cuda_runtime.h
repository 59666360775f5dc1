/* cuda_runtime.h (simulator) — the CUDA names, for .cu files compiled as C++ for the CPU.
 *
 * tools/simcc compiles a .cu file with clang++ and includes this header first, as nvcc
 * includes the real one. Together with the launch and __shared__ rewriting done by
 * tools/cu2sim, it lets the same source run on the simulator: the qualifiers vanish,
 * the built-in variables read the running CUDA thread's indices, __syncthreads() is a
 * barrier among the block's fibers, and a launch runs the whole grid before it returns.
 * Only what the book uses is here; anything else is a compile error, not a surprise. */
#ifndef SIM_CUDA_RUNTIME_H
#define SIM_CUDA_RUNTIME_H

#ifndef __cplusplus
#error "the simulator compiles .cu files as C++: use tools/simcc, not a C compiler"
#endif

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>        /* before __noinline__ is defined: libstdc++ spells the attribute that way */
#include <tuple>
#include <type_traits>
#include <utility>

#include "../sim.h"

#define SIM_CUDA 1

/* ---------------------------------------------------------------------------------
 * Qualifiers: on the CPU every function runs anywhere and every variable is host memory */

#define __global__
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

#define SIM_VECTOR_TYPES(T, name)                                                   \
    struct alignas(2 * sizeof(T)) name##2 { T x, y; };                             \
    struct name##3 { T x, y, z; };                                                  \
    struct alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) name##4 { T x, y, z, w; }; \
    static inline name##2 make_##name##2(T x, T y) { return name##2{x, y}; }        \
    static inline name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; } \
    static inline name##4 make_##name##4(T x, T y, T z, T w) { return name##4{x, y, z, w}; }
SIM_VECTOR_TYPES(float, float)
SIM_VECTOR_TYPES(double, double)
SIM_VECTOR_TYPES(int, int)
#undef SIM_VECTOR_TYPES
struct alignas(8) uint2 { unsigned int x, y; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

/* ---------------------------------------------------------------------------------
 * Built-in variables: the running CUDA thread's, kept in thread-local variables */

#define threadIdx sim_thread_idx
#define blockIdx sim_block_idx
#define blockDim sim_block_dim
#define gridDim sim_grid_dim
#define warpSize 32

#define __syncthreads() sim_syncthreads_at(__FILE__, __LINE__)

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

/* Atomics. The simulated threads of a launch take turns on one OS thread and never
 * interrupt one another between two instructions, so a read-modify-write is atomic. */
template <typename T> static inline T atomicAdd(T *address, T value) { T old = *address; *address = old + value; return old; }
template <typename T> static inline T atomicSub(T *address, T value) { T old = *address; *address = old - value; return old; }
template <typename T> static inline T atomicExch(T *address, T value) { T old = *address; *address = value; return old; }
template <typename T> static inline T atomicMin(T *address, T value) { T old = *address; *address = value < old ? value : old; return old; }
template <typename T> static inline T atomicMax(T *address, T value) { T old = *address; *address = value > old ? value : old; return old; }
template <typename T> static inline T atomicCAS(T *address, T compare, T value) { T old = *address; if (old == compare) *address = value; return old; }

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
template <typename T> static inline cudaError_t cudaMallocHost(T **pointer, size_t bytes)
{
    return cudaMallocHost(reinterpret_cast<void **>(pointer), bytes);
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
#define cudaEventDisableTiming 0x02

/* ---------------------------------------------------------------------------------
 * Launches and shared memory, as tools/cu2sim rewrites them */

namespace sim {

/* `k<<<grid, block, smem, stream>>>(args...)` becomes
 * `sim::launcher(k, "k", __FILE__, __LINE__, grid, block, smem, stream)(args...)`.
 * The arguments are converted to the kernel's parameter types once, at the launch, as
 * CUDA copies them into the launch; every CUDA thread then calls the kernel with them. */
template <typename... P> struct launch_statement {
    void (*kernel)(P...);
    sim_launch_request request;

    template <typename... A> void operator()(A &&...arguments) const
    {
        static_assert(sizeof...(A) == sizeof...(P), "wrong number of arguments in a kernel launch");
        using parameters = std::tuple<typename std::decay<P>::type...>;
        struct packed { void (*kernel)(P...); parameters values; };
        packed launch{kernel, parameters(std::forward<A>(arguments)...)};
        sim_launch_request r = request;
        r.run_thread = [](void *p) {
            packed *l = static_cast<packed *>(p);
            std::apply(l->kernel, l->values);
        };
        r.arguments = &launch;
        sim_launch(&r);
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
                                   grid, block, shared_bytes, stream, nullptr, nullptr};
    return s;
}

/* `__shared__` at file scope: each use finds the running block's copy. */
template <typename T> struct static_shared {
    T &get() const { return *static_cast<T *>(sim_shared_static(this, sizeof(T), alignof(T))); }
    operator T &() const { return get(); }
    template <typename I> auto &operator[](I i) const { return get()[i]; }
    T &operator=(const T &value) const { return get() = value; }
};
template <typename T> struct dynamic_shared {
    operator T *() const { return static_cast<T *>(sim_shared_dynamic()); }
    template <typename I> T &operator[](I i) const { return static_cast<T *>(sim_shared_dynamic())[i]; }
};

} /* namespace sim */

#endif
