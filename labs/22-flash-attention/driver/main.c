/* main.c — Day 22 driver: what FlashAttention moves, against what any attention that keeps the
 * n x n scores in memory must move, on the GPU (counted) and on this CPU (measured). Do not edit.
 *
 *   build/22-flash-attention/labs-sim/lab RESULTS.csv     (make check DAY=22 runs it)
 *
 * GPU, one causal head: for n = 64 .. 512 at d = 64, your FlashAttention kernel with tiles of 32,
 * checked against day 18's double reference first (a run that is not right is left out); on the
 * simulator the global bytes it requested (counted) next to the formula's (flash_predicted_bytes)
 * and to 24 n^2, the six trips of day 18's score matrix: the floor of any unfused attention,
 * however well its matmuls are tiled (day 18's own kernels, untiled, counted far more: its lab
 * printed them). Then, at n = 256, the bytes for tiles of 8, 16 and 32 and d = 64 and 128. On a
 * real GPU the median times of 20 runs instead.
 * CPU, one causal head at d = 64, n = 1024 .. 4096: day 18's algorithm in float (n x n scores in
 * memory) and your tiled version (tiles of 32), timed side by side on one core, best of 3.
 * One CSV, three kinds of row (part = gpu-n, gpu-tile or cpu):
 *   part,n,d,tile,flash_bytes,predicted_flash_bytes,matrix_traffic_bytes,max_error,flash_gpu_us,
 *   naive_cpu_seconds,tiled_cpu_seconds,naive_scratch_bytes,tiled_scratch_bytes,cpu */
#include "lab.h"
#include "compare.h"
#include "machine.h"
#include "results.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { HEAD_DIM = 64, GPU_LENGTHS = 4, TILE_N = 256, CPU_LENGTHS = 3, CPU_TILE = 32, CPU_REPEATS = 3,
       GPU_REPEATS = 20, CHECK_N = 77 };
static const int gpu_lengths[GPU_LENGTHS] = {64, 128, 256, 512};
static const int tile_sizes[3] = {8, 16, 32}, head_dims[2] = {64, 128};
static const int cpu_lengths[CPU_LENGTHS] = {1024, 2048, 4096};
static const double RELATIVE = 1e-5, ABSOLUTE = 1e-6;   /* the checks' tolerance */

typedef struct inputs { float *q, *k, *v, *out, *want; int n, d; } inputs;

static inputs make_inputs(int n, int d)
{
    size_t count = (size_t)n * d;
    inputs x = {malloc(sizeof(float) * count), malloc(sizeof(float) * count), malloc(sizeof(float) * count),
                malloc(sizeof(float) * count), malloc(sizeof(float) * count), n, d};
    fill_attention_inputs(x.q, x.k, x.v, n, d, 1, 22);
    attention_reference(x.q, x.k, x.v, x.want, n, d, 1);
    return x;
}

static void free_inputs(inputs *x) { free(x->q), free(x->k), free(x->v), free(x->out), free(x->want); }

static double max_error(const float *got, const float *want, size_t count)
{
    double worst = 0;
    for (size_t i = 0; i < count; i++) worst = isfinite(got[i]) ? fmax(worst, fabs((double)got[i] - want[i])) : INFINITY;
    return worst;
}

/* One causal run on the GPU, checked: the run, with *error its largest error, or NAN if not right. */
static attention_run checked_run(inputs *x, int tile, double *error)
{
    attention_run run = gpu_attention(x->q, x->k, x->v, x->out, x->n, x->d, 1, tile, 1);
    lab_comparison result = lab_compare_floats("out", x->out, x->want, (size_t)x->n * x->d, RELATIVE, ABSOLUTE);
    *error = max_error(x->out, x->want, (size_t)x->n * x->d);
    if (run.error || run.written_past_end || result.mismatches) {
        char why[64];
        snprintf(why, sizeof why, "%zu of %d outputs wrong", result.mismatches, x->n * x->d);
        printf("n = %d, d = %d, %s, tile %d: not right yet (%s): left out. make check DAY=22 says which check fails.\n",
               x->n, x->d, "flash", tile, run.error ? run.error : run.written_past_end ?
               "writes past the end" : why);
        *error = NAN;
    }
    return run;
}

static void format_bytes(char *text, size_t size, const attention_run *run, double error)
{
    text[0] = 0;
    if (!isnan(error) && run->counted) snprintf(text, size, "%.0f", run->global_load_bytes + run->global_store_bytes);
}

static void format_us(char *text, size_t size, double microseconds)
{
    text[0] = 0;
    if (microseconds >= 0) snprintf(text, size, "%.3f", microseconds);
}

static void gpu_lengths_part(lab_results *csv)
{
    const double mib = 1 << 20;
    printf("GPU: one causal head, d = %d, FlashAttention with tiles of 32. Global bytes requested (32-byte\n"
           "sectors), counted on the simulator, MiB, against 24 n^2: the score matrix's six trips (written twice,\n"
           "read four times), which any attention that keeps it in memory moves however its matmuls are tiled:\n\n"
           "     n   flash (counted)   flash (predicted)   24 n^2 (matrix alone)   matrix / flash\n", HEAD_DIM);
    for (int l = 0; l < GPU_LENGTHS; l++) {
        int n = gpu_lengths[l];
        inputs x = make_inputs(n, HEAD_DIM);
        double flash_error, predicted = flash_predicted_bytes(n, HEAD_DIM, 1, 32), matrix = 24.0 * n * n;
        attention_run flash = checked_run(&x, 32, &flash_error);
        char flash_bytes[32], flash_us[32];
        format_bytes(flash_bytes, sizeof flash_bytes, &flash, flash_error);
        format_us(flash_us, sizeof flash_us, isnan(flash_error) ? -1 : gpu_attention_microseconds(n, HEAD_DIM, 1, 32,
                  GPU_REPEATS));
        if (flash_bytes[0])
            printf("%6d   %15.3f   %17.3f   %21.3f   %14.2f\n", n, atof(flash_bytes) / mib, predicted / mib,
                   matrix / mib, matrix / atof(flash_bytes));
        else if (flash_us[0])
            printf("%6d   measured on this GPU: flash %s us\n", n, flash_us);
        char error[32] = "";
        if (!isnan(flash_error)) snprintf(error, sizeof error, "%.3g", flash_error);
        lab_results_row_or_exit(csv, "gpu-n,%d,%d,32,%s,%.0f,%.0f,%s,%s,,,,,", n, HEAD_DIM, flash_bytes, predicted,
                                matrix, error, flash_us);
        free_inputs(&x);
    }
}

static void gpu_tiles_part(lab_results *csv)
{
    const double mib = 1 << 20;
    printf("\nGPU: n = %d, causal, FlashAttention for each tile size. Global bytes, MiB (counted; predicted):\n\n"
           "  tile   d = %d counted   predicted   d = %d counted   predicted\n", TILE_N, head_dims[0], head_dims[1]);
    for (int t = 0; t < 3; t++) {
        char row[160];
        int used = snprintf(row, sizeof row, "%6d", tile_sizes[t]);
        for (int h = 0; h < 2; h++) {
            inputs x = make_inputs(TILE_N, head_dims[h]);
            double error, predicted = flash_predicted_bytes(TILE_N, head_dims[h], 1, tile_sizes[t]);
            attention_run run = checked_run(&x, tile_sizes[t], &error);
            char bytes[32], us[32], error_text[32] = "";
            format_bytes(bytes, sizeof bytes, &run, error);
            format_us(us, sizeof us, isnan(error) ? -1 : gpu_attention_microseconds(TILE_N, head_dims[h], 1,
                      tile_sizes[t], GPU_REPEATS));
            if (!isnan(error)) snprintf(error_text, sizeof error_text, "%.3g", error);
            if (bytes[0]) used += snprintf(row + used, sizeof row - used, "   %13.3f   %9.3f", atof(bytes) / mib,
                                           predicted / mib);
            else used += snprintf(row + used, sizeof row - used, "   %10s %s   %9.3f", us[0] ? us : "-",
                                  us[0] ? "us" : "  ", predicted / mib);   /* a GPU's time, measured */
            lab_results_row_or_exit(csv, "gpu-tile,%d,%d,%d,%s,%.0f,%.0f,%s,%s,,,,,", TILE_N, head_dims[h],
                                    tile_sizes[t], bytes, predicted, 24.0 * TILE_N * TILE_N, error_text, us);
            free_inputs(&x);
        }
        printf("%s\n", row);
    }
    printf("(counted: the sectors each warp asked for, as Nsight Compute's l1tex sector counts; predicted:\n"
           " 4nd for q, 4nd for out, and 8 x d x the rows of each key tile each query tile visits)\n");
}

/* Is the tiled CPU version right on an awkward shape, causal and not? A wrong one is not timed. */
static int tiled_is_right(attention_tiles *tiles)
{
    int n = CHECK_N, d = HEAD_DIM;
    inputs x = make_inputs(n, d);
    int right = 1;
    for (int causal = 0; causal <= 1 && right; causal++) {
        attention_reference(x.q, x.k, x.v, x.want, n, d, causal);
        lab_poison(x.out, sizeof(float) * n * d);
        attention_tiled_cpu(x.q, x.k, x.v, x.out, n, d, causal, CPU_TILE, tiles);
        lab_comparison result = lab_compare_floats("out", x.out, x.want, (size_t)n * d, RELATIVE, ABSOLUTE);
        if (result.mismatches) {
            printf("attention_tiled_cpu is not right yet (%s, n = %d, d = %d: %zu of %d outputs wrong): not timed.\n",
                   causal ? "causal" : "non-causal", n, d, result.mismatches, n * d);
            right = 0;
        }
    }
    free_inputs(&x);
    return right;
}

static void cpu_part(lab_results *csv)
{
    char cpu[160];
    lab_cpu_name(cpu, sizeof cpu);
    attention_tiles *tiles = malloc(sizeof *tiles);
    int tiled_right = tiled_is_right(tiles);
    printf("\nCPU (%s), one core, one causal head, d = %d: seconds, measured (best of %d, side by side):\n\n"
           "     n   naive (n x n scores)   tiled (tile %d)   naive / tiled   naive scratch   tiled scratch\n", cpu,
           HEAD_DIM, CPU_REPEATS, CPU_TILE);
    for (int l = 0; l < CPU_LENGTHS; l++) {
        int n = cpu_lengths[l], d = HEAD_DIM;
        size_t count = (size_t)n * d;
        float *q = malloc(sizeof(float) * count), *k = malloc(sizeof(float) * count), *v = malloc(sizeof(float) * count);
        float *out = malloc(sizeof(float) * count), *scores = malloc(sizeof(float) * (size_t)n * n);
        fill_attention_inputs(q, k, v, n, d, 1, 22);
        double naive = INFINITY, tiled = INFINITY;
        for (int r = 0; r < CPU_REPEATS; r++) {   /* in turn, so that a busy neighbour slows both alike */
            double start = lab_now_seconds();
            attention_naive_cpu(q, k, v, scores, out, n, d, 1);
            naive = fmin(naive, lab_now_seconds() - start);
            if (!tiled_right) continue;
            start = lab_now_seconds();
            attention_tiled_cpu(q, k, v, out, n, d, 1, CPU_TILE, tiles);
            tiled = fmin(tiled, lab_now_seconds() - start);
        }
        double scratch = 4.0 * n * n;
        char tiled_text[32] = "", ratio[32] = "";
        if (tiled_right) {
            snprintf(tiled_text, sizeof tiled_text, "%.4f", tiled);
            snprintf(ratio, sizeof ratio, "%.2f", naive / tiled);
        }
        printf("%6d   %20.4f   %14s   %13s   %9.1f MiB   %9.1f KiB\n", n, naive, tiled_text, ratio,
               scratch / (1 << 20), sizeof *tiles / 1024.0);
        lab_results_row_or_exit(csv, "cpu,%d,%d,%d,,,,,,%.4f,%s,%.0f,%zu,\"%s\"", n, d, CPU_TILE, naive, tiled_text,
                                scratch, sizeof *tiles, cpu);
        free(q), free(k), free(v), free(out), free(scores);
    }
    free(tiles);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    lab_results csv = lab_results_open_or_exit(argv[1], "part,n,d,tile,flash_bytes,predicted_flash_bytes,"
                                            "matrix_traffic_bytes,max_error,flash_gpu_us,"
                                            "naive_cpu_seconds,tiled_cpu_seconds,naive_scratch_bytes,"
                                            "tiled_scratch_bytes,cpu");
    gpu_lengths_part(&csv);
    gpu_tiles_part(&csv);
    cpu_part(&csv);
    lab_results_close_or_exit(&csv);
    return 0;
}
