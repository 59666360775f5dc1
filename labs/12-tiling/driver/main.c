/* main.c — Day 12 driver: what reuse buys, on the GPU (counted) and on this CPU (measured).
 * Do not edit.
 *
 *   build/12-tiling/labs-sim/lab RESULTS.csv     (make check DAY=12 runs it)
 *
 * GPU: multiplies two 128 x 128 matrices with the naive kernel (tile 1: no reuse) and your tiled
 * kernel with tiles of 8, 16 and 32, after checking each against a double-precision reference
 * (a kernel that is not right yet is left out). On the simulator it writes what was counted: the
 * floats loaded from global memory (next to your predicted_global_floats), the floats loaded from
 * shared memory, the sectors per global request, and the roofline estimate for an H100 SXM
 * (a floor, not a measurement); on a real GPU the median time of 20 runs instead.
 * CPU: times the naive loop (up to N = 768: it takes seconds beyond), your loop order, your
 * blocked matmul and the system BLAS on one core for N = 64 .. 1024, side by side, best of 3.
 * One CSV, two kinds of row (part = gpu or cpu):
 *   part,n,tile,global_floats_loaded,predicted_global_floats,shared_floats_loaded,
 *   global_sectors_per_request,h100_estimate_us,measured_gpu_us,naive_gflop_per_s,
 *   loop_order_gflop_per_s,blocked_gflop_per_s,blas_gflop_per_s,cpu */
#include "lab.h"
#include "compare.h"
#include "results.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GPU_N = 128, CHECK_M = 37, CHECK_N = 45, CHECK_K = 300, REPEATS = 3, GPU_REPEATS = 20, NAIVE_MAX_N = 768 };
static const int kernels[] = {NAIVE_KERNEL, 8, 16, 32};
static const int cpu_sizes[] = {64, 128, 256, 384, 512, 768, 1024};
enum { KERNELS = 4, CPU_SIZES = 7 };

/* One run of a GPU kernel on n x n x n, checked: returns the run, or sets *right to 0. */
static matmul_run checked_gpu_run(int tile, int n, int *right)
{
    size_t elements = (size_t)n * n;
    float *a = malloc(sizeof(float) * elements), *b = malloc(sizeof(float) * elements);
    float *c = malloc(sizeof(float) * elements), *want = malloc(sizeof(float) * elements);
    fill_matrix(a, elements, 1), fill_matrix(b, elements, 2);
    double tolerance = matmul_reference(a, b, want, n, n, n);
    matmul_run run = gpu_matmul(tile, a, b, c, n, n, n, 1);
    lab_comparison result = lab_compare_floats("c", c, want, elements, 0, tolerance);
    *right = run.error == NULL && run.written_outside == 0 && result.mismatches == 0;
    if (!*right)
        printf("tile %2d: not right yet (%s): not counted. make check DAY=12 says which check fails.\n", tile,
               run.error ? run.error : run.written_outside ? "writes outside C" : result.message);
    free(a), free(b), free(c), free(want);
    return run;
}

/* Is a CPU matmul right on an awkward shape? A wrong one is not timed. */
static int cpu_is_right(const char *name, cpu_matmul function)
{
    float *a = malloc(sizeof(float) * CHECK_M * CHECK_K), *b = malloc(sizeof(float) * CHECK_K * CHECK_N);
    float *c = malloc(sizeof(float) * CHECK_M * CHECK_N), *want = malloc(sizeof(float) * CHECK_M * CHECK_N);
    fill_matrix(a, CHECK_M * CHECK_K, 3), fill_matrix(b, CHECK_K * CHECK_N, 4);
    double tolerance = matmul_reference(a, b, want, CHECK_M, CHECK_N, CHECK_K);
    lab_poison(c, sizeof(float) * CHECK_M * CHECK_N);
    function(a, b, c, CHECK_M, CHECK_N, CHECK_K);
    lab_comparison result = lab_compare_floats("c", c, want, CHECK_M * CHECK_N, 0, tolerance);
    if (result.mismatches)
        printf("%s is not right yet (%d x %d x %d: %s): not timed.\n", name, CHECK_M, CHECK_N, CHECK_K,
               result.message);
    free(a), free(b), free(c), free(want);
    return result.mismatches == 0;
}

static void gpu_part(lab_results *out)
{
    double n3 = (double)GPU_N * GPU_N * GPU_N;
    printf("GPU: C = A B for %d x %d matrices, %.0f multiply-adds. Per kernel, counted on the simulator:\n", GPU_N,
           GPU_N, n3);
    printf("kernel     global floats loaded     your prediction   shared floats loaded   sectors/request   H100 est. us\n");
    for (int i = 0; i < KERNELS; i++) {
        int tile = kernels[i], right, reuse = tile == NAIVE_KERNEL ? 1 : tile;
        matmul_run run = checked_gpu_run(tile, GPU_N, &right);
        if (!right) continue;
        char name[16];
        if (tile == NAIVE_KERNEL) snprintf(name, sizeof name, "naive");
        else snprintf(name, sizeof name, "tile %d", tile);
        double predicted = (double)predicted_global_floats(reuse, GPU_N, GPU_N, GPU_N);
        double gpu_ms = gpu_matmul_milliseconds(tile, GPU_N, GPU_REPEATS);
        char measured[32] = "";
        if (gpu_ms >= 0) snprintf(measured, sizeof measured, "%.3f", gpu_ms * 1e3);
        if (run.counted) {
            double sectors_per_request = run.global_load_sectors / run.global_load_requests;
            printf("%-9s  %20.0f   %16.0f   %20.0f   %15.2f   %12.3f\n", name, run.global_floats_loaded, predicted,
                   run.shared_floats_loaded, sectors_per_request, run.h100_estimate_seconds * 1e6);
            lab_results_row_or_exit(out, "gpu,%d,%d,%.0f,%.0f,%.0f,%.3f,%.4f,%s,,,,,", GPU_N, reuse, run.global_floats_loaded,
                            predicted, run.shared_floats_loaded, sectors_per_request, run.h100_estimate_seconds * 1e6,
                            measured);
        } else {
            printf("%-9s  measured on this GPU: %.3f us\n", name, gpu_ms * 1e3);
            lab_results_row_or_exit(out, "gpu,%d,%d,,%.0f,,,,%s,,,,,", GPU_N, reuse, predicted, measured);
        }
    }
    printf("(counted: exact counts of what each thread asked for; the H100 column is a roofline estimate\n"
           " from the counted sectors, as if each came from DRAM once: a floor, not a measurement)\n\n");
}

static void cpu_part(lab_results *out)
{
    char cpu[160];
    lab_cpu_name(cpu, sizeof cpu);
    int loop_order_right = cpu_is_right("matmul_loop_order", matmul_loop_order);
    int blocked_right = cpu_is_right("matmul_blocked", matmul_blocked);
    int blas = cpu_blas_available();
    printf("CPU (%s), one core, GFLOP/s measured (best of %d, run side by side):\n", cpu, REPEATS);
    printf("    N      naive   loop order      blocked         BLAS   blocked / BLAS\n");
    for (int s = 0; s < CPU_SIZES; s++) {
        int n = cpu_sizes[s];
        cpu_matmul functions[4];
        int count = 0, naive = -1, loop_order = -1, blocked = -1, blas_index = -1;
        if (n <= NAIVE_MAX_N) naive = count, functions[count++] = cpu_matmul_naive;
        if (loop_order_right) loop_order = count, functions[count++] = matmul_loop_order;
        if (blocked_right) blocked = count, functions[count++] = matmul_blocked;
        if (blas) blas_index = count, functions[count++] = cpu_matmul_blas;
        double seconds[4], flop = 2.0 * n * n * n;
        cpu_time_side_by_side(functions, count, n, REPEATS, seconds);
        char gflops[4][32] = {"", "", "", ""}, ratio[32] = "";
        int indices[4] = {naive, loop_order, blocked, blas_index};
        for (int f = 0; f < 4; f++)
            if (indices[f] >= 0) snprintf(gflops[f], sizeof gflops[f], "%.3f", flop / seconds[indices[f]] / 1e9);
        if (blocked >= 0 && blas_index >= 0)
            snprintf(ratio, sizeof ratio, "%.0f %%", 100 * seconds[blas_index] / seconds[blocked]);
        printf("%5d %10s %12s %12s %12s %16s\n", n, gflops[0], gflops[1], gflops[2], gflops[3], ratio);
        lab_results_row_or_exit(out, "cpu,%d,,,,,,,,%s,%s,%s,%s,\"%s\"", n, gflops[0], gflops[1], gflops[2], gflops[3], cpu);
    }
    if (!blas) printf("(no BLAS column: this build is for a real GPU, and links cuBLAS, not OpenBLAS)\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "part,n,tile,global_floats_loaded,predicted_global_floats,"
                                            "shared_floats_loaded,global_sectors_per_request,h100_estimate_us,"
                                            "measured_gpu_us,naive_gflop_per_s,loop_order_gflop_per_s,"
                                            "blocked_gflop_per_s,blas_gflop_per_s,cpu");
    gpu_part(&out);
    cpu_part(&out);
    lab_results_close_or_exit(&out);
    return 0;
}
