/* main.c — Day 10 driver: STREAM on this CPU, from the L1 cache down to DRAM, next to memcpy;
 * the bytes your CUDA kernels move, counted on the simulator (timed, on a real GPU). Do not edit.
 *
 *   build/10-bandwidth/labs-sim/lab RESULTS.csv     (make check DAY=10 runs it)
 *
 * Everything is checked before it is measured: a kernel or a byte count that is not right
 * yet is left out, and the output says so. Before timing, it prints how many times each of your C
 * kernels walks each array (counted, driver/sweeps.c). Writes one row per observation:
 *   source,machine,kernel,working_set_bytes,n,bytes_per_element,bandwidth_gb_per_s
 * source is
 *   cpu-measured    your C kernels and memcpy on this CPU, best of ROUNDS rounds side by side,
 *                   at working sets from 8 KiB to 512 MiB (bytes_per_element: STREAM's count)
 *   write-allocate  the bytes per element a write-allocate cache really moves (your arithmetic)
 *   cache           the CPU's cache sizes, as the OS reports them (working_set_bytes)
 *   gpu-counted     your CUDA kernels on the simulator: bytes per element counted (32 x sectors)
 *   gpu-measured    your CUDA kernels and cudaMemcpy on a real GPU, best of 20 (BACKEND=cuda) */
#include "lab.h"
#include "results.h"
#include "table.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 5, COUNTED_N = 1 << 16, GPU_N = 1 << 25, GPU_REPEATS = 20, CHECK_N = 1003, SWEPT_N = 100003 };
static const double SMALLEST_WORKING_SET = 8 << 10, LARGEST_WORKING_SET = 512 << 20;
static const char *names[STREAM_KERNELS + 1] = {"copy", "scale", "add", "triad", "memcpy"};
static const int stream_counts[STREAM_KERNELS] = {16, 16, 24, 24};   /* STREAM's, to check yours against */

/* ---------------------------------------------------------------------------------
 * Checks before measuring: a fast wrong answer measures nothing. */

static int bytes_are_right(void)
{
    for (int k = 0; k < STREAM_KERNELS; k++)
        if (stream_bytes_per_element(k) != stream_counts[k] ||
            write_allocate_bytes_per_element(k) != stream_counts[k] + 8)
            return 0;
    return memcpy_bytes_moved(1000) == 2000 && fabs(bandwidth_gb_per_s(3e9, 2.0) - 1.5) < 1e-12;
}

/* Runs kernel k over CHECK_N elements of small arrays and compares with the line of lab.h. */
static int cpu_kernel_is_right(int kernel)
{
    stream_arrays x = stream_arrays_create(CHECK_N);
    for (int i = 0; i < CHECK_N; i++) x.a[i] = i % 17, x.b[i] = i % 5 - 2, x.c[i] = i % 9 * 0.25;
    cpu_stream_run(kernel, &x, CHECK_N);
    int right = 1;
    for (int i = 0; i < CHECK_N && right; i++) {
        double a = i % 17, b = i % 5 - 2, c = i % 9 * 0.25;
        switch (kernel) {
        case STREAM_COPY: right = x.c[i] == a; break;
        case STREAM_SCALE: right = x.b[i] == 3.0 * c; break;
        case STREAM_ADD: right = x.c[i] == a + b; break;
        default: right = x.a[i] == b + 3.0 * c; break;
        }
    }
    stream_arrays_free(&x);
    return right;
}

/* The CUDA kernel over COUNTED_N elements, compared with the line of lab.h; *run gets the counts. */
static int gpu_kernel_is_right(int kernel, stream_gpu_run *run)
{
    int n = COUNTED_N, right = 1;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) a[i] = i % 17, b[i] = i % 5 - 2, c[i] = i % 9 * 0.25;
    *run = gpu_stream(kernel, 3.0, a, b, c, n, 1);
    for (int i = 0; i < n && right && !run->error && !run->written_past_end; i++) {
        switch (kernel) {
        case STREAM_COPY: right = c[i] == a[i]; break;
        case STREAM_SCALE: right = b[i] == 3.0 * c[i]; break;
        case STREAM_ADD: right = c[i] == a[i] + b[i]; break;
        default: right = a[i] == b[i] + 3.0 * c[i]; break;
        }
    }
    free(a), free(b), free(c);
    return right && !run->error && !run->written_past_end;
}

/* ---------------------------------------------------------------------------------
 * This machine */

/* Writes a row per data or unified cache level of CPU 0 (from sysfs), and prints them. */
static void write_cache_rows(lab_results *out, const char *machine)
{
    printf("Caches of one core, as the OS reports them:");
    for (int index = 0; index < 8; index++) {
        char path[128], type[32] = "", size_text[32] = "";
        int level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (!fgets(type, sizeof type, f)) type[0] = 0;
        fclose(f);
        if (strncmp(type, "Instruction", 11) == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        if ((f = fopen(path, "r"))) { if (fscanf(f, "%d", &level) != 1) level = 0; fclose(f); }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        if ((f = fopen(path, "r"))) { if (!fgets(size_text, sizeof size_text, f)) size_text[0] = 0; fclose(f); }
        char unit = 'B';
        double bytes = 0;
        if (sscanf(size_text, "%lf%c", &bytes, &unit) < 1 || level == 0) continue;
        bytes *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
        lab_results_row_or_exit(out, "cache,\"%s\",L%d,%.0f,,,", machine, level, bytes);
        printf("  L%d %.0f KiB", level, bytes / 1024);
    }
    printf("\n");
}

/* ---------------------------------------------------------------------------------
 * The C kernels' bytes, counted (driver/sweeps.c): each walk of an array is 8 bytes per element */

static void print_counted_walks(void)
{
    printf("\nYour C kernels, counted (each array's pages entered, over %d elements; no timing):\n", SWEPT_N);
    for (int k = 0; k < STREAM_KERNELS; k++) {
        stream_sweeps sweeps = count_stream_sweeps(k, SWEPT_N);
        double walks[3], bytes = 0;
        for (int a = 0; a < 3; a++) walks[a] = (double)sweeps.entered[a] / (double)sweeps.pages, bytes += 8 * walks[a];
        printf("  %-6s walks a %.2f, b %.2f, c %.2f times: %5.1f bytes per element; STREAM counts %d, "
               "you predicted %d\n", names[k], walks[0], walks[1], walks[2], bytes, stream_counts[k],
               stream_bytes_per_element(k));
    }
}

/* ---------------------------------------------------------------------------------
 * The CPU sweep: working sets from the L1 cache to far past the last level */

static void measure_cpu(lab_results *out, const char *machine)
{
    int bytes_per_element[STREAM_KERNELS + 1];
    for (int k = 0; k < STREAM_KERNELS; k++) bytes_per_element[k] = stream_bytes_per_element(k);
    bytes_per_element[STREAM_KERNELS] = (int)memcpy_bytes_moved(sizeof(double));
    for (int k = 0; k < STREAM_KERNELS; k++)
        lab_results_row_or_exit(out, "write-allocate,\"%s\",%s,,,%d,", machine, names[k], write_allocate_bytes_per_element(k));

    stream_arrays x = stream_arrays_create((size_t)(LARGEST_WORKING_SET / 2 / sizeof(double)));
    printf("\nMeasured on %s, one core, best of %d rounds side by side (GB/s, STREAM's bytes):\n", machine, ROUNDS);
    printf("  working set     copy    scale      add    triad   memcpy   triad/memcpy\n");
    stream_point last = {{0}, {0}};
    for (double working_set = SMALLEST_WORKING_SET; working_set <= LARGEST_WORKING_SET * 1.01; working_set *= M_SQRT2) {
        size_t bytes = (size_t)working_set / 64 * 64;
        stream_point point = measure_stream_point(&x, bytes, ROUNDS);
        double gb_per_s[STREAM_KERNELS + 1];
        for (int k = 0; k <= STREAM_KERNELS; k++) {
            gb_per_s[k] = bandwidth_gb_per_s((double)bytes_per_element[k] * (double)point.n[k], point.best_seconds[k]);
            lab_results_row_or_exit(out, "cpu-measured,\"%s\",%s,%zu,%zu,%d,%.3f", machine, names[k], bytes, point.n[k],
                            bytes_per_element[k], gb_per_s[k]);
        }
        printf("  %8.0f KiB  %7.1f  %7.1f  %7.1f  %7.1f  %7.1f   %.2f\n", bytes / 1024.0, gb_per_s[0], gb_per_s[1],
               gb_per_s[2], gb_per_s[3], gb_per_s[4], gb_per_s[STREAM_TRIAD] / gb_per_s[STREAM_KERNELS]);
        last = point;
    }
    stream_arrays_free(&x);
    double triad = bandwidth_gb_per_s(24.0 * (double)last.n[STREAM_TRIAD], last.best_seconds[STREAM_TRIAD]);
    double moved = bandwidth_gb_per_s(32.0 * (double)last.n[STREAM_TRIAD], last.best_seconds[STREAM_TRIAD]);
    double copied = bandwidth_gb_per_s(16.0 * (double)last.n[STREAM_KERNELS], last.best_seconds[STREAM_KERNELS]);
    printf("At %.0f MiB (DRAM): triad %.1f GB/s as STREAM counts it (24 B/element), %.1f GB/s counting the\n"
           "write-allocate read (32 B/element); memcpy %.1f GB/s. (measured)\n", LARGEST_WORKING_SET / (1 << 20),
           triad, moved, copied);
}

/* ---------------------------------------------------------------------------------
 * The CUDA kernels: counted on the simulator, timed on a GPU; GPU floors from data/gpus.csv */

static void measure_gpu(lab_results *out)
{
    printf("\nYour CUDA kernels on %s:\n", gpu_name());
    int right[STREAM_KERNELS + 1] = {0, 0, 0, 0, 1};   /* the last is cudaMemcpy */
    for (int k = 0; k < STREAM_KERNELS; k++) {
        stream_gpu_run run;
        right[k] = gpu_kernel_is_right(k, &run);
        if (!right[k]) {
            printf("  %-6s not right yet%s%s: not measured. make check DAY=10 says which check fails.\n", names[k],
                   run.error ? ", CUDA error: " : "", run.error ? run.error : "");
            continue;
        }
        if (run.counted) {
            double per_element = (run.load_bytes + run.store_bytes) / COUNTED_N;
            lab_results_row_or_exit(out, "gpu-counted,simulator,%s,%d,%d,%.4f,", names[k],
                            stream_arrays_touched(k) * 8 * COUNTED_N, COUNTED_N, per_element);
            printf("  %-6s counted %5.2f bytes per element (%.2f loaded, %.2f stored), %.0f sectors per request\n",
                   names[k], per_element, run.load_bytes / COUNTED_N, run.store_bytes / COUNTED_N,
                   run.load_sectors_per_request);
        }
    }
    for (int k = 0; k <= STREAM_KERNELS; k++) {   /* a real GPU only: the simulator returns -1 */
        if (!right[k]) continue;
        double milliseconds = gpu_stream_best_milliseconds(k, GPU_N, GPU_REPEATS);
        if (milliseconds <= 0) continue;
        int per_element = k < STREAM_KERNELS ? stream_counts[k] : 16;
        double gb_per_s = bandwidth_gb_per_s((double)per_element * GPU_N, milliseconds * 1e-3);
        lab_results_row_or_exit(out, "gpu-measured,\"%s\",%s,%.0f,%d,%d,%.1f", gpu_name(), names[k],
                        (double)stream_arrays_touched(k) * 8 * GPU_N, GPU_N, per_element, gb_per_s);
        printf("  %-6s measured %.3f ms for 2^25 doubles: %.1f GB/s\n", names[k], milliseconds, gb_per_s);
    }

    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    printf("\nA triad over 2^25 doubles moves %.0f MB as STREAM counts it; at each GPU's datasheet bandwidth\n"
           "(data/gpus.csv) that takes at least (predicted, a floor, not a measurement):\n", 24.0 * GPU_N / 1e6);
    const char *keys[] = {"a100-80gb", "h100-sxm", "h200"};
    for (int i = 0; i < 3; i++) {
        int row = lab_table_find(gpus, "key", keys[i]);
        if (row < 0) continue;
        double gb_per_s = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
        printf("  %-14s %6.0f GB/s  %.3f ms\n", lab_table_text_or_exit(gpus, row, "name"), gb_per_s,
               24.0 * GPU_N / (gb_per_s * 1e9) * 1e3);
    }
    lab_table_free(gpus);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    char machine[160];
    lab_cpu_name(machine, sizeof machine);
    lab_results out = lab_results_open_or_exit(argv[1], "source,machine,kernel,working_set_bytes,n,bytes_per_element,"
                                            "bandwidth_gb_per_s");
    write_cache_rows(&out, machine);

    int cpu_right = 1;
    for (int k = 0; k < STREAM_KERNELS; k++)
        if (!cpu_kernel_is_right(k)) {
            printf("Your C %s is not right yet.\n", names[k]);
            cpu_right = 0;
        }
    if (!bytes_are_right()) printf("Your byte arithmetic (bytes.c) is not right yet.\n");
    if (cpu_right) print_counted_walks();
    if (cpu_right && bytes_are_right()) measure_cpu(&out, machine);
    else printf("Not timing the C kernels until both are right: make check DAY=10 says which check fails.\n");

    measure_gpu(&out);
    lab_results_close_or_exit(&out);
    return 0;
}
