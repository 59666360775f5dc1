/* lanes.h — one SIMD register of floats as a C type, and the helpers built on it: what the
 * engine's kernels (lib/llama) and the CPU probes that measure the machine for the performance
 * model (lib/perfmodel) share, so that the probes read and compute as the kernels do.
 *
 * This is the one extension of C the engine uses: GNU vector types (`vector_size`), which
 * clang and gcc both compile to SIMD registers on any CPU (and one path of matmul.c's INT4,
 * taken only where the CPU has AVX-512 VBMI, adds two of its intrinsics). Written with plain float
 * arrays, matmul.c's tile of 4 x 4 partial sums was left in memory by clang and ran several times
 * slower (data/measured/cpu/engine-kernels.md). No -ffast-math: the order of every sum is fixed and
 * written out. Nothing here can fail: lib/simd allocates nothing, exits never, and has no way to give
 * up (tools/ci/give-up-check holds it to that). */
#ifndef SIMD_LANES_H
#define SIMD_LANES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__AVX512F__)
enum { LANES = 16 };   /* one 512-bit register of floats */
#else
enum { LANES = 8 };    /* one 256-bit register (two or four smaller ones where there is no AVX) */
#endif
typedef float simd_float_lanes __attribute__((vector_size(LANES * sizeof(float))));
typedef int8_t simd_int8_lanes __attribute__((vector_size(LANES)));

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE simd_float_lanes load_floats(const float *p)
{
    simd_float_lanes v;
    memcpy(&v, p, sizeof v);   /* an unaligned vector load */
    return v;
}

ALWAYS_INLINE void store_floats(float *p, simd_float_lanes v) { memcpy(p, &v, sizeof v); }

ALWAYS_INLINE simd_float_lanes load_int8_as_floats(const int8_t *p)
{
    simd_int8_lanes v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, simd_float_lanes);   /* sign-extend and convert: exact */
}

/* A stream of weights asks for its cache lines before it reads them, at two distances: 8 KB
 * on into L1, where the loads will want them soon, and 64 KB on into L2 (prefetcht1), so
 * that more lines are on their way from DRAM than L1's few miss buffers can track. The
 * hardware prefetcher alone falls short of what one core can read. Weights that sit in L3
 * pay for the extra instructions, which decode from DRAM, what the book measures, repays.
 * The engine's decode rows (matmul.c) and the read probe that measures the memory
 * bound (lib/perfmodel/cpu_probes.c) ask alike, so that the bound is one the kernels can
 * meet. */
enum { PREFETCH_NEAR_BYTES = 8 * 1024, PREFETCH_FAR_BYTES = 64 * 1024, CACHE_LINE_BYTES = 64 };

/* Asks for the cache line at `p` + PREFETCH_NEAR_BYTES into L1 and + PREFETCH_FAR_BYTES into L2 */
ALWAYS_INLINE void prefetch_stream_line(const void *p)
{
    __builtin_prefetch((const char *)p + PREFETCH_NEAR_BYTES, 0, 3);
    __builtin_prefetch((const char *)p + PREFETCH_FAR_BYTES, 0, 2);
}

/* The lanes of a dot product, added in one fixed order: a pairwise tree (the upper half
 * onto the lower half until one lane is left), written with shuffles so that it compiles
 * to a handful of vector instructions. */
typedef float simd_float4 __attribute__((vector_size(4 * sizeof(float))));
typedef float simd_float2 __attribute__((vector_size(2 * sizeof(float))));

ALWAYS_INLINE float sum_lanes(simd_float_lanes v)
{
#if defined(__AVX512F__)
    typedef float simd_float8 __attribute__((vector_size(8 * sizeof(float))));
    simd_float8 eight = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                       __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
#else
    simd_float_lanes eight = v;
#endif
    simd_float4 four = __builtin_shufflevector(eight, eight, 0, 1, 2, 3) + __builtin_shufflevector(eight, eight, 4, 5, 6, 7);
    simd_float2 two = __builtin_shufflevector(four, four, 0, 1) + __builtin_shufflevector(four, four, 2, 3);
    return two[0] + two[1];
}

/* sum_i a[i] * b[i]: element i goes to lane i % LANES, then the lanes are summed. */
ALWAYS_INLINE float dot_product(const float *a, const float *b, int n)
{
    simd_float_lanes acc = {0};
    int body = n - n % LANES;
    for (int i = 0; i < body; i += LANES) acc += load_floats(a + i) * load_floats(b + i);
    for (int i = body; i < n; i++) acc[i - body] += a[i] * b[i];
    return sum_lanes(acc);
}

#endif
