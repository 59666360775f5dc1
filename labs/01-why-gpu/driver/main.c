/* main.c — Day 01 driver: how fast is a naive matrix multiply on this CPU, and how far is
 * that from the peak of each GPU in data/gpus.csv? Do not edit.
 *
 *   build/01-why-gpu/labs-sim/lab RESULTS.csv     (make check DAY=01 runs it)
 *
 * Writes one row per device:
 *   device,key,measured_gflop_per_s,fp32_peak_gflop_per_s,fp16_tensor_peak_gflop_per_s
 * The CPU row is measured here: the median of 5 runs of your matmul_naive at n = 512,
 * after checking that it is right. The GPU rows are datasheet peaks: ceilings that no
 * real kernel reaches, never measurements. */
#include "lab.h"
#include "compare.h"
#include "results.h"
#include "table.h"
#include "timer.h"
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHECK_N = 64, TIMED_N = 512, REPEATS = 5 };

typedef struct matmul_job { const float *a, *b; float *c; int n; } matmul_job;

static void run_matmul(void *context)
{
    matmul_job *job = context;
    matmul_naive(job->a, job->b, job->c, job->n);
}

static void fill(float *x, int count, unsigned seed)
{
    for (int i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;   /* in [-1, 1] */
    }
}

/* Correctness before timing: a fast wrong answer measures nothing. */
static int matmul_is_right(void)
{
    int n = CHECK_N;
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n);
    float *c = malloc(sizeof(float) * n * n), *want = malloc(sizeof(float) * n * n);
    fill(a, n * n, 1), fill(b, n * n, 2), lab_poison(c, sizeof(float) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int p = 0; p < n; p++) sum += (double)a[i * n + p] * b[p * n + j];
            want[i * n + j] = (float)sum;
        }
    matmul_naive(a, b, c, n);
    lab_comparison result = lab_compare_floats("c", c, want, (size_t)n * n, 1e-4, 1e-4);
    if (result.mismatches)
        fprintf(stderr, "matmul_naive is not right yet at n = %d: %s\nNot timing it: fix it first "
                "(make check DAY=01 says which test fails).\n", n, result.message);
    free(a), free(b), free(c), free(want);
    return result.mismatches == 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    if (!matmul_is_right()) return 1;

    int n = TIMED_N;
    matmul_job job = {malloc(sizeof(float) * n * n), malloc(sizeof(float) * n * n),
                      malloc(sizeof(float) * n * n), n};
    fill((float *)job.a, n * n, 3), fill((float *)job.b, n * n, 4);
    double seconds = lab_median_seconds(run_matmul, &job, REPEATS);
    double flop = 2.0 * n * n * n;
    double cpu_gflops = flop / seconds / 1e9;
    char cpu[160];
    lab_cpu_name(cpu, sizeof cpu);
    printf("%s: naive matmul, n = %d: %.3f GFLOP/s (measured: median of %d runs of %.3f s)\n", cpu, n,
           cpu_gflops, REPEATS, seconds);

    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    lab_results out = lab_results_open_or_exit(argv[1], "device,key,measured_gflop_per_s,fp32_peak_gflop_per_s,"
                                        "fp16_tensor_peak_gflop_per_s");
    lab_results_row_or_exit(&out, "\"%.28s, naive loop\",cpu,%.4f,,", cpu, cpu_gflops);
    double big = 2.0 * 4096.0 * 4096.0 * 4096.0;
    printf("A 4096 x 4096 x 4096 matmul is %.1f GFLOP (%.1f G multiply-adds). Time for it:\n", big / 1e9,
           big / 2e9);
    printf("  %-22s %12.2f s     (measured speed above)\n", "this CPU, naive loop", big / (cpu_gflops * 1e9));
    for (int row = 0; row < gpus->rows; row++) {
        const char *name = lab_table_text_or_exit(gpus, row, "name"), *key = lab_table_text_or_exit(gpus, row, "key");
        double fp32 = lab_table_number_or_exit(gpus, row, "fp32_tflops") * 1e3;
        double fp16 = lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops") * 1e3;
        lab_results_row_or_exit(&out, "\"%s\",%s,,%.1f,%.1f", name, key, fp32, fp16);
        printf("  %-22s %12.3f ms at the FP32 peak, %8.3f ms at the FP16 Tensor Core peak (%.0fx this CPU)\n",
               name, big / (fp32 * 1e9) * 1e3, big / (fp16 * 1e9) * 1e3, fp16 / cpu_gflops);
    }
    printf("(GPU times are lower bounds from datasheet peaks, predicted, not measured.)\n");
    lab_results_close_or_exit(&out);
    lab_table_free(gpus);
    free((void *)job.a), free((void *)job.b), free(job.c);
    return 0;
}
