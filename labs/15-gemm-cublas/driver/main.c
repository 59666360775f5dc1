/* main.c — Day 15 driver: your row-major cuBLAS calls, checked, then timed. Do not edit.
 *
 *   build/15-gemm-cublas/labs-sim/lab RESULTS.csv     (make check DAY=15 runs it)
 *
 * Checks each transpose pair on a 37 x 45 x 29 product whose rows are padded (lda, ldb, ldc
 * larger than the widths) against a double reference, and names the convention a wrong one
 * breaks (the tests check the BF16 product, the strided batch and its launches). Then, when the
 * four pairs are right:
 * measured: one GEMM of n x n x n per transpose pair through your gemm_row_major, and the
 * loop-order CPU matmul (a small copy of day 12's, below), n = 64 .. 768, one core, in 7 rounds
 * side by side (each round times all five once). On the simulator both are timed in this thread's
 * CPU time, which leaves out the time the OS gave other programs (on a GPU, the GEMMs between
 * CUDA events and the CPU loop by the wall clock). Each speed is 2 n^3 over the median time; each
 * ratio to NN is taken within a round, so that a busy neighbour slows both sides of it alike, and
 * its median is reported with the lowest and highest round: a run whose rounds range over more
 * than 10 % is called noisy, here and in the plot.
 * On the simulator cuBLAS is this CPU's OpenBLAS, so the measured GFLOP/s are this CPU's, named
 * in the file; on a GPU they are cuBLAS's.
 * predicted: from the H100 SXM's roofline (data/gpus.csv): the fraction of its BF16 tensor
 * peak a GEMM of n x n x n can reach (the operands read once, C written once), and the day-12
 * tiled kernel (tile 32, FP32 cores, its 2 n^3 / 32 tile loads counted as DRAM traffic) as a
 * percentage of that.
 * One CSV, three kinds of row (part = check, measured, predicted):
 *   part,n,pair,right,gflop_per_s,loop_order_gflop_per_s,loop_order_percent_of_blas,
 *   loop_order_percent_low,loop_order_percent_high,percent_of_nn,percent_of_nn_low,percent_of_nn_high,
 *   predicted_cublas_percent_of_peak,predicted_tiled_percent_of_cublas,
 *   predicted_tiled_percent_of_fp32_cublas,rounds,machine
 * (percentages of NN's speed: the median over the rounds, then the lowest and highest round). */
#include "lab.h"
#include "compare.h"
#include "machine.h"
#include "results.h"
#include "table.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHECK_M = 37, CHECK_N = 45, CHECK_K = 29, PAD = 3, ROUNDS = 7, TILE = 32, NOISY_SPREAD_PERCENT = 10 };
static const int measured_sizes[] = {64, 128, 256, 384, 512, 768};
static const int predicted_sizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
enum { MEASURED_SIZES = 6, PREDICTED_SIZES = 9 };
static const char *const pair_names[] = {"NN", "NT", "TN", "TT"};   /* op(A), op(B) */

/* A small copy of day 12's loop-order reference (labs/12-tiling, matmul_loop_order): i, p, j,
 * so the innermost loop runs along rows of B and C and the compiler vectorises it. */
static void loop_order_matmul(const float *a, const float *b, float *c, int n)
{
    memset(c, 0, sizeof(float) * (size_t)n * n);
    for (int i = 0; i < n; i++)
        for (int p = 0; p < n; p++) {
            float x = a[(size_t)i * n + p];
            for (int j = 0; j < n; j++) c[(size_t)i * n + j] += x * b[(size_t)p * n + j];
        }
}

/* One transpose pair on the padded check shape: 1 when C is right and nothing else was written. */
static int check_pair(int pair, lab_results *out)
{
    gemm_case g = {pair >> 1, pair & 1, CHECK_M, CHECK_N, CHECK_K, 0, 0, CHECK_N + PAD};
    g.lda = (g.transpose_a ? CHECK_M : CHECK_K) + PAD, g.ldb = (g.transpose_b ? CHECK_K : CHECK_N) + PAD;
    float *a = malloc(sizeof(float) * gemm_a_floats(&g)), *b = malloc(sizeof(float) * gemm_b_floats(&g));
    float *c = malloc(sizeof(float) * gemm_c_floats(&g)), *want = malloc(sizeof(float) * gemm_c_floats(&g));
    fill_matrix(a, gemm_a_floats(&g), 1), fill_matrix(b, gemm_b_floats(&g), 2);
    lab_poison(want, sizeof(float) * gemm_c_floats(&g));
    double tolerance = gemm_reference(&g, a, b, want);
    gemm_run run = gpu_gemm_row_major(&g, a, b, c);
    float *got_packed = malloc(sizeof(float) * g.m * g.n), *want_packed = malloc(sizeof(float) * g.m * g.n);
    for (int i = 0; i < g.m; i++) {   /* the elements only: C's padding is checked below */
        memcpy(got_packed + (size_t)i * g.n, c + (size_t)i * g.ldc, sizeof(float) * g.n);
        memcpy(want_packed + (size_t)i * g.n, want + (size_t)i * g.ldc, sizeof(float) * g.n);
    }
    lab_comparison result = lab_compare_floats("c", got_packed, want_packed, (size_t)g.m * g.n, 0, tolerance);
    free(got_packed), free(want_packed);
    int right = run.error == NULL && run.status == CUBLAS_STATUS_SUCCESS && run.written_past_end == 0 &&
                result.mismatches == 0 && run.math_after == CUBLAS_DEFAULT_MATH;
    for (size_t i = 0; right && i < gemm_c_floats(&g); i++)   /* the padding of C stays as it was */
        if ((int)(i % g.ldc) >= g.n && !lab_float_is_poison(c[i])) right = 0;
    printf("  %s: C (%d x %d, ldc %d) = op(A) (lda %d) op(B) (ldb %d): %s\n", pair_names[pair], g.m, g.n, g.ldc,
           g.lda, g.ldb, right ? "right" : "not right yet");
    if (!right && run.status != CUBLAS_STATUS_SUCCESS)
        printf("      gemm_row_major returned %s\n", cublasGetStatusName(run.status));
    else if (!right && run.math_after != CUBLAS_DEFAULT_MATH)
        printf("      gemm_row_major left the handle in math mode %d, not the default it was handed\n", run.math_after);
    else if (!right) {
        const char *mistake = gemm_name_the_mistake(&g, a, b, c);
        printf("      %s\n", mistake ? mistake : result.message);
    }
    lab_results_row_or_exit(out, "check,%d,%s,%d,,,,,,,,,,,,,", CHECK_M, pair_names[pair], right);
    free(a), free(b), free(c), free(want);
    return right;
}

/* The median, smallest and largest of n ratios (n <= ROUNDS), as percentages. */
typedef struct spread { double median, low, high; } spread;
static spread percent_spread(const double *ratios, int n)
{
    double sorted[ROUNDS];
    memcpy(sorted, ratios, sizeof(double) * n);
    spread s = {100 * lab_median(sorted, n), INFINITY, 0};
    for (int i = 0; i < n; i++) s.low = fmin(s.low, 100 * ratios[i]), s.high = fmax(s.high, 100 * ratios[i]);
    return s;
}

static void measured_part(lab_results *out)
{
    char machine[160];
    lab_cpu_name(machine, sizeof machine);
    int on_cpu = gemm_runs_on_the_cpu();
    printf("\nMeasured on %s%s: GFLOP/s from the median of %d rounds, side by side (each round times all five "
           "once)%s\n", on_cpu ? machine : "this GPU",
           on_cpu ? " (the simulator's cuBLAS is this CPU's OpenBLAS, one thread)" : " (cuBLAS)", ROUNDS,
           on_cpu ? ", in this thread's CPU time" : "");
    printf("    n        NN        NT        TN        TT   loop order (CPU)   loop order / BLAS NN"
           "   rounds' spread\n");
    double noisiest = 0;
    int noisiest_n = 0;
    for (int s = 0; s < MEASURED_SIZES; s++) {
        int n = measured_sizes[s];
        double flop = 2.0 * n * n * n, seconds[5][ROUNDS], median_seconds[5], ratios[5][ROUNDS];
        size_t elements = (size_t)n * n;
        float *a = malloc(sizeof(float) * elements), *b = malloc(sizeof(float) * elements);
        float *c = malloc(sizeof(float) * elements);
        fill_matrix(a, elements, 1), fill_matrix(b, elements, 2);
        for (int r = 0; r < ROUNDS; r++) {   /* side by side: a busy neighbour slows one round's five alike */
            for (int pair = 0; pair < 4; pair++)
                seconds[pair][r] = gemm_row_major_milliseconds(pair >> 1, pair & 1, n, 1) * 1e-3;
            double start = on_cpu ? gemm_thread_seconds() : lab_now_seconds();
            loop_order_matmul(a, b, c, n);
            seconds[4][r] = (on_cpu ? gemm_thread_seconds() : lab_now_seconds()) - start;
            for (int way = 0; way < 5; way++) ratios[way][r] = seconds[0][r] / seconds[way][r];   /* speed of NN's */
        }
        free(a), free(b), free(c);
        spread of_nn[5];
        double widest = 0;
        for (int way = 0; way < 5; way++) {
            double sorted[ROUNDS];
            memcpy(sorted, seconds[way], sizeof sorted);
            median_seconds[way] = lab_median(sorted, ROUNDS);
            of_nn[way] = percent_spread(ratios[way], ROUNDS);
            if (way > 0) widest = fmax(widest, 100 * (of_nn[way].high / of_nn[way].low - 1));
        }
        if (widest > noisiest) noisiest = widest, noisiest_n = n;
        double gflops[5];
        for (int way = 0; way < 5; way++) gflops[way] = flop / median_seconds[way] / 1e9;
        printf("%5d %9.2f %9.2f %9.2f %9.2f %18.2f %20.1f %% %14.0f %%\n", n, gflops[0], gflops[1], gflops[2],
               gflops[3], gflops[4], of_nn[4].median, widest);
        for (int pair = 0; pair < 4; pair++)
            lab_results_row_or_exit(out, "measured,%d,%s,1,%.3f,%.3f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,,,,%d,\"%s\"", n,
                                    pair_names[pair], gflops[pair], gflops[4], of_nn[4].median, of_nn[4].low,
                                    of_nn[4].high, of_nn[pair].median, of_nn[pair].low, of_nn[pair].high, ROUNDS,
                                    on_cpu ? machine : "GPU");
    }
    printf("(GFLOP/s: 2 n^3 over the median time. The ratios are taken within each round and their median\n"
           "shown; the spread is how far the rounds' ratios ranged, largest of the four at each n.)\n");
    if (noisiest > NOISY_SPREAD_PERCENT)
        printf("A noisy run: at n = %d the rounds' ratios ranged over %.0f %% (more than %d %%): the machine was busy\n"
               "(other programs share its caches and cores). Read the medians; a single round would mislead. The\n"
               "plot says so in its title.\n", noisiest_n, noisiest, NOISY_SPREAD_PERCENT);
}

static void predicted_part(lab_results *out)
{
    char error[512];
    lab_table *gpus = lab_table_read(lab_data_path("gpus.csv"), error, sizeof error);
    int row = gpus ? lab_table_find(gpus, "key", "h100-sxm") : -1;
    if (row < 0) {
        printf("\nno prediction: %s\n", gpus ? "data/gpus.csv has no h100-sxm" : error);
        if (gpus) lab_table_free(gpus);
        return;
    }
    /* the table's units: TFLOP/s (dense), GB/s */
    double bf16_flops = lab_table_number_or_exit(gpus, row, "bf16_tensor_tflops") * 1e12;
    double fp32_flops = lab_table_number_or_exit(gpus, row, "fp32_tflops") * 1e12;
    double bandwidth = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s") * 1e9;
    char name[64];
    snprintf(name, sizeof name, "%s", lab_table_text_or_exit(gpus, row, "name"));
    lab_table_free(gpus);
    printf("\nPredicted for the %s from its roofline (BF16 tensor peak %.1f TFLOP/s, FP32 %.1f, %.0f GB/s):\n", name,
           bf16_flops / 1e12, fp32_flops / 1e12, bandwidth / 1e9);
    printf("    n   cuBLAS BF16 %% of peak   day-12 tiled (FP32, tile 32) %% of cuBLAS BF16   ... %% of cuBLAS FP32\n");
    for (int s = 0; s < PREDICTED_SIZES; s++) {
        double n = predicted_sizes[s], flop = 2 * n * n * n;
        double cublas_seconds = fmax(flop / bf16_flops, (2 * 2 * n * n + 4 * n * n) / bandwidth);
        double tiled_bytes = 4 * (2 * n * n * n / TILE) + 4 * n * n;
        double tiled_seconds = fmax(flop / fp32_flops, tiled_bytes / bandwidth);
        /* the same kernel against cublasSgemm, FP32 in and out on the same FP32 cores: A, B read once, C written */
        double sgemm_seconds = fmax(flop / fp32_flops, 3 * 4 * n * n / bandwidth);
        double percent_of_peak = 100 * flop / bf16_flops / cublas_seconds;
        double tiled_percent = 100 * cublas_seconds / tiled_seconds, tiled_percent_fp32 = 100 * sgemm_seconds / tiled_seconds;
        printf("%5.0f %23.1f %49.2f %19.1f\n", n, percent_of_peak, tiled_percent, tiled_percent_fp32);
        lab_results_row_or_exit(out, "predicted,%.0f,,,,,,,,,,,%.3f,%.4f,%.3f,,\"%s\"", n, percent_of_peak,
                                tiled_percent, tiled_percent_fp32, name);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "part,n,pair,right,gflop_per_s,loop_order_gflop_per_s,"
                                            "loop_order_percent_of_blas,loop_order_percent_low,loop_order_percent_high,"
                                            "percent_of_nn,percent_of_nn_low,percent_of_nn_high,"
                                            "predicted_cublas_percent_of_peak,predicted_tiled_percent_of_cublas,"
                                            "predicted_tiled_percent_of_fp32_cublas,rounds,machine");
    printf("Row-major C = op(A) op(B) through cuBLAS, rows padded by %d floats:\n", PAD);
    int right = 0;
    for (int pair = 0; pair < 4; pair++) right += check_pair(pair, &out);
    if (right == 4) measured_part(&out);
    else printf("\nnot timed until all four pairs are right: make check DAY=15 says which check fails.\n");
    predicted_part(&out);
    lab_results_close_or_exit(&out);
    return 0;
}
