/* main.c — Day 08 driver: this CPU's memory mountain. Do not edit.
 *
 *   build/08-memory-hierarchy/labs-sim/lab RESULTS.csv     (make check DAY=08 runs it)
 *
 * For working sets from 4 KiB to 256 MiB, two per doubling, it measures the latency of one
 * dependent load with your chase (chase_latency_ns over your make_random_cycle) and the
 * bandwidth of one core reading the same working set in order, then reads the knees off the
 * latency curve with your find_knees and sets them beside the caches the OS reports and the
 * knees your predict_knee_bytes predicted from those sizes. Writes:
 *   kind,label,working_set_bytes,latency_ns,read_gb_per_s
 * kind is "sweep" (one row per working set, measured on this CPU), "os_cache" (a cache the OS
 * reports: its size, no measurement), "knee" (one found by your find_knees, with the latency
 * there), "predicted_knee" (yours for an OS cache, with the latency measured there),
 * "translation" (a chase over one line on each 4 KiB page: label the pages, working_set_bytes
 * the span of the pages, not the data) or "machine" (the processor's name, for the plot's title).
 * The translation probe measures what a load costs when its data is small but its pages are many:
 * the part of the curve the caches' sizes do not explain.
 * Then the same chase on the GPU side: on the simulator, what it counts per load; on a real GPU,
 * the latency per working set. Last, the H100's hierarchy from data/gpus.csv beside this CPU's. */
#include "lab.h"
#include "results.h"
#include "table.h"
#include "timer.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SMALLEST = 4 << 10, MAX_POINTS = 64, MAX_LEVELS = 8, MAX_KNEES = 16, SEED = 8 };
static const size_t LARGEST = (size_t)256 << 20;

/* Correctness before timing: a cycle of 1000 lines that visits every line, and a chase that ends
 * where it should. */
static int probe_is_right(void)
{
    enum { COUNT = 1000 };
    static uint32_t next[COUNT];
    static chase_line lines[COUNT];
    memset(next, 0xff, sizeof next);
    make_random_cycle(next, COUNT, 1);
    uint32_t at = 0, steps = 0;
    for (; steps < COUNT; steps++) {
        if (next[at] >= COUNT) break;
        lines[at].next = next[at];
        at = next[at];
        if (at == 0) break;
    }
    if (at != 0 || steps + 1 != COUNT) {
        fprintf(stderr, "make_random_cycle(count = 1000) does not make one cycle through all 1000 lines yet "
                "(from line 0 the chain %s after %u steps).\n", at == 0 ? "came back" : "left the buffer",
                steps + 1);
        return 0;
    }
    if (chase(lines, 0, COUNT) != 0 || chase(lines, 0, 1) != next[0]) {
        fprintf(stderr, "chase does not follow the chain yet: 1000 loads from line 0 around a 1000-line cycle "
                "should end at line 0, and 1 load at next[0] = %u.\n", next[0]);
        return 0;
    }
    double latency = chase_latency_ns(lines, COUNT);
    if (!(latency > 0) || !isfinite(latency)) {
        fprintf(stderr, "chase_latency_ns returned %g ns for a 64 KB chain; it should be the time of one load.\n",
                latency);
        return 0;
    }
    return 1;
}

static volatile double clock_sink;   /* keeps the clock readings below */

/* What reading a clock costs here, in ns: the reason a timed run must hold many loads. */
static double clock_cost_ns(double (*clock)(void))
{
    enum { READS = 20000 };
    double start = lab_now_seconds(), sum = 0;
    for (int i = 0; i < READS; i++) sum += clock();
    clock_sink = sum;
    return (lab_now_seconds() - start) / READS * 1e9;
}

/* The OS's cache whose size is nearest to `bytes` (by ratio), or NULL. */
static const cache_level *nearest_level(const cache_level *levels, int count, double bytes)
{
    const cache_level *best = NULL;
    for (int i = 0; i < count; i++)
        if (!best || fabs(log(bytes / (double)levels[i].bytes)) < fabs(log(bytes / (double)best->bytes)))
            best = &levels[i];
    return best;
}

/* The sweep's point at `bytes` (or the first beyond it). */
static int point_at(const double *sizes, int points, double bytes)
{
    int at = 0;
    while (at + 1 < points && sizes[at] < bytes) at++;
    return at;
}

/* Your prediction for each cache the OS reports, beside the nearest knee find_knees measured. */
static void print_predictions(lab_results *out, const cache_level *levels, int level_count, const double *sizes,
                              const double *latency, int points, const double *knees, int knee_count)
{
    char name[64];
    printf("\nYour predict_knee_bytes, from the sizes the OS reports, beside the nearest knee measured:\n");
    for (int i = 0; i < level_count; i++) {
        cache_level_name(&levels[i], name, sizeof name);
        double predicted = predict_knee_bytes(levels[i].bytes, sizes, points);
        if (predicted <= 0) {
            printf("  %-12s no end of its plateau on this sweep\n", name);
            continue;
        }
        const double *nearest = NULL;
        for (int k = 0; k < knee_count; k++)
            if (!nearest || fabs(log(knees[k] / predicted)) < fabs(log(*nearest / predicted))) nearest = &knees[k];
        printf("  %-12s predicted %8.0f KiB", name, predicted / 1024);
        if (nearest) printf(", measured %8.0f KiB: %.2f x the prediction", *nearest / 1024, *nearest / predicted);
        printf("%s\n", levels[i].cpus_sharing > 1 ? " (shared with other CPUs)" : "");
        lab_results_row_or_exit(out, "predicted_knee,%s,%.0f,%.4f,", name, predicted,
                                latency[point_at(sizes, points, predicted)]);
    }
}

/* Address translation alone: `pages` lines, one on each 4 KiB page, in your random cycle, timed
 * by your chase_latency_ns. The data stays small (64 bytes a page) while the span of pages the
 * TLB must translate grows; each line sits at its own offset in its page, so that the lines
 * spread over the L1's sets instead of all falling into one. NaN when the cycle cannot be made. */
static double translation_latency_ns(chase_line *lines, uint32_t pages)
{
    enum { LINES_PER_PAGE = 4096 / CHASE_LINE_BYTES };
    uint32_t *next = malloc(sizeof(uint32_t) * pages);
    if (!next) return NAN;
    make_random_cycle(next, pages, SEED);
    for (uint32_t page = 0; page < pages; page++) {
        uint32_t line = page * LINES_PER_PAGE + page % LINES_PER_PAGE;
        lines[line].next = next[page] * LINES_PER_PAGE + next[page] % LINES_PER_PAGE;
    }
    free(next);
    return chase_latency_ns(lines, pages);
}

/* The probe from 16 pages to the sweep's largest span, beside the sweep's latency for the same
 * amount of data packed into whole lines: the difference is what the pages alone cost. */
static void print_translation(lab_results *out, chase_line *lines, const double *sizes, const double *latency,
                              int points)
{
    enum { FEWEST_PAGES = 16 };
    printf("\nThe pages alone: your chase over one line on each 4 KiB page, so that the data stays small\n"
           "while the pages it spans grow, beside the sweep's latency for as much data packed together:\n"
           "  %8s %10s %9s %10s %10s\n", "pages", "span", "data", "latency", "packed");
    for (uint32_t pages = FEWEST_PAGES; (size_t)pages * 4096 <= LARGEST; pages *= 2) {
        double spread = translation_latency_ns(lines, pages);
        if (isnan(spread)) return;
        double packed = latency[point_at(sizes, points, (double)pages * CHASE_LINE_BYTES)];
        printf("  %8u %6zu KiB %5u KiB %7.2f ns %7.2f ns\n", pages, (size_t)pages * 4, pages / 16, spread, packed);
        lab_results_row_or_exit(out, "translation,%u,%zu,%.4f,", pages, (size_t)pages * 4096, spread);
    }
}

/* The same chase on the GPU side. On the simulator: one small chain, and what was counted. On a
 * real GPU: the sweep, timed there. */
static void chase_on_the_gpu(chase_line *lines)
{
    enum { SIMULATED_COUNT = 1024, SIMULATED_LOADS = 4096, GPU_LOADS = 1 << 18 };   /* 64 KiB, four passes */
    char why[256];
    uint32_t count = chase_lines_fill(lines, (size_t)SIMULATED_COUNT * CHASE_LINE_BYTES, SEED, why, sizeof why);
    if (!count) return;
    gpu_chase_run run = gpu_chase(lines, count, SIMULATED_LOADS);
    if (run.error) {
        printf("\nGPU chase: %s\n", run.error);
        return;
    }
    if (run.counted) {
        printf("\nThe same chase on the GPU side, one thread (counted by the simulator, which has no clock):\n"
               "  %d loads -> %llu global load requests, %llu sectors of 32 bytes: %.2f sectors per request.\n"
               "  Each load moves a 32-byte sector to use 4 bytes of it, and waits for the one before.\n"
               "  On a real GPU (make check DAY=08 BACKEND=cuda) this prints the latency of each level.\n",
               SIMULATED_LOADS, run.load_requests, run.load_sectors,
               (double)run.load_sectors / (double)run.load_requests);
        return;
    }
    double sizes[MAX_POINTS];
    int points = sweep_working_sets(sizes, MAX_POINTS, SMALLEST, LARGEST);
    printf("\nThe same chase on the %s, one thread, %d loads a working set (measured with events):\n", run.device,
           GPU_LOADS);
    for (int i = 0; i < points; i++) {
        count = chase_lines_fill(lines, (size_t)sizes[i], SEED, why, sizeof why);
        if (!count) return;
        run = gpu_chase(lines, count, GPU_LOADS);
        if (run.error) {
            printf("  %s\n", run.error);
            return;
        }
        printf("  %10.0f KiB  %8.1f ns\n", sizes[i] / 1024, run.nanoseconds_per_load);
    }
}

/* The GPU's levels from the h100-sxm row of data/gpus.csv (datasheet figures, not measurements). */
static void print_h100_hierarchy(const cache_level *levels, int level_count)
{
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int row = lab_table_find(gpus, "key", "h100-sxm");
    if (row < 0) {
        fprintf(stderr, "data/gpus.csv has no h100-sxm row\n");
        exit(1);
    }
    double sms = lab_table_number_or_exit(gpus, row, "sms");
    double register_kib = lab_table_number_or_exit(gpus, row, "registers_per_sm") * 4 / 1024;
    double shared_kib = lab_table_number_or_exit(gpus, row, "shared_memory_per_sm_kib");
    double l2_mib = lab_table_number_or_exit(gpus, row, "l2_cache_mib");
    double hbm_gib = lab_table_number_or_exit(gpus, row, "memory_gib"), hbm_gb = hbm_gib * 1.073741824;
    double hbm_gb_per_s = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
    printf("\nThe %s's hierarchy (data/gpus.csv, row h100-sxm; capacities from the datasheet):\n",
           lab_table_text_or_exit(gpus, row, "name"));
    printf("  registers      %5.0f KiB per SM x %.0f SMs = %5.1f MiB   private to each thread\n", register_kib, sms,
           register_kib * sms / 1024);
    printf("  shared memory  %5.0f KiB per SM x %.0f SMs = %5.1f MiB   at most, carved out of each SM's L1;\n"
           "                                                      one block's, managed by hand\n",
           shared_kib, sms, shared_kib * sms / 1024);
    printf("  L2             %5.0f MiB                           shared by all SMs\n", l2_mib);
    printf("  HBM3           %5.0f GiB (%.1f GB) at %.0f GB/s      %.1f ms to read it all once\n", hbm_gib, hbm_gb,
           hbm_gb_per_s, hbm_gb / hbm_gb_per_s * 1e3);
    printf("This CPU's, as the OS reports it:");
    for (int i = 0; i < level_count; i++) {
        char name[64];
        cache_level_name(&levels[i], name, sizeof name);
        printf("%s %s%s", i ? "," : "", name, levels[i].cpus_sharing > 1 ? " (shared)" : "");
    }
    printf("\n");
    lab_table_free(gpus);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    if (!probe_is_right()) {
        fprintf(stderr, "Not sweeping until the probe is right: make check DAY=08 says which test fails.\n");
        return 1;
    }
    cache_level levels[MAX_LEVELS];
    char why[256], cpu[128], name[64];
    int level_count = os_cache_levels(levels, MAX_LEVELS, why, sizeof why);
    if (level_count == 0) printf("Note: %s; no cache sizes to compare with.\n", why);
    lab_cpu_name(cpu, sizeof cpu);
    double wall_clock_ns = clock_cost_ns(lab_now_seconds), cpu_clock_ns = clock_cost_ns(chase_cpu_seconds);
    printf("Reading a clock costs %.0f ns here (lab_now_seconds, wall time) or %.0f ns (chase_cpu_seconds, this "
           "thread's CPU time).\n\n", wall_clock_ns, cpu_clock_ns);

    double sizes[MAX_POINTS], latency[MAX_POINTS], bandwidth[MAX_POINTS];
    int points = sweep_working_sets(sizes, MAX_POINTS, SMALLEST, LARGEST);
    chase_line *lines = chase_lines_new(LARGEST);
    if (!lines) {
        fprintf(stderr, "no memory for a %zu MiB buffer\n", LARGEST >> 20);
        return 1;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "kind,label,working_set_bytes,latency_ns,read_gb_per_s");
    lab_results_row_or_exit(&out, "machine,%s,,,", cpu);
    printf("%s: latency of one dependent load (your chase, best of %d) and one core's sequential read\n",
           cpu, CHASE_REPEATS);
    printf("  %12s %10s %10s   %s\n", "working set", "latency", "read", "nearest cache the OS reports");
    for (int i = 0; i < points; i++) {
        latency[i] = measure_latency_ns(lines, (size_t)sizes[i], SEED + (uint64_t)i, why, sizeof why);
        if (isnan(latency[i])) {
            fprintf(stderr, "%s\n", why);
            return 1;
        }
        bandwidth[i] = read_bandwidth_gb_per_s((size_t)sizes[i]);
        const cache_level *near = nearest_level(levels, level_count, sizes[i]);
        name[0] = 0;
        if (near) cache_level_name(near, name, sizeof name);
        printf("  %8.0f KiB %7.2f ns %6.1f GB/s   %s\n", sizes[i] / 1024, latency[i], bandwidth[i], name);
        fflush(stdout);
        lab_results_row_or_exit(&out, "sweep,,%.0f,%.4f,%.3f", sizes[i], latency[i], bandwidth[i]);
    }
    double shortest_run_us = latency[0] * CHASE_MIN_LOADS / 1e3;
    printf("The shortest timed run (%d loads at %.2f ns) lasts %.0f us: two readings of the CPU-time clock are "
           "%.2f%% of it.\n", CHASE_MIN_LOADS, latency[0], shortest_run_us,
           100 * 2 * cpu_clock_ns / 1e3 / shortest_run_us);
    for (int i = 0; i < level_count; i++) {
        cache_level_name(&levels[i], name, sizeof name);
        lab_results_row_or_exit(&out, "os_cache,%s,%zu,,", name, levels[i].bytes);
    }

    double knees[MAX_KNEES];
    int knee_count = find_knees(sizes, latency, points, knees, MAX_KNEES);
    printf("\nYour find_knees: %d knee%s\n", knee_count, knee_count == 1 ? "" : "s");
    for (int k = 0; k < knee_count; k++) {
        int at = point_at(sizes, points, knees[k]);
        const cache_level *near = nearest_level(levels, level_count, knees[k]);
        if (near) {
            cache_level_name(near, name, sizeof name);
            printf("  %8.0f KiB at %6.2f ns: nearest %s, %.2f x its size\n", knees[k] / 1024, latency[at], name,
                   knees[k] / (double)near->bytes);
        } else {
            printf("  %8.0f KiB at %6.2f ns\n", knees[k] / 1024, latency[at]);
        }
        lab_results_row_or_exit(&out, "knee,%.0f KiB,%.0f,%.4f,", knees[k] / 1024, knees[k], latency[at]);
    }
    print_predictions(&out, levels, level_count, sizes, latency, points, knees, knee_count);
    print_translation(&out, lines, sizes, latency, points);
    lab_results_close_or_exit(&out);

    chase_on_the_gpu(lines);
    print_h100_hierarchy(levels, level_count);
    chase_lines_free(lines);
    return 0;
}
