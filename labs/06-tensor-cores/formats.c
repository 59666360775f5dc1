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
    // TODO: split h into sign (bit 15), exponent field (bits 14..10) and mantissa (bits 9..0).
    //       exponent 31: infinity (mantissa 0) or NaN: float exponent field 255, mantissa << 13.
    //       exponent 0: zero or subnormal, worth mantissa x 2^-24 (exact in float); keep the sign.
    //       otherwise: float exponent field = exponent - 15 + 127, float mantissa = mantissa << 13.
    //       Build the float's 32 bits and return float_of(them).
    (void)h;
    return float_of(0);
}

uint16_t float_to_half(float x)
{
    // TODO: from the float's bits (bits_of):
    //       1. NaN -> 0x7fff; infinity -> sign | 0x7c00.
    //       2. x = 1.f x 2^e: e > 15 -> infinity; e < -25 -> zero (with the sign).
    //       3. Take the 24-bit significand (hidden 1 included). Drop 13 bits for a normal half
    //          (e >= -14), more for a subnormal one (its step is 2^-24), and round what you keep
    //          to nearest, ties to even, by looking at the dropped bits.
    //       4. Put sign, exponent (e + 15) and mantissa together. A rounding carry may move the
    //          result to the next exponent, or to infinity, or from subnormal to normal.
    uint32_t bits = bits_of(x);
    (void)bits;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * BF16 */

float bfloat16_to_float(uint16_t b)
{
    // TODO: a bfloat16 is the top 16 bits of a float.
    (void)b;
    return 0.0f;
}

uint16_t float_to_bfloat16(float x)
{
    // TODO: NaN -> 0x7fff. Otherwise keep the top 16 bits and round on the 16 you drop:
    //       above 0x8000 up, below down, exactly 0x8000 to even.
    (void)x;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * A long dot product */

float dot_product(const uint16_t *a, const uint16_t *b, long n, accumulator format)
{
    // TODO: float sum = 0; for each i add half_to_float(a[i]) * half_to_float(b[i]) (exact in
    //       float), then round the sum to the accumulator's format and back when it is
    //       ACCUMULATE_FP16 or ACCUMULATE_BF16. Return the sum.
    (void)a, (void)b, (void)n, (void)format;
    return 0.0f;
}
