/* sim_formats.h — conversions between float and the 16-bit formats, in C, shared by
 * cuda_fp16.h, cuda_bf16.h and the cuBLAS stand-in. They follow CUDA's own host code bit
 * for bit: round to nearest even (or the directed modes), overflow to infinity when
 * rounding to nearest, subnormals kept, every NaN becoming the canonical 0x7fff. */
#ifndef SIM_FORMATS_H
#define SIM_FORMATS_H

#include <string.h>

typedef enum sim_rounding { SIM_TO_NEAREST_EVEN, SIM_TOWARD_ZERO, SIM_DOWN, SIM_UP } sim_rounding;

static inline unsigned short sim_float_to_half_bits(float f, sim_rounding mode)
{
    unsigned x, u, sign, remainder, result;
    memcpy(&x, &f, sizeof x);
    u = x & 0x7fffffffu;
    sign = (x >> 16) & 0x8000u;
    if (u >= 0x7f800000u) return (unsigned short)(u == 0x7f800000u ? (sign | 0x7c00u) : 0x7fffu);
    if (u > 0x477fefffu) {                 /* at or beyond 65520: past the largest half */
        remainder = 0x80000000u;
        result = sign | 0x7bffu;
    } else if (u >= 0x38800000u) {         /* a normal half */
        remainder = u << 19;
        result = sign | ((u - 0x38000000u) >> 13);
    } else if (u < 0x33000001u) {          /* rounds to zero at nearest-even */
        remainder = u;
        result = sign;
    } else {                               /* a subnormal half */
        unsigned shift = 0x7eu - (u >> 23), mantissa = (u & 0x7fffffu) | 0x800000u;
        remainder = mantissa << (32 - shift);
        result = (sign | (mantissa >> shift)) & 0xffffu;
    }
    switch (mode) {
    case SIM_TO_NEAREST_EVEN: result += remainder > 0x80000000u || (remainder == 0x80000000u && (result & 1u)); break;
    case SIM_TOWARD_ZERO: break;
    case SIM_DOWN: result += remainder != 0 && sign; break;
    case SIM_UP: result += remainder != 0 && !sign; break;
    }
    return (unsigned short)result;
}

static inline float sim_half_bits_to_float(unsigned short h)
{
    unsigned sign = (unsigned)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
    if (exponent == 0x1f) bits = sign | 0x7f800000u | (mantissa << 13);
    else if (exponent) bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    else if (!mantissa) bits = sign;
    else {                                  /* subnormal: normalise */
        int shift = 0;
        while (!(mantissa & 0x400u)) mantissa <<= 1, shift++;
        bits = sign | ((unsigned)(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
static inline unsigned short sim_float_to_bfloat16_bits(float f, sim_rounding mode)
{
    unsigned x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
    unsigned sign = x & 0x80000000u, remainder = x & 0xffffu, result = x >> 16;
    switch (mode) {
    case SIM_TO_NEAREST_EVEN: result += remainder > 0x8000u || (remainder == 0x8000u && (result & 1u)); break;
    case SIM_TOWARD_ZERO: break;
    case SIM_DOWN: result += remainder != 0 && sign && (x & 0x7fffffffu) != 0x7f800000u; break;
    case SIM_UP: result += remainder != 0 && !sign && (x & 0x7fffffffu) != 0x7f800000u; break;
    }
    return (unsigned short)result;
}
static inline float sim_bfloat16_bits_to_float(unsigned short b)
{
    unsigned bits = (unsigned)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* A double rounded to float "to odd": truncated, with the last bit set if anything was lost.
 * Rounding that float once more to a format of at most 22 bits then gives exactly the
 * correctly rounded result of the double (the intermediate keeps two bits more than needed),
 * which a plain double -> float -> half chain does not. Finite, in-range values only. */
static inline float sim_double_to_float_round_to_odd(double d)
{
    float f = (float)d;
    if ((double)f == d || d != d) return f;
    unsigned bits;
    memcpy(&bits, &f, sizeof bits);
    if ((d > 0) == ((double)f > d)) bits -= 1;   /* rounded away from zero: step back toward it */
    bits |= 1u;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline unsigned short sim_double_to_half_bits(double d)
{
    return sim_float_to_half_bits(sim_double_to_float_round_to_odd(d), SIM_TO_NEAREST_EVEN);
}

static inline unsigned short sim_double_to_bfloat16_bits(double d)
{
    return sim_float_to_bfloat16_bits(sim_double_to_float_round_to_odd(d), SIM_TO_NEAREST_EVEN);
}

#endif
