/* 06-tensor-cores.c — the checks for day 06, in the order the lab is worked:
 *   half_to_float and bfloat16_to_float are exact for every one of the 65 536 patterns;
 *   float_to_half and float_to_bfloat16 agree bit for bit with an independent reference (below)
 *   on every float exponent, with mantissas that make exact values, ties at every bit
 *   position, their neighbours, subnormals, overflow, infinities and NaN, and every 16-bit
 *   pattern survives float and back (NaNs become 0x7fff);
 *   dot_product equals a float sum rounded to the accumulator's format after every add, bit
 *   for bit, and shows what the derivation in the chapter predicts: FP32's error within its
 *   worst-case bound, FP16 and BF16 sums stuck at 2048 and 256;
 *   mma_tile computes D = A B + C exactly where the arithmetic is exact, and within the FP32
 *   rounding bound on random tiles. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lab.h"
#include "robust.h"

/* ---------------------------------------------------------------------------------
 * The reference: what a pattern means, by the standard's definition, and rounding done in
 * double with the format's quantum. It shares no code or method with the lab's solution. */

typedef struct format {
    const char *name;
    int mantissa_bits, exponent_bits;
    int min_exponent;          /* of the smallest normal number */
    double largest;            /* the largest finite value */
} format;

static const format HALF = {"half", 10, 5, -14, 65504.0};
static const format BFLOAT16 = {"bfloat16", 7, 8, -126, 0x1.fep127};

static unsigned infinity_bits(const format *f) { return ((1u << f->exponent_bits) - 1) << f->mantissa_bits; }

/* The value of a 16-bit pattern: (-1)^s x 1.m x 2^(e - bias), or 0.m x 2^min_exponent. */
static double reference_value(const format *f, unsigned bits)
{
    unsigned mantissa = bits & ((1u << f->mantissa_bits) - 1);
    unsigned field = (bits >> f->mantissa_bits) & ((1u << f->exponent_bits) - 1);
    double value;
    if (field == (1u << f->exponent_bits) - 1) value = mantissa ? NAN : INFINITY;
    else if (field == 0) value = ldexp(mantissa, f->min_exponent - f->mantissa_bits);
    else value = ldexp(mantissa + (1u << f->mantissa_bits), (int)field - 1 + f->min_exponent - f->mantissa_bits);
    return bits & 0x8000u ? -value : value;
}

/* The positive pattern whose value is `value` (which the format must hold exactly): the
 * positive patterns, read as unsigned numbers, increase with their value. */
static unsigned reference_pattern(const format *f, double value)
{
    unsigned low = 0, high = infinity_bits(f);
    while (low < high) {
        unsigned middle = (low + high) / 2;
        if (reference_value(f, middle) < value) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* x rounded to the format, to nearest with ties to even: divide by the quantum (the gap
 * between neighbours in x's binade, never below the subnormal gap), round half to even
 * with nearbyint, multiply back. Then find the pattern that holds the result. */
static unsigned reference_round(const format *f, float x)
{
    if (isnan(x)) return 0x7fff;
    unsigned sign = signbit(x) ? 0x8000u : 0;
    double magnitude = fabs((double)x);
    if (isinf(x)) return sign | infinity_bits(f);
    int exponent = magnitude == 0 ? f->min_exponent : ilogb(magnitude);
    if (exponent < f->min_exponent) exponent = f->min_exponent;
    double quantum = ldexp(1.0, exponent - f->mantissa_bits);
    double rounded = nearbyint(magnitude / quantum) * quantum;
    if (rounded > f->largest) return sign | infinity_bits(f);
    return sign | reference_pattern(f, rounded);
}

/* ---------------------------------------------------------------------------------
 * The inputs: every float exponent, both signs, with mantissas that make exact values,
 * ties at every bit position a rounding can cut (the bits below it 100...0, the kept bit
 * above 0 or 1), their neighbours one float step away, and a few random mantissas. Then
 * the value of every finite 16-bit pattern of the format, exactly. */

enum { MAX_INPUTS = 512 * 160 + 65536 };

static int make_inputs(const format *f, float *out)
{
    unsigned mantissas[160];
    int m = 0;
    mantissas[m++] = 0, mantissas[m++] = 1, mantissas[m++] = 0x7fffff;
    for (int s = 1; s <= 23; s++) {
        unsigned tie_even = 1u << (s - 1), tie_odd = tie_even | (s < 23 ? 1u << s : 0);
        mantissas[m++] = tie_even, mantissas[m++] = tie_even - 1 + (s == 1), mantissas[m++] = tie_even + 1;
        mantissas[m++] = tie_odd, mantissas[m++] = tie_odd - 1, mantissas[m++] = tie_odd + 1;
    }
    unsigned seed = 6;
    while (m < 160) seed = seed * 1664525u + 1013904223u, mantissas[m++] = seed >> 9;
    /* exponents nearest to 1.0 first (127, 128, 126, 129, ...), so that the first mismatch a
     * message shows is an ordinary number where there is one */
    int count = 0;
    for (int distance = 0; distance < 256; distance++)
        for (int side = distance ? -1 : 1; side <= 1; side += 2) {
            int exponent = 127 + side * distance;
            if (exponent < 0 || exponent > 255) continue;
            for (unsigned sign = 0; sign < 2; sign++)
                for (int k = 0; k < m; k++) {
                    unsigned bits = sign << 31 | (unsigned)exponent << 23 | (mantissas[k] & 0x7fffffu);
                    memcpy(&out[count++], &bits, 4);
                }
        }
    for (unsigned bits = 0; bits < 65536; bits++) {
        double value = reference_value(f, bits);
        if (!isnan(value)) out[count++] = (float)value;
    }
    return count;
}

/* What kind of input x is for format f. An input may be of several kinds. */
enum { EXACT = 1, INEXACT = 2, TIE = 4, SUBNORMAL = 8, OVERFLOW = 16, SPECIAL = 32 };

static int kinds_of(const format *f, float x)
{
    if (isnan(x) || isinf(x)) return SPECIAL;
    double magnitude = fabs((double)x);
    int kinds = 0;
    if (magnitude > f->largest) kinds |= OVERFLOW;
    if (magnitude != 0 && magnitude < ldexp(1.0, f->min_exponent)) kinds |= SUBNORMAL;
    int exponent = magnitude == 0 ? f->min_exponent : ilogb(magnitude);
    if (exponent < f->min_exponent) exponent = f->min_exponent;
    double steps = magnitude / ldexp(1.0, exponent - f->mantissa_bits), fraction = steps - floor(steps);
    if (fraction == 0) kinds |= EXACT;
    else if (fraction == 0.5) kinds |= TIE;
    else if (!(kinds & OVERFLOW)) kinds |= INEXACT;
    return kinds;
}

/* Why the reference's answer is right, for the message. */
static void explain(const format *f, float x, unsigned want, char *why, size_t size)
{
    int kinds = kinds_of(f, x);
    unsigned magnitude = want & 0x7fffu;
    if (isnan(x)) snprintf(why, size, "a NaN: every NaN becomes the canonical 0x7fff");
    else if (kinds & SPECIAL) snprintf(why, size, "infinity stays infinity");
    else if ((kinds & OVERFLOW) && magnitude == infinity_bits(f))
        snprintf(why, size, "past the largest %s (%g) by at least half a step: infinity", f->name, f->largest);
    else if (kinds & OVERFLOW)
        snprintf(why, size, "above the largest %s, but by less than half a step: rounds down to it", f->name);
    else if (kinds & TIE) {
        double below = fabs((double)x);
        int exponent = ilogb(below) < f->min_exponent ? f->min_exponent : ilogb(below);
        double quantum = ldexp(1.0, exponent - f->mantissa_bits);
        unsigned lower = reference_pattern(f, floor(below / quantum) * quantum) | (want & 0x8000u);
        snprintf(why, size, "exactly halfway between 0x%04x and 0x%04x: the tie goes to the even one", lower,
                 lower + 1);
    }
    else if (kinds & SUBNORMAL)
        snprintf(why, size, "below the smallest normal %s (2^%d): a subnormal, in steps of 2^%d%s", f->name,
                 f->min_exponent, f->min_exponent - f->mantissa_bits, magnitude == 0 ? ", here rounding to zero" : "");
    else if (kinds & EXACT) snprintf(why, size, "exactly representable: no rounding at all");
    else snprintf(why, size, "the nearest %s", f->name);
}

typedef uint16_t (*conversion)(float);

/* Converts every input of the given kinds; reports the first mismatch and how many. */
static void check_kinds(const format *f, conversion convert, const char *function, int wanted_kinds,
                        const char *what)
{
    static float inputs[MAX_INPUTS];
    int count = make_inputs(f, inputs), checked = 0, wrong = 0;
    char first[400] = "";
    for (int i = 0; i < count; i++) {
        if (!(kinds_of(f, inputs[i]) & wanted_kinds)) continue;
        checked++;
        unsigned got = convert(inputs[i]), want = reference_round(f, inputs[i]);
        if (got == want) continue;
        if (wrong++ == 0) {
            unsigned bits;
            memcpy(&bits, &inputs[i], 4);
            char why[200];
            explain(f, inputs[i], want, why, sizeof why);
            snprintf(first, sizeof first, "%s(0x%08x = %.9g) = 0x%04x, want 0x%04x (%s)", function, bits,
                     inputs[i], got, want, why);
        }
    }
    cr_assert(checked > 0, "the test found no %s: the test itself is wrong", what);
    cr_assert(wrong == 0, "%s; %d of %d %s wrong in all", first, wrong, checked, what);
}

/* Every 16-bit pattern of the given exponent fields through to_float, against its value. */
static void check_to_float(const format *f, float (*to_float)(uint16_t), const char *function, int field_low,
                           int field_high, const char *what)
{
    int checked = 0, wrong = 0;
    char first[300] = "";
    for (unsigned bits = 0; bits < 65536; bits++) {
        int field = (int)(bits >> f->mantissa_bits) & ((1 << f->exponent_bits) - 1);
        if (field < field_low || field > field_high) continue;
        checked++;
        float got = to_float((uint16_t)bits), want = (float)reference_value(f, bits);
        uint32_t got_bits, want_bits;
        memcpy(&got_bits, &got, 4), memcpy(&want_bits, &want, 4);
        int right = isnan(want) ? isnan(got) : got_bits == want_bits;   /* -0 is not +0 */
        if (right) continue;
        if (wrong++ == 0)
            snprintf(first, sizeof first, "%s(0x%04x) = %.9g (0x%08x), want %.9g (0x%08x)", function, bits, got,
                     got_bits, want, want_bits);
    }
    cr_assert(wrong == 0, "%s; %d of %d %s wrong in all", first, wrong, checked, what);
}

/* ---------------------------------------------------------------------------------
 * half_to_float */

#define HINT_HALF_TO_FLOAT "A half is 1 sign, 5 exponent (bias 15) and 10 mantissa bits, and its exponent field " \
    "sorts it into one of three classes (normal, zero or subnormal, infinity or NaN) that each map to a float " \
    "their own way. Converting to a float never rounds. The message names the first wrong pattern."

Test(half_to_float, normal_numbers, .timeout = 10, .description = HINT_HALF_TO_FLOAT)
{
    check_to_float(&HALF, half_to_float, "half_to_float", 1, 30, "normal halves");
}

Test(half_to_float, zeros_and_subnormals, .timeout = 10, .description = HINT_HALF_TO_FLOAT)
{
    check_to_float(&HALF, half_to_float, "half_to_float", 0, 0, "zeros and subnormal halves");
}

Test(half_to_float, infinities_and_nans, .timeout = 10, .description = HINT_HALF_TO_FLOAT)
{
    check_to_float(&HALF, half_to_float, "half_to_float", 31, 31, "infinities and NaNs");
}

/* ---------------------------------------------------------------------------------
 * float_to_half */

#define HINT_ROUNDING "Round to nearest: the bits you drop decide whether the kept ones go up, and an exact tie " \
    "has a rule of its own (to the even neighbour). The message shows the input, what you gave and the nearest half."
#define HINT_HALF_SUBNORMAL "Below 2^-14 a half has no hidden 1 and a fixed step, whatever the exponent: how many " \
    "bits must then be dropped, and rounded the same way? Very small values round to a signed zero."
#define HINT_OVERFLOW "The largest half is 65504. Values a little above it still round to it; from some point on " \
    "the nearest value is infinity, with the input's sign."
#define HINT_SPECIAL "Infinity and NaN are recognised from the float's exponent field before anything is rounded: " \
    "infinity keeps its sign, and every NaN becomes CUDA's one NaN, 0x7fff."

Test(float_to_half, exact_values, .timeout = 20,
     .description = "A float that is exactly a half must give that half's bits, normal and subnormal: nothing is "
                    "rounded here, only re-biased and moved. The message names the first wrong input.")
{
    check_kinds(&HALF, float_to_half, "float_to_half", EXACT, "exactly representable values");
}

Test(float_to_half, rounds_to_nearest, .timeout = 20, .description = HINT_ROUNDING)
{
    check_kinds(&HALF, float_to_half, "float_to_half", INEXACT, "values between two halves (not ties)");
}

Test(float_to_half, ties_to_even, .timeout = 20, .description = HINT_ROUNDING)
{
    check_kinds(&HALF, float_to_half, "float_to_half", TIE, "ties (exactly halfway)");
}

Test(float_to_half, subnormals, .timeout = 20, .description = HINT_HALF_SUBNORMAL)
{
    check_kinds(&HALF, float_to_half, "float_to_half", SUBNORMAL, "values below 2^-14");
}

Test(float_to_half, overflow_to_infinity, .timeout = 20, .description = HINT_OVERFLOW)
{
    check_kinds(&HALF, float_to_half, "float_to_half", OVERFLOW, "values above 65504");
}

Test(float_to_half, nan_and_infinity, .timeout = 20, .description = HINT_SPECIAL)
{
    check_kinds(&HALF, float_to_half, "float_to_half", SPECIAL, "infinities and NaNs");
}

Test(float_to_half, every_half_round_trips, .timeout = 20,
     .description = "float_to_half(half_to_float(h)) must give h back for all 65 536 patterns, except NaNs, "
                    "which come back as 0x7fff. If this alone fails, the two functions disagree on some class "
                    "of values: the message names the first.")
{
    int wrong = 0;
    char first[200] = "";
    for (unsigned h = 0; h < 65536; h++) {
        unsigned got = float_to_half(half_to_float((uint16_t)h)), want = (h & 0x7fffu) > 0x7c00u ? 0x7fff : h;
        if (got != want && wrong++ == 0)
            snprintf(first, sizeof first, "0x%04x -> half_to_float = %.9g -> float_to_half = 0x%04x, want 0x%04x", h,
                     half_to_float((uint16_t)h), got, want);
    }
    cr_assert(wrong == 0, "%s; %d of 65536 patterns do not come back", first, wrong);
}

/* ---------------------------------------------------------------------------------
 * bfloat16 */

Test(bfloat16_to_float, every_pattern, .timeout = 10,
     .description = "A bfloat16 has the float's sign and exponent and the top 7 of its mantissa bits: where do its "
                    "16 bits sit inside a float? No class of value needs a case of its own.")
{
    check_to_float(&BFLOAT16, bfloat16_to_float, "bfloat16_to_float", 0, 255, "bfloat16 patterns");
}

#define HINT_BF16 "Keep the top 16 bits of the float and round by the 16 you drop, to nearest with ties to even; " \
    "a carry may run into the exponent, and that is right. NaN is dealt with before any rounding."

Test(float_to_bfloat16, exact_values, .timeout = 20, .description = HINT_BF16)
{
    check_kinds(&BFLOAT16, float_to_bfloat16, "float_to_bfloat16", EXACT, "exactly representable values");
}

Test(float_to_bfloat16, rounds_to_nearest, .timeout = 20, .description = HINT_BF16)
{
    check_kinds(&BFLOAT16, float_to_bfloat16, "float_to_bfloat16", INEXACT, "values between two bfloat16s (not ties)");
}

Test(float_to_bfloat16, ties_to_even, .timeout = 20, .description = HINT_BF16)
{
    check_kinds(&BFLOAT16, float_to_bfloat16, "float_to_bfloat16", TIE, "ties (exactly halfway)");
}

Test(float_to_bfloat16, subnormals, .timeout = 20,
     .description = "bfloat16 has float's exponent, so a float subnormal is a bfloat16 subnormal: does your code "
                    "treat it differently from a normal float?")
{
    check_kinds(&BFLOAT16, float_to_bfloat16, "float_to_bfloat16", SUBNORMAL, "values below 2^-126");
}

Test(float_to_bfloat16, overflow_to_infinity, .timeout = 20,
     .description = "The largest bfloat16 is 0x7f7f (about 3.39e38). Floats far enough above it round to infinity "
                    "(0x7f80), as rounding to nearest says.")
{
    check_kinds(&BFLOAT16, float_to_bfloat16, "float_to_bfloat16", OVERFLOW, "values above the largest bfloat16");
}

Test(float_to_bfloat16, nan_and_infinity, .timeout = 20,
     .description = "Every NaN becomes 0x7fff and infinity keeps its bits. What does rounding do to a NaN's bits if "
                    "it is rounded like a number?")
{
    check_kinds(&BFLOAT16, float_to_bfloat16, "float_to_bfloat16", SPECIAL, "infinities and NaNs");
}

Test(float_to_bfloat16, every_bfloat16_round_trips, .timeout = 20,
     .description = "float_to_bfloat16(bfloat16_to_float(b)) must give b back for all 65 536 patterns, except "
                    "NaNs, which come back as 0x7fff.")
{
    int wrong = 0;
    char first[200] = "";
    for (unsigned b = 0; b < 65536; b++) {
        unsigned got = float_to_bfloat16(bfloat16_to_float((uint16_t)b)), want = (b & 0x7fffu) > 0x7f80u ? 0x7fff : b;
        if (got != want && wrong++ == 0)
            snprintf(first, sizeof first, "0x%04x -> bfloat16_to_float = %.9g -> float_to_bfloat16 = 0x%04x, "
                     "want 0x%04x", b, bfloat16_to_float((uint16_t)b), got, want);
    }
    cr_assert(wrong == 0, "%s; %d of 65536 patterns do not come back", first, wrong);
}

/* ---------------------------------------------------------------------------------
 * dot_product */

/* n random FP16 values with 11 random significant bits, in [0, 1) (or (-1, 1) when signed). */
static void random_halves(uint16_t *out, long n, unsigned seed, int signed_values)
{
    for (long i = 0; i < n; i++) {
        seed = seed * 22695477u + 1u;
        float value = (float)(seed >> 8) * 0x1p-24f;               /* [0, 1), 24 bits */
        unsigned bits = reference_round(&HALF, value);
        if (bits == 0x3c00) bits = 0x3bff;                        /* rounded up to 1: keep every product < 1 */
        seed = seed * 22695477u + 1u;
        out[i] = (uint16_t)(bits | (signed_values && (seed >> 31) ? 0x8000u : 0));
    }
}

/* The definition: a float sum of exact products, rounded to the accumulator after each add. */
static float reference_dot(const uint16_t *a, const uint16_t *b, long n, accumulator format)
{
    float sum = 0;
    for (long i = 0; i < n; i++) {
        sum += (float)(reference_value(&HALF, a[i]) * reference_value(&HALF, b[i]));
        if (format == ACCUMULATE_FP16) sum = (float)reference_value(&HALF, reference_round(&HALF, sum));
        if (format == ACCUMULATE_BF16) sum = (float)reference_value(&BFLOAT16, reference_round(&BFLOAT16, sum));
    }
    return sum;
}

static const char *format_names[] = {"FP32", "FP16", "BF16"};

/* A sum's expected value is computed after dot_product has returned, from its inputs, which it must have
 * left as they were (fingerprint, before and after): while it runs there is no answer in memory to copy
 * (tests/grader/forgeries/reads-expected-values.patch), and an answer made by changing the inputs (zeros,
 * whose sum is 0) is caught. */
static uint64_t fingerprint(const uint16_t *a, const uint16_t *b, long n)
{
    return lab_fingerprint(b, sizeof *b * (size_t)n, lab_fingerprint(a, sizeof *a * (size_t)n, 1));
}

static void expect_inputs_unchanged(uint64_t before, const uint16_t *a, const uint16_t *b, long n)
{
    cr_assert(before == fingerprint(a, b, n), "dot_product(a, b, n = %ld, ...) changed a or b: it only reads them", n);
}

static void check_dot(accumulator format)
{
    const long lengths[] = {1, 16, 1000, 100000, 4096};
    for (int c = 0; c < 5; c++) {
        long n = lengths[c];
        int signed_values = c == 4;
        uint16_t *a = malloc(sizeof(uint16_t) * n), *b = malloc(sizeof(uint16_t) * n);
        random_halves(a, n, 11 + c, signed_values), random_halves(b, n, 101 + c, signed_values);
        uint64_t inputs = fingerprint(a, b, n);
        float got = dot_product(a, b, n, format);
        expect_inputs_unchanged(inputs, a, b, n);
        float want = reference_dot(a, b, n, format);
        uint32_t got_bits, want_bits;
        memcpy(&got_bits, &got, 4), memcpy(&want_bits, &want, 4);
        cr_assert(got_bits == want_bits, "%s accumulator, n = %ld %s: dot_product = %.9g (0x%08x), want %.9g "
                  "(0x%08x)", format_names[format], n, signed_values ? "(values of both signs)" : "(values in [0, 1))",
                  got, got_bits, want, want_bits);
        free(a), free(b);
    }
}

#define HINT_DOT "Each product of two halves is exact in float; what differs between the three cases is what the " \
    "running sum is kept in, i.e. what happens to it after every add. Go in order from i = 0. If the conversion " \
    "tests fail, fix those first."

Test(dot_product, fp32_accumulator, .timeout = 20, .description = HINT_DOT) { check_dot(ACCUMULATE_FP32); }
Test(dot_product, fp16_accumulator, .timeout = 20, .description = HINT_DOT) { check_dot(ACCUMULATE_FP16); }
Test(dot_product, bf16_accumulator, .timeout = 20, .description = HINT_DOT) { check_dot(ACCUMULATE_BF16); }

enum { LONG_DOT = 1 << 20 };

/* The exact sum of the products (in double: each product is exact, and the sum's own error,
 * under 2^20 x 2^-53 relatively, is far below every bound used here). */
static double exact_dot(const uint16_t *a, const uint16_t *b, long n)
{
    double sum = 0;
    for (long i = 0; i < n; i++) sum += reference_value(&HALF, a[i]) * reference_value(&HALF, b[i]);
    return sum;
}

Test(dot_product, fp32_error_within_its_bound, .timeout = 30,
     .description = "Summing n terms of one sign in float errs by at most (n - 1) x 2^-24 of the sum (each add "
                    "rounds by at most half a step, 2^-24 relatively). An error above that means the sum was "
                    "not kept in float: check which accumulator each case of your code uses.")
{
    uint16_t *a = malloc(sizeof(uint16_t) * LONG_DOT), *b = malloc(sizeof(uint16_t) * LONG_DOT);
    random_halves(a, LONG_DOT, 5, 0), random_halves(b, LONG_DOT, 7, 0);
    for (long n = 16; n <= LONG_DOT; n *= 16) {
        uint64_t inputs = fingerprint(a, b, n);
        double got = dot_product(a, b, n, ACCUMULATE_FP32);
        expect_inputs_unchanged(inputs, a, b, n);
        double exact = exact_dot(a, b, n);
        double error = fabs(got - exact) / exact, bound = (double)(n - 1) * 0x1p-24;
        cr_assert(error <= bound, "FP32 accumulator, n = %ld: sum %.9g, exact %.9g, relative error %.3g, above the "
                  "bound (n - 1) x 2^-24 = %.3g", n, got, exact, error, bound);
    }
    free(a), free(b);
}

/* Where a sum gets stuck, worked out by hand: static const, in the program's data, not an argument held
 * on the stack while dot_product runs (fingerprint above says why). */
typedef struct stuck_case {
    accumulator format;
    float ceiling;
    const char *why;
} stuck_case;

static void check_stuck(const stuck_case *stuck)
{
    uint16_t *a = malloc(sizeof(uint16_t) * LONG_DOT), *b = malloc(sizeof(uint16_t) * LONG_DOT);
    random_halves(a, LONG_DOT, 5, 0), random_halves(b, LONG_DOT, 7, 0);
    float got = dot_product(a, b, LONG_DOT, stuck->format);
    double exact = exact_dot(a, b, LONG_DOT);
    cr_assert(got == stuck->ceiling, "%s accumulator, n = %d products, each below 1: sum %.9g (exact %.6f), want "
              "exactly %g: %s", format_names[stuck->format], LONG_DOT, got, exact, stuck->ceiling, stuck->why);
    free(a), free(b);
}

Test(dot_product, fp16_sum_stops_at_2048, .timeout = 30,
     .description = "Once an FP16 sum reaches 2048 its step is 2: adding anything below 1, half a step, rounds "
                    "back to 2048. A sum that keeps growing was not rounded to FP16 after every add.")
{
    static const stuck_case fp16 = {ACCUMULATE_FP16, 2048.0f,
                                    "from 2048 on, the FP16 step is 2 and every product is under half of it"};
    check_stuck(&fp16);
}

Test(dot_product, bf16_sum_stops_at_256, .timeout = 30,
     .description = "bfloat16 keeps 8 significant bits: from 256 on its step is 2, so products below 1 are "
                    "rounded away. A sum that keeps growing was not rounded to bfloat16 after every add.")
{
    static const stuck_case bf16 = {ACCUMULATE_BF16, 256.0f,
                                    "from 256 on, the BF16 step is 2 and every product is under half of it"};
    check_stuck(&bf16);
}

/* ---------------------------------------------------------------------------------
 * mma_tile */

enum { SIZE = TILE * TILE };

/* d = a b + c for every tile, in double, from the FP16 values; scale = |c| + sum |a b|. */
static void reference_mma(const uint16_t *a, const uint16_t *b, const float *c, double *d, double *scale, int tiles)
{
    for (int t = 0; t < tiles; t++)
        for (int e = 0; e < SIZE; e++) {
            int row = e / TILE, col = e % TILE;
            size_t at = (size_t)t * SIZE;
            double sum = c[at + e], size = fabs(c[at + e]);
            for (int k = 0; k < TILE; k++) {
                double p = reference_value(&HALF, a[at + row * TILE + k]) * reference_value(&HALF, b[at + k * TILE + col]);
                sum += p, size += fabs(p);
            }
            d[at + e] = sum, scale[at + e] = size;
        }
}

static void run_mma(const uint16_t *a, const uint16_t *b, const float *c, float *d, int tiles, const char *what)
{
    lab_poison(d, sizeof(float) * tiles * SIZE);
    gpu_run run = gpu_mma_tiles(a, b, c, d, tiles);
    cr_assert(run.error == NULL, "%s: the run ended with the CUDA error \"%s\"", what, run.error);
    cr_assert(run.written_past_end == 0, "%s: %lld floats written past the end of d", what, run.written_past_end);
}

/* If d is exactly what a common indexing slip computes, says which. */
static const char *mistaken_for(const uint16_t *a, const uint16_t *b, const float *c, const float *d, int tiles)
{
    static const char *names[] = {"; this is A B^T + C: B read as b[col * 16 + k], transposed",
                                  "; this is A^T B + C: A read as a[k * 16 + row], transposed",
                                  "; this is B A + C: A and B swapped"};
    for (int slip = 0; slip < 3; slip++) {
        int same = 1;
        for (int t = 0; t < tiles && same; t++)
            for (int e = 0; e < SIZE && same; e++) {
                int row = e / TILE, col = e % TILE;
                size_t at = (size_t)t * SIZE;
                double sum = c[at + e];
                for (int k = 0; k < TILE; k++) {
                    unsigned x = slip == 1 ? a[at + k * TILE + row] : slip == 2 ? b[at + row * TILE + k] : a[at + row * TILE + k];
                    unsigned y = slip == 0 ? b[at + col * TILE + k] : slip == 2 ? a[at + k * TILE + col] : b[at + k * TILE + col];
                    sum += reference_value(&HALF, x) * reference_value(&HALF, y);
                }
                same = d[at + e] == (float)sum;
            }
        if (same) return names[slip];
    }
    return "";
}

/* d must equal the reference exactly (the arithmetic is exact). Names a transposed operand. */
static void check_exact(const uint16_t *a, const uint16_t *b, const float *c, int tiles, const char *what)
{
    size_t count = (size_t)tiles * SIZE;
    float *d = malloc(sizeof(float) * count), *want = malloc(sizeof(float) * count);
    double *exact = malloc(sizeof(double) * count), *scale = malloc(sizeof(double) * count);
    run_mma(a, b, c, d, tiles, what);
    reference_mma(a, b, c, exact, scale, tiles);
    for (size_t i = 0; i < count; i++) want[i] = (float)exact[i];
    lab_comparison result = lab_compare_floats("d", d, want, count, 0, 0);
    cr_assert(result.mismatches == 0, "%s (d[row * 16 + col]): %s%s", what, result.message, mistaken_for(a, b, c, d, tiles));
    free(d), free(want), free(exact), free(scale);
}

#define HINT_MMA "Row-major 16 x 16 tiles, one tile per block, every array's tile t at the same offset; D is C " \
    "plus the product of A and B, and the block's 32 lanes share the tile's 256 elements. The message names the " \
    "tile and the element."

Test(mma, a_is_identity, .timeout = 20, .description = HINT_MMA)
{
    uint16_t a[SIZE], b[SIZE];
    float c[SIZE];
    random_halves(b, SIZE, 3, 1);
    for (int e = 0; e < SIZE; e++) a[e] = e / TILE == e % TILE ? 0x3c00 : 0, c[e] = (float)(e % 7) - 3.0f;
    check_exact(a, b, c, 1, "A = I, so D = B + C");
}

Test(mma, b_is_identity, .timeout = 20, .description = HINT_MMA)
{
    uint16_t a[SIZE], b[SIZE];
    float c[SIZE];
    random_halves(a, SIZE, 4, 1);
    for (int e = 0; e < SIZE; e++) b[e] = e / TILE == e % TILE ? 0x3c00 : 0, c[e] = (float)(e % 5) - 2.0f;
    check_exact(a, b, c, 1, "B = I, so D = A + C");
}

Test(mma, small_integers_exact, .timeout = 20, .description = HINT_MMA)
{
    enum { TILES = 3 };
    uint16_t a[TILES * SIZE], b[TILES * SIZE];
    float c[TILES * SIZE];
    unsigned seed = 9;
    for (int i = 0; i < TILES * SIZE; i++) {
        seed = seed * 1664525u + 1013904223u;
        a[i] = (uint16_t)reference_round(&HALF, (float)((int)(seed >> 28) - 8));        /* -8 .. 7 */
        b[i] = (uint16_t)reference_round(&HALF, (float)((int)((seed >> 24) & 15) - 7)); /* -7 .. 8 */
        c[i] = (float)((int)((seed >> 12) & 255) - 128);
    }
    check_exact(a, b, c, TILES, "3 tiles of small integers (every sum exact)");
}

Test(mma, random_tiles_within_fp32_bound, .timeout = 30,
     .description = "The error is far above what float additions can make: what type is your running sum? A half "
                    "accumulator rounds every add to 11 bits, thousands of times the FP32 bound.")
{
    enum { TILES = 100 };
    size_t count = (size_t)TILES * SIZE;
    uint16_t *a = malloc(sizeof(uint16_t) * count), *b = malloc(sizeof(uint16_t) * count);
    float *c = malloc(sizeof(float) * count), *d = malloc(sizeof(float) * count);
    double *exact = malloc(sizeof(double) * count), *scale = malloc(sizeof(double) * count);
    random_halves(a, (long)count, 21, 1), random_halves(b, (long)count, 22, 1);
    unsigned seed = 23;
    for (size_t i = 0; i < count; i++) seed = seed * 1664525u + 1013904223u, c[i] = (float)(seed >> 8) * 0x1p-23f - 1.0f;
    run_mma(a, b, c, d, TILES, "100 random tiles");
    reference_mma(a, b, c, exact, scale, TILES);
    /* 16 float adds, each rounding by at most u = 2^-24 relatively: the error is at most
     * gamma_16 = 16u / (1 - 16u) times |c| + sum |a b| (the products are exact in float), in
     * any order of the adds. The double reference's own error is some 2^-29 of that. */
    const double u = 0x1p-24, gamma16 = 16 * u / (1 - 16 * u);
    long wrong = 0;
    char first[300] = "";
    for (size_t i = 0; i < count; i++) {
        double error = fabs((double)d[i] - exact[i]), bound = gamma16 * scale[i] * (1 + 0x1p-20);
        if (error <= bound) continue;                            /* NaN (never written) fails here */
        if (wrong++ > 0) continue;
        if (lab_float_is_poison(d[i]))
            snprintf(first, sizeof first, "tile %zu, D[%zu][%zu] was never written (want %.9g)", i / SIZE,
                     i % SIZE / TILE, i % TILE, exact[i]);
        else
            snprintf(first, sizeof first, "tile %zu, D[%zu][%zu] = %.9g, want %.9g (off by %.3g, that is %.1f u x (|c| "
                     "+ sum |a b|); the FP32 bound is 16)", i / SIZE, i % SIZE / TILE, i % TILE, d[i], exact[i],
                     d[i] - exact[i], error / (u * scale[i]));
    }
    cr_assert(wrong == 0, "%s; %ld of %zu elements outside the bound", first, wrong, count);
    free(a), free(b), free(c), free(d), free(exact), free(scale);
}
