/* 13-arithmetic-intensity.c — the checks for day 13, in the order of lab.h: the bytes of each
 * type; then every cost function against counts made by hand (written out beside each case),
 * on shapes small enough to count on paper and shapes of data/models.csv: Llama-2-7B's decode
 * GEMV (M = 1, about 1 FLOP per byte in FP16) and prefill GEMM (M = 2048, about a thousand),
 * its prefill attention (queries = keys, every pair counted), Llama-2-70B's grouped-query
 * attention and its prefill MLP; counts past 2^24, 2^31 and 2^32 in every operator; the
 * prediction, least_m_reaching_ridge, against a search of M = 1, 2, ... done here; and, counted
 * on the simulator, a vector add whose requested bytes equal your compulsory bytes.
 * Every count is an integer (or, in INT4, half of one) well below 2^53, so every comparison is
 * exact: a double computes each of them without rounding. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "lab.h"
#include "table.h"

/* ---------------------------------------------------------------------------------
 * Comparing a cost with a hand count, and saying which known mistake the answer matches */

typedef struct diagnosis {
    double value;          /* a wrong answer someone is likely to give */
    const char *means;     /* what it means */
} diagnosis;

enum { MAX_DIAGNOSES = 6 };

/* Every case's expected counts are static const: in the test program's data, never in the test's own
 * stack frame, where the code under test could read them off its caller's locals and return them
 * (tests/grader/forgeries/reads-expected-values.patch). */
typedef struct expected {
    double value;
    const char *idea;                         /* what the count is made of, without the formula */
    diagnosis known[MAX_DIAGNOSES];           /* value 0 with means NULL ends the list */
} expected;

static const char *diagnose(double got, const expected *want)
{
    if (got == 0) return "still 0: is it written yet?";
    if (isnan(got)) return "NaN: dtype_bytes gave no size for this type, or a division by zero?";
    for (int i = 0; i < MAX_DIAGNOSES && want->known[i].means; i++)
        if (got == want->known[i].value) return want->known[i].means;
    return "";
}

static void expect_cost(const char *call, op_cost got, const expected *flops, const expected *bytes)
{
    const char *why = diagnose(got.flops, flops);
    cr_assert(got.flops == flops->value, "%s: flops = %.17g, want %.17g%s%s%s. %s", call, got.flops, flops->value,
              *why ? " (" : "", why, *why ? ")" : "", flops->idea);
    why = diagnose(got.bytes, bytes);
    cr_assert(got.bytes == bytes->value, "%s: bytes = %.17g, want %.17g%s%s%s. %s", call, got.bytes, bytes->value,
              *why ? " (" : "", why, *why ? ")" : "", bytes->idea);
}

/* The intensity, within rounding: flops / bytes of the exact counts. */
static void expect_intensity(const char *call, op_cost got, double low, double high, const char *why)
{
    double intensity = arithmetic_intensity(got);
    cr_assert(intensity >= low && intensity <= high, "%s: %.6g FLOP/B, want between %g and %g: %s", call, intensity,
              low, high, why);
}

/* Llama's shapes, from data/models.csv */
typedef struct shape {
    long long hidden, intermediate;
    int heads, kv_heads, head_dim;
} shape;

static shape model(const char *name)
{
    char error[512];
    lab_table *models = lab_table_read(lab_data_path("models.csv"), error, sizeof error);
    cr_assert(models != NULL, "cannot read data/models.csv: %s", error);
    int row = lab_table_find(models, "name", name);
    cr_assert(row >= 0, "data/models.csv has no row %s", name);
    shape s = {(long long)lab_table_number_or_exit(models, row, "hidden_size"),
               (long long)lab_table_number_or_exit(models, row, "intermediate_size"),
               (int)lab_table_number_or_exit(models, row, "attention_heads"), (int)lab_table_number_or_exit(models, row, "kv_heads"),
               (int)lab_table_number_or_exit(models, row, "head_dim")};
    lab_table_free(models);
    return s;
}

/* ---------------------------------------------------------------------------------
 * dtype_bytes */

Test(dtype_bytes, each_type, .timeout = 10,
     .description = "The size of one element: a float is 32 bits, FP16 and BF16 16, FP8 and INT8 8, INT4 4 bits — "
                    "half a byte, which only a double (or float) return value can hold.")
{
    static const double want[DTYPE_COUNT] = {4, 2, 2, 1, 1, 0.5};
    for (int t = 0; t < DTYPE_COUNT; t++)
        cr_assert(dtype_bytes((dtype)t) == want[t], "dtype_bytes(%s) = %g, want %g%s", dtype_name((dtype)t),
                  dtype_bytes((dtype)t), want[t],
                  t == DTYPE_INT4 && dtype_bytes((dtype)t) == 0 ? ": two INT4 values share a byte; an integer "
                  "division rounds the half down to 0" : "");
}

Test(dtype_bytes, unknown_type_has_no_size, .timeout = 10,
     .description = "A value outside the six types must not pass for a size: return NAN, so a mix-up shows at once.")
{
    const int strays[] = {DTYPE_COUNT, DTYPE_COUNT + 1, -1};
    for (int i = 0; i < 3; i++)
        cr_assert(isnan(dtype_bytes((dtype)strays[i])), "dtype_bytes(%d) = %g, want NaN: %d is none of the six types",
                  strays[i], dtype_bytes((dtype)strays[i]), strays[i]);
}

/* ---------------------------------------------------------------------------------
 * Element-wise operators and reductions */

#define BYTES_ONCE "Bytes: every input tensor read once and the output written once, times the element size."

Test(elementwise, vector_add, .timeout = 10,
     .description = "c = a + b over n elements: one addition each; two tensors read, one written.")
{
    /* n = 1000 FP32: 1000 additions; 3 x 1000 elements x 4 bytes = 12000 */
    static const expected flops = {1000, "One addition per element.", {{0}}};
    static const expected bytes = {12000, BYTES_ONCE, {{8000, "that is the inputs only: the output c is written, and counts too"},
                                          {4000, "that is one tensor: a and b are read, c is written"}}};
    expect_cost("elementwise_cost(1000, 2, 1, FP32)", elementwise_cost(1000, 2, 1, DTYPE_FP32), &flops, &bytes);
    expect_intensity("elementwise_cost(1000, 2, 1, FP32)", elementwise_cost(1000, 2, 1, DTYPE_FP32), 1.0 / 12,
                     1.0 / 12, "1 FLOP per 12 bytes");
}

Test(elementwise, inputs_flops_and_types, .timeout = 10,
     .description = "The count scales with each argument: inputs tensors in, one out, flops_per_element each, in "
                    "the element size of `type`.")
{
    /* SiLU(g) x u over 11008 FP16 elements: 4 x 11008 = 44032 FLOPs; 3 x 11008 x 2 = 66048 bytes */
    static const expected flops = {44032, "flops_per_element for each of the n elements.", {{11008, "that is one FLOP per "
                      "element: use flops_per_element"}}};
    static const expected bytes = {66048, BYTES_ONCE, {{44032, "that is the inputs only: the output is written, and counts too"}}};
    expect_cost("elementwise_cost(11008, 2, 4, FP16)", elementwise_cost(11008, 2, 4, DTYPE_FP16), &flops, &bytes);
    /* ReLU over 7 INT8 elements, 1 FLOP each: 7 FLOPs; 2 x 7 x 1 = 14 bytes */
    static const expected relu_flops = {7, "flops_per_element for each of the n elements.", {{0}}};
    static const expected relu_bytes = {14, BYTES_ONCE, {{7, "that is the input only: the output is written, and counts too"}}};
    expect_cost("elementwise_cost(7, 1, 1, INT8)", elementwise_cost(7, 1, 1, DTYPE_INT8), &relu_flops, &relu_bytes);
    /* three INT4 inputs, 2 FLOPs, 5 elements: 10 FLOPs; 4 x 5 x 0.5 = 10 bytes */
    static const expected fma_flops = {10, "flops_per_element for each of the n elements.", {{0}}};
    static const expected fma_bytes = {10, BYTES_ONCE, {{7.5, "that is the inputs only: the output is written, and counts too"}}};
    expect_cost("elementwise_cost(5, 3, 2, INT4)", elementwise_cost(5, 3, 2, DTYPE_INT4), &fma_flops, &fma_bytes);
}

Test(reduction, sum, .timeout = 10,
     .description = "A sum of n elements needs one addition fewer than there are elements; it reads them all and "
                    "writes one number.")
{
    /* n = 1024 FP32: 1023 additions; (1024 + 1) x 4 = 4100 bytes */
    static const expected flops = {1023, "n numbers are summed by one addition fewer.", {{1024, "one addition too many: summing "
                      "two numbers takes one"}}};
    static const expected bytes = {4100, BYTES_ONCE, {{4096, "the sum itself is written, and counts too"}}};
    expect_cost("reduction_cost(1024, FP32)", reduction_cost(1024, DTYPE_FP32), &flops, &bytes);
    /* n = 4096 BF16: 4095 additions; 4097 x 2 = 8194 bytes */
    static const expected bf16_flops = {4095, "n numbers are summed by one addition fewer.", {{0}}};
    static const expected bf16_bytes = {8194, BYTES_ONCE, {{8192, "the sum itself is written, and counts too"}}};
    expect_cost("reduction_cost(4096, BF16)", reduction_cost(4096, DTYPE_BF16), &bf16_flops, &bf16_bytes);
}

Test(reduction, one_element_and_none, .timeout = 10,
     .description = "Edge cases: two elements need one addition, one element none, and nor does none (a count of "
                    "FLOPs is never negative); the sum is still written.")
{
    /* n = 1 FP16: 0 additions, (1 + 1) x 2 = 4 bytes; n = 0: 0 additions, 1 x 2 = 2 bytes */
    op_cost one = reduction_cost(1, DTYPE_FP16), none = reduction_cost(0, DTYPE_FP16);
    cr_assert(one.flops == 0 && one.bytes == 4, "reduction_cost(1, FP16) = {flops %g, bytes %g}, want {0, 4}: one "
              "element read, the sum (that element) written, nothing added", one.flops, one.bytes);
    /* n = 2 FP16: 1 addition, (2 + 1) x 2 = 6 bytes */
    op_cost two = reduction_cost(2, DTYPE_FP16);
    cr_assert(two.flops == 1 && two.bytes == 6, "reduction_cost(2, FP16) = {flops %g, bytes %g}, want {1, 6}: two "
              "elements read, one addition, the sum written", two.flops, two.bytes);
    cr_assert(none.flops == 0 && none.bytes == 2, "reduction_cost(0, FP16) = {flops %g, bytes %g}, want {0, 2}: no "
              "element, no addition (not -1), and the sum (0) still written", none.flops, none.bytes);
}

/* ---------------------------------------------------------------------------------
 * GEMV and GEMM */

#define FLOPS_DOT "Each output is a dot product of length k: a multiply and an add per step, two FLOPs."
#define BYTES_MATRICES "Bytes: every matrix and vector the product reads, and the one it writes, once each."

Test(gemv, hand_counted, .timeout = 10,
     .description = "y = W x, W n x k: n dot products of length k; reads W and x, writes y.")
{
    /* n = 3, k = 5, FP32: 2 x 3 x 5 = 30 FLOPs; W 15 + x 5 + y 3 = 23 elements = 92 bytes */
    static const expected flops = {30, FLOPS_DOT, {{15, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes = {92, BYTES_MATRICES, {{60, "that is W alone: x is read and y written too"},
                                           {80, "W and x: y is written, and counts too"},
                                           {72, "W and y: the vector x is read too"}}};
    expect_cost("gemv_cost(3, 5, FP32)", gemv_cost(3, 5, DTYPE_FP32), &flops, &bytes);
}

Test(gemv, llama2_7b_decode, .timeout = 10,
     .description = "Decode multiplies each weight matrix by one token's vector (M = 1): each FP16 weight, 2 bytes, "
                    "is read for one multiply-add, 2 FLOPs — about 1 FLOP per byte.")
{
    shape s = model("Llama-2-7B");
    cr_assert(s.hidden == 4096 && s.intermediate == 11008, "data/models.csv's Llama-2-7B has hidden %lld and "
              "intermediate %lld; these hand counts assume 4096 and 11008", s.hidden, s.intermediate);
    /* the Q projection: n = k = 4096, FP16: 2 x 4096^2 = 33554432 FLOPs;
     * (4096^2 + 4096 + 4096) x 2 = 33570816 bytes: 0.99951 FLOP/B */
    static const expected flops = {33554432, FLOPS_DOT, {{16777216, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes = {33570816, BYTES_MATRICES, {{33554432, "that is W alone: x is read and y written too"},
                                                 {67141632, "twice the FP16 bytes: is FP16 counted as 4 bytes?"}}};
    expect_cost("gemv_cost(4096, 4096, FP16)", gemv_cost(s.hidden, s.hidden, DTYPE_FP16), &flops, &bytes);
    expect_intensity("gemv_cost(4096, 4096, FP16)", gemv_cost(s.hidden, s.hidden, DTYPE_FP16), 0.99, 1.0,
                     "decode is about 1 FLOP per byte in FP16");
    /* the gate projection: n = 11008, k = 4096: 2 x 11008 x 4096 = 90177536 FLOPs;
     * (11008 x 4096 + 4096 + 11008) x 2 = 90207744 bytes */
    static const expected gate_flops = {90177536, FLOPS_DOT, {{45088768, "half of it: a multiply-add is two FLOPs"}}};
    static const expected gate_bytes = {90207744, BYTES_MATRICES, {{90177536, "that is W alone: x is read and y written too"}}};
    expect_cost("gemv_cost(11008, 4096, FP16)", gemv_cost(s.intermediate, s.hidden, DTYPE_FP16), &gate_flops,
                &gate_bytes);
}

Test(gemm, hand_counted, .timeout = 10,
     .description = "C = A B, A m x k, B k x n: m x n dot products of length k; reads A and B, writes C.")
{
    /* m = 2, n = 3, k = 5, FP32: 2 x 2 x 3 x 5 = 60 FLOPs; A 10 + B 15 + C 6 = 31 elements = 124 bytes */
    static const expected flops = {60, FLOPS_DOT, {{30, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes = {124, BYTES_MATRICES, {{100, "A and B: C is written, and counts too"},
                                            {60, "that is B alone: A is read and C written too"}}};
    expect_cost("gemm_cost(2, 3, 5, FP32)", gemm_cost(2, 3, 5, DTYPE_FP32), &flops, &bytes);
    /* m = 7, n = 1, k = 9, BF16: 2 x 7 x 1 x 9 = 126 FLOPs; A 63 + B 9 + C 7 = 79 elements = 158 bytes */
    static const expected flops_2 = {126, FLOPS_DOT, {{63, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes_2 = {158, BYTES_MATRICES, {{144, "A and B: C is written, and counts too"}}};
    expect_cost("gemm_cost(7, 1, 9, BF16)", gemm_cost(7, 1, 9, DTYPE_BF16), &flops_2, &bytes_2);
}

Test(gemm, gemv_is_gemm_with_one_row, .timeout = 10,
     .description = "A GEMV is a GEMM whose A has one row: the same FLOPs and the same bytes, for every type.")
{
    const long long shapes[][2] = {{1, 1}, {3, 5}, {4096, 4096}, {11008, 4096}, {4096, 11008}, {32000, 4096}};
    for (int t = 0; t < DTYPE_COUNT; t++)
        for (int i = 0; i < 6; i++) {
            long long n = shapes[i][0], k = shapes[i][1];
            op_cost v = gemv_cost(n, k, (dtype)t), m = gemm_cost(1, n, k, (dtype)t);
            cr_assert(m.flops > 0 && m.bytes > 0, "gemm_cost(1, %lld, %lld, %s) = {%g FLOPs, %g bytes}: write "
                      "gemm_cost first (the checks below say what it should give)", n, k, dtype_name((dtype)t),
                      m.flops, m.bytes);
            cr_assert(v.flops == m.flops && v.bytes == m.bytes, "%s, n = %lld, k = %lld: gemv_cost gives {%.17g "
                      "FLOPs, %.17g bytes}, gemm_cost with m = 1 {%.17g, %.17g}; they count the same work",
                      dtype_name((dtype)t), n, k, v.flops, v.bytes, m.flops, m.bytes);
        }
}

Test(gemm, llama2_7b_prefill, .timeout = 10,
     .description = "Prefill multiplies each weight matrix by M = 2048 tokens at once: every weight read serves "
                    "2048 multiply-adds, so the intensity is in the hundreds or more.")
{
    shape s = model("Llama-2-7B");
    /* the Q projection: m = 2048, n = k = 4096, FP16: 2 x 2048 x 4096^2 = 68719476736 FLOPs;
     * (2048 x 4096 + 4096^2 + 2048 x 4096) x 2 = 67108864 bytes: exactly 1024 FLOP/B */
    static const expected flops = {68719476736.0, FLOPS_DOT, {{34359738368.0, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes = {67108864, BYTES_MATRICES, {{50331648, "A and B: C is written, and counts too"},
                                                 {33554432, "that is the weights alone: the activations A are "
                                                            "read and C written too"}}};
    expect_cost("gemm_cost(2048, 4096, 4096, FP16)", gemm_cost(2048, s.hidden, s.hidden, DTYPE_FP16), &flops, &bytes);
    expect_intensity("gemm_cost(2048, 4096, 4096, FP16)", gemm_cost(2048, s.hidden, s.hidden, DTYPE_FP16), 1024, 1024,
                     "1024 exactly (the chapter works it out)");
    /* the gate projection: m = 2048, n = 11008, k = 4096: 2 x 2048 x 11008 x 4096 = 184683593728 FLOPs;
     * (2048 x 4096 + 4096 x 11008 + 2048 x 11008) x 2 = 152043520 bytes: 1214.68 FLOP/B */
    static const expected gate_flops = {184683593728.0, FLOPS_DOT, {{92341796864.0, "half of it: a multiply-add is two FLOPs"}}};
    static const expected gate_bytes = {152043520, BYTES_MATRICES, {{106954752, "A and B: C is written, and counts too"}}};
    expect_cost("gemm_cost(2048, 11008, 4096, FP16)", gemm_cost(2048, s.intermediate, s.hidden, DTYPE_FP16),
                &gate_flops, &gate_bytes);
    expect_intensity("gemm_cost(2048, 11008, 4096, FP16)", gemm_cost(2048, s.intermediate, s.hidden, DTYPE_FP16),
                     100, 2000, "prefill's intensity is in the hundreds or more");
}

Test(gemm, counts_past_what_an_int_holds, .timeout = 10,
     .description = "Llama-2-70B's MLP for 8192 tokens does 3.8 x 10^12 FLOPs: count in double (or long long), "
                    "never in an int, whose largest value is 2^31 - 1.")
{
    shape s = model("Llama-2-70B");
    cr_assert(s.hidden == 8192 && s.intermediate == 28672, "data/models.csv's Llama-2-70B has hidden %lld and "
              "intermediate %lld; this hand count assumes 8192 and 28672", s.hidden, s.intermediate);
    /* m = 8192, n = 28672, k = 8192, FP16: 2 x 8192 x 28672 x 8192 = 3848290697216 FLOPs;
     * (8192 x 8192 + 8192 x 28672 + 8192 x 28672) x 2 = 1073741824 bytes */
    static const expected flops = {3848290697216.0, FLOPS_DOT " Here the product of the sizes passes 2^31.", {{0}}};
    static const expected bytes = {1073741824, BYTES_MATRICES, {{0}}};
    expect_cost("gemm_cost(8192, 28672, 8192, FP16)", gemm_cost(8192, s.intermediate, s.hidden, DTYPE_FP16), &flops,
                &bytes);
    /* and a GEMV whose weight matrix alone has 2^32 + 2^16 elements: n = 65537, k = 65536, INT4:
     * 2 x 65537 x 65536 = 8590065664 FLOPs; (65537 x 65536 + 65536 + 65537) x 0.5 = 2147581952.5 bytes */
    static const expected v_flops = {8590065664.0, FLOPS_DOT " Here the product of the sizes passes 2^32.", {{0}}};
    static const expected v_bytes = {2147581952.5, BYTES_MATRICES, {{0}}};
    expect_cost("gemv_cost(65537, 65536, INT4)", gemv_cost(65537, 65536, DTYPE_INT4), &v_flops, &v_bytes);
}

/* ---------------------------------------------------------------------------------
 * Softmax and the norms */

Test(softmax, hand_counted, .timeout = 10,
     .description = "Softmax reads each row once and writes it once; lab.h counts 5 FLOPs per element (max, "
                    "subtract, exp, sum, divide).")
{
    /* 32 rows of 2048, FP16: 5 x 65536 = 327680 FLOPs; 2 x 65536 x 2 = 262144 bytes */
    static const expected flops = {327680, "5 FLOPs for each element of each row.", {{65536, "one FLOP per element: lab.h counts "
                      "five"}, {262144, "four per element: lab.h counts the comparison for the max as well"}}};
    static const expected bytes = {262144, "Bytes: the input read once and the output written once; the max and the sum stay on "
                      "the chip.", {{131072, "that is the input only: the output is written, and counts too"},
                                    {393216, "the input counted twice (a pass for the max, a pass for the sum): the "
                                             "compulsory traffic reads it once"}}};
    expect_cost("softmax_cost(32, 2048, FP16)", softmax_cost(32, 2048, DTYPE_FP16), &flops, &bytes);
    /* 3 rows of 5, FP32: 75 FLOPs; 2 x 15 x 4 = 120 bytes */
    static const expected small_flops = {75, "5 FLOPs for each element of each row.", {{0}}};
    static const expected small_bytes = {120, BYTES_ONCE, {{60, "that is the input only: the output is written, and counts too"}}};
    expect_cost("softmax_cost(3, 5, FP32)", softmax_cost(3, 5, DTYPE_FP32), &small_flops, &small_bytes);
}

#define NORM_FLOPS "FLOPs: lab.h lists those of each element and those of each row, once per row."
#define NORM_BYTES "Bytes: x read, y written, and the norm's weight vector(s) read once, shared by every row."

Test(rmsnorm, hand_counted, .timeout = 10,
     .description = "RMSNorm: 4 FLOPs per element, 3 per row; reads x and the weight vector, writes y.")
{
    /* 3 rows of 8, FP32: 4 x 24 + 3 x 3 = 105 FLOPs; (24 + 24 + 8) x 4 = 224 bytes */
    static const expected flops = {105, NORM_FLOPS, {{96, "the per-element FLOPs alone: each row also needs 3 (mean, + eps, "
                      "rsqrt)"}}};
    static const expected bytes = {224, NORM_BYTES, {{192, "x and y: the weight vector is read too"},
                                        {288, "the weight vector counted once per row: it is read once, and shared"}}};
    expect_cost("rmsnorm_cost(3, 8, FP32)", rmsnorm_cost(3, 8, DTYPE_FP32), &flops, &bytes);
    /* Llama-2-7B, decode: 1 row of 4096, FP16: 4 x 4096 + 3 = 16387 FLOPs; (4096 x 3) x 2 = 24576 bytes */
    static const expected decode_flops = {16387, NORM_FLOPS, {{16384, "the per-element FLOPs alone: the row also needs 3"}}};
    static const expected decode_bytes = {24576, NORM_BYTES, {{16384, "x and y: the weight vector is read too"}}};
    expect_cost("rmsnorm_cost(1, 4096, FP16)", rmsnorm_cost(1, 4096, DTYPE_FP16), &decode_flops, &decode_bytes);
}

Test(layernorm, hand_counted, .timeout = 10,
     .description = "LayerNorm: 7 FLOPs per element, 4 per row; reads x, gamma and beta, writes y.")
{
    /* 3 rows of 8, FP32: 7 x 24 + 4 x 3 = 180 FLOPs; (24 + 24 + 8 + 8) x 4 = 256 bytes */
    static const expected flops = {180, NORM_FLOPS, {{168, "the per-element FLOPs alone: each row also needs 4"},
                                        {177, "3 per row is RMSNorm's count: LayerNorm also divides for the mean"}}};
    static const expected bytes = {256, NORM_BYTES, {{224, "one weight vector: LayerNorm reads two, gamma and beta"},
                                        {192, "x and y: gamma and beta are read too"},
                                        {384, "gamma and beta counted once per row: they are read once, and shared"}}};
    expect_cost("layernorm_cost(3, 8, FP32)", layernorm_cost(3, 8, DTYPE_FP32), &flops, &bytes);
    /* 2048 rows of 4096, BF16: 7 x 8388608 + 4 x 2048 = 58728448 FLOPs;
     * (2 x 8388608 + 2 x 4096) x 2 = 33570816 bytes */
    static const expected big_flops = {58728448, NORM_FLOPS, {{58720256, "the per-element FLOPs alone: each row also needs 4"}}};
    static const expected big_bytes = {33570816, NORM_BYTES, {{33554432, "x and y: gamma and beta are read too"}}};
    expect_cost("layernorm_cost(2048, 4096, BF16)", layernorm_cost(2048, 4096, DTYPE_BF16), &big_flops, &big_bytes);
}

/* ---------------------------------------------------------------------------------
 * Attention */

#define ATTENTION_FLOPS "One GEMM per query head, every query against every key."
#define SCORES_BYTES "Bytes: Q, K and the scores S, each as stored: Q and S per query head, K per KV head."
#define VALUES_BYTES "Bytes: P, V and the output O, each as stored: P and O per query head, V per KV head."

Test(attention, scores_hand_counted, .timeout = 10,
     .description = "S = Q K^T: per query head a (queries x head_dim) by (head_dim x keys) product.")
{
    /* queries 3, keys 5, 2 heads (2 KV heads), head_dim 4, FP32: 2 x 2 x 3 x 5 x 4 = 240 FLOPs;
     * Q 2x3x4 = 24, K 2x5x4 = 40, S 2x3x5 = 30: 94 elements = 376 bytes */
    static const expected flops = {240, ATTENTION_FLOPS, {{120, "half of it: the two FLOPs of a multiply-add, or one of the two "
                                                    "heads, is missing"}}};
    static const expected bytes = {376, SCORES_BYTES, {{256, "Q and K: the scores S are written, and count too"},
                                          {188, "one head's bytes: every head has its own Q, K and S"}}};
    expect_cost("attention_scores_cost(3, 5, 2, 2, 4, FP32)", attention_scores_cost(3, 5, 2, 2, 4, DTYPE_FP32), &flops,
                &bytes);
}

Test(attention, values_hand_counted, .timeout = 10,
     .description = "O = P V: per query head a (queries x keys) by (keys x head_dim) product.")
{
    /* the same shape: 240 FLOPs; P 2x3x5 = 30, V 2x5x4 = 40, O 2x3x4 = 24: 94 elements = 376 bytes;
     * and with 4 query heads sharing 2 KV heads: 480 FLOPs; P 60 + V 40 + O 48 = 148 elements = 592 bytes */
    static const expected flops = {240, ATTENTION_FLOPS, {{120, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes = {376, VALUES_BYTES, {{280, "P and V: the output O is written, and counts too"}}};
    expect_cost("attention_values_cost(3, 5, 2, 2, 4, FP32)", attention_values_cost(3, 5, 2, 2, 4, DTYPE_FP32), &flops,
                &bytes);
    static const expected gqa_flops = {480, ATTENTION_FLOPS, {{240, "per KV head: every query head does its own product"}}};
    static const expected gqa_bytes = {592, VALUES_BYTES, {{752, "V counted per query head: the 4 query heads share 2 V heads"}}};
    expect_cost("attention_values_cost(3, 5, 4, 2, 4, FP32)", attention_values_cost(3, 5, 4, 2, 4, DTYPE_FP32),
                &gqa_flops, &gqa_bytes);
}

Test(attention, llama2_7b_decode, .timeout = 10,
     .description = "A decode step reads the whole K cache for one query per head: each FP16 key element is used "
                    "for one multiply-add, about 1 FLOP per byte, as for the weights.")
{
    shape s = model("Llama-2-7B");
    cr_assert(s.heads == 32 && s.kv_heads == 32 && s.head_dim == 128, "data/models.csv's Llama-2-7B has %d heads, "
              "%d KV heads of %d; these hand counts assume 32, 32 and 128", s.heads, s.kv_heads, s.head_dim);
    /* 1 query, 2048 keys, 32 heads of 128, FP16: 2 x 32 x 2048 x 128 = 16777216 FLOPs;
     * Q 32 x 128 = 4096, K 32 x 2048 x 128 = 8388608, S 32 x 2048 = 65536: 8458240 elements = 16916480 bytes */
    static const expected flops = {16777216, ATTENTION_FLOPS, {{8388608, "half of it: a multiply-add is two FLOPs"}}};
    static const expected bytes = {16916480, SCORES_BYTES, {{16785408, "Q and K: the scores S are written, and count too"}}};
    op_cost scores = attention_scores_cost(1, 2048, s.heads, s.kv_heads, s.head_dim, DTYPE_FP16);
    expect_cost("attention_scores_cost(1, 2048, 32, 32, 128, FP16)", scores, &flops, &bytes);
    expect_intensity("attention_scores_cost(1, 2048, 32, 32, 128, FP16)", scores, 0.95, 1.0,
                     "decode attention is about 1 FLOP per byte in FP16");
    /* the same for P V: P 65536 + V 8388608 + O 4096 elements: the same bytes */
    op_cost values = attention_values_cost(1, 2048, s.heads, s.kv_heads, s.head_dim, DTYPE_FP16);
    expect_cost("attention_values_cost(1, 2048, 32, 32, 128, FP16)", values, &flops, &bytes);
}

Test(attention, grouped_query_llama2_70b, .timeout = 10,
     .description = "Grouped-query attention: Llama-2-70B's 64 query heads share 8 KV heads, so the K and V caches "
                    "are an eighth of multi-head attention's, and each key serves 8 queries.")
{
    shape s = model("Llama-2-70B");
    cr_assert(s.heads == 64 && s.kv_heads == 8 && s.head_dim == 128, "data/models.csv's Llama-2-70B has %d heads, "
              "%d KV heads of %d; these hand counts assume 64, 8 and 128", s.heads, s.kv_heads, s.head_dim);
    /* 1 query, 4096 keys, FP16: 2 x 64 x 4096 x 128 = 67108864 FLOPs;
     * Q 64 x 128 = 8192, K 8 x 4096 x 128 = 4194304, S 64 x 4096 = 262144: 4464640 elements = 8929280 bytes */
    static const expected flops = {67108864, ATTENTION_FLOPS, {{8388608, "per KV head: every query head does its own product"}}};
    static const expected bytes = {8929280, SCORES_BYTES, {{67649536, "K counted once per query head: 64 query heads share 8 K "
                                                         "heads, stored once each"}}};
    op_cost scores = attention_scores_cost(1, 4096, s.heads, s.kv_heads, s.head_dim, DTYPE_FP16);
    expect_cost("attention_scores_cost(1, 4096, 64, 8, 128, FP16)", scores, &flops, &bytes);
    expect_intensity("attention_scores_cost(1, 4096, 64, 8, 128, FP16)", scores, 7, 8,
                     "8 query heads share each key: 8 times the intensity of multi-head attention, nearly");
    /* P V: P 262144 + V 4194304 + O 8192: the same 8929280 bytes */
    static const expected v_bytes = {8929280, VALUES_BYTES, {{67649536, "V counted once per query head: 64 query heads share 8 V "
                                                           "heads, stored once each"}}};
    expect_cost("attention_values_cost(1, 4096, 64, 8, 128, FP16)",
                attention_values_cost(1, 4096, s.heads, s.kv_heads, s.head_dim, DTYPE_FP16), &flops, &v_bytes);
}

#define NO_MASK "every query scores every key (lab.h: no mask), also in a prefill, where queries = keys"

Test(attention, prefill_every_query_against_every_key, .timeout = 10,
     .description = "A prefill has as many queries as keys; lab.h counts every pair, no mask. A causal kernel may "
                    "skip the masked half, but the count (and the chapter's table) is the unmasked one.")
{
    /* queries = keys = 4, 2 heads sharing 1 KV head, head_dim 3, FP32: 2 x 2 x 4 x 4 x 3 = 192 FLOPs;
     * Q 2x4x3 = 24, K 1x4x3 = 12, S 2x4x4 = 32: 68 elements = 272 bytes (P V: P 32 + V 12 + O 24, the same).
     * Causal (query i against keys 0..i, 10 pairs a head): 120 FLOPs, S 20: 224 bytes */
    static const expected flops = {192, ATTENTION_FLOPS, {{120, "that is the causal count, query i against keys 0..i: "
                                                               NO_MASK}, {96, "half of it: " NO_MASK}}};
    static const expected s_bytes = {272, SCORES_BYTES, {{224, "S holds only the causal pairs: " NO_MASK}}};
    static const expected p_bytes = {272, VALUES_BYTES, {{224, "P holds only the causal pairs: " NO_MASK}}};
    expect_cost("attention_scores_cost(4, 4, 2, 1, 3, FP32)", attention_scores_cost(4, 4, 2, 1, 3, DTYPE_FP32), &flops,
                &s_bytes);
    expect_cost("attention_values_cost(4, 4, 2, 1, 3, FP32)", attention_values_cost(4, 4, 2, 1, 3, DTYPE_FP32), &flops,
                &p_bytes);
    /* Llama-2-7B's prefill, 2048 queries against 2048 keys, 32 heads of 128, FP16: 2 x 32 x 2048^2 x 128
     * = 34359738368 FLOPs; Q 8388608 + K 8388608 + S 32 x 2048^2 = 134217728: 150994944 elements =
     * 301989888 bytes, 113.78 FLOP/B (the chapter's table). Causal: 2 x 32 x (2048 x 2049 / 2) x 128 =
     * 17188257792 FLOPs, S 67141632: 167837696 bytes */
    shape s = model("Llama-2-7B");
    static const expected big_flops = {34359738368.0, ATTENTION_FLOPS,
                                       {{17188257792.0, "that is the causal count, query i against keys 0..i: "
                                                        NO_MASK},
                                        {17179869184.0, "half of it: " NO_MASK}}};
    static const expected big_s_bytes = {301989888, SCORES_BYTES,
                                         {{167837696, "S holds only the causal pairs: " NO_MASK},
                                          {167772160, "S holds half the pairs: " NO_MASK}}};
    static const expected big_p_bytes = {301989888, VALUES_BYTES,
                                         {{167837696, "P holds only the causal pairs: " NO_MASK},
                                          {167772160, "P holds half the pairs: " NO_MASK}}};
    op_cost scores = attention_scores_cost(2048, 2048, s.heads, s.kv_heads, s.head_dim, DTYPE_FP16);
    expect_cost("attention_scores_cost(2048, 2048, 32, 32, 128, FP16)", scores, &big_flops, &big_s_bytes);
    expect_cost("attention_values_cost(2048, 2048, 32, 32, 128, FP16)",
                attention_values_cost(2048, 2048, s.heads, s.kv_heads, s.head_dim, DTYPE_FP16), &big_flops,
                &big_p_bytes);
    expect_intensity("attention_scores_cost(2048, 2048, 32, 32, 128, FP16)", scores, 113, 114,
                     "writing the 2048 x 2048 scores of every head costs more bytes than Q and K together");
}

/* ---------------------------------------------------------------------------------
 * Every size through a double: B = 2^24 + 1 is the first whole number a float cannot hold, so
 * a size or a count that passes through a float anywhere comes out one off. Each case puts B
 * (or B + 1, whose n - 1 is B) in one argument and 1 in the others (by hand: B elements cost
 * B, 2B, 5B, ... as lab.h counts; the bytes are FP32's 4 per element). */

Test(every_operator, sizes_past_what_a_float_holds, .timeout = 10,
     .description = "Every size and count must pass through double (or long long) only: a float holds whole "
                    "numbers exactly only up to 2^24 = 16777216.")
{
    enum { B = (1 << 24) + 1 };
    const struct {
        const char *call;
        op_cost got;
        double flops, bytes;
    } cases[] = {
        {"elementwise_cost(B, 2, 1, FP32)", elementwise_cost(B, 2, 1, DTYPE_FP32), 16777217, 201326604},
        {"reduction_cost(B, FP32)", reduction_cost(B, DTYPE_FP32), 16777216, 67108872},
        {"reduction_cost(B + 1, FP32)", reduction_cost(B + 1, DTYPE_FP32), 16777217, 67108876},
        {"gemm_cost(B, 1, 1, FP32)", gemm_cost(B, 1, 1, DTYPE_FP32), 33554434, 134217740},
        {"gemm_cost(1, B, 1, FP32)", gemm_cost(1, B, 1, DTYPE_FP32), 33554434, 134217740},
        {"gemm_cost(1, 1, B, FP32)", gemm_cost(1, 1, B, DTYPE_FP32), 33554434, 134217740},
        {"gemv_cost(B, 1, FP32)", gemv_cost(B, 1, DTYPE_FP32), 33554434, 134217740},
        {"softmax_cost(B, 1, FP32)", softmax_cost(B, 1, DTYPE_FP32), 83886085, 134217736},
        {"softmax_cost(1, B, FP32)", softmax_cost(1, B, DTYPE_FP32), 83886085, 134217736},
        {"rmsnorm_cost(B, 1, FP32)", rmsnorm_cost(B, 1, DTYPE_FP32), 117440519, 134217740},
        {"rmsnorm_cost(1, B, FP32)", rmsnorm_cost(1, B, DTYPE_FP32), 67108871, 201326604},
        {"layernorm_cost(B, 1, FP32)", layernorm_cost(B, 1, DTYPE_FP32), 184549387, 134217744},
        {"layernorm_cost(1, B, FP32)", layernorm_cost(1, B, DTYPE_FP32), 117440523, 268435472},
        {"attention_scores_cost(B, 1, 1, 1, 1, FP32)", attention_scores_cost(B, 1, 1, 1, 1, DTYPE_FP32), 33554434, 134217740},
        {"attention_scores_cost(1, B, 1, 1, 1, FP32)", attention_scores_cost(1, B, 1, 1, 1, DTYPE_FP32), 33554434, 134217740},
        {"attention_scores_cost(1, 1, B, B, 1, FP32)", attention_scores_cost(1, 1, B, B, 1, DTYPE_FP32), 33554434, 201326604},
        {"attention_scores_cost(1, 1, 1, 1, B, FP32)", attention_scores_cost(1, 1, 1, 1, B, DTYPE_FP32), 33554434, 134217740},
        {"attention_values_cost(B, 1, 1, 1, 1, FP32)", attention_values_cost(B, 1, 1, 1, 1, DTYPE_FP32), 33554434, 134217740},
        {"attention_values_cost(1, B, 1, 1, 1, FP32)", attention_values_cost(1, B, 1, 1, 1, DTYPE_FP32), 33554434, 134217740},
        {"attention_values_cost(1, 1, B, B, 1, FP32)", attention_values_cost(1, 1, B, B, 1, DTYPE_FP32), 33554434, 201326604},
        {"attention_values_cost(1, 1, 1, 1, B, FP32)", attention_values_cost(1, 1, 1, 1, B, DTYPE_FP32), 33554434, 134217740},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert(cases[i].got.flops == cases[i].flops && cases[i].got.bytes == cases[i].bytes, "%s with B = 2^24 + 1 "
                  "= %d: {%.17g FLOPs, %.17g bytes}, want {%.17g, %.17g}. %s", cases[i].call, B, cases[i].got.flops,
                  cases[i].got.bytes, cases[i].flops, cases[i].bytes, cases[i].got.flops == 0 ? "Still 0: the "
                  "checks above, on small sizes, come first." : "Off by a little? A float (a variable, a cast or a "
                  "return type) rounds B; keep every count in double.");
}

/* Products of sizes past 2^31, each size an int's worth: a count held in an int (a variable, or a
 * product of ints) wraps. Hand counts: E = 2^32 = 4294967296 elements. */
Test(every_operator, counts_past_what_an_int_holds, .timeout = 10,
     .description = "Every operator's counts pass 2^31 at prefill sizes (Llama-2-70B at 8192 tokens: 2^32 scores); "
                    "count in double, never in an int, whose largest value is 2^31 - 1.")
{
    const long long big = 3LL << 30;   /* 3221225472 elements: n itself past 2^31 */
    const struct {
        const char *call;
        op_cost got, small;   /* small: the same function on a small shape, to tell "not written" apart */
        double flops, bytes;
    } cases[] = {
        /* n = 3 x 2^30: n FLOPs; 3n x 2 bytes */
        {"elementwise_cost(3 x 2^30, 2, 1, FP16)", elementwise_cost(big, 2, 1, DTYPE_FP16),
         elementwise_cost(8, 2, 1, DTYPE_FP16), 3221225472.0, 19327352832.0},
        /* n - 1 additions; (n + 1) x 4 bytes */
        {"reduction_cost(3 x 2^30, FP32)", reduction_cost(big, DTYPE_FP32), reduction_cost(8, DTYPE_FP32), 3221225471.0,
         12884901892.0},
        /* 524288 rows of 8192 = E: 5E FLOPs; 2E x 2 bytes */
        {"softmax_cost(524288, 8192, FP16)", softmax_cost(524288, 8192, DTYPE_FP16), softmax_cost(2, 8, DTYPE_FP16),
         21474836480.0, 17179869184.0},
        /* 2^20 rows of 4096 = E: 4E + 3 x 2^20 FLOPs; (2E + 4096) x 2 bytes */
        {"rmsnorm_cost(1048576, 4096, BF16)", rmsnorm_cost(1048576, 4096, DTYPE_BF16), rmsnorm_cost(2, 8, DTYPE_BF16),
         17183014912.0, 17179877376.0},
        /* 7E + 4 x 2^20 FLOPs; (2E + 2 x 4096) x 4 bytes */
        {"layernorm_cost(1048576, 4096, FP32)", layernorm_cost(1048576, 4096, DTYPE_FP32),
         layernorm_cost(2, 8, DTYPE_FP32), 30068965376.0, 34359771136.0},
        /* 64 heads x 8192 x 8192 = E scores: 2E x 128 = 2^40 FLOPs; Q 2^26 + K 8 x 8192 x 128 + S E, x 2 bytes */
        {"attention_scores_cost(8192, 8192, 64, 8, 128, FP16)",
         attention_scores_cost(8192, 8192, 64, 8, 128, DTYPE_FP16), attention_scores_cost(2, 3, 2, 1, 4, DTYPE_FP16),
         1099511627776.0, 8740929536.0},
        {"attention_values_cost(8192, 8192, 64, 8, 128, FP16)",
         attention_values_cost(8192, 8192, 64, 8, 128, DTYPE_FP16), attention_values_cost(2, 3, 2, 1, 4, DTYPE_FP16),
         1099511627776.0, 8740929536.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert(cases[i].got.flops == cases[i].flops && cases[i].got.bytes == cases[i].bytes, "%s: {%.17g FLOPs, "
                  "%.17g bytes}, want {%.17g, %.17g}. %s", cases[i].call, cases[i].got.flops, cases[i].got.bytes,
                  cases[i].flops, cases[i].bytes, cases[i].small.flops == 0 ? "Still 0, on small sizes too: the "
                  "checks above come first." : "A product of the sizes passes 2^31 here: held in an int (a variable, "
                  "or a product of ints) it wraps, 2^32 to exactly 0. Count in double.");
}

/* ---------------------------------------------------------------------------------
 * The prediction: least_m_reaching_ridge against a search done here. A GEMM M x n x k in a type
 * of b bytes reaches the ridge r when 2 M n k >= r b (M k + k n + M n); the search checks that
 * inequality in long double (exact for these sizes) from a first guess up and down to the least
 * M that holds it, so it shares nothing with the double arithmetic of a closed form. */

enum { ENDLESS = 1 << 30 };   /* a size standing for an endless one, in the diagnoses */
static const double element_bytes[DTYPE_COUNT] = {4, 2, 2, 1, 1, 0.5};   /* lab.h's, in its order */

static int reaches(long long m, long long n, long long k, double b, double ridge)
{
    long double mm = m, nn = n, kk = k;
    return 2 * mm * nn * kk >= (long double)ridge * b * (mm * kk + kk * nn + mm * nn);
}

/* The least M that reaches the ridge; 0 when even an endless M stays below it. */
static long long searched_m(double ridge, long long n, long long k, double b)
{
    long double rb = (long double)ridge * b, per_row = 2 * (long double)n * k - rb * ((long double)n + k);
    if (per_row <= 0) return 0;
    long long m = (long long)(rb * n * k / per_row);   /* a first guess, then the inequality decides */
    if (m < 1) m = 1;
    while (!reaches(m, n, k, b, ridge)) m++;
    while (m > 1 && reaches(m - 1, n, k, b, ridge)) m--;
    return m;
}

static double gemm_intensity(long long m, long long n, long long k, double b)
{
    return 2.0 * m * n * k / (b * ((double)m * k + (double)k * n + (double)m * n));
}

/* What a learner's answer usually means, worked out by the same search with one thing changed. */
static void least_m_mistake(char *says, size_t size, long long got, long long want, double ridge, long long n,
                            long long k, dtype type)
{
    double b = element_bytes[type];
    *says = 0;
    if (want == 0 && got != 0)
        snprintf(says, size, "No M reaches this ridge: as M grows the intensity approaches 2 / (b (1/n + 1/k)) = "
                 "%.6g without passing it, and the ridge is %.6g. Return 0", 2 / (b * (1.0 / n + 1.0 / k)), ridge);
    else if (got == want + 1)
        snprintf(says, size, "One too many: M = %lld already reaches it (intensity %.17g), and at a tie reaching "
                 "counts; the least whole M at or above the bound is the bound rounded up", want,
                 gemm_intensity(want, n, k, b));
    else if (got == want - 1)
        snprintf(says, size, "One short: that is below the ridge; round the bound up, not down or to the nearest");
    else if (b != 2 && got == searched_m(ridge, n, k, 2))
        snprintf(says, size, "That is FP16's answer: the bytes of one element come from the type");
    else if (b != 1 && got == searched_m(ridge, n, k, 1))
        snprintf(says, size, "That is the answer for 1-byte elements: the intensity is FLOPs per byte, not per "
                 "element");
    else if (n != k && (got == searched_m(ridge, n, n, b) || got == searched_m(ridge, k, k, b)))
        snprintf(says, size, "That is the answer for a square matrix: n and k are two sizes, equal in the chapter's Q "
                 "projection only");
    else if (got == searched_m(ridge, ENDLESS, ENDLESS, b))
        snprintf(says, size, "That is as if n and k were endless: is 1 / n an integer division, which gives 0?");
    else if (got == 0)
        snprintf(says, size, "0 means no M reaches it, but this ridge is reached");
    else if (want > 1000000 && got > want * 0.999 && got < want * 1.001)
        snprintf(says, size, "Close, not exact: near the limit 1/M's bound is a small difference of larger terms, "
                 "and a float (a variable, a cast) keeps 7 digits of it. Keep it in double");
}

typedef struct least_m_case {
    double ridge;
    long long n, k;
    dtype type;
    const char *what;
} least_m_case;

static void expect_least_m(const least_m_case *c)
{
    double b = element_bytes[c->type];
    long long want = searched_m(c->ridge, c->n, c->k, b);
    long long got = least_m_reaching_ridge(c->ridge, c->n, c->k, c->type);
    if (got == want) return;
    char mistake[256], at_got[96] = "";
    least_m_mistake(mistake, sizeof mistake, got, want, c->ridge, c->n, c->k, c->type);
    if (got >= 1) snprintf(at_got, sizeof at_got, "; at M = %lld the intensity is %.17g", got,
                           gemm_intensity(got, c->n, c->k, b));
    cr_assert_fail("least_m_reaching_ridge(%.9g, %lld, %lld, %s) = %lld, want %lld (%s): the least M whose intensity "
                   "reaches the ridge%s. %s", c->ridge, c->n, c->k, dtype_name(c->type), got, want, c->what, at_got,
                   mistake);
}

static double gpu_ridge(const char *key)
{
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int row = lab_table_find(gpus, "key", key);
    cr_assert(row >= 0, "data/gpus.csv has no row %s", key);
    double ridge = fp16_ridge_flop_per_byte(lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops"),
                                            lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s"));
    lab_table_free(gpus);
    return ridge;
}

#define HINT_LEAST_M "Write the intensity in its second form, 2 / (b (1/M + 1/n + 1/k)), set it at or above the " \
                     "ridge and solve for 1/M: the least whole M follows, or no M at all."

Test(prediction, least_m_on_the_chapter_gpus, .timeout = 10, .description = HINT_LEAST_M)
{
    /* H100 SXM, ridge 295.34: 1/M <= 1/295.34 - 2/4096, M >= 345.1: 346; the MLP (11008, 4096): 327.8: 328.
     * A100 SXM 80GB, ridge 153.02: 165.4: 166 and 161.3: 162 (the chapter's numbers, section 3 of the lab) */
    double h100 = gpu_ridge("h100-sxm"), a100 = gpu_ridge("a100-80gb");
    const least_m_case cases[] = {
        {h100, 4096, 4096, DTYPE_FP16, "Llama-2-7B's Q projection on an H100 SXM: 346"},
        {h100, 11008, 4096, DTYPE_FP16, "its gate projection on an H100 SXM: 328"},
        {h100, 4096, 11008, DTYPE_BF16, "its down projection in BF16 on an H100 SXM: 328"},
        {a100, 4096, 4096, DTYPE_FP16, "the Q projection on an A100 SXM 80GB: 166"},
        {a100, 11008, 4096, DTYPE_FP16, "the gate projection on an A100 SXM 80GB: 162"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_least_m(&cases[i]);
}

Test(prediction, least_m_in_every_type, .timeout = 10,
     .description = "Fewer bytes an element, fewer rows to reach the same ridge: the bytes come from the type. "
                    HINT_LEAST_M)
{
    /* the H100's ridge, N = K = 4096: FP32 1/M <= 2/(4 x 295.34) - 2/4096: 830.1: 831;
     * INT8 and FP8 159.1: 160; INT4 76.6: 77 */
    double h100 = gpu_ridge("h100-sxm");
    const least_m_case cases[] = {
        {h100, 4096, 4096, DTYPE_FP32, "FP32, 4 bytes an element: 831"},
        {h100, 4096, 4096, DTYPE_INT8, "INT8, 1 byte: 160"},
        {h100, 4096, 4096, DTYPE_FP8, "FP8, 1 byte: 160"},
        {h100, 4096, 4096, DTYPE_INT4, "INT4, half a byte: 77"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_least_m(&cases[i]);
}

Test(prediction, least_m_of_shapes_not_square, .timeout = 10,
     .description = "n and k are two sizes: the chapter's Q projection has n = k, most matrices do not. " HINT_LEAST_M)
{
    /* Llama-2-70B's down projection (n 8192, k 28672) on the H100: 309.7: 310;
     * n 512, k 4096 on the A100 SXM 80GB: 1/M <= 1/153.02 - 1/512 - 1/4096: 230.5: 231 */
    const least_m_case cases[] = {
        {gpu_ridge("h100-sxm"), 8192, 28672, DTYPE_FP16, "Llama-2-70B's down projection on an H100 SXM: 310"},
        {gpu_ridge("a100-80gb"), 512, 4096, DTYPE_FP16, "a 512 x 4096 weight on an A100 SXM 80GB: 231"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_least_m(&cases[i]);
}

Test(prediction, least_m_at_the_edges, .timeout = 10,
     .description = "Reaching the ridge includes meeting it exactly; one row may already reach it; and as M grows "
                    "the intensity approaches 2 / (b (1/n + 1/k)) without passing it, so a ridge at or above that "
                    "limit is never reached: 0. " HINT_LEAST_M)
{
    /* ridge 1024, N = K = 4096, FP16: 1/M <= 1/1024 - 2/4096 = 1/2048: M = 2048 exactly, where the
     * intensity is exactly 1024 (the chapter's prefill). Ridge 0.5: M = 1 gives 0.9995 already.
     * Llama-2-13B's MLP (5120, 13824), whose limit is 1 / (1/5120 + 1/13824) = 3736.216: a ridge
     * 0.006 % under it needs M = 63209846 (the bound is 63209845.50004), and 1/M's bound, about
     * 1.6e-8, is the difference of terms near 2.7e-4: seven digits (a float) miss it.
     * N = K = 4096, FP16: the limit is 2048; ridges 2048 (a tie at the limit) and 3000: 0.
     * One head's S = Q K^T, n = 2048 keys, k = 128: the limit is 1 / (1/2048 + 1/128) = 120.5, under the
     * lowest ridge of data/gpus.csv (the V100's 138.9): 0 */
    const least_m_case cases[] = {
        {1024, 4096, 4096, DTYPE_FP16, "a tie: at M = 2048 the intensity is exactly 1024"},
        {0.5, 4096, 4096, DTYPE_FP16, "one row is already at 0.9995 FLOP/B"},
        {3735.9953884884508, 5120, 13824, DTYPE_FP16, "Llama-2-13B's MLP, a ridge just under its limit of 3736.2"},
        {2048, 4096, 4096, DTYPE_FP16, "the limit is 2048 itself, approached and never reached"},
        {3000, 4096, 4096, DTYPE_FP16, "above the limit of 2048"},
        {gpu_ridge("v100"), 2048, 128, DTYPE_FP16, "one head's scores over 2048 keys: limit 120.5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_least_m(&cases[i]);
}

/* ---------------------------------------------------------------------------------
 * Counted on the simulator */

Test(counted, vector_add_moves_its_compulsory_bytes, .timeout = 30,
     .description = "Counted: the driver's vector add reads a and b and writes c once each, in whole 32-byte "
                    "sectors; what the simulator counts is exactly elementwise_cost's bytes.")
{
    const int sizes[] = {1000, 65536};   /* multiples of 8 floats: whole sectors */
    for (int i = 0; i < 2; i++) {
        counted_traffic traffic = count_vector_add(sizes[i]);
        cr_assert(traffic.error == NULL, "the driver's vector add ended with the CUDA error \"%s\": the driver or "
                  "the simulator is broken", traffic.error);
        if (!traffic.counted) cr_skip("counted only on the simulator");
        op_cost model = elementwise_cost(sizes[i], 2, 1, DTYPE_FP32);
        double counted = traffic.load_bytes + traffic.store_bytes;
        cr_assert(counted == model.bytes, "n = %d: the simulator counted %.0f bytes (%.0f loaded, %.0f stored), "
                  "elementwise_cost(%d, 2, 1, FP32) says %.17g", sizes[i], counted, traffic.load_bytes,
                  traffic.store_bytes, sizes[i], model.bytes);
    }
}
