/* main.c — Day 14 driver: this CPU's roofline, measured, beside the rooflines of three GPUs
 * from data/gpus.csv, with the week's kernels placed on each. Do not edit.
 *
 *   build/14-roofline/labs-sim/lab RESULTS.csv     (make check DAY=14 runs it)
 *
 * Measured here, on one core: the FP32 peak with your fma_peak_run, beside the driver's 12
 * independent chains (best of 15 runs of 2 ms each, side by side: short runs, so that some of
 * them escape whatever else the machine is doing); the driver's 1, 2, 4 and 8 chains beside
 * the rates your fma_predicted_flop_per_s predicts for them; and the bandwidth with STREAM's
 * triad over 192 MiB, more than the last-level cache (the book's probe,
 * lib/perfmodel/cpu_probes.c). The GPUs' ceilings are datasheet figures; every
 * time given for a GPU is a roofline bound, predicted, never measured.
 * Writes two kinds of rows:
 *   roof    three points of one ceiling's roofline: far left, the ridge point, far right
 *   kernel  a kernel placed on that ceiling: its intensity, the attainable GFLOP/s there, the
 *           least time it can take, and which limit binds
 * as kind,series,machine,ceiling,kernel_index,kernel,day,intensity_flop_per_byte,gflop_per_s,
 *    peak_gflop_per_s,bandwidth_gb_per_s,ridge_flop_per_byte,predicted_us,bound,bytes */
#include "lab.h"
#include "cpu_probes.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { REPEATS = 15, GPUS = 3, SERIES = 1 + 2 * GPUS };
static const char *gpu_keys[GPUS] = {"h100-sxm", "a100-80gb", "h200"};
static const double far_left = 1.0 / 128, far_right = 4096;   /* the plot's intensity range, FLOP/byte */

typedef struct ceiling {
    char machine[64];
    const char *name;       /* "FP32" or "FP16 Tensor" */
    precision arithmetic;   /* the kernels it applies to; the CPU's one ceiling applies to all */
    int is_cpu;
    roofline line;
} ceiling;

/* Within 12 digits: any order of the same arithmetic. */
static int close_to(double got, double want) { return fabs(got - want) <= 1e-12 * fabs(want); }

/* Your roofline functions against the definitions, at a few points: a plot of wrong
 * rooflines teaches nothing. */
static int roofline_is_right(void)
{
    const double tflops = 66.9, gb_per_s = 3350, peak = tflops * 1e12, bandwidth = gb_per_s * 1e9;
    roofline machine = roofline_from_datasheet(tflops, gb_per_s);
    int right = close_to(machine.peak_flop_per_s, peak) && close_to(machine.bandwidth_byte_per_s, bandwidth) &&
                close_to(roofline_ridge_point(machine), peak / bandwidth) &&
                close_to(roofline_attainable(machine, 1.0), bandwidth) &&
                close_to(roofline_attainable(machine, 1e3), peak) &&
                close_to(roofline_predicted_seconds(machine, peak, 1.0), 1.0) &&
                roofline_is_memory_bound(machine, 1.0) && !roofline_is_memory_bound(machine, 1e3);
    if (!right)
        fprintf(stderr, "Your roofline functions are not right yet, so there is nothing to plot: make check DAY=14 "
                        "says which check fails.\n");
    return right;
}

static void write_ceiling(lab_results *out, int series, const ceiling *c)
{
    double ridge = roofline_ridge_point(c->line), points[3] = {far_left, ridge, far_right};
    for (int p = 0; p < 3; p++)
        lab_results_row_or_exit(out, "roof,%d,\"%s\",%s,,,,%.6g,%.6g,%.6g,%.6g,%.6g,,,", series, c->machine, c->name, points[p],
                        roofline_attainable(c->line, points[p]) / 1e9, c->line.peak_flop_per_s / 1e9,
                        c->line.bandwidth_byte_per_s / 1e9, ridge);
}

static void place_kernels(lab_results *out, int series, const ceiling *c, const week_kernel *kernels)
{
    for (int k = 0; k < WEEK_KERNELS; k++) {
        if (!c->is_cpu && kernels[k].arithmetic != c->arithmetic) continue;
        double bytes = kernel_bytes(&kernels[k]), intensity = kernels[k].flops / bytes;
        double seconds = roofline_predicted_seconds(c->line, kernels[k].flops, bytes);
        const char *bound = roofline_is_memory_bound(c->line, intensity) ? "memory" : "compute";
        lab_results_row_or_exit(out, "kernel,%d,\"%s\",%s,%d,\"%s\",%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%s", series, c->machine,
                        c->name, k, kernels[k].name, kernels[k].day, intensity,
                        roofline_attainable(c->line, intensity) / 1e9, c->line.peak_flop_per_s / 1e9,
                        c->line.bandwidth_byte_per_s / 1e9, roofline_ridge_point(c->line), seconds * 1e6, bound,
                        kernels[k].counted_bytes >= 0 ? "counted" : "formula");
    }
}

/* The driver's chains beside your prediction for them: at the OS clock (which a core may
 * exceed), and as a share of the 12 chains, which the clock does not change. */
static void print_chains_predicted_and_measured(double reference)
{
    const int lanes = simd_hardware_lanes(), chains[] = {1, 2, 4, 8};
    const double ghz = os_clock_ghz();
    const double reference_predicted = fma_predicted_flop_per_s(REFERENCE_CHAINS, 4, 2, lanes, ghz);
    printf("  independent chains: your fma_predicted_flop_per_s (FMA latency 4 cycles, 2 pipes, %.3f GHz)\n"
           "  beside the driver's chains, each measured side by side with its %d:\n", ghz, REFERENCE_CHAINS);
    printf("  %8s %18s %18s %18s %18s\n", "chains", "predicted GFLOP/s", "measured GFLOP/s", "predicted / 12",
           "measured / 12");
    for (int i = 0; i < 4; i++) {
        double predicted = fma_predicted_flop_per_s(chains[i], 4, 2, lanes, ghz), measured, measured_reference;
        best_fma_rates_side_by_side(fma_chains_probe(chains[i]), fma_chains_probe(REFERENCE_CHAINS), 0.002, REPEATS,
                                    &measured, &measured_reference);
        printf("  %8d %18.1f %18.1f %18.3f %18.3f\n", chains[i], predicted / 1e9, measured / 1e9,
               predicted / reference_predicted, measured / measured_reference);
    }
    printf("  %8d %18.1f %18.1f %18.3f %18.3f\n", REFERENCE_CHAINS, reference_predicted / 1e9, reference / 1e9, 1.0,
           1.0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    if (!roofline_is_right()) return 1;
    if (!simd_target_supported()) {
        fprintf(stderr, "This CPU has no AVX2 and FMA, which the peak probe is compiled for: no CPU roofline.\n");
        return 1;
    }

    /* ---- this core, measured ---- */
    double peak, reference;
    best_fma_rates_side_by_side(fma_peak_run, fma_chains_probe(REFERENCE_CHAINS), 0.002, REPEATS, &peak, &reference);
    double derived = derived_peak_flop_per_s(), book_probe = perfmodel_fma_flops(perfmodel_peak_chains(), 0.005, REPEATS);
    double bandwidth = perfmodel_stream_bandwidth(STREAM_TRIAD, (size_t)192 << 20, 5);
    if (bandwidth <= 0) {
        fprintf(stderr, "could not allocate 192 MiB for the bandwidth probe\n");
        return 1;
    }
    printf("This core (measured, best of %d):\n", REPEATS);
    printf("  FP32 peak, your fma_peak_run      %8.1f GFLOP/s   (%.2fx the driver's %d chains beside it, %.1f)\n",
           peak / 1e9, peak / reference, REFERENCE_CHAINS, reference / 1e9);
    printf("  derived: %.3f GHz x %d lanes x 2 FLOPs x 2 FMA pipes = %.1f GFLOP/s (measured / derived = %.2f)\n",
           os_clock_ghz(), simd_hardware_lanes(), derived / 1e9, peak / derived);
    print_chains_predicted_and_measured(reference);
    printf("  the book's probe, %d lanes, %d chains, -march=native   %8.1f GFLOP/s\n", perfmodel_simd_float_lanes(),
           perfmodel_peak_chains(), book_probe / 1e9);
    printf("  STREAM triad over 192 MiB         %8.2f GB/s\n", bandwidth / 1e9);

    /* ---- the ceilings: this core, and each GPU's FP16 Tensor Core and FP32 ones ---- */
    ceiling ceilings[SERIES];
    ceilings[0] = (ceiling){"this CPU, 1 core (measured)", "FP32", PRECISION_FP32, 1,
                            roofline_from_datasheet(peak / 1e12, bandwidth / 1e9)};
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    for (int g = 0; g < GPUS; g++) {
        int row = lab_table_find(gpus, "key", gpu_keys[g]);
        if (row < 0) {
            fprintf(stderr, "data/gpus.csv has no row %s\n", gpu_keys[g]);
            return 1;
        }
        double gb_per_s = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
        ceiling *tensor = &ceilings[1 + 2 * g], *fp32 = &ceilings[2 + 2 * g];
        *tensor = (ceiling){"", "FP16 Tensor", PRECISION_FP16, 0,
                            roofline_from_datasheet(lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops"), gb_per_s)};
        *fp32 = (ceiling){"", "FP32", PRECISION_FP32, 0,
                          roofline_from_datasheet(lab_table_number_or_exit(gpus, row, "fp32_tflops"), gb_per_s)};
        snprintf(tensor->machine, sizeof tensor->machine, "%s", lab_table_text_or_exit(gpus, row, "name"));
        snprintf(fp32->machine, sizeof fp32->machine, "%s", lab_table_text_or_exit(gpus, row, "name"));
    }
    lab_table_free(gpus);

    /* ---- the week's kernels ---- */
    week_kernel kernels[WEEK_KERNELS];
    const char *error = week_kernels(kernels);
    if (error) {
        fprintf(stderr, "a kernel of run.cu failed: %s\n", error);
        return 1;
    }
    printf("\nThe week's kernels (bytes: counted on the simulator where run.cu runs them, else the formula):\n");
    printf("  %-20s day  %-34s %14s %14s %10s\n", "kernel", "shape", "FLOPs", "bytes", "FLOP/byte");
    for (int k = 0; k < WEEK_KERNELS; k++)
        printf("  %-20s %3d  %-34s %14.4g %14.4g %10.4g  (%s)\n", kernels[k].name, kernels[k].day, kernels[k].shape,
               kernels[k].flops, kernel_bytes(&kernels[k]), kernels[k].flops / kernel_bytes(&kernels[k]),
               kernels[k].counted_bytes >= 0 ? "bytes counted" : "bytes from the formula");

    printf("\nRidge points (FLOP/byte) and the least time of each kernel (us; GPUs predicted, a roofline bound):\n");
    printf("  %-30s %-12s %8s", "machine", "ceiling", "ridge");
    for (int k = 0; k < WEEK_KERNELS; k++) printf(" %11.11s", kernels[k].name);
    printf("\n");
    lab_results out = lab_results_open_or_exit(argv[1], "kind,series,machine,ceiling,kernel_index,kernel,day,"
                                            "intensity_flop_per_byte,gflop_per_s,peak_gflop_per_s,bandwidth_gb_per_s,"
                                            "ridge_flop_per_byte,predicted_us,bound,bytes");
    for (int s = 0; s < SERIES; s++) {
        const ceiling *c = &ceilings[s];
        printf("  %-30s %-12s %8.2f", c->machine, c->name, roofline_ridge_point(c->line));
        for (int k = 0; k < WEEK_KERNELS; k++) {
            if (!c->is_cpu && kernels[k].arithmetic != c->arithmetic) {
                printf(" %11s", "");
                continue;
            }
            double bytes = kernel_bytes(&kernels[k]);
            printf(" %10.4g%c", roofline_predicted_seconds(c->line, kernels[k].flops, bytes) * 1e6,
                   roofline_is_memory_bound(c->line, kernels[k].flops / bytes) ? 'm' : 'c');
        }
        printf("\n");
        write_ceiling(&out, s, c);
        place_kernels(&out, s, c, kernels);
    }
    printf("  (m: memory-bound there, c: compute-bound. The CPU runs every kernel in FP32 at its measured peak.)\n");
    lab_results_close_or_exit(&out);
    return 0;
}
