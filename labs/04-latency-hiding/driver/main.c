/* main.c — Day 04 driver: how busy can one warp scheduler be with N warps, when each warp
 * does c cycles of math per memory wait of L cycles? And what does Little's law say an H100
 * needs in flight to reach its bandwidth? Do not edit.
 *
 *   build/04-latency-hiding/labs-sim/lab RESULTS.csv     (make check DAY=04 runs it)
 *
 * Writes one row per (latency, warps):
 *   latency_cycles,math_cycles,warps,simulated_utilisation,closed_form_utilisation,knee_warps
 * for L = 100, 200, 400, 800 cycles, c = 8, N = 1 ... 64: your simulate_scheduler (oldest-first)
 * and your utilisation_closed_form side by side. Before the sweep it checks your model on one
 * small case, and prints two short timelines so you can watch the warps take turns.
 * Then it prints Little's law for the h100-sxm row of data/gpus.csv and two decode-time GEMVs
 * from data/models.csv: predictions from a model, not measurements. */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { MATH_CYCLES = 8, MAX_WARPS = 64, SCHEDULERS_PER_SM = 4 };
static const int latencies[] = {100, 200, 400, 800};

/* DRAM latency for Little's law. A pointer chase over buffers far larger than the L2 measured
 * about 650 cycles at 1 755 MHz on an H100 PCIe, about 370 ns (te42kyfo/gpu-benches,
 * gpu-latency/h100_pcie.txt). We assume the H100 SXM's is the same in nanoseconds; it is an
 * unloaded latency, and a loaded memory system is slower (chapter, "Pitfalls"). */
static const double DRAM_LATENCY_NS = 370.0;

/* One line per warp: '#' issues, '~' waits for memory, '.' is ready but another warp has the
 * slot, ' ' has not started. A last line shows the issue slot: '#' busy, '-' idle. */
static void print_timeline(int warps, int c, int latency, int cycles)
{
    scheduler_config config = {warps, c, latency, POLICY_OLDEST_FIRST, NULL, 0, cycles};
    int *issued_by = malloc(sizeof(int) * cycles);
    scheduler_result result = simulate_scheduler(&config, issued_by);
    printf("\n%d warps, c = %d, L = %d (knee at %.2f warps), the first %d cycles; every warp starts by "
           "waiting for its first load:\n", warps, c, latency, knee_warps(c, latency), cycles);
    for (int w = 0; w < warps; w++) {
        printf("  warp %d  ", w);
        long long ready_at = latency;   // the first load returns at cycle L
        int left = c;
        for (int t = 0; t < cycles; t++) {
            char mark = t < ready_at ? '~' : '.';
            if (issued_by[t] == w) {
                mark = '#';
                if (--left == 0) left = c, ready_at = t + 1 + latency;
            }
            putchar(mark);
        }
        putchar('\n');
    }
    printf("  slot    ");
    for (int t = 0; t < cycles; t++) putchar(issued_by[t] >= 0 ? '#' : '-');
    printf("\n  issued in %lld of %d cycles (%.3f, the idle start included); from cycle %d on the pattern "
           "repeats every c + L = %d cycles, busy %.3f of them\n", result.issued_cycles, cycles, result.utilisation,
           latency, c + latency, utilisation_closed_form(warps, c, latency));
    free(issued_by);
}

/* Correctness before the sweep: one case whose answer is known exactly. */
static int model_is_right(void)
{
    int warps = 3, c = 4, latency = 20;   // below the knee: 3 x 4 / 24 = 0.5
    scheduler_config config = {warps, c, latency, POLICY_OLDEST_FIRST, NULL, latency + c, 10 * (c + latency)};
    scheduler_result result = simulate_scheduler(&config, NULL);
    double want = utilisation_closed_form(warps, c, latency);
    if (fabs(result.utilisation - 0.5) > 1e-9 || fabs(want - 0.5) > 1e-9) {
        fprintf(stderr, "N = 3, c = 4, L = 20: simulate_scheduler gives %.4f and utilisation_closed_form %.4f; "
                "both should be 0.5000.\nNot sweeping until they agree: make check DAY=04 says which test fails.\n",
                result.utilisation, want);
        return 0;
    }
    return 1;
}

static void print_littles_law(const lab_table *gpus, const lab_table *models)
{
    int row = lab_table_find(gpus, "key", "h100-sxm");
    if (row < 0) {
        fprintf(stderr, "data/gpus.csv has no h100-sxm row\n");
        exit(1);
    }
    double bandwidth = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
    int sms = (int)lab_table_number_or_exit(gpus, row, "sms");
    int max_warps = (int)lab_table_number_or_exit(gpus, row, "max_warps_per_sm");
    double clock_ghz = lab_table_number_or_exit(gpus, row, "boost_clock_mhz") / 1000.0;
    double in_flight = bytes_in_flight(bandwidth, DRAM_LATENCY_NS);

    printf("\nLittle's law on the %s (%.0f GB/s, %d SMs, at most %d warps per SM = %d per scheduler),\n"
           "DRAM latency %.0f ns (%.0f cycles at %.0f MHz). Predicted, not measured:\n",
           lab_table_text_or_exit(gpus, row, "name"), bandwidth, sms, max_warps, max_warps / SCHEDULERS_PER_SM,
           DRAM_LATENCY_NS, DRAM_LATENCY_NS * clock_ghz, clock_ghz * 1000);
    printf("  bytes in flight for full bandwidth: %.0f bytes, %.0f per SM\n", in_flight, in_flight / sms);
    int sizes[] = {128, 512};
    const char *what[] = {"a 4-byte load per lane (128 bytes a warp)", "a 16-byte load per lane (512 bytes a warp)"};
    for (int i = 0; i < 2; i++) {
        int needed = warps_per_sm_for_bandwidth(bandwidth, DRAM_LATENCY_NS, sms, sizes[i]);
        double at_most = bandwidth_from_bytes_in_flight((double)max_warps * sizes[i] * sms, DRAM_LATENCY_NS, bandwidth);
        double one_warp = bandwidth_from_bytes_in_flight((double)sizes[i] * sms, DRAM_LATENCY_NS, bandwidth);
        printf("  each warp with %s in flight: %d warps per SM needed; 1 warp per SM sustains %.1f GB/s, "
               "%d warps per SM %.0f GB/s (%.0f%%)\n", what[i], needed, one_warp, max_warps, at_most,
               100 * at_most / bandwidth);
    }

    /* A decode-time GEMV at batch 1 that gives each output row one warp, each warp keeping one
     * 16-byte load per lane in flight: 512 bytes a warp. */
    printf("  batch-1 GEMV, one warp per output row, 512 bytes in flight per warp:\n");
    struct { const char *model, *matrix; int key_projection; } gemvs[] = {
        {"Llama-2-7B", "query projection", 0}, {"Llama-2-70B", "key projection", 1},
    };
    for (int i = 0; i < 2; i++) {
        int m = lab_table_find(models, "name", gemvs[i].model);
        if (m < 0) continue;
        int hidden = (int)lab_table_number_or_exit(models, m, "hidden_size");
        int rows = gemvs[i].key_projection   // grouped-query attention: kv_heads x head_dim rows
                       ? (int)(lab_table_number_or_exit(models, m, "kv_heads") * lab_table_number_or_exit(models, m, "head_dim"))
                       : hidden;
        double weight_bytes = 2.0 * rows * hidden;   // FP16
        double sustained = bandwidth_from_bytes_in_flight(512.0 * rows, DRAM_LATENCY_NS, bandwidth);
        printf("    %-11s %-16s %5d x %d: %5d warps (%.1f per SM) -> %4.0f GB/s (%3.0f%%): %.1f MiB in %.1f us "
               "(%.1f us at full bandwidth)\n", gemvs[i].model, gemvs[i].matrix, rows, hidden, rows,
               (double)rows / sms, sustained, 100 * sustained / bandwidth, weight_bytes / (1 << 20),
               weight_bytes / sustained / 1e3, weight_bytes / bandwidth / 1e3);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    if (!model_is_right()) return 1;
    print_timeline(3, 4, 12, 64);   // below the knee: 3 x 4 / 16 = 0.75
    print_timeline(5, 4, 12, 64);   // past the knee (4 warps): busy every cycle once started

    lab_results out = lab_results_open_or_exit(argv[1], "latency_cycles,math_cycles,warps,simulated_utilisation,"
                                        "closed_form_utilisation,knee_warps");
    printf("\nc = %d; utilisation of one scheduler (simulated, oldest-first) at selected warp counts:\n", MATH_CYCLES);
    printf("  %7s %8s %9s %9s %9s %9s %9s\n", "L", "knee", "N=1", "N=4", "N=16", "N=32", "N=64");
    for (size_t i = 0; i < sizeof latencies / sizeof latencies[0]; i++) {
        int latency = latencies[i], round = MATH_CYCLES + latency;
        double knee = knee_warps(MATH_CYCLES, latency);
        printf("  %7d %8.2f", latency, knee);
        for (int warps = 1; warps <= MAX_WARPS; warps++) {
            /* Warm-up: the L cycles in which every warp waits for its first load, and one round
             * more; then 16 whole rounds, so the window holds whole periods of the pattern. */
            scheduler_config config = {warps, MATH_CYCLES, latency, POLICY_OLDEST_FIRST, NULL,
                                       latency + round, 16LL * round};
            scheduler_result result = simulate_scheduler(&config, NULL);
            double closed = utilisation_closed_form(warps, MATH_CYCLES, latency);
            lab_results_row_or_exit(&out, "%d,%d,%d,%.6f,%.6f,%.4f", latency, MATH_CYCLES, warps, result.utilisation, closed,
                        knee);
            if (warps == 1 || warps == 4 || warps == 16 || warps == 32 || warps == 64)
                printf(" %9.4f", result.utilisation);
        }
        printf("\n");
    }
    lab_results_close_or_exit(&out);

    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    print_littles_law(gpus, models);
    lab_table_free(gpus), lab_table_free(models);
    return 0;
}
