/* formats.c — Day 06: the 16-bit number formats of Tensor Cores, by hand, and what they
 * do to a long sum.
 *
 * What you write today:
 *   1. half_to_float and float_to_half: IEEE binary16 (FP16), 1 sign bit, 5 exponent bits
 *      (bias 15), 10 mantissa bits. From float, round to nearest with ties to even; values
 *      past the largest half (65504) become infinity, tiny values become subnormals (or
 *      zero), and every NaN becomes 0x7fff, as CUDA's __float2half_rn does.
 *   2. bfloat16_to_float and float_to_bfloat16: bfloat16 (BF16) is the top 16 bits of a
 *      float, 1 + 8 + 7 bits. The same rounding; every NaN becomes 0x7fff.
 *   3. dot_product: sum of a[i] * b[i] over FP16 inputs, with the running sum kept in FP32,
 *      FP16 or BF16 (rounded after every add). The plot shows what that choice costs.
 *
 * Rules: plain C on the bit patterns (memcpy a float into a uint32_t to see its bits). Do
 * not call CUDA's conversions (cuda_fp16.h, cuda_bf16.h) or the simulator's (sim_formats.h):
 * the tests compare yours with an independent reference over all 65 536 16-bit patterns and
 * every float exponent, ties and subnormals included.
 *
 * Check:  make check DAY=06        Stuck?  make hint DAY=06
 */
#include "lab.h"

#include <string.h>

static inline uint32_t bits_of(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static inline float float_of(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* ---------------------------------------------------------------------------------
 * FP16 */

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0x1f)                       /* infinity or NaN: keep the payload */
        return float_of(sign | 0x7f800000u | mantissa << 13);
    if (exponent == 0) {                        /* zero or subnormal: mantissa x 2^-24, exact */
        float magnitude = (float)mantissa * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    return float_of(sign | (exponent - 15 + 127) << 23 | mantissa << 13);
}

uint16_t float_to_half(float x)
{
    uint32_t bits = bits_of(x), magnitude = bits & 0x7fffffffu;
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    if (magnitude > 0x7f800000u) return 0x7fff;             /* NaN: CUDA's canonical one */
    if (magnitude == 0x7f800000u) return sign | 0x7c00;     /* infinity */
    int exponent = (int)(magnitude >> 23) - 127;            /* x = 1.f x 2^exponent */
    if (exponent > 15) return sign | 0x7c00;                /* 65536 and up: infinity */
    if (exponent < -25) return sign;                        /* under 2^-25, half the smallest subnormal: 0 */
    uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;   /* 24 bits, the hidden 1 included */
    /* Keep 11 bits for a normal half; fewer for a subnormal one, whose step is 2^-24. */
    int shift = exponent >= -14 ? 13 : -1 - exponent;       /* 13 .. 24 bits dropped */
    uint32_t kept = significand >> shift, dropped = significand & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (dropped > halfway || (dropped == halfway && (kept & 1))) kept++;   /* nearest, ties to even */
    if (exponent < -14) return sign | (uint16_t)kept;       /* subnormal (0x400 after a carry: the smallest normal) */
    /* kept still holds the hidden 1 (0x400), which bumps the exponent field from
     * exponent + 14 to exponent + 15, the biased exponent. A rounding carry (kept = 0x800)
     * bumps it once more, with a zero mantissa: right, even when it reaches infinity. */
    return sign | (uint16_t)(((uint32_t)(exponent + 14) << 10) + kept);
}

/* ---------------------------------------------------------------------------------
 * BF16 */

float bfloat16_to_float(uint16_t b) { return float_of((uint32_t)b << 16); }

uint16_t float_to_bfloat16(float x)
{
    uint32_t bits = bits_of(x);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fff;  /* NaN: rounding could turn it into infinity */
    uint32_t kept = bits >> 16, dropped = bits & 0xffffu;
    if (dropped > 0x8000u || (dropped == 0x8000u && (kept & 1))) kept++;   /* a carry runs into the exponent */
    return (uint16_t)kept;
}

/* ---------------------------------------------------------------------------------
 * A long dot product */

float dot_product(const uint16_t *a, const uint16_t *b, long n, accumulator format)
{
    float sum = 0.0f;
    for (long i = 0; i < n; i++) {
        sum += half_to_float(a[i]) * half_to_float(b[i]);   /* the product is exact in float */
        if (format == ACCUMULATE_FP16) sum = half_to_float(float_to_half(sum));
        else if (format == ACCUMULATE_BF16) sum = bfloat16_to_float(float_to_bfloat16(sum));
    }
    return sum;
}
