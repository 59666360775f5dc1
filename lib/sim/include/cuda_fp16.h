/* cuda_fp16.h (simulator) — __half and __half2, with CUDA's conversions and arithmetic.
 *
 * Conversions from float follow CUDA's own algorithm bit for bit: round to nearest even
 * (or toward zero, down, up for the _rz/_rd/_ru forms), overflow to infinity when
 * rounding to nearest, subnormals kept, and every NaN becoming the canonical 0x7fff.
 * Arithmetic is done in float and rounded once: a float holds every sum, difference and
 * product of two halves closely enough (24 >= 2 x 11 + 2 bits) that this rounding is the
 * one IEEE 754 prescribes. __hfma and __double2half round from double through a
 * round-to-odd float, so that they too round once. */
#ifndef SIM_CUDA_FP16_H
#define SIM_CUDA_FP16_H

#include "cuda_runtime.h"
#include "sim_formats.h"

namespace sim {
enum rounding { TO_NEAREST_EVEN = SIM_TO_NEAREST_EVEN, TOWARD_ZERO = SIM_TOWARD_ZERO, DOWN = SIM_DOWN, UP = SIM_UP };
static inline unsigned short float_to_half_bits(float f, rounding mode) { return sim_float_to_half_bits(f, (sim_rounding)mode); }
static inline float half_bits_to_float(unsigned short h) { return sim_half_bits_to_float(h); }
} /* namespace sim */

struct __half_raw { unsigned short x; };

struct __half {
    unsigned short __x;
    __half() = default;
    __half(float f) : __x(sim::float_to_half_bits(f, sim::TO_NEAREST_EVEN)) {}
    __half(double d) : __half((float)d) {}
    __half(int i) : __half((float)i) {}
    __half(__half_raw r) : __x(r.x) {}
    operator float() const { return sim::half_bits_to_float(__x); }
    operator __half_raw() const { return __half_raw{__x}; }
    __half &operator+=(__half o) { return *this = __half((float)*this + (float)o); }
    __half &operator-=(__half o) { return *this = __half((float)*this - (float)o); }
    __half &operator*=(__half o) { return *this = __half((float)*this * (float)o); }
    __half &operator/=(__half o) { return *this = __half((float)*this / (float)o); }
};
static inline __half operator+(__half a, __half b) { return __half((float)a + (float)b); }
static inline __half operator-(__half a, __half b) { return __half((float)a - (float)b); }
static inline __half operator*(__half a, __half b) { return __half((float)a * (float)b); }
static inline __half operator/(__half a, __half b) { return __half((float)a / (float)b); }
static inline __half operator-(__half a) { __half r = a; r.__x ^= 0x8000u; return r; }
static inline bool operator==(__half a, __half b) { return (float)a == (float)b; }
static inline bool operator!=(__half a, __half b) { return (float)a != (float)b; }
static inline bool operator<(__half a, __half b) { return (float)a < (float)b; }
static inline bool operator>(__half a, __half b) { return (float)a > (float)b; }
static inline bool operator<=(__half a, __half b) { return (float)a <= (float)b; }
static inline bool operator>=(__half a, __half b) { return (float)a >= (float)b; }

struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;

static inline __half sim_half_from_bits(unsigned short bits) { return __half(__half_raw{bits}); }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return sim_half_from_bits(sim::float_to_half_bits(f, sim::TO_NEAREST_EVEN)); }
static inline __half __float2half_rz(float f) { return sim_half_from_bits(sim::float_to_half_bits(f, sim::TOWARD_ZERO)); }
static inline __half __float2half_rd(float f) { return sim_half_from_bits(sim::float_to_half_bits(f, sim::DOWN)); }
static inline __half __float2half_ru(float f) { return sim_half_from_bits(sim::float_to_half_bits(f, sim::UP)); }
static inline __half __double2half(double d) { return sim_half_from_bits(sim_double_to_half_bits(d)); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int i) { return __half((float)i); }
static inline int __half2int_rn(__half h) { return (int)rintf((float)h); }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static inline __half __ushort_as_half(unsigned short bits) { return sim_half_from_bits(bits); }
static inline short __half_as_short(__half h) { return (short)h.__x; }
static inline __half __short_as_half(short bits) { return sim_half_from_bits((unsigned short)bits); }

static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hneg(__half a) { return -a; }
static inline __half __habs(__half a) { a.__x &= 0x7fffu; return a; }
/* The product of two halves is exact in double and so is its sum with a third up to the
 * one rounding double makes, which is then rounded to half without a second error. */
static inline __half __hfma(__half a, __half b, __half c)
{
    return sim_half_from_bits(sim_double_to_half_bits(fma((double)(float)a, (double)(float)b, (double)(float)c)));
}
static inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
static inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? (a.__x & 0x8000u ? -1 : 1) : 0; }
static inline __half __hmax(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : (a > b ? a : b); }
static inline __half __hmin(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : (a < b ? a : b); }
static inline bool __heq(__half a, __half b) { return a == b; }
static inline bool __hlt(__half a, __half b) { return a < b; }
static inline bool __hgt(__half a, __half b) { return a > b; }
static inline bool __hle(__half a, __half b) { return a <= b; }
static inline bool __hge(__half a, __half b) { return a >= b; }
static inline __half hsqrt(__half a) { return __half(sqrtf((float)a)); }
static inline __half hexp(__half a) { return __half(expf((float)a)); }

static inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
static inline __half2 __float2half2_rn(float f) { return __half2{__float2half_rn(f), __float2half_rn(f)}; }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{__float2half_rn(a), __float2half_rn(b)}; }
static inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }

#endif
