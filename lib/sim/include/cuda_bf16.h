/* cuda_bf16.h (simulator) — __nv_bfloat16 and __nv_bfloat162, with CUDA's conversions.
 *
 * bfloat16 is the top half of a float: same exponent range, 8 significant bits. From float
 * it rounds to nearest even (CUDA's __float2bfloat16_rn, bit for bit), and every NaN becomes
 * the canonical 0x7fff. Arithmetic is done in float and rounded once, which is the IEEE
 * result for one operation (24 >= 2 x 8 + 2 bits). */
#ifndef SIM_CUDA_BF16_H
#define SIM_CUDA_BF16_H

#include "cuda_fp16.h"

namespace sim {
static inline unsigned short float_to_bfloat16_bits(float f, rounding mode) { return sim_float_to_bfloat16_bits(f, (sim_rounding)mode); }
static inline float bfloat16_bits_to_float(unsigned short b) { return sim_bfloat16_bits_to_float(b); }
} /* namespace sim */

struct __nv_bfloat16_raw { unsigned short x; };

struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : __x(sim::float_to_bfloat16_bits(f, sim::TO_NEAREST_EVEN)) {}
    __nv_bfloat16(double d) : __nv_bfloat16((float)d) {}
    __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
    operator float() const { return sim::bfloat16_bits_to_float(__x); }
    operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
    __nv_bfloat16 &operator+=(__nv_bfloat16 o) { return *this = __nv_bfloat16((float)*this + (float)o); }
    __nv_bfloat16 &operator*=(__nv_bfloat16 o) { return *this = __nv_bfloat16((float)*this * (float)o); }
};
static inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a + (float)b); }
static inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a - (float)b); }
static inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a * (float)b); }
static inline __nv_bfloat16 operator/(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a / (float)b); }

struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

static inline __nv_bfloat16 sim_bfloat16_from_bits(unsigned short bits) { return __nv_bfloat16(__nv_bfloat16_raw{bits}); }
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return sim_bfloat16_from_bits(sim::float_to_bfloat16_bits(f, sim::TO_NEAREST_EVEN)); }
static inline __nv_bfloat16 __float2bfloat16_rz(float f) { return sim_bfloat16_from_bits(sim::float_to_bfloat16_bits(f, sim::TOWARD_ZERO)); }
static inline __nv_bfloat16 __float2bfloat16_rd(float f) { return sim_bfloat16_from_bits(sim::float_to_bfloat16_bits(f, sim::DOWN)); }
static inline __nv_bfloat16 __float2bfloat16_ru(float f) { return sim_bfloat16_from_bits(sim::float_to_bfloat16_bits(f, sim::UP)); }
static inline float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) { return sim_bfloat16_from_bits(bits); }
static inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
static inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
    return sim_bfloat16_from_bits(sim_double_to_bfloat16_bits(fma((double)(float)a, (double)(float)b, (double)(float)c)));
}
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{__float2bfloat16_rn(a), __float2bfloat16_rn(b)}; }
static inline float2 __bfloat1622float2(__nv_bfloat162 b) { return make_float2((float)b.x, (float)b.y); }

#endif
