/* main.c — Day 18 driver: what naive attention moves and holds as the sequence grows. Do not edit.
 *
 *   build/18-attention-naive/labs-sim/lab RESULTS.csv     (make check DAY=18 runs it)
 *
 * Runs attention_forward on one causal head of HEAD_DIM = 64 (Llama-2-7B's head size) for
 * sequence lengths n = 16 .. 512, compares each output with a double-precision reference, and
 * on the simulator writes the global bytes counted, kernel by kernel; on a real GPU the median
 * time of 20 runs instead. A wrong run is left out. One row per length:
 *   n,d,global_bytes,scores_kernel_bytes,softmax_kernel_bytes,output_kernel_bytes,
 *   matrix_bytes,footprint_bytes,max_error,measured_gpu_us
 * matrix_bytes is 4 n^2, the score matrix alone; footprint_bytes is what the run allocated (q, k,
 * v, out and the scores); max_error the largest |out - reference| (outputs lie in [-1, 1]).
 * Then, from data/models.csv and data/gpus.csv: the score traffic of a Llama-2-7B prompt on an
 * H100 SXM at its bandwidth, and the length at which one head's, or one layer's, score matrix
 * alone fills the H100's memory, and the longest that fits the book's memory budget
 * (lib/perfmodel's PERFMODEL_MEMORY_UTILIZATION; predicted: arithmetic, not measured). */
#include "lab.h"
#include "perfmodel.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { HEAD_DIM = 64, LENGTHS = 6, REPEATS = 20 };
static const int lengths[LENGTHS] = {16, 32, 64, 128, 256, 512};
static const double RIGHT_ENOUGH = 1e-5;   /* the absolute error the checks allow, about */

static float uniform(unsigned *seed, float low, float high)
{
    *seed = *seed * 1664525u + 1013904223u;
    return low + (high - low) * (float)(*seed >> 8) / 16777216.0f;
}

static double max_error(const float *got, const float *want, size_t count)
{
    double worst = 0;
    for (size_t i = 0; i < count; i++) worst = isfinite(got[i]) ? fmax(worst, fabs((double)got[i] - want[i])) : INFINITY;
    return worst;
}

/* Where one head's score matrix, and one layer's (all heads at once), fill an H100 SXM. */
static void predict_footprint(void)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int llama = lab_table_find(models, "name", "Llama-2-7B"), h100 = lab_table_find(gpus, "key", "h100-sxm");
    double heads = lab_table_number_or_exit(models, llama, "attention_heads");
    double layers = lab_table_number_or_exit(models, llama, "layers");
    double memory = lab_table_number_or_exit(gpus, h100, "memory_gib") * 1073741824.0;
    double bandwidth = lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s") * 1e9;
    double tokens = 4096, layer_scores = heads * 4 * tokens * tokens, traffic = 6 * layer_scores;
    printf("\nPredicted, not measured (data/models.csv, data/gpus.csv): Llama-2-7B has %.0f heads and %.0f layers.\n"
           "At %.0f tokens one layer's FP32 scores are %.0f x 4 x %.0f^2 bytes = %.2f GiB. The three kernels write\n"
           "them twice and read them four times (24 n^2 bytes a head): %.1f GiB per layer, at least %.2f ms at the\n"
           "H100 SXM's %.0f GB/s, %.0f ms for all %.0f layers, for the score matrix alone.\n", heads, layers, tokens,
           heads, tokens, layer_scores / (1 << 30), traffic / (1 << 30), traffic / bandwidth * 1e3, bandwidth / 1e9,
           traffic / bandwidth * 1e3 * layers, layers);
    double usable = memory * PERFMODEL_MEMORY_UTILIZATION;
    printf("The H100 SXM's %.0f GiB hold one head's n x n score matrix up to n = %.0f tokens, and one layer's\n"
           "%.0f heads at once up to n = %.0f: 4 n^2 grows by 4x each time n doubles. Day 22 never stores it.\n"
           "Within the book's memory budget (%.0f %% usable, %.1f GB; the rest is the runtime's), with nothing\n"
           "else in memory: one head's matrix fits up to n = %.0f, one layer's up to n = %.0f.\n",
           memory / 1073741824.0, floor(sqrt(memory / 4)), heads, floor(sqrt(memory / (4 * heads))),
           100 * PERFMODEL_MEMORY_UTILIZATION, usable / 1e9, floor(sqrt(usable / 4)),
           floor(sqrt(usable / (4 * heads))));
    lab_table_free(models), lab_table_free(gpus);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    int largest = lengths[LENGTHS - 1], d = HEAD_DIM;
    size_t count = (size_t)largest * d;
    float *q = malloc(sizeof(float) * count), *k = malloc(sizeof(float) * count), *v = malloc(sizeof(float) * count);
    float *out = malloc(sizeof(float) * count), *want = malloc(sizeof(float) * count);
    unsigned seed = 18;
    for (size_t i = 0; i < count; i++)
        q[i] = uniform(&seed, -1, 1), k[i] = uniform(&seed, -1, 1), v[i] = uniform(&seed, -1, 1);
    printf("One causal head, d = %d, out = softmax(Q K^T / sqrt(d)) V in three kernels, the n x n scores in global\n"
           "memory. Bytes: 32-byte sectors requested from global memory, counted on the simulator.\n\n", d);
    printf("     n   scores (MiB)   all global bytes   kernel 1   kernel 2   kernel 3   footprint   max error\n"
           "         (4 n^2)        (counted, MiB)     scores     softmax    P V        (MiB)\n");
    lab_results csv = lab_results_open_or_exit(argv[1], "n,d,global_bytes,scores_kernel_bytes,softmax_kernel_bytes,"
                                            "output_kernel_bytes,matrix_bytes,footprint_bytes,max_error,measured_gpu_us");
    int written = 0;
    const double mib = 1 << 20;
    for (int l = 0; l < LENGTHS; l++) {
        int n = lengths[l];
        attention_reference(q, k, v, want, NULL, n, d, 1);
        attention_run run = gpu_attention(q, k, v, out, NULL, n, d, 1, 1);
        double error = run.error ? INFINITY : max_error(out, want, (size_t)n * d);
        if (run.error || run.written_past_end || !(error <= RIGHT_ENOUGH)) {
            printf("%6d   not right yet (%s): left out. make check DAY=18 says which check fails.\n", n,
                   run.error ? run.error : run.written_past_end ? "writes past the end" : "wrong outputs");
            continue;
        }
        double matrix = 4.0 * n * n, total = run.global_load_bytes + run.global_store_bytes, kernel[ATTENTION_KERNELS];
        for (int i = 0; i < ATTENTION_KERNELS; i++) kernel[i] = run.kernel_load_bytes[i] + run.kernel_store_bytes[i];
        char counted[4][32] = {"", "", "", ""}, measured[32] = "";
        if (run.counted) {
            snprintf(counted[0], 32, "%.0f", total);
            for (int i = 0; i < ATTENTION_KERNELS; i++) snprintf(counted[i + 1], 32, "%.0f", kernel[i]);
        }
        double gpu_us = gpu_attention_microseconds(n, d, 1, REPEATS);
        if (gpu_us >= 0) snprintf(measured, sizeof measured, "%.3f", gpu_us);
        if (run.counted)
            printf("%6d   %12.3f   %16.3f   %8.3f   %8.3f   %8.3f   %9.3f   %9.2g\n", n, matrix / mib, total / mib,
                   kernel[0] / mib, kernel[1] / mib, kernel[2] / mib, run.footprint_bytes / mib, error);
        else
            printf("%6d   %12.3f   %16s   %8s   %8s   %8s   %9.3f   %9.2g   measured on this GPU: %.1f us\n", n,
                   matrix / mib, "-", "-", "-", "-", run.footprint_bytes / mib, error, gpu_us);
        lab_results_row_or_exit(&csv, "%d,%d,%s,%s,%s,%s,%.0f,%.0f,%.3g,%s", n, d, counted[0], counted[1], counted[2],
                        counted[3], matrix, run.footprint_bytes, error, measured);
        written++;
    }
    lab_results_close_or_exit(&csv);
    printf("\n%d of %d lengths right so far.\n", written, LENGTHS);
    predict_footprint();
    free(q), free(k), free(v), free(out), free(want);
    return 0;
}
