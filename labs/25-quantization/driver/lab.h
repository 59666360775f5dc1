/* lab.h — Day 25: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * Weight-only quantization stores a model's weight matrices in fewer bits and turns them back
 * into real numbers only inside the matrix-vector product (GEMV) that reads them. Activations
 * stay FP32. Decode reads every weight once per token, so fewer bytes are a shorter step.
 *
 * Your part:
 *   quantize.c  INT8 per channel (one scale per row, symmetric):
 *                 scale_r = max_j |w_rj| / 127,  q_rj = round(w_rj / scale_r) in [-127, 127],
 *                 w_rj ~ q_rj x scale_r
 *               INT4 per group (group_size consecutive values of one row, with a zero point):
 *                 lo = min(0, min w), hi = max(0, max w) over the group,
 *                 scale = (hi - lo) / 15,  zero = round(-lo / scale) in [0, 15],
 *                 q = clamp(round(w / scale) + zero, 0, 15),  w ~ (q - zero) x scale
 *               the dequantisations, and a GEMV for each format on the CPU
 *   gemv.cu     the INT8 GEMV as a CUDA kernel: one warp per row
 *
 * "round" is to the nearest integer (roundf, or lrintf): never truncation. A row or group of
 * zeros has scale 0 and every q (and zero point) 0. Both formats keep the rounding error of
 * every element within scale / 2.
 *
 * The INT4 layout, two neighbours a byte, the LOW nibble first (as GPTQ packs neighbours; llama.cpp's
 * Q4_0 and AWQ order their nibbles otherwise, each for its own kernels):
 *
 *   values of a row:   v0  v1  v2  v3  v4           (cols = 5)
 *   bytes of the row:  [v1|v0] [v3|v2] [ 0|v4]      byte = v_even | v_odd << 4
 *                       hi lo
 *
 * Each row starts on a byte of its own: (cols + 1) / 2 bytes a row, the unused high nibble of
 * an odd row 0. A row has ceil(cols / group_size) groups, the last one shorter when
 * group_size does not divide cols: a group never crosses into the next row. group_size is even
 * (32, 64 and 128 are usual), so a byte never holds values of two groups. Scales and zero
 * points: one per group, row after row (rows x groups_per_row of each). */
#ifndef DAY25_LAB_H
#define DAY25_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- quantize.c (yours): INT8, one scale per output channel (row) ---- */

/* w is rows x cols row-major; values gets rows x cols, scales gets rows. */
void quantize_int8_per_channel(const float *w, int rows, int cols, int8_t *values, float *scales);
/* out (rows x cols) = values x the row's scale */
void dequantize_int8(const int8_t *values, const float *scales, int rows, int cols, float *out);
/* y (rows) = W x with W given as INT8 per channel: y_r = scale_r x sum_j q_rj x_j.
 * Sum in float, never in an integer type: the products are not integers. Fast: see
 * gemv_fp32 in driver/reference.c, whose 16 partial sums it should copy. */
void gemv_int8(const int8_t *values, const float *scales, const float *x, float *y, int rows, int cols);

/* ---- quantize.c (yours): INT4, one scale and one zero point per group ---- */

/* Bytes of a packed INT4 row, and groups a row (the layout above). */
int int4_row_bytes(int cols);
int int4_groups_per_row(int cols, int group_size);
/* packed gets rows x int4_row_bytes(cols); scales and zeros rows x int4_groups_per_row. */
void quantize_int4_groups(const float *w, int rows, int cols, int group_size, uint8_t *packed, float *scales,
                          uint8_t *zeros);
/* The 4-bit value of element (row, col), 0..15, read from the packed bytes. */
int int4_value(const uint8_t *packed, int cols, int row, int col);
void dequantize_int4(const uint8_t *packed, const float *scales, const uint8_t *zeros, int rows, int cols,
                     int group_size, float *out);
/* y = W x with W given as INT4 groups: y_r = sum over groups of scale_g x sum_j (q_j - zero_g) x_j */
void gemv_int4(const uint8_t *packed, const float *scales, const uint8_t *zeros, const float *x, float *y, int rows,
               int cols, int group_size);

/* ---- gemv.cu (yours): the INT8 GEMV on the GPU ---- */

/* Device pointers. Launches GEMV_ROWS_A_BLOCK warps a block, one warp per row; returns the
 * launch's error. */
enum { GEMV_ROWS_A_BLOCK = 4 };
cudaError_t gemv_int8_device(const int8_t *values, const float *scales, const float *x, float *y, int rows, int cols);

/* ---- reference.c (driver): the FP32 GEMV, as fast as plain C gets here ---- */

void gemv_fp32(const float *w, const float *x, float *y, int rows, int cols);

/* ---- run.cu (driver): your kernel on device copies ---- */

typedef struct gpu_gemv_run {
    const char *error;               /* NULL, or what CUDA (or the simulator) reported */
    long long written_past_end;      /* guard words of y changed: stores past the last row */
    double global_load_bytes;        /* counted by the simulator (0 on a GPU) */
    int counted;
} gpu_gemv_run;

/* y (rows floats, host) from your gemv_int8_device on device copies of the inputs; y is
 * poisoned first (NaN: an output never written stays NaN). */
gpu_gemv_run gpu_gemv_int8(const int8_t *values, const float *scales, const float *x, float *y, int rows, int cols,
                           int count_metrics);

/* ---- engine.c (driver): the toy Llama with your INT8 weights ---- */

typedef struct engine_comparison {
    int positions;                 /* tokens fed, one decode step each */
    double largest_yours_vs_book;  /* |logit| difference, your INT8 against lib/llama's per-channel INT8 */
    /* your INT8 weights against lib/llama's, value by value and scale by scale */
    int64_t weights, one_step_off, further_off;   /* values compared; |q - q_book| = 1; > 1 */
    double largest_scale_difference;              /* relative */
    double rms_error_vs_fp32;      /* RMS over every logit of every step: your INT8 minus FP32 */
    double rms_fp32;               /* RMS of the FP32 logits themselves */
    double predicted_relative;     /* the chapter's bound on rms_error / rms_fp32 (below) */
    int greedy_agree;              /* steps whose argmax is the FP32 one */
    double fp32_bytes, int8_bytes; /* weight bytes a decode step reads */
} engine_comparison;

/* Seeded weights of the named shape (lib/llama), every matrix quantized by your
 * quantize_int8_per_channel into the engine's llama_weight_matrix slots (INT8, group_size = cols:
 * one scale per row), then `positions` tokens decoded next to the FP32 model and next to
 * lib/llama's own per-channel quantization. -1 with the reason in `error`. */
int engine_compare(const char *shape, int positions, engine_comparison *out, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
