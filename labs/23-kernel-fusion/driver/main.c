/* main.c — Day 23 driver: what the unfused chain and the fused kernel move, launch and cost,
 * hidden size by hidden size. Do not edit.
 *
 *   build/23-kernel-fusion/labs-sim/lab RESULTS.csv     (make check DAY=23 runs it)
 *
 * For each hidden size n of HIDDEN_SIZES, runs the chain with SiLU (bias add, activation, residual
 * add, RMSNorm) on ROWS rows, unfused and fused, checks both outputs against a double-precision
 * reference, and writes one row:
 *   hidden,unfused_launches,fused_launches,unfused_bytes_per_row,fused_bytes_per_row,
 *   counted_ratio,predicted_ratio,unfused_predicted_us,fused_predicted_us,
 *   unfused_measured_us,fused_measured_us
 * bytes_per_row: counted on the simulator, 32 x the global sectors loaded and stored, all launches,
 * divided by ROWS. predicted_ratio is the chapter's 12 / 6 row transfers. *_predicted_us: the
 * launches' roofline estimates on the H100 SXM of data/gpus.csv (counted bytes at its memory
 * bandwidth; no FLOPs declared, the chain does about 0.2 FLOP a byte), scaled from ROWS rows to
 * TOKENS (a prompt): a prediction, not a measurement. *_measured_us: on a real GPU only, the
 * median of REPEATS runs over TOKENS rows of zeros. A variant that is wrong is left out.
 * Then, from data/models.csv and data/gpus.csv: the same chain for Llama-2-7B's prefill. */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 8, TOKENS = 4096, REPEATS = 20, SIZES = 6 };
static const int HIDDEN_SIZES[SIZES] = {256, 512, 1024, 2048, 4096, 8192};
static const float EPS = 1e-5f;
static const double RIGHT_ENOUGH = 1e-5;   /* relative to the largest output, as the checks allow */
static const double UNFUSED_TRANSFERS = 12, FUSED_TRANSFERS = 6;   /* row transfers per row, with an activation */

static float uniform(unsigned *seed, float low, float high)
{
    *seed = *seed * 1664525u + 1013904223u;
    return low + (high - low) * (float)(*seed >> 8) / 16777216.0f;
}

/* The largest |got - want| over the largest |want|: NAN when something is not finite. */
static double worst_error(const float *got, const float *want, size_t count)
{
    double worst = 0, largest = 0;
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(got[i])) return NAN;
        worst = fmax(worst, fabs((double)got[i] - want[i]));
        largest = fmax(largest, fabs(want[i]));
    }
    return largest > 0 ? worst / largest : worst;
}

/* Runs one variant and says whether both outputs are right. */
static int run_right(int fused, const chain_inputs *in, float *h, float *y, const float *want_h,
                     const float *want_y, chain_run *run)
{
    size_t count = (size_t)in->rows * in->n;
    *run = gpu_chain(fused, in, h, y, 1);
    double error = fmax(worst_error(h, want_h, count), worst_error(y, want_y, count));
    if (!run->error && !run->written_past_end && error <= RIGHT_ENOUGH) return 1;
    printf("%7d  %s is not right yet (%s): left out. make check DAY=23 says which check fails.\n", in->n,
           fused ? "the fused kernel" : "the unfused chain",
           run->error ? run->error : run->written_past_end ? "writes past the end of h or y" : "wrong outputs");
    return 0;
}

/* The chain for every token of a Llama-2-7B prompt, twice per layer, on an H100 SXM. */
static void predict_llama(void)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int llama = lab_table_find(models, "name", "Llama-2-7B"), h100 = lab_table_find(gpus, "key", "h100-sxm");
    double hidden = lab_table_number_or_exit(models, llama, "hidden_size"), layers = lab_table_number_or_exit(models, llama, "layers");
    double bandwidth = lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s") * 1e9;
    double row_bytes = 4 * hidden * TOKENS, chains = 2 * layers;
    printf("\nPredicted, not measured: Llama-2-7B's shape (hidden %.0f, %.0f layers) for a %d-token prompt in FP32.\n"
           "One intermediate tensor is %d x %.0f floats = %.1f MiB. With a chain like this one after the attention\n"
           "and after the MLP of every layer (%.0f chains), at the H100 SXM's %.0f GB/s (data/gpus.csv):\n",
           hidden, layers, TOKENS, TOKENS, hidden, row_bytes / (1 << 20), chains, bandwidth / 1e9);
    const char *names[2] = {"unfused", "fused"};
    double transfers[2] = {UNFUSED_TRANSFERS, FUSED_TRANSFERS}, launches[2] = {4, 1};
    for (int v = 0; v < 2; v++)
        printf("  %-8s %2.0f row transfers: %6.1f MB, %6.1f us per chain; %5.1f ms and %4.0f launches per forward\n",
               names[v], transfers[v], transfers[v] * row_bytes / 1e6, transfers[v] * row_bytes / bandwidth * 1e6,
               chains * transfers[v] * row_bytes / bandwidth * 1e3, chains * launches[v]);
    printf("Day 24 (CUDA graphs) is about what each of those launches costs the CPU.\n");
    lab_table_free(models), lab_table_free(gpus);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    int largest = HIDDEN_SIZES[SIZES - 1];
    size_t count = (size_t)ROWS * largest;
    float *x = malloc(sizeof(float) * count), *residual = malloc(sizeof(float) * count);
    float *bias = malloc(sizeof(float) * largest), *weight = malloc(sizeof(float) * largest);
    float *h = malloc(sizeof(float) * count), *y = malloc(sizeof(float) * count);
    float *want_h = malloc(sizeof(float) * count), *want_y = malloc(sizeof(float) * count);
    printf("The chain v = SiLU(x + bias), h = residual + v, y = RMSNorm(h) * weight on %d rows, unfused (four\n"
           "kernels through an intermediate buffer) and fused (one block of %d threads per row). Bytes: counted on\n"
           "the simulator. Time: predicted for %d rows on an H100 SXM from those bytes (roofline), not measured.\n\n",
           ROWS, ROW_THREADS, TOKENS);
    printf(" hidden  launches   bytes per row (counted)   fewer bytes     predicted us, %d rows\n"
           "         unf. fus.   unfused        fused    counted  chapter   unfused    fused\n", TOKENS);
    lab_results out = lab_results_open_or_exit(argv[1], "hidden,unfused_launches,fused_launches,unfused_bytes_per_row,"
                                            "fused_bytes_per_row,counted_ratio,predicted_ratio,unfused_predicted_us,"
                                            "fused_predicted_us,unfused_measured_us,fused_measured_us");
    int written = 0;
    for (int s = 0; s < SIZES; s++) {
        int n = HIDDEN_SIZES[s];
        unsigned seed = 23u + (unsigned)n;
        for (int i = 0; i < n; i++) bias[i] = uniform(&seed, -0.5f, 0.5f), weight[i] = uniform(&seed, 0.5f, 1.5f);
        for (int i = 0; i < ROWS * n; i++) x[i] = uniform(&seed, -3, 3), residual[i] = uniform(&seed, -2, 2);
        chain_inputs in = {x, residual, bias, weight, ROWS, n, ACTIVATION_SILU, EPS};
        chain_reference(&in, want_h, want_y);
        chain_run unfused, fused;
        if (!run_right(0, &in, h, y, want_h, want_y, &unfused) || !run_right(1, &in, h, y, want_h, want_y, &fused))
            continue;
        double scale = (double)TOKENS / ROWS;
        double unfused_bytes = (unfused.global_load_bytes + unfused.global_store_bytes) / ROWS;
        double fused_bytes = (fused.global_load_bytes + fused.global_store_bytes) / ROWS;
        char counted[4][32] = {"", "", "", ""}, measured[2][32] = {"", ""};
        if (unfused.counted && fused.counted) {
            snprintf(counted[0], 32, "%.0f", unfused_bytes);
            snprintf(counted[1], 32, "%.0f", fused_bytes);
            if (unfused.predicted_seconds >= 0 && fused.predicted_seconds >= 0) {
                snprintf(counted[2], 32, "%.2f", unfused.predicted_seconds * scale * 1e6);
                snprintf(counted[3], 32, "%.2f", fused.predicted_seconds * scale * 1e6);
            }
        }
        for (int v = 0; v < 2; v++) {
            double us = gpu_chain_microseconds(v, TOKENS, n, ACTIVATION_SILU, REPEATS);
            if (us >= 0) snprintf(measured[v], 32, "%.3f", us);
        }
        if (unfused.counted)
            printf("%7d  %4d %4d  %9s  %11s    %7.3f  %7.3f   %7s  %7s\n", n, unfused.launches, fused.launches,
                   counted[0], counted[1], unfused_bytes / fused_bytes, UNFUSED_TRANSFERS / FUSED_TRANSFERS,
                   counted[2], counted[3]);
        else
            printf("%7d  measured on this GPU, %d rows: unfused %s us, fused %s us\n", n, TOKENS, measured[0],
                   measured[1]);
        char ratio[32] = "";
        if (unfused.counted) snprintf(ratio, sizeof ratio, "%.4f", unfused_bytes / fused_bytes);
        lab_results_row_or_exit(&out, "%d,%d,%d,%s,%s,%s,%.4f,%s,%s,%s,%s", n, unfused.launches, fused.launches, counted[0],
                        counted[1], ratio, UNFUSED_TRANSFERS / FUSED_TRANSFERS, counted[2], counted[3], measured[0],
                        measured[1]);
        written++;
    }
    lab_results_close_or_exit(&out);
    printf("\nCounted on the simulator: 32-byte sectors requested from global memory, as ncu's l1tex global\n"
           "sectors are; on a GPU the bias and the weights (n floats, read by every row) come from L2, and so\n"
           "may some of the chain's intermediate rows. %d of %d hidden sizes right so far.\n", written, SIZES);
    predict_llama();
    free(x), free(residual), free(bias), free(weight), free(h), free(y), free(want_h), free(want_y);
    return 0;
}
