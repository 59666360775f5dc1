/* main.c — Day 17 driver: what each softmax costs in traffic, and how far each is from the
 * truth. Do not edit.
 *
 *   build/17-softmax-norm/labs-sim/lab RESULTS.csv     (make check DAY=17 runs it)
 *
 * Runs the four softmax versions and RMSNorm on ROWS rows of LENGTH floats, one block per row,
 * on two kinds of input: ordinary rows (logits in [-8, 8]) and hard rows (logits near +1e4 and
 * near -1e4, rows whose entries are all 100, rows masked with -inf after a point, a fully masked
 * row; for RMSNorm, values near +-1e4 and a row of zeros). Each output is compared with a
 * double-precision reference. A version that is wrong on ordinary rows is left out; version 0,
 * given, is kept even though it overflows, to show that it does. On the simulator it writes the
 * global bytes counted per row, printed beside your prediction of them
 * (softmax_predicted_bytes_per_row); on a real GPU the median time of 20 runs over TIMED_ROWS rows
 * instead (enough rows to fill every SM many times over; 256 MiB in, 256 MiB out). One row per
 * variant:
 *   variant,name,bytes_per_row,row_transfers,max_error_ordinary,max_error_hard,nonfinite_hard,
 *   measured_gpu_us
 * row_transfers is bytes_per_row / (4 LENGTH): how many times a row's worth of floats crossed
 * between the SM and memory (reads and writes). max_error_* is the largest relative error
 * |y - y_reference| / |y_reference| (absolute below 1e-30); max_error_hard is empty
 * when some output was NaN or infinite (nonfinite_hard counts them).
 * Then, from data/models.csv and data/gpus.csv: what the versions would move for the attention
 * scores of Llama-2-7B on an H100 SXM (predicted by the bandwidth bound, not measured). */
#include "lab.h"
#include "compare.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 32, TIMED_ROWS = 16384, LENGTH = 4096, REPEATS = 20 };
enum { RMSNORM = SOFTMAX_VERSIONS, VARIANTS = SOFTMAX_VERSIONS + 1 };   /* RMSNorm is the last variant */
static const float EPS = 1e-5f;
static const double RIGHT_ENOUGH = 3e-5;   /* the relative error the checks allow */

static const char *names[VARIANTS] = {"0 naive", "1 three-pass", "2 two-pass", "3 one-pass", "RMSNorm"};

static float uniform(unsigned *seed, float low, float high)
{
    *seed = *seed * 1664525u + 1013904223u;
    return low + (high - low) * (float)(*seed >> 8) / 16777216.0f;
}

/* Softmax inputs: ordinary rows, or hard rows of five kinds in turn. */
static void fill_logits(float *x, int hard)
{
    unsigned seed = hard ? 17 : 7;
    for (int r = 0; r < ROWS; r++) {
        float *row = x + (size_t)r * LENGTH;
        int kind = r % 5, masked_from = 1 + r * 97 % LENGTH;
        for (int i = 0; i < LENGTH; i++) {
            float noise = uniform(&seed, -8, 8);
            if (!hard) row[i] = noise;
            else if (kind == 0) row[i] = 1e4f + noise;            /* exp(1e4) overflows float and double */
            else if (kind == 1) row[i] = -1e4f + noise;           /* exp(-1e4) underflows both */
            else if (kind == 2) row[i] = 100;                     /* all equal: 1/n each */
            else if (kind == 3) row[i] = i < masked_from ? noise : -INFINITY;   /* a causal-style mask */
            else row[i] = r == 4 ? -INFINITY : noise * 1000;      /* one fully masked row; wide logits */
        }
    }
}

static void fill_activations(float *x, float *weight, int hard)
{
    unsigned seed = hard ? 29 : 3;
    for (int i = 0; i < LENGTH; i++) weight[i] = uniform(&seed, 0.5f, 1.5f);
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < LENGTH; i++) {
            float value = uniform(&seed, -2, 2);
            x[(size_t)r * LENGTH + i] = !hard ? value : r == 3 ? 0 : value * 5e3f;   /* up to +-1e4; a row of zeros */
        }
}

/* The largest relative error |got - want| / |want|, or NAN when some output is not finite
 * (*nonfinite counts those). Outputs below 1e-30 (exp of -69 and less, where float's subnormals
 * keep only a few bits) count their absolute error, as the checks do. */
static double max_error(const float *got, const float *want, size_t count, int *nonfinite)
{
    double worst = 0;
    *nonfinite = 0;
    for (size_t i = 0; i < count; i++) {
        double difference = fabs((double)got[i] - want[i]);
        if (!isfinite(got[i])) ++*nonfinite;
        else worst = fmax(worst, fabs(want[i]) >= 1e-30 ? difference / fabs(want[i]) : difference);
    }
    return *nonfinite ? NAN : worst;
}

/* Runs variant v on ordinary or hard rows; returns the run, the error and its non-finite count. */
static row_run run_variant(int v, int hard, float *x, float *weight, float *y, float *want, double *error,
                           int *nonfinite)
{
    row_run run;
    if (v == RMSNORM) {
        fill_activations(x, weight, hard);
        rmsnorm_reference(x, weight, want, ROWS, LENGTH, EPS);
        run = gpu_rmsnorm(x, weight, y, ROWS, LENGTH, EPS, !hard);
    } else {
        fill_logits(x, hard);
        softmax_reference(x, want, ROWS, LENGTH);
        run = gpu_softmax(v, x, y, ROWS, LENGTH, !hard);
    }
    *error = max_error(y, want, (size_t)ROWS * LENGTH, nonfinite);
    return run;
}

/* The traffic of each version for the attention scores of Llama-2-7B at 4096 tokens, on an H100 SXM. */
static void predict_attention(void)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int llama = lab_table_find(models, "name", "Llama-2-7B"), h100 = lab_table_find(gpus, "key", "h100-sxm");
    double heads = lab_table_number_or_exit(models, llama, "attention_heads");
    double layers = lab_table_number_or_exit(models, llama, "layers");
    double bandwidth = lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s") * 1e9;
    double tokens = 4096, scores = heads * tokens * tokens, row_bytes = 4 * scores;
    printf("\nPredicted, not measured: the FP32 attention scores of Llama-2-7B (%.0f heads, %.0f layers) for a "
           "%.0f-token prompt\nare %.0f x %.0f x %.0f = %.3g floats per layer (%.2f GiB). At the H100 SXM's "
           "%.0f GB/s (data/gpus.csv), their softmax takes at least:\n", heads, layers, tokens, heads, tokens, tokens,
           scores, row_bytes / (1 << 30), bandwidth / 1e9);
    static const int transfers[] = {3, 4, 3, 2};   /* naive: 2 reads + 1 write; then 4, 3, 2 row transfers */
    for (int v = 1; v < SOFTMAX_VERSIONS; v++)
        printf("  %-13s %d row transfers: %6.2f GB per layer, %6.2f ms per layer, %6.1f ms for all %.0f layers\n",
               names[v], transfers[v], transfers[v] * row_bytes / 1e9, transfers[v] * row_bytes / bandwidth * 1e3,
               transfers[v] * row_bytes / bandwidth * 1e3 * layers, layers);
    printf("Day 22 (FlashAttention) never writes these scores to memory at all.\n");
    lab_table_free(models), lab_table_free(gpus);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    size_t count = (size_t)ROWS * LENGTH;
    float *x = malloc(sizeof(float) * count), *y = malloc(sizeof(float) * count);
    float *want = malloc(sizeof(float) * count), *weight = malloc(sizeof(float) * LENGTH);
    printf("%d rows of %d floats (%d KiB a row), one block of %d threads per row. Errors: the largest relative\n"
           "error against a double-precision reference (float rounds to 6e-8); hard rows: logits near +-1e4,\n"
           "all-equal rows, -inf masks.\n\n",
           ROWS, LENGTH, LENGTH * 4 / 1024, ROW_THREADS);
    printf("variant        bytes/row   your prediction   row transfers   error, ordinary rows   error, hard rows\n"
           "               (counted)   (bytes/row)       (reads+writes)\n");
    lab_results out = lab_results_open_or_exit(argv[1], "variant,name,bytes_per_row,row_transfers,max_error_ordinary,"
                                            "max_error_hard,nonfinite_hard,measured_gpu_us");
    int written = 0;
    for (int v = 0; v < VARIANTS; v++) {
        double ordinary, hard;
        int nonfinite_ordinary, nonfinite_hard;
        row_run run = run_variant(v, 0, x, weight, y, want, &ordinary, &nonfinite_ordinary);
        row_run hard_run = run_variant(v, 1, x, weight, y, want, &hard, &nonfinite_hard);
        if (run.error || run.written_past_end || !(ordinary <= RIGHT_ENOUGH)) {
            printf("%-13s  not right yet (%s): left out. make check DAY=17 says which check fails.\n", names[v],
                   run.error ? run.error : run.written_past_end ? "writes past the end of y" : "wrong outputs");
            continue;
        }
        char hard_text[32] = "", bytes_text[32] = "", transfers_text[32] = "", measured[32] = "", predicted[32] = "-";
        if (v != RMSNORM) snprintf(predicted, sizeof predicted, "%.0f", softmax_predicted_bytes_per_row(v, LENGTH));
        if (!hard_run.error && !nonfinite_hard) snprintf(hard_text, sizeof hard_text, "%.3g", hard);
        double bytes_per_row = (run.global_load_bytes + run.global_store_bytes) / ROWS;
        if (run.counted) {
            snprintf(bytes_text, sizeof bytes_text, "%.0f", bytes_per_row);
            snprintf(transfers_text, sizeof transfers_text, "%.3f", bytes_per_row / (4.0 * LENGTH));
        }
        double gpu_us = gpu_row_kernel_microseconds(v == RMSNORM ? -1 : v, TIMED_ROWS, LENGTH, REPEATS);
        if (gpu_us >= 0) snprintf(measured, sizeof measured, "%.3f", gpu_us);
        printf("%-13s  %9s   %15s   %13s   %20.3g   %s\n", names[v], run.counted ? bytes_text : "-", predicted,
               run.counted ? transfers_text : "-", ordinary,
               hard_run.error ? hard_run.error : nonfinite_hard ? "NaN or inf" : hard_text);
        if (nonfinite_hard) printf("               %d of %d outputs on the hard rows are NaN or infinite\n",
                                   nonfinite_hard, (int)count);
        if (gpu_us >= 0)
            printf("               measured on this GPU: %.1f us for %d rows (%.0f GB/s of one read and one write)\n",
                   gpu_us, TIMED_ROWS, 2.0 * 4 * LENGTH * TIMED_ROWS / (gpu_us * 1e-6) / 1e9);
        lab_results_row_or_exit(&out, "%d,\"%s\",%s,%s,%.3g,%s,%d,%s", v, names[v], bytes_text, transfers_text, ordinary,
                        hard_text, nonfinite_hard, measured);
        written++;
    }
    lab_results_close_or_exit(&out);
    printf("\nCounted on the simulator: 32-byte sectors requested from global memory, as ncu's l1tex global\n"
           "sectors are; a GPU's L2 may serve a row's second and third reads, so its DRAM bytes can be fewer.\n"
           "%d of %d variants right so far.\n", written, VARIANTS);
    predict_attention();
    free(x), free(y), free(want), free(weight);
    return 0;
}
