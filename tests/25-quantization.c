/* 25-quantization.c — the checks for day 25, in the order of lab.h: INT8 per channel on rows
 * small enough to follow by hand (the scale, the rounding, one scale per row), then the round
 * trip within scale / 2 on odd shapes and extreme rows, the INT8 GEMV against a double-precision
 * reference, and timed against the FP32 GEMV on a matrix far larger than the caches; INT4: the
 * sizes of its layout, a zero point and a packed byte by hand, groups that stay inside their
 * row, the round trip and the GEMV; the CUDA kernel on the simulator (or a GPU); and last the toy
 * Llama decoding with your INT8 weights, against lib/llama's own and against FP32. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "robust.h"
#include "timer.h"

static float noise(unsigned i) { return (float)(((i * 2654435761u) >> 8) % 20001) / 10000.0f - 1.0f; }   /* [-1, 1] */

/* rows of different kinds: ordinary, large, tiny, all zero, one value, all positive, all negative */
static void fill(float *w, int rows, int cols, unsigned seed)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            float v = noise(seed + (unsigned)(r * cols + j)), *slot = &w[(size_t)r * cols + j];
            switch (r % 7) {
            case 0: *slot = v; break;
            case 1: *slot = 1e4f * v; break;
            case 2: *slot = 1e-20f * v; break;
            case 3: *slot = 0; break;
            case 4: *slot = j == cols / 2 ? -3.0f : 0; break;
            case 5: *slot = 2 + v; break;
            default: *slot = -5 + v; break;
            }
        }
}

typedef struct shape { int rows, cols, group; } shape;
static const shape shapes[] = {{1, 1, 64}, {3, 7, 4}, {7, 5, 2}, {9, 33, 8}, {8, 64, 64}, {14, 100, 32}, {7, 1000, 128}};
enum { SHAPES = sizeof shapes / sizeof shapes[0] };

/* ---------------------------------------------------------------------------------
 * INT8 per channel */

Test(int8, scale_is_max_over_127, .timeout = 10,
     .description = "scale = max|w| / 127 of the row: the largest |w| becomes 127, not 1. The row {-2.54, 1, 0.3, "
                    "0.013} has scale 0.02 and values {-127, 50, 15, 1}.")
{
    const float w[] = {-2.54f, 1.0f, 0.3f, 0.013f};
    int8_t q[4] = {0};
    float scale = -1;
    quantize_int8_per_channel(w, 1, 4, q, &scale);
    cr_assert(fabsf(scale - 2.54f / 127) <= 1e-7f, "scale of {-2.54, 1, 0.3, 0.013} = %g, want 2.54 / 127 = 0.02%s", scale,
              fabsf(scale - 2.54f) < 1e-5f ? " (that is max|w| itself: divide by 127, so that the largest weight uses "
              "the whole range -127..127)" : scale == -1 ? " (never written: is quantize_int8_per_channel written yet?)" : "");
    cr_assert(q[0] == -127, "the largest |w| (-2.54) quantizes to %d, want -127", q[0]);
    cr_assert(q[1] == 50 && q[2] == 15, "1.0 and 0.3 quantize to %d and %d, want 50 and 15 (w / scale)", q[1], q[2]);
}

Test(int8, rounds_to_nearest, .timeout = 10,
     .description = "round(w / scale) to the nearest integer, not toward zero: 0.65 steps is 1, -0.7 steps is -1. "
                    "Truncation moves values by up to a whole scale, twice the error rounding allows.")
{
    const float w[] = {1.27f, 0.0065f, -0.007f, 0.6349f};   /* scale 0.01: 0.65, -0.7 and 63.49 steps */
    int8_t q[4] = {99, 99, 99, 99};
    float scale = NAN;
    quantize_int8_per_channel(w, 1, 4, q, &scale);
    cr_assert(q[1] == 1 && q[2] == -1 && q[3] == 63, "0.65, -0.7 and 63.49 steps quantize to %d, %d and %d, want 1, -1 "
              "and 63%s", q[1], q[2], q[3], q[1] == 0 && q[2] == 0 ? " (rounded toward zero: a cast truncates; use "
              "roundf or lrintf)" : q[1] == 99 ? " (never written: is quantize_int8_per_channel written yet?)" : "");
}

Test(int8, one_scale_per_row, .timeout = 10,
     .description = "Each row (output channel) has its own scale: a row of large weights does not coarsen the "
                    "others.")
{
    const float w[] = {100, -50, 25, 1, -0.5f, 0.25f};
    int8_t q[6] = {0};
    float scales[2] = {NAN, NAN};
    quantize_int8_per_channel(w, 2, 3, q, scales);
    cr_assert(fabsf(scales[0] - 100.0f / 127) <= 1e-5f && fabsf(scales[1] - 1.0f / 127) <= 1e-7f,
              "the scales of rows {100, -50, 25} and {1, -0.5, 0.25} are %g and %g, want 100/127 and 1/127%s", scales[0],
              scales[1], isnan(scales[0]) ? " (never written)" : fabsf(scales[1] - scales[0]) < 1e-6f ? " (one scale for the whole matrix: take max|w| of each "
              "row)" : "");
    cr_assert(q[3] == 127 && q[4] == -64 && q[5] == 32, "row 1 quantizes to {%d, %d, %d}, want {127, -64, 32}", q[3],
              q[4], q[5]);
}

Test(int8, round_trip_within_half_a_scale, .timeout = 10,
     .description = "Quantize then dequantize: every element within scale / 2 of the original, on odd shapes and "
                    "rows of 1e4, of 1e-20, of zeros (scale 0, every value 0), and of one nonzero value.")
{
    for (int s = 0; s < SHAPES; s++) {
        int rows = shapes[s].rows, cols = shapes[s].cols;
        size_t n = (size_t)rows * cols;
        float *w = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float)), *scales = malloc(rows * sizeof(float));
        int8_t *q = malloc(n);
        fill(w, rows, cols, 17u * (unsigned)s);
        quantize_int8_per_channel(w, rows, cols, q, scales);
        for (size_t i = 0; i < n; i++) back[i] = NAN;
        dequantize_int8(q, scales, rows, cols, back);
        for (size_t i = 0; i < n; i++) {
            int r = (int)(i / cols);
            float bound = scales[r] / 2 * (1 + 1e-5f);
            if (r % 7 == 3)
                cr_assert(scales[r] == 0 && q[i] == 0, "%d x %d, row %d is all zeros: scale %g and value %d, want 0 and 0 "
                          "(and no division by a zero scale)", rows, cols, r, scales[r], q[i]);
            cr_assert(fabsf(back[i] - w[i]) <= bound, "%d x %d, row %d, element %zu: %.9g comes back as %.9g, off by %g, "
                      "more than scale / 2 = %g (round to nearest; scale = max|w| / 127; dequantize = q x the row's "
                      "scale)", rows, cols, r, i % cols, w[i], back[i], fabsf(back[i] - w[i]), scales[r] / 2);
        }
        free(w), free(back), free(scales), free(q);
    }
}

/* y = W x in double, from the dequantized weights */
static void reference_gemv(const float *w, const float *x, double *y, double *magnitude, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        y[r] = magnitude[r] = 0;
        for (int j = 0; j < cols; j++)
            y[r] += (double)w[(size_t)r * cols + j] * x[j], magnitude[r] += fabs((double)w[(size_t)r * cols + j] * x[j]);
    }
}

/* A GEMV's expected y is computed after the code under test has returned, from its inputs, which it must
 * have left as they were (fingerprint, before and after): while it runs there is no answer in memory to
 * copy, and an answer made by changing the inputs is caught. */
static uint64_t int8_inputs(const int8_t *q, const float *scales, const float *x, int rows, int cols)
{
    return lab_fingerprint(x, (size_t)cols * sizeof(float), lab_fingerprint(scales, (size_t)rows * sizeof(float),
                           lab_fingerprint(q, (size_t)rows * (size_t)cols, 1)));
}

static uint64_t int4_inputs(const uint8_t *packed, const float *scales, const uint8_t *zeros, const float *x, int rows,
                            int cols, int group)
{
    size_t groups = (size_t)rows * (size_t)((cols + group - 1) / group), packed_bytes = (size_t)rows * ((cols + 1) / 2);
    return lab_fingerprint(x, (size_t)cols * sizeof(float), lab_fingerprint(scales, groups * sizeof(float),
                           lab_fingerprint(zeros, groups, lab_fingerprint(packed, packed_bytes, 1))));
}

static void expect_inputs_unchanged(const char *what, uint64_t before, uint64_t after)
{
    cr_assert(before == after, "%s changed its inputs (the quantized values, the scales, the zero points or x): a "
              "GEMV only reads them", what);
}

static void expect_gemv(const char *what, const float *got, const double *want, const double *magnitude, int rows,
                        int cols, const char *idea)
{
    for (int r = 0; r < rows; r++)
        cr_assert(fabs(got[r] - want[r]) <= 1e-5 * magnitude[r] + 1e-30, "%s, %d x %d: y[%d] = %.9g, want %.9g. %s", what,
                  rows, cols, r, got[r], want[r], idea);
}

Test(int8, gemv_matches_the_dequantized_matrix, .timeout = 20,
     .description = "gemv_int8 = the dequantized matrix times x, within float rounding: y_r = scale_r x sum_j q_rj x_j, "
                    "summed in float (not in an integer type), every row written, on odd shapes.")
{
    for (int s = 0; s < SHAPES; s++) {
        int rows = shapes[s].rows, cols = shapes[s].cols;
        size_t n = (size_t)rows * cols;
        float *w = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float)), *scales = malloc(rows * sizeof(float));
        float *x = malloc(cols * sizeof(float)), *y = malloc(rows * sizeof(float));
        double *want = malloc(rows * sizeof(double)), *magnitude = malloc(rows * sizeof(double));
        int8_t *q = malloc(n);
        fill(w, rows, cols, 5u * (unsigned)s);
        for (int j = 0; j < cols; j++) x[j] = 3 * noise(1000u + (unsigned)j) + 1;
        quantize_int8_per_channel(w, rows, cols, q, scales);
        for (int r = 0; r < rows; r++) y[r] = NAN;
        uint64_t inputs = int8_inputs(q, scales, x, rows, cols);
        gemv_int8(q, scales, x, y, rows, cols);
        expect_inputs_unchanged("gemv_int8", inputs, int8_inputs(q, scales, x, rows, cols));
        dequantize_int8(q, scales, rows, cols, back);
        reference_gemv(back, x, want, magnitude, rows, cols);
        expect_gemv("gemv_int8", y, want, magnitude, rows, cols,
                    "Sum q x x in float over the whole row (the tail past the last 16 too), then multiply by the scale.");
        free(w), free(back), free(scales), free(x), free(y), free(want), free(magnitude), free(q);
    }
}

Test(int8, gemv_sums_past_the_int8_range, .timeout = 10,
     .description = "A row of 1000 values of 127 times x = 1: the sum is 127 000 x scale. An int8 (or int16) "
                    "accumulator wraps long before.")
{
    enum { COLS = 1000 };
    int8_t q[COLS];
    float x[COLS], scale = 0.5f, y = NAN;
    for (int j = 0; j < COLS; j++) q[j] = 127, x[j] = 1;
    gemv_int8(q, &scale, x, &y, 1, COLS);
    cr_assert(fabsf(y - 63500) <= 0.01f, "gemv_int8 of 1000 x 127 (scale 0.5) by ones = %g, want 63500: sum in float", y);
}

Test(int8, gemv_faster_than_fp32_when_memory_bound, .timeout = 120,
     .description = "8192 x 8192: FP32 weights are 256 MiB, INT8 64 MiB, both far past the caches. Best of 7 each, "
                    "timed in turn: gemv_int8 must beat driver/reference.c's gemv_fp32 by 10 % at least.")
{
    enum { N = 8192, RUNS = 7 };
    size_t n = (size_t)N * N;
    float *w = malloc(n * sizeof(float)), *scales = malloc(N * sizeof(float)), *x = malloc(N * sizeof(float));
    float *y = malloc(N * sizeof(float));
    int8_t *q = malloc(n);
    cr_assert(w && scales && x && y && q, "out of memory for the 8192 x 8192 matrices (320 MiB)");
    for (size_t i = 0; i < n; i++) w[i] = noise((unsigned)i);
    for (int j = 0; j < N; j++) x[j] = noise(7u * (unsigned)j);
    quantize_int8_per_channel(w, N, N, q, scales);
    for (int r = 0; r < N; r++) y[r] = NAN;
    gemv_int8(q, scales, x, y, N, N);
    const int checked[] = {0, N / 2 + 1, N - 1};
    for (int c = 0; c < 3; c++) {
        int r = checked[c];
        double want = 0, magnitude = 0;
        for (int j = 0; j < N; j++) {
            double product = (double)q[(size_t)r * N + j] * scales[r] * x[j];
            want += product, magnitude += fabs(product);
        }
        cr_assert(fabs(y[r] - want) <= 1e-5 * magnitude && magnitude > 0, "8192 x 8192: gemv_int8 gives y[%d] = %.9g, want "
                  "%.9g (from your quantized values and scales): a fast GEMV must be right first", r, y[r], want);
    }
    /* The speed-up is DRAM's, read a quarter as much; under an emulator memory costs next to nothing. (The
     * test's worker ends with the test: what the skip leaves allocated goes with it.) */
    lab_skip_timing_under_emulator("INT8's speed-up over FP32 when memory-bound");
    double fp32 = INFINITY, int8 = INFINITY;
    for (int run = 0; run < RUNS; run++) {
        double start = lab_now_seconds();
        gemv_fp32(w, x, y, N, N);
        fp32 = fmin(fp32, lab_now_seconds() - start);
        start = lab_now_seconds();
        gemv_int8(q, scales, x, y, N, N);
        int8 = fmin(int8, lab_now_seconds() - start);
    }
    free(w), free(scales), free(x), free(y), free(q);
    cr_assert(fp32 / int8 >= 1.1, "gemv_int8 took %.1f ms, gemv_fp32 %.1f ms (best of %d, measured): %.2fx, want 1.1x or "
              "more. Read 1 byte a weight and convert it in the loop; keep 16 partial sums as gemv_fp32 does (one sum "
              "makes every addition wait for the last); never build an FP32 copy of the matrix first.",
              1e3 * int8, 1e3 * fp32, RUNS, fp32 / int8);
}

/* ---------------------------------------------------------------------------------
 * INT4 per group */

Test(int4, layout_sizes, .timeout = 10,
     .description = "(cols + 1) / 2 bytes a row, each row on a byte of its own; ceil(cols / group_size) groups a row, "
                    "the last one shorter when group_size does not divide cols.")
{
    const int cols[] = {1, 4, 5, 100, 64, 65}, bytes[] = {1, 2, 3, 50, 32, 33};
    for (int i = 0; i < 6; i++)
        cr_assert(int4_row_bytes(cols[i]) == bytes[i], "int4_row_bytes(%d) = %d, want %d: two values a byte, an odd row "
                  "rounded up", cols[i], int4_row_bytes(cols[i]), bytes[i]);
    const int gcols[] = {100, 64, 65, 1, 7}, sizes[] = {32, 64, 64, 64, 4}, groups[] = {4, 1, 2, 1, 2};
    for (int i = 0; i < 5; i++)
        cr_assert(int4_groups_per_row(gcols[i], sizes[i]) == groups[i], "int4_groups_per_row(%d, %d) = %d, want %d: "
                  "rounded up, a short group at the end of the row", gcols[i], sizes[i],
                  int4_groups_per_row(gcols[i], sizes[i]), groups[i]);
}

Test(int4, zero_point_by_hand, .timeout = 10,
     .description = "The group {-1.5, 0, 3, 1}: lo -1.5, hi 3, scale 4.5 / 15 = 0.3, zero = round(1.5 / 0.3) = 5, so "
                    "-1.5 -> 0, 0 -> 5, 3 -> 15, 1 -> 8; and back, (q - zero) x scale.")
{
    const float w[] = {-1.5f, 0, 3, 1};
    uint8_t packed[2] = {0xaa, 0xaa}, zero = 99;
    float scale = -1, back[4];
    quantize_int4_groups(w, 1, 4, 4, packed, &scale, &zero);
    cr_assert(fabsf(scale - 0.3f) <= 1e-6f, "scale of {-1.5, 0, 3, 1} = %g, want (3 - -1.5) / 15 = 0.3%s", scale,
              fabsf(scale - 4.5f) < 1e-5f ? " (the range itself: divide by 15, the steps between 16 levels)" :
              fabsf(scale - 4.5f / 16) < 1e-5f ? " (divided by 16, the levels: the range has 15 steps between them)" :
              scale == -1 ? " (never written: is quantize_int4_groups written yet?)" : "");
    cr_assert(zero == 5, "zero point = %d, want round(-lo / scale) = round(1.5 / 0.3) = 5%s", zero,
              zero == 0 ? " (0: is the sign of -lo right? lo is negative, the zero point positive)" : "");
    static const int want[] = {0, 5, 15, 8};
    for (int j = 0; j < 4; j++)
        cr_assert(int4_value(packed, 4, 0, j) == want[j], "element %d (%g) is stored as %d, want %d = clamp(round(w / "
                  "scale) + zero, 0, 15)", j, w[j], int4_value(packed, 4, 0, j), want[j]);
    dequantize_int4(packed, &scale, &zero, 1, 4, 4, back);
    for (int j = 0; j < 4; j++)
        cr_assert(fabsf(back[j] - w[j]) <= 0.15f, "element %d: %g comes back as %g; want (q - zero) x scale, within "
                  "scale / 2 = 0.15 (q - zero in a signed type: it is negative below the zero point)", j, w[j], back[j]);
}

Test(int4, low_nibble_first, .timeout = 10,
     .description = "Two values a byte, element 2k in the low nibble and 2k + 1 in the high one: {0, 5, 15, 8} packs as "
                    "the bytes 0x50, 0x8f; an odd row's last high nibble is 0.")
{
    const float w[] = {-1.5f, 0, 3, 1, -1.5f, 0, 3, 1, 3};   /* row 0: 4 values; then a row of 5 */
    uint8_t packed[3] = {0xaa, 0xaa, 0xaa}, zeros[2];
    float scales[2];
    quantize_int4_groups(w, 1, 4, 4, packed, scales, zeros);
    cr_assert(packed[0] == 0x50 && packed[1] == 0x8f, "{0, 5, 15, 8} packed as 0x%02x 0x%02x, want 0x50 0x8f%s",
              packed[0], packed[1], packed[0] == 0x05 && packed[1] == 0xf8 ? " (high nibble first: the even element "
              "goes in the low 4 bits, byte = v_even | v_odd << 4)" : "");
    uint8_t odd[3] = {0xaa, 0xaa, 0xaa};
    quantize_int4_groups(w + 4, 1, 5, 8, odd, scales, zeros);
    cr_assert((odd[2] >> 4) == 0, "a row of 5 values: the unused high nibble of its third byte is %d, want 0 (clear "
              "each byte before setting its nibbles)", odd[2] >> 4);
}

Test(int4, groups_stay_in_their_row, .timeout = 10,
     .description = "rows of 6 in groups of 4: each row has a group of 4 and one of 2; row 1's first group is its own "
                    "first 4 values, not row 0's last 2 and row 1's first 2.")
{
    const float w[] = {1, 1, 1, 1, 0.1f, -0.1f, 100, 100, 100, 100, 3, -3};
    uint8_t packed[6], zeros[4];
    float scales[4] = {NAN, NAN, NAN, NAN};
    quantize_int4_groups(w, 2, 6, 4, packed, scales, zeros);
    static const float want[] = {1.0f / 15, 0.2f / 15, 100.0f / 15, 6.0f / 15};
    for (int g = 0; g < 4; g++)
        cr_assert(fabsf(scales[g] - want[g]) <= 1e-5f * want[g] + 1e-9f, "scale of row %d, group %d = %g, want %g (groups "
                  "counted within a row: element j of row r is in group r x groups_per_row + j / group_size)", g / 2,
                  g % 2, scales[g], want[g]);
}

Test(int4, stays_inside_its_arrays, .timeout = 10,
     .description = "3 rows of 7 in groups of 4 (4 bytes and 2 groups a row), each array followed by a marker: "
                    "quantize_int4_groups writes 12 bytes, 6 scales and 6 zero points, dequantize_int4 21 floats, "
                    "gemv_int4 3 sums and reads 2 groups a row. A loop running to <= its count goes one past the end.")
{
    enum { ROWS = 3, COLS = 7, GROUP = 4, BYTES = ROWS * 4, GROUPS = ROWS * 2, N = ROWS * COLS, MARK = 0xa5 };
    float w[N], x[COLS], scales[GROUPS + 1], back[N + 1], y[ROWS + 1];
    uint8_t packed[BYTES + 1], zeros[GROUPS + 1];
    fill(w, ROWS, COLS, 5u);
    for (int j = 0; j < COLS; j++) x[j] = noise(40u + (unsigned)j);
    for (int i = 0; i < N; i++) back[i] = NAN;
    packed[BYTES] = MARK, zeros[GROUPS] = MARK, scales[GROUPS] = NAN, back[N] = 42, y[ROWS] = 42;
    quantize_int4_groups(w, ROWS, COLS, GROUP, packed, scales, zeros);
    cr_assert(packed[BYTES] == MARK, "quantize_int4_groups wrote the byte after the last row's 4 (0x%02x): clear and "
              "fill bytes 0 .. row_bytes - 1 of a row, no further", packed[BYTES]);
    cr_assert(zeros[GROUPS] == MARK && isnan(scales[GROUPS]), "quantize_int4_groups wrote a scale or zero point past the "
              "last row's 2 groups: groups 0 .. groups_per_row - 1");
    dequantize_int4(packed, scales, zeros, ROWS, COLS, GROUP, back);
    cr_assert(back[N] == 42, "dequantize_int4 wrote out[%d], one past the %d x %d matrix: columns 0 .. cols - 1", N,
              ROWS, COLS);
    for (int i = 0; i < N; i++)
        cr_assert(isfinite(back[i]), "dequantize_int4: element %d of the %d x %d matrix is %g: is it written yet?", i, ROWS,
                  COLS, back[i]);
    for (int r = 0; r < ROWS; r++) y[r] = NAN;
    gemv_int4(packed, scales, zeros, x, y, ROWS, COLS, GROUP);
    cr_assert(y[ROWS] == 42, "gemv_int4 wrote y[%d], one past the %d rows", ROWS, ROWS);
    for (int r = 0; r < ROWS; r++)
        cr_assert(isfinite(y[r]), "gemv_int4: y[%d] = %g: never written, or the scale after the last group (a NaN here) "
                  "was read: groups 0 .. groups_per_row - 1 of a row", r, y[r]);
}

Test(int4, round_trip_within_half_a_scale, .timeout = 10,
     .description = "Every element within scale / 2 of its group's step, on odd shapes, groups that do not divide "
                    "the row, groups of zeros, and groups all positive or all negative.")
{
    for (int s = 0; s < SHAPES; s++) {
        int rows = shapes[s].rows, cols = shapes[s].cols, group = shapes[s].group;
        int groups = int4_groups_per_row(cols, group);
        size_t n = (size_t)rows * cols;
        float *w = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float)), *scales = malloc(n * sizeof(float));
        uint8_t *packed = malloc(n + rows), *zeros = malloc(n);
        fill(w, rows, cols, 3u * (unsigned)s);
        quantize_int4_groups(w, rows, cols, group, packed, scales, zeros);
        for (size_t i = 0; i < n; i++) back[i] = NAN;
        dequantize_int4(packed, scales, zeros, rows, cols, group, back);
        for (size_t i = 0; i < n; i++) {
            int r = (int)(i / cols), j = (int)(i % cols);
            float scale = scales[(size_t)r * groups + j / group];
            cr_assert(zeros[(size_t)r * groups + j / group] <= 15, "%d x %d in groups of %d: row %d, group %d has zero "
                      "point %d, past 15", rows, cols, group, r, j / group, zeros[(size_t)r * groups + j / group]);
            cr_assert(fabsf(back[i] - w[i]) <= scale / 2 * (1 + 1e-5f), "%d x %d in groups of %d: row %d, element %d: "
                      "%.9g comes back as %.9g, more than scale / 2 = %g away (lo = min(0, min w), hi = max(0, max w); "
                      "scale = (hi - lo) / 15; zero = round(-lo / scale); q = clamp(round(w / scale) + zero, 0, 15))",
                      rows, cols, group, r, j, w[i], back[i], scale / 2);
        }
        free(w), free(back), free(scales), free(packed), free(zeros);
    }
}

Test(int4, gemv_matches_the_dequantized_matrix, .timeout = 20,
     .description = "gemv_int4 = the dequantized matrix times x: per group scale x sum (q - zero) x, the groups of "
                    "each row added, on odd shapes and groups that do not divide the row.")
{
    for (int s = 0; s < SHAPES; s++) {
        int rows = shapes[s].rows, cols = shapes[s].cols, group = shapes[s].group;
        size_t n = (size_t)rows * cols;
        float *w = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float)), *scales = malloc(n * sizeof(float));
        float *x = malloc(cols * sizeof(float)), *y = malloc(rows * sizeof(float));
        double *want = malloc(rows * sizeof(double)), *magnitude = malloc(rows * sizeof(double));
        uint8_t *packed = malloc(n + rows), *zeros = malloc(n);
        fill(w, rows, cols, 11u * (unsigned)s);
        for (int j = 0; j < cols; j++) x[j] = 3 * noise(500u + (unsigned)j) - 1;
        quantize_int4_groups(w, rows, cols, group, packed, scales, zeros);
        for (int r = 0; r < rows; r++) y[r] = NAN;
        uint64_t inputs = int4_inputs(packed, scales, zeros, x, rows, cols, group);
        gemv_int4(packed, scales, zeros, x, y, rows, cols, group);
        char what[64];
        snprintf(what, sizeof what, "gemv_int4 in groups of %d", group);
        expect_inputs_unchanged(what, inputs, int4_inputs(packed, scales, zeros, x, rows, cols, group));
        dequantize_int4(packed, scales, zeros, rows, cols, group, back);
        reference_gemv(back, x, want, magnitude, rows, cols);
        expect_gemv(what, y, want, magnitude, rows, cols, "Each group: sum (q - zero) x x over its elements of the row, "
                    "times its scale; q - zero in a signed type.");
        free(w), free(back), free(scales), free(x), free(y), free(want), free(magnitude), free(packed), free(zeros);
    }
}

/* ---------------------------------------------------------------------------------
 * The CUDA kernel */

Test(kernel, matches_the_cpu_gemv, .timeout = 60,
     .description = "gemv_int8_device, one warp per row: every row written once (rows not a multiple of 4, rows "
                    "not a multiple of 32 long), equal to the double-precision product within float rounding.")
{
    const shape kernel_shapes[] = {{1, 1, 0}, {5, 33, 0}, {7, 100, 0}, {9, 1000, 0}};
    for (int s = 0; s < 4; s++) {
        int rows = kernel_shapes[s].rows, cols = kernel_shapes[s].cols;
        size_t n = (size_t)rows * cols;
        float *w = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float)), *scales = malloc(rows * sizeof(float));
        float *x = malloc(cols * sizeof(float)), *y = malloc(rows * sizeof(float));
        double *want = malloc(rows * sizeof(double)), *magnitude = malloc(rows * sizeof(double));
        int8_t *q = malloc(n);
        fill(w, rows, cols, 9u * (unsigned)s);
        for (int j = 0; j < cols; j++) x[j] = 2 * noise(300u + (unsigned)j) + 0.5f;
        quantize_int8_per_channel(w, rows, cols, q, scales);
        dequantize_int8(q, scales, rows, cols, back);
        reference_gemv(back, x, want, magnitude, rows, cols);
        gpu_gemv_run run = gpu_gemv_int8(q, scales, x, y, rows, cols, 0);
        cr_assert(run.error == NULL, "%d x %d: the kernel failed: %s", rows, cols, run.error);
        cr_assert(run.written_past_end == 0, "%d x %d: %lld words written past y's last row: a warp without a row must "
                  "store nothing", rows, cols, run.written_past_end);
        for (int r = 0; r < rows; r++)
            cr_assert(!isnan(y[r]), "%d x %d: y[%d] was never written (one warp per row: row = blockIdx.x x "
                      "GEMV_ROWS_A_BLOCK + threadIdx.x / 32; lane 0 stores the sum)", rows, cols, r);
        expect_gemv("gemv_int8_device", y, want, magnitude, rows, cols,
                    "Each lane sums q x x over columns lane, lane + 32, ...; the warp adds its 32 partial sums with "
                    "__shfl_xor_sync; the total times the row's scale.");
        free(w), free(back), free(scales), free(x), free(y), free(want), free(magnitude), free(q);
    }
}

/* The bytes a warp per row loads when its lanes read consecutive elements, counted as the simulator
 * counts them, in 32-byte sectors per load instruction (the device arrays start on 256-byte
 * boundaries): at step s the warp reads bytes r cols + 32 s .. + 31 of its row's int8 values (two
 * sectors where the row does not start on a sector) and floats 32 s .. 32 s + 31 of x; lane 0 reads
 * the row's scale, one sector. Fewer bytes (x from shared memory, wider loads) is fine. */
static double coalesced_load_bytes(int rows, int cols)
{
    double sectors = 0;
    for (long long r = 0; r < rows; r++) {
        for (long long j = 0; j < cols; j += 32) {
            long long last = (j + 31 < cols ? j + 31 : cols - 1);
            sectors += (double)((r * cols + last) / 32 - (r * cols + j) / 32 + 1);   /* the int8 values */
            sectors += (double)((4 * last) / 32 - (4 * j) / 32 + 1);                 /* x */
        }
        sectors += 1;                                                                 /* the scale */
    }
    return 32 * sectors;
}

Test(kernel, loads_are_coalesced, .timeout = 120,
     .description = "The simulator counts the sectors gemv_int8_device loads: no more than a warp whose 32 lanes read "
                    "32 consecutive bytes of the row (and 32 consecutive floats of x) a step touches. A lane that "
                    "walks its own chunk of the row gets the right y with about 11x the loads.")
{
    enum { ROWS = 64, COLS = 1000 };
    size_t n = (size_t)ROWS * COLS;
    float *w = malloc(n * sizeof(float)), *scales = malloc(ROWS * sizeof(float)), *x = malloc(COLS * sizeof(float));
    float *y = malloc(ROWS * sizeof(float));
    int8_t *q = malloc(n);
    fill(w, ROWS, COLS, 77u);
    for (int j = 0; j < COLS; j++) x[j] = noise(500u + (unsigned)j);
    quantize_int8_per_channel(w, ROWS, COLS, q, scales);
    gpu_gemv_run run = gpu_gemv_int8(q, scales, x, y, ROWS, COLS, 1);
    cr_assert(run.error == NULL, "%d x %d: the kernel failed: %s", ROWS, COLS, run.error);
    if (run.counted) {
        double bound = coalesced_load_bytes(ROWS, COLS);
        cr_assert(run.global_load_bytes > 0, "%d x %d: the simulator counted no loads: did the kernel read the matrix?",
                  ROWS, COLS);
        cr_assert(run.global_load_bytes <= bound, "%d x %d: the simulator counted %.0f bytes of global loads, %.2fx "
                  "the "
                  "%.0f bytes of a coalesced read (%zu bytes of int8 weights; x once per warp): the bound is missed on "
                  "the high side. At each step the 32 lanes of a warp must read 32 consecutive bytes of the row (lane, "
                  "lane + 32, ...), not each its own chunk of the row, which puts every lane in another sector.",
                  ROWS, COLS, run.global_load_bytes, run.global_load_bytes / bound, bound, n);
    }
    free(w), free(scales), free(x), free(y), free(q);
}

/* ---------------------------------------------------------------------------------
 * The engine */

Test(engine, your_int8_is_the_books, .timeout = 60,
     .description = "Every matrix of the toy Llama (15M, seeded) quantized by your quantize_int8_per_channel is lib/llama's "
                    "per-channel INT8: the same scales, and the same values but for a near-tie rounded the other way "
                    "(one step, at most 1 value in 10 000).")
{
    char error[512];
    engine_comparison e;
    cr_assert(engine_compare("15M", 4, &e, error, sizeof error) == 0, "%s", error);
    cr_assert(e.largest_scale_difference <= 1e-6, "your scales differ from lib/llama's (max|w| / 127 of each row) by up "
              "to %.3g of their value", e.largest_scale_difference);
    cr_assert(e.further_off == 0 && e.one_step_off * 10000 <= e.weights, "of the model's %lld weights, your INT8 values "
              "differ from lib/llama's by one step at %lld and by more at %lld: round w / scale to the nearest integer "
              "(a near-tie may go either way, not a whole share of the values)", (long long)e.weights,
              (long long)e.one_step_off, (long long)e.further_off);
}

Test(engine, logits_within_the_derived_tolerance, .timeout = 60,
     .description = "Against FP32, the RMS logit error of the INT8 model stays within the chapter's estimate: one "
                    "matrix's crest / (127 sqrt 12), times sqrt(7 layers + 1).")
{
    char error[512];
    engine_comparison e;
    cr_assert(engine_compare("15M", 24, &e, error, sizeof error) == 0, "%s", error);
    double relative = e.rms_error_vs_fp32 / e.rms_fp32;
    cr_assert(relative <= e.predicted_relative, "the INT8 logits are off by %.3f%% RMS of the FP32 ones, more than the "
              "%.3f%% the chapter derives for rounding to nearest with scale = max|w| / 127", 100 * relative,
              100 * e.predicted_relative);
    cr_assert(relative > 0, "the INT8 logits equal the FP32 ones exactly: were the weights quantized at all?");
}
