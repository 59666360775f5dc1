/* main.c — Day 25 driver: what quantization costs in accuracy and buys in bytes and time, with
 * your quantizers and GEMVs. Do not edit.
 *
 *   build/25-quantization/labs-sim/lab RESULTS.csv     (make check DAY=25 runs it)
 *
 * Prints, in order:
 *   1. the round trip of a seeded 512 x 1000 matrix through your INT8 and INT4 (groups of 32, 64,
 *      128): the largest error in units of its scale, the RMS error, bytes a weight;
 *   2. your GEMVs beside driver/reference.c's FP32 one on this CPU, n x n matrices from 1024 to
 *      8192: best of several runs, measured, and the bytes a second each reads;
 *   3. your INT8 kernel on the CUDA backend (the simulator, or a GPU): its answer against your CPU
 *      GEMV, and on the simulator the bytes it loaded (counted) against the FP32 weights';
 *   4. the toy Llama (15M shape, seeded) decoding with your INT8 weights against FP32 and against
 *      lib/llama's own per-channel INT8: logit errors, and the chapter's estimate of them;
 *   5. Llama-2-7B, 13B and 70B at batch 1 on every GPU of data/gpus.csv: the decode step's lower
 *      bound in FP16, INT8 and INT4 weights (predicted by lib/perfmodel), and for 7B on an H100 the
 *      prefill's, which does not shrink.
 * Writes
 *   series,model,gpu,format,size,time_ms,fits
 * series measured-gemv: gpu cpu, size = n of an n x n matrix, time_ms measured on this CPU;
 * series predicted-decode: one row per model, GPU and format, time_ms the decode step's bound,
 * fits 1 when the book's memory budget holds the weights, the KV cache and the activations of that
 * batch-1, 512-token workload (lib/perfmodel: nine tenths of the capacity). */
#include "lab.h"
#include "machine.h"
#include "perfmodel.h"
#include "results.h"
#include "table.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INT4_GROUP = 64, REPEATS = 5 };
static const int sizes[] = {1024, 2048, 4096, 8192};
enum { SIZES = sizeof sizes / sizeof sizes[0] };
static const char *const formats[] = {"fp32", "int8", "int4"};

/* uniform in [-1, 1), with now and then a weight 8 times as large (an outlier, as trained weights have) */
static void seeded_weights(float *w, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        float u = (float)((seed >> 40) * 0x1p-24) * 2 - 1;
        w[i] = i % 997 == 0 ? 8 * u : u;
    }
}

/* ---------------------------------------------------------------------------------
 * 1. The round trip */

static void print_round_trip(void)
{
    enum { ROWS = 512, COLS = 1000 };
    size_t n = (size_t)ROWS * COLS;
    float *w = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float)), *scales = malloc(n * sizeof(float));
    int8_t *q8 = malloc(n);
    uint8_t *q4 = malloc(n), *zeros = malloc(n);
    seeded_weights(w, n, 1);
    printf("1. A seeded %d x %d matrix (uniform in [-1, 1), one weight in 997 eight times larger), quantized by\n"
           "   your code and dequantized again:\n", ROWS, COLS);
    printf("   %-16s %12s %14s %12s %11s\n", "format", "bytes/weight", "largest error", "RMS error", "largest");
    printf("   %-16s %12s %14s %12s %11s\n", "", "", "in scales", "", "error");
    for (int f = 0; f < 4; f++) {
        int group = f == 0 ? COLS : 32 << (f - 1), groups = f == 0 ? 1 : int4_groups_per_row(COLS, group);
        if (f == 0) {
            quantize_int8_per_channel(w, ROWS, COLS, q8, scales);
            dequantize_int8(q8, scales, ROWS, COLS, back);
        } else {
            quantize_int4_groups(w, ROWS, COLS, group, q4, scales, zeros);
            dequantize_int4(q4, scales, zeros, ROWS, COLS, group, back);
        }
        double largest = 0, in_scales = 0, squares = 0;
        for (size_t i = 0; i < n; i++) {
            double e = fabs((double)back[i] - w[i]), scale = scales[(i / COLS) * groups + (i % COLS) / group];
            if (!(e <= largest)) largest = e;
            double units = scale > 0 ? e / scale : e > 0 ? INFINITY : 0;
            if (!(units <= in_scales)) in_scales = units;
            squares += e * e;
        }
        double bytes = f == 0 ? 1 + 4.0 / COLS : 0.5 + 5.0 / group;   /* INT4: a 4-byte scale and a 1-byte zero a group */
        char name[32];
        snprintf(name, sizeof name, f == 0 ? "INT8 per channel" : "INT4 groups %d", group);
        printf("   %-16s %12.3f %14.3f %12.5f %11.5f\n", name, bytes, in_scales, sqrt(squares / n), largest);
    }
    printf("   (largest error in scales: at most 0.5 when every element is rounded to the nearest step. Smaller\n"
           "   groups follow the weights more closely, and pay for it in scale bytes.)\n\n");
    free(w), free(back), free(scales), free(q8), free(q4), free(zeros);
}

/* ---------------------------------------------------------------------------------
 * 2. The GEMVs on this CPU */

typedef struct gemv_times {
    double ms[3];   /* fp32, int8, int4: best of REPEATS, measured */
} gemv_times;

static int time_gemvs(int n, gemv_times *out)
{
    size_t count = (size_t)n * n;
    int groups = int4_groups_per_row(n, INT4_GROUP);
    float *w = malloc(count * sizeof(float)), *x = malloc((size_t)n * sizeof(float)), *y = malloc((size_t)n * sizeof(float));
    float *scales8 = malloc((size_t)n * sizeof(float)), *scales4 = malloc((size_t)n * groups * sizeof(float));
    int8_t *q8 = malloc(count);
    uint8_t *q4 = malloc((size_t)n * int4_row_bytes(n)), *zeros = malloc((size_t)n * groups);
    if (!w || !x || !y || !scales8 || !scales4 || !q8 || !q4 || !zeros) {
        free(w), free(x), free(y), free(scales8), free(scales4), free(q8), free(q4), free(zeros);
        return -1;
    }
    seeded_weights(w, count, (uint64_t)n);
    seeded_weights(x, (size_t)n, 7);
    quantize_int8_per_channel(w, n, n, q8, scales8);
    quantize_int4_groups(w, n, n, INT4_GROUP, q4, scales4, zeros);
    for (int f = 0; f < 3; f++) out->ms[f] = INFINITY;
    for (int r = 0; r < REPEATS; r++)   /* interleaved, so that a busy moment of the machine hurts all three */
        for (int f = 0; f < 3; f++) {
            double start = lab_now_seconds();
            if (f == 0) gemv_fp32(w, x, y, n, n);
            else if (f == 1) gemv_int8(q8, scales8, x, y, n, n);
            else gemv_int4(q4, scales4, zeros, x, y, n, n, INT4_GROUP);
            double ms = 1e3 * (lab_now_seconds() - start);
            if (ms < out->ms[f]) out->ms[f] = ms;
        }
    free(w), free(x), free(y), free(scales8), free(scales4), free(q8), free(q4), free(zeros);
    return 0;
}

static void print_gemvs(const gemv_times *times, const char *cpu)
{
    printf("2. y = W x for an n x n matrix, one thread, measured on %s (best of %d):\n", cpu, REPEATS);
    printf("   %6s %10s %10s %10s %10s %10s %10s %9s %9s\n", "n", "FP32 MiB", "FP32 ms", "INT8 ms", "INT4 ms", "FP32 GB/s",
           "INT8 GB/s", "INT8", "INT4");
    printf("   %6s %10s %10s %10s %10s %10s %10s %9s %9s\n", "", "", "", "", "", "", "", "speed-up", "speed-up");
    for (int s = 0; s < SIZES; s++) {
        double n = sizes[s], fp32 = 4 * n * n, int8 = n * n + 4 * n;
        printf("   %6d %10.0f %10.3f %10.3f %10.3f %10.1f %10.1f %8.2fx %8.2fx\n", sizes[s], fp32 / (1 << 20),
               times[s].ms[0], times[s].ms[1], times[s].ms[2], fp32 / times[s].ms[0] / 1e6, int8 / times[s].ms[1] / 1e6,
               times[s].ms[0] / times[s].ms[1], times[s].ms[0] / times[s].ms[2]);
    }
    printf("   (GB/s: the bytes of the weights read, over the time. Once the FP32 matrix is far larger than the\n"
           "   caches, FP32 waits for memory and INT8, with a quarter of the bytes, is faster; by how much is\n"
           "   set by the cost of turning each int8, or each nibble, into a float on this core.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 3. The kernel */

static void print_kernel(void)
{
    enum { ROWS = 300, COLS = 1000 };
    size_t n = (size_t)ROWS * COLS;
    float *w = malloc(n * sizeof(float)), *x = malloc(COLS * sizeof(float)), *scales = malloc(ROWS * sizeof(float));
    float *want = malloc(ROWS * sizeof(float)), *got = malloc(ROWS * sizeof(float));
    int8_t *q = malloc(n);
    seeded_weights(w, n, 3), seeded_weights(x, COLS, 4);
    quantize_int8_per_channel(w, ROWS, COLS, q, scales);
    gemv_int8(q, scales, x, want, ROWS, COLS);
    gpu_gemv_run run = gpu_gemv_int8(q, scales, x, got, ROWS, COLS, 1);
    printf("3. Your gemv_int8_device, %d x %d, on the CUDA backend:\n", ROWS, COLS);
    if (run.error) printf("   failed: %s\n\n", run.error);
    else {
        double largest = 0;
        for (int i = 0; i < ROWS; i++) {
            double d = fabs((double)got[i] - want[i]) / (fabs((double)want[i]) + 1);
            if (!(d <= largest)) largest = d;
        }
        printf("   largest difference from your CPU gemv_int8: %.3g (relative), %lld guard words overwritten\n", largest,
               run.written_past_end);
        if (run.counted)
            printf("   global loads counted by the simulator: %.0f bytes. The INT8 weights are %zu bytes (FP32: %zu);\n"
                   "   x, %d floats, is read once by each of the %d warps (%d bytes in all), from L1 or L2 on a GPU;\n"
                   "   a row of %d bytes does not start on a 32-byte boundary, so its warps touch a partial sector more.\n\n",
                   run.global_load_bytes, n, 4 * n, COLS, ROWS, ROWS * COLS * 4, COLS);
        else printf("   (on a GPU nothing is counted here: use ncu, as the chapter shows)\n\n");
    }
    free(w), free(x), free(scales), free(want), free(got), free(q);
}

/* ---------------------------------------------------------------------------------
 * 4. The engine */

static void print_engine(void)
{
    char error[512];
    engine_comparison e;
    if (engine_compare("15M", 48, &e, error, sizeof error) != 0) {
        printf("4. The toy Llama with your INT8 weights: failed: %s\n\n", error);
        return;
    }
    printf("4. The toy Llama's 15M shape (seeded), %d decode steps with your INT8 per-channel weights:\n", e.positions);
    printf("   weights a step reads: %.1f MB in FP32, %.1f MB in your INT8 (%.2fx fewer)\n", e.fp32_bytes / 1e6,
           e.int8_bytes / 1e6, e.fp32_bytes / e.int8_bytes);
    printf("   your %lld INT8 values against lib/llama's: %lld one step off (a near-tie rounded the other way), %lld\n"
           "   further; scales within %.2g (relative); the largest logit difference: %.3g\n", (long long)e.weights,
           (long long)e.one_step_off, (long long)e.further_off, e.largest_scale_difference, e.largest_yours_vs_book);
    printf("   RMS logit error against FP32: %.4g, %.3f%% of the RMS logit (%.4g); the chapter's estimate: at most %.3f%%\n",
           e.rms_error_vs_fp32, 100 * e.rms_error_vs_fp32 / e.rms_fp32, e.rms_fp32, 100 * e.predicted_relative);
    printf("   greedy token the same as FP32's at %d of %d steps\n\n", e.greedy_agree, e.positions);
}

/* ---------------------------------------------------------------------------------
 * 5. Predicted: the decode bound per format */

static const char *const models[] = {"Llama-2-7B", "Llama-2-13B", "Llama-2-70B"};
static const perfmodel_dtype weight_types[] = {DTYPE_FP16, DTYPE_INT8, DTYPE_INT4};

static void predict(lab_results *out)
{
    char error[512];
    lab_table *gpus = lab_table_read(lab_data_path("gpus.csv"), error, sizeof error);
    if (!gpus) {
        printf("5. (no prediction: %s)\n", error);
        return;
    }
    printf("5. One decode step at batch 1 (prompt 512, 1 token generated), FP16 KV cache, predicted by lib/perfmodel\n"
           "   (a roofline bound: weights and cache read once); '-' where the weights alone do not fit the GPU:\n");
    printf("   %-11s %-10s %9s %9s %9s\n", "model", "gpu", "FP16 ms", "INT8 ms", "INT4 ms");
    for (int mi = 0; mi < 3; mi++) {
        perfmodel_shape m;
        if (perfmodel_load_model_shape(models[mi], &m, error, sizeof error) != 0) continue;
        for (int g = 0; g < gpus->rows; g++) {
            perfmodel_hardware h;
            const char *key = lab_table_text_or_exit(gpus, g, "key");
            if (perfmodel_load_gpu(key, &h, error, sizeof error) != 0) continue;
            printf("   %-11s %-10s", models[mi], key);
            for (int f = 0; f < 3; f++) {
                perfmodel_workload w = {weight_types[f], DTYPE_FP16, 1, 512, 1};
                perfmodel_prediction e;
                perfmodel_estimate(&m, &h, &w, &e);
                int fits = e.fits;
                if (fits) printf(" %9.2f", 1e3 * e.decode_step_time_s);
                else printf(" %9s", "-");
                lab_results_row_or_exit(out, "predicted-decode,%s,%s,%s,,%.6g,%d", models[mi], key,
                                perfmodel_dtype_name(weight_types[f]), 1e3 * e.decode_step_time_s, fits);
            }
            printf("\n");
        }
    }
    perfmodel_shape m;
    perfmodel_hardware h;
    if (perfmodel_load_model_shape("Llama-2-7B", &m, error, sizeof error) == 0 &&
        perfmodel_load_gpu("h100-sxm", &h, error, sizeof error) == 0) {
        printf("   Llama-2-7B on an H100 SXM, the prefill of a 512-token prompt: ");
        for (int f = 0; f < 3; f++) {
            perfmodel_workload w = {weight_types[f], DTYPE_FP16, 1, 512, 1};
            perfmodel_prediction e;
            perfmodel_estimate(&m, &h, &w, &e);
            printf("%s %.1f ms (%s-bound)%s", perfmodel_dtype_name(weight_types[f]), 1e3 * e.prefill_time_s,
                   e.prefill_bound, f < 2 ? ", " : "\n");
        }
        printf("   (the prefill's matrix products run on FP16 tensor cores whatever the weights are stored in: fewer\n"
               "   bytes do not shorten a step that waits for arithmetic.)\n\n");
    }
    lab_table_free(gpus);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    char cpu[128];
    lab_cpu_name(cpu, sizeof cpu);
    print_round_trip();
    gemv_times times[SIZES];
    for (int s = 0; s < SIZES; s++)
        if (time_gemvs(sizes[s], &times[s]) != 0) {
            fprintf(stderr, "out of memory for a %d x %d matrix\n", sizes[s], sizes[s]);
            return 1;
        }
    print_gemvs(times, cpu);
    print_kernel();
    print_engine();

    lab_results out = lab_results_open_or_exit(argv[1], "series,model,gpu,format,size,time_ms,fits");
    for (int f = 0; f < 3; f++)   /* one series after the other, so that the plot's lines join each series' points */
        for (int s = 0; s < SIZES; s++)
            lab_results_row_or_exit(&out, "measured-gemv,,cpu,%s,%d,%.6g,", formats[f], sizes[s], times[s].ms[f]);
    predict(&out);
    lab_results_close_or_exit(&out);
    printf("Wrote the measured GEMV times (machine: %s) and the predicted decode bounds.\n", cpu);
    return 0;
}
