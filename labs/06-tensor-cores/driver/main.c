/* main.c — Day 06 driver: the number formats, what Tensor Cores do with them, and what the
 * format of a running sum does to a long dot product. Do not edit.
 *
 *   build/06-tensor-cores/labs-sim/lab RESULTS.csv     (make check DAY=06 runs it)
 *
 * Prints, in order:
 *   1. each format's limits, computed from its bit layout;
 *   2. the dense Tensor Core peak of every GPU in data/gpus.csv per format, and its ratio
 *      to the FP32 peak; Llama-2-7B's weight bytes per format (data/models.csv) and the
 *      least time one decode step needs to read them on an H100 SXM;
 *   3. whether your float_to_half and float_to_bfloat16 agree with CUDA's, run on the device;
 *   4. your mma_tile's largest error on 64 random tiles, against the bound the tests use;
 *   5. one cuBLAS GEMM (64 x 64, K = 4096) with FP32, TF32, FP16 and BF16 inputs: the error
 *      each input format costs when the sum is kept in FP32.
 * Writes one row per vector length n, from 16 to 2^20:
 *   n,exact_sum,fp32_sum,fp16_sum,bf16_sum,fp32_relative_error,fp16_relative_error,bf16_relative_error
 * from your dot_product over one vector pair of random FP16 values in [0, 1) (so every
 * product lies in [0, 1)), against the exact sum. */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * Random FP16 values with known exact values */

static unsigned next_random(unsigned *seed) { return *seed = *seed * 1664525u + 1013904223u; }

/* A random FP16 value in [0, 1): 24 random bits r, the value r x 2^-24 cut to the 11
 * significant bits a half keeps (below 2^-14 a half keeps them all). Returns the bits;
 * *value receives the exact value. */
static uint16_t random_half(unsigned *seed, double *value)
{
    unsigned r = next_random(seed) >> 8, top = 0;
    for (unsigned t = r; t > 1; t >>= 1) top++;          /* the highest set bit of r */
    uint16_t bits;
    if (r < 1024) {                                       /* subnormal (or zero): exactly r x 2^-24 */
        bits = (uint16_t)r;
        *value = ldexp(r, -24);
    } else {
        unsigned significand = r >> (top - 10);           /* 11 bits, 1xxxxxxxxxx */
        bits = (uint16_t)((top - 9) << 10 | (significand & 0x3ffu));
        *value = ldexp(significand, (int)top - 10 - 24);
    }
    return bits;
}

/* ---------------------------------------------------------------------------------
 * 1. The formats, from their bit layouts */

typedef struct format {
    const char *name;
    int exponent_bits, mantissa_bits;
    int all_ones_exponent_is_finite;   /* FP8 E4M3: only S.1111.111 is special (NaN), no infinity */
} format;

static void print_formats(void)
{
    const format formats[] = {
        {"FP32", 8, 23, 0}, {"TF32", 8, 10, 0}, {"FP16", 5, 10, 0}, {"BF16", 8, 7, 0},
        {"FP8 E4M3", 4, 3, 1}, {"FP8 E5M2", 5, 2, 0},
    };
    printf("1. The formats, computed from their bit layouts (epsilon: the gap from 1 to the next value;\n"
           "   rounding to nearest errs by at most half of it, relatively):\n");
    printf("   %-9s %-22s %11s %16s %19s %10s\n", "format", "bits: sign+exp+mant", "largest", "smallest normal",
           "smallest subnormal", "epsilon");
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        const format *f = &formats[i];
        int bias = (1 << (f->exponent_bits - 1)) - 1;
        int top_exponent = (1 << f->exponent_bits) - (f->all_ones_exponent_is_finite ? 1 : 2) - bias;
        /* the largest significand: all ones, except E4M3, whose all-ones pattern is NaN */
        double top_significand = 2.0 - ldexp(1.0, (f->all_ones_exponent_is_finite ? 1 : 0) - f->mantissa_bits);
        char layout[32];
        snprintf(layout, sizeof layout, "%d = 1 + %d + %d", 1 + f->exponent_bits + f->mantissa_bits,
                 f->exponent_bits, f->mantissa_bits);
        printf("   %-9s %-22s %11.5g %16.5g %19.5g %10.5g\n", f->name, layout, ldexp(top_significand, top_exponent),
               ldexp(1.0, 1 - bias), ldexp(1.0, 1 - bias - f->mantissa_bits), ldexp(1.0, -f->mantissa_bits));
    }
    printf("   %-9s %-22s %11s %16s %19s %10s\n", "INT8", "8, two's complement", "127", "-", "-", "1 (step)");
    printf("   (TF32 is a Tensor Core input format, kept in a 32-bit register; E4M3 has no infinity.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 2. Tensor Core peaks per format; bytes per parameter */

static void print_peaks(void)
{
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    const char *columns[] = {"tf32_tensor_tflops", "fp16_tensor_tflops", "bf16_tensor_tflops", "fp8_tensor_tflops",
                             "int8_tensor_tops"};
    printf("2. Dense Tensor Core peaks from data/gpus.csv, TFLOP/s (INT8: TOP/s), and x the FP32 peak:\n");
    printf("   %-17s %7s %15s %15s %15s %15s %15s\n", "GPU", "FP32", "TF32", "FP16", "BF16", "FP8", "INT8");
    for (int row = 0; row < gpus->rows; row++) {
        double fp32 = lab_table_number_or_exit(gpus, row, "fp32_tflops");
        printf("   %-17s %7.1f", lab_table_text_or_exit(gpus, row, "name"), fp32);
        for (int c = 0; c < 5; c++) {
            double peak = lab_table_number_or_exit(gpus, row, columns[c]);
            char cell[32];
            if (isnan(peak)) snprintf(cell, sizeof cell, "-");
            else snprintf(cell, sizeof cell, "%.1f (%.1fx)", peak, peak / fp32);
            printf(" %15s", cell);
        }
        printf("\n");
    }
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    int llama = lab_table_find(models, "name", "Llama-2-7B"), h100 = lab_table_find(gpus, "key", "h100-sxm");
    if (llama >= 0 && h100 >= 0) {
        double parameters = lab_table_number_or_exit(models, llama, "parameters");
        double bandwidth = lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s") * 1e9;
        const char *names[] = {"FP32", "FP16/BF16", "FP8/INT8", "INT4"};
        const double bytes[] = {4, 2, 1, 0.5};
        printf("   Llama-2-7B's %.0f weights, and the least time to read them once on an H100 SXM (%.0f GB/s):\n",
               parameters, bandwidth / 1e9);
        for (int i = 0; i < 4; i++)
            printf("     %-10s %4.1f bytes each: %6.2f GB, %5.2f ms per decode step (predicted lower bound)\n", names[i],
                   bytes[i], parameters * bytes[i] / 1e9, parameters * bytes[i] / bandwidth * 1e3);
    }
    printf("\n");
    lab_table_free(models);
    lab_table_free(gpus);
}

/* ---------------------------------------------------------------------------------
 * 3. Your conversions against CUDA's, on the device */

static void compare_with_cuda(void)
{
    /* every exponent and leading mantissa (the top 16 bits), each with low halves that make
     * exact values, FP16 ties (0x1000), BF16 ties (0x8000) and their neighbours */
    const unsigned lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x7fff, 0x8000, 0x8001};
    int lows_count = (int)(sizeof lows / sizeof lows[0]), n = 65536 * lows_count;
    float *x = malloc(sizeof(float) * n);
    uint16_t *cuda = malloc(sizeof(uint16_t) * n);
    for (unsigned high = 0; high < 65536; high++)
        for (int k = 0; k < lows_count; k++) {
            unsigned bits = high << 16 | lows[k];
            memcpy(&x[high * lows_count + k], &bits, 4);
        }
    printf("3. Your conversions against CUDA's own, run on the device, over %d floats:\n", n);
    for (int bfloat16 = 0; bfloat16 <= 1; bfloat16++) {
        gpu_run run = bfloat16 ? gpu_float_to_bfloat16(x, cuda, n) : gpu_float_to_half(x, cuda, n);
        const char *yours = bfloat16 ? "float_to_bfloat16" : "float_to_half";
        const char *theirs = bfloat16 ? "__float2bfloat16_rn" : "__float2half_rn";
        if (run.error) {
            printf("   %s: the run ended with the CUDA error \"%s\"\n", theirs, run.error);
            continue;
        }
        int differ = 0, first = -1;
        for (int i = 0; i < n; i++) {
            uint16_t mine = bfloat16 ? float_to_bfloat16(x[i]) : float_to_half(x[i]);
            if (mine != cuda[i] && differ++ == 0) first = i;
        }
        if (!differ) {
            printf("   %-17s agrees with %s on all of them\n", yours, theirs);
        } else {
            unsigned bits;
            memcpy(&bits, &x[first], 4);
            uint16_t mine = bfloat16 ? float_to_bfloat16(x[first]) : float_to_half(x[first]);
            printf("   %-17s differs from %s on %d of them, the first %s(0x%08x = %.9g) = 0x%04x, CUDA's 0x%04x\n",
                   yours, theirs, differ, yours, bits, x[first], mine, cuda[first]);
        }
    }
    printf("\n");
    free(x), free(cuda);
}

/* ---------------------------------------------------------------------------------
 * 4. Your tile kernel */

static void check_mma(void)
{
    enum { TILES = 64, SIZE = TILE * TILE };
    size_t count = (size_t)TILES * SIZE;
    uint16_t *a = malloc(count * 2), *b = malloc(count * 2);
    float *c = malloc(count * 4), *d = malloc(count * 4);
    double *a_value = malloc(count * sizeof(double)), *b_value = malloc(count * sizeof(double));
    unsigned seed = 6;
    for (size_t i = 0; i < count; i++) {                          /* FP16 values in (-1, 1) */
        int negative = next_random(&seed) >> 31;
        a[i] = random_half(&seed, &a_value[i]) | (uint16_t)(negative << 15);
        if (negative) a_value[i] = -a_value[i];
        negative = next_random(&seed) >> 31;
        b[i] = random_half(&seed, &b_value[i]) | (uint16_t)(negative << 15);
        if (negative) b_value[i] = -b_value[i];
        c[i] = (float)((int)(next_random(&seed) >> 8) - (1 << 23)) * 0x1p-23f;
    }
    printf("4. Your mma_tile on %d random tiles (FP16 A and B, FP32 C):\n", TILES);
    gpu_run run = gpu_mma_tiles(a, b, c, d, TILES);
    if (run.error) {
        printf("   the run ended with the CUDA error \"%s\"\n\n", run.error);
    } else {
        double worst = 0;
        long wrong = 0, unwritten = 0;
        for (int t = 0; t < TILES; t++)
            for (int e = 0; e < SIZE; e++) {
                int row = e / TILE, col = e % TILE;
                size_t at = (size_t)t * SIZE;
                double want = c[at + e], scale = fabs(c[at + e]);
                for (int k = 0; k < TILE; k++) {
                    double p = a_value[at + row * TILE + k] * b_value[at + k * TILE + col];
                    want += p, scale += fabs(p);
                }
                double units = fabs(d[at + e] - want) / (scale * 0x1p-24);   /* in units of u x (|c| + sum |a b|) */
                if (isnan(d[at + e])) {
                    unwritten++;
                    continue;
                }
                if (!(units <= 16.0)) wrong++;
                if (units > worst) worst = units;
            }
        if (unwritten) printf("   %ld of %zu elements of D are NaN (never written?)\n", unwritten, count);
        if (unwritten < (long)count)
            printf("   largest error %.3g u x (|c| + sum |a b|), u = 2^-24; the tests allow 16 (FP32 rounding, 16 adds)%s\n",
                   worst, wrong ? "" : ": within the bound");
        if (wrong) printf("   %ld of %zu elements are outside it: make check DAY=06 says which\n", wrong, count);
        if (run.written_past_end) printf("   and %lld floats were written past the end of d\n", run.written_past_end);
        printf("\n");
    }
    free(a), free(b), free(c), free(d), free(a_value), free(b_value);
}

/* ---------------------------------------------------------------------------------
 * 5. cuBLAS, four ways */

static void print_cublas(void)
{
    enum { M = 64, N = 64, K = 4096 };
    gemm_errors e = cublas_gemm_errors(M, N, K, 25);
    printf("5. cuBLAS GemmEx, %d x %d x %d, inputs uniform in [-1, 1], FP32 accumulation; relative error\n"
           "   ||C - C_exact|| / ||C_exact|| against the exact product of the FP32 inputs:\n", M, N, K);
    if (e.error) {
        printf("   failed: %s\n\n", e.error);
        return;
    }
    printf("     FP32 inputs, CUBLAS_COMPUTE_32F            %.3g\n", e.fp32);
    printf("     FP32 inputs, CUBLAS_COMPUTE_32F_FAST_TF32  %.3g\n", e.tf32);
    printf("     inputs rounded to FP16                     %.3g\n", e.fp16);
    printf("     inputs rounded to BF16                     %.3g\n\n", e.bf16);
}

/* ---------------------------------------------------------------------------------
 * The dot product: the plot */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 06 — number formats, Tensor Cores, and the format of a running sum\n\n");
    print_formats();
    print_peaks();
    compare_with_cuda();
    check_mma();
    print_cublas();

    enum { LONGEST = 1 << 20 };
    uint16_t *a = malloc(sizeof(uint16_t) * LONGEST), *b = malloc(sizeof(uint16_t) * LONGEST);
    double *exact = malloc(sizeof(double) * (LONGEST + 1));       /* exact[n]: the sum of the first n products */
    unsigned seed = 2024;
    exact[0] = 0;
    for (long i = 0; i < LONGEST; i++) {
        double x, y;
        a[i] = random_half(&seed, &x), b[i] = random_half(&seed, &y);
        exact[i + 1] = exact[i] + x * y;   /* the product is exact in double; the sum errs by under
                                              2^20 x 2^-53 = 1.2e-10 relatively, far below what we measure */
    }
    printf("6. dot_product of n random FP16 values in [0, 1), the sum kept in FP32, FP16 or BF16:\n");
    printf("   %8s %14s %14s %14s %14s %10s %10s %10s\n", "n", "exact", "FP32 sum", "FP16 sum", "BF16 sum",
           "FP32 err", "FP16 err", "BF16 err");
    lab_results out = lab_results_open_or_exit(argv[1], "n,exact_sum,fp32_sum,fp16_sum,bf16_sum,fp32_relative_error,"
                                        "fp16_relative_error,bf16_relative_error");
    long previous = 0;
    for (int step = 0; step <= 64; step++) {                      /* 16 x 2^(step/4): 65 lengths */
        long n = lround(16.0 * pow(2.0, step / 4.0));
        if (n == previous) continue;
        previous = n;
        float sum[3];
        double error[3];
        for (int f = 0; f < 3; f++) {
            sum[f] = dot_product(a, b, n, (accumulator)f);
            error[f] = fabs(sum[f] - exact[n]) / exact[n];
        }
        lab_results_row_or_exit(&out, "%ld,%.17g,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g", n, exact[n], sum[0], sum[1], sum[2], error[0],
                    error[1], error[2]);
        if (step % 8 == 0)
            printf("   %8ld %14.6f %14.6f %14.6f %14.6f %10.2e %10.2e %10.2e\n", n, exact[n], sum[0], sum[1], sum[2],
                   error[0], error[1], error[2]);
    }
    lab_results_close_or_exit(&out);
    printf("   (every product is below 1: an FP16 sum cannot pass 2048, a BF16 sum 256 — the chapter says why)\n");
    free(a), free(b), free(exact);
    return 0;
}
