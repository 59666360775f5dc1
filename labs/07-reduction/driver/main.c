/* main.c — Day 07 driver: what each version of the reduction costs. Do not edit.
 *
 *   build/07-reduction/labs-sim/lab RESULTS.csv     (make check DAY=07 runs it)
 *
 * Sums 2^20 floats with each version, blocks of 256 threads. Every version is checked
 * against a double-precision sum first; a version that is not right yet is left out. Then,
 * on the simulator, it writes what was counted, one row per version:
 *   version,name,launches,simt_efficiency,shared_wavefronts_per_request,max_bank_conflict_ways,
 *   barriers_per_element,atomics,global_bytes_per_element,h100_estimate_us,measured_gpu_us
 * h100_estimate_us is the roofline estimate for an H100 SXM (data/gpus.csv) from the counted
 * bytes: a floor, not a measurement. On a real GPU the counted columns are empty and
 * measured_gpu_us is the median of 20 timed runs there (empty on the simulator).
 * A version whose loop never ends would hold the program forever: after TIME_LIMIT seconds it
 * stops, saying so (the reference needs a small part of that). */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 1 << 20, THREADS = 256, REPEATS = 20, TIME_LIMIT = 180 };

static volatile sig_atomic_t running_version;

static void out_of_time(int signal_number)
{
    static const char text[] = "The lab program ran out of time (180 s) while running version ";
    char digit = (char)('0' + running_version);
    (void)signal_number;
    (void)!write(2, text, sizeof text - 1);
    (void)!write(2, &digit, 1);
    static const char rest[] = ": a loop that never ends? make check DAY=07 names the check that times out.\n";
    (void)!write(2, rest, sizeof rest - 1);
    _exit(1);
}

static const char *names[REDUCE_VERSIONS + 1] = {
    "", "interleaved, divergent", "interleaved, strided index", "sequential addressing",
    "first add during load", "warp-shuffle tail", "grid-stride + atomic",
};
static const char *short_names[REDUCE_VERSIONS + 1] = {   /* the plot's labels */
    "", "divergent", "strided", "sequential", "add on load", "shuffle tail", "grid-stride",
};

/* The rounding bound of a sum whose deepest element passes through `depth` additions:
 * |error| <= depth * u * sum |x| / (1 - depth * u), u = 2^-24 (Higham, ch. 4). */
static double tolerance(double depth, double sum_of_magnitudes)
{
    double u = ldexp(1.0, -24);
    return depth * u * sum_of_magnitudes / (1.0 - depth * u);
}

/* How many additions the deepest element goes through, for this version's order of summing. */
static double depth_of(int version, int n, int threads)
{
    if (version == 6) {
        int blocks = reduce_blocks(6, n, threads);
        if (blocks < 1) blocks = (n + threads - 1) / threads;
        double per_thread = ceil((double)n / ((double)blocks * threads));
        return per_thread + log2(threads) + blocks;   /* loop, tree in the block, chain of atomics */
    }
    int per_block = version >= 4 ? 2 * threads : threads, passes = 0;
    for (int count = n; count > 1 || passes == 0; count = (count + per_block - 1) / per_block) passes++;
    return passes * log2(per_block);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    signal(SIGALRM, out_of_time);
    alarm(TIME_LIMIT);
    float *x = malloc(sizeof(float) * N);
    double want = 0, magnitudes = 0;
    unsigned seed = 7;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) % 2000001) / 1e6f - 1.0f;   /* in [-1, 1] */
        want += x[i], magnitudes += fabs(x[i]);
    }

    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int h100 = lab_table_find(gpus, "key", "h100-sxm");
    double bandwidth = lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s") * 1e9;
    printf("Summing n = %d floats (%.0f MiB) with blocks of %d threads; double-precision sum %.6f.\n", N,
           N * 4.0 / (1 << 20), THREADS, want);
    printf("Reading them once from an H100 SXM's memory (%.0f GB/s) takes %.3f us: every version's floor.\n\n",
           bandwidth / 1e9, N * 4.0 / bandwidth * 1e6);
    printf("version                          launches  SIMT eff  wavefronts  worst  barriers   atomics  bytes  H100 est.  error vs double\n"
           "                                                     /request    ways  /element           /elem  us         (bound)\n");

    lab_results out = lab_results_open_or_exit(argv[1], "version,name,launches,simt_efficiency,shared_wavefronts_per_request,"
                                        "max_bank_conflict_ways,barriers_per_element,atomics,"
                                        "global_bytes_per_element,h100_estimate_us,measured_gpu_us");
    int written = 0;
    for (int v = 1; v <= REDUCE_VERSIONS; v++) {
        float got;
        running_version = v;
        reduce_run run = gpu_reduce_float(v, x, N, THREADS, 1, &got);
        double error = fabs((double)got - want), bound = tolerance(depth_of(v, N, THREADS), magnitudes);
        if (run.error || !(error <= bound)) {
            printf("%d %-30s not right yet (%s%s): not measured. make check DAY=07 says which check fails.\n", v,
                   names[v], run.error ? "CUDA error: " : "wrong sum", run.error ? run.error : "");
            continue;
        }
        double gpu_ms = gpu_reduce_float_milliseconds(v, x, N, THREADS, REPEATS);
        char measured[32] = "";
        if (gpu_ms >= 0) snprintf(measured, sizeof measured, "%.3f", gpu_ms * 1e3);
        if (run.counted) {
            printf("%d %-30s %8d  %8.3f  %10.2f  %5u  %8.5f  %8.0f  %5.2f  %9.3f  %.1e (%.1e)\n", v, names[v],
                   run.launches, run.simt_efficiency, run.shared_wavefronts_per_request, run.max_bank_conflict_ways,
                   run.barriers_per_element, run.atomics, run.global_bytes / N, run.h100_estimate_seconds * 1e6,
                   error, bound);
            lab_results_row_or_exit(&out, "%d,\"%s\",%d,%.4f,%.4f,%u,%.6f,%.0f,%.4f,%.4f,%s", v, short_names[v], run.launches,
                        run.simt_efficiency, run.shared_wavefronts_per_request, run.max_bank_conflict_ways,
                        run.barriers_per_element, run.atomics, run.global_bytes / N,
                        run.h100_estimate_seconds * 1e6, measured);
        } else {
            printf("%d %-30s measured on this GPU: %.3f us, %.1f GB/s of input read; error %.1e (bound %.1e)\n", v,
                   names[v], gpu_ms * 1e3, N * 4.0 / (gpu_ms * 1e-3) / 1e9, error, bound);
            lab_results_row_or_exit(&out, "%d,\"%s\",,,,,,,,,%s", v, short_names[v], measured);
        }
        written++;
    }
    lab_results_close_or_exit(&out);
    printf("\nCounted on the simulator (every warp, every access); the H100 column is a roofline estimate\n"
           "from the counted bytes, not a measurement. %d of %d versions right so far.\n", written, REDUCE_VERSIONS);
    lab_table_free(gpus);
    free(x);
    return 0;
}
