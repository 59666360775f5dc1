/* 10-bandwidth.c — the checks for day 10: the byte arithmetic is exact (STREAM's counts, the
 * write-allocate read, memcpy's count, GB/s to 1e-6 relative); the four C kernels and the four
 * CUDA kernels are exact for sizes below, at and just past a warp or a vector (every output
 * poisoned first, every input checked unchanged, every array followed by a guard region); the C
 * copy is a loop, not a call to memcpy; on the simulator, each CUDA kernel moves exactly STREAM's
 * bytes in whole sectors; and each C kernel walks each array its line names once, counted page by
 * page (driver/sweeps.c). Both counts are held against the learner's stream_bytes_per_element,
 * the day's prediction. Nothing here is timed: a count is the same on a busy machine. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

static const char *kernel_names[STREAM_KERNELS + 1] = {"copy", "scale", "add", "triad", "memcpy"};
static const int sizes[] = {1, 7, 8, 9, 31, 32, 33, 1000, 100003};
enum { SIZES = 9, GUARD = 64, COUNTED_N = 1 << 15 };
/* Not STREAM's 3, so a kernel that hard-codes 3 shows; and not a float, so a kernel that
 * rounds q to float shows. */
static const double Q = -2.5 - 0x1p-30;

/* Multiples of 1/8 below 100 in magnitude: q * x needs at most 44 significant bits and every
 * result below is exact in double, so the reference is exact on a CPU and on a GPU that
 * fuses the multiply-add alike. */
static double value(size_t i, int salt) { return (double)((i * 7 + (size_t)salt * 131) % 1001) / 8.0 - 62.0; }

/* ---------------------------------------------------------------------------------
 * The byte arithmetic */

#define HINT_STREAM_BYTES "STREAM counts each array its line of source names, read or written, once per element: " \
                          "count the arrays of each line in lab.h and multiply by the size of a double. The write-" \
                          "allocate read is the next function's business, not this one's."

/* The hand-worked tables below are static const, in the test program's data: the expected counts are not in
 * the test's stack frame while the code under test runs, to be copied. */
Test(bytes, stream_convention, .timeout = 5, .description = HINT_STREAM_BYTES)
{
    static const int want[STREAM_KERNELS] = {16, 16, 24, 24};
    for (int k = 0; k < STREAM_KERNELS; k++) {
        int got = stream_bytes_per_element(k);
        cr_assert(got == want[k], "stream_bytes_per_element(%s) = %d, want %d (%d arrays of doubles)",
                  kernel_names[k], got, want[k], want[k] / 8);
    }
    cr_assert(stream_bytes_per_element(-1) == 0 && stream_bytes_per_element(STREAM_KERNELS) == 0,
              "stream_bytes_per_element of a kernel that is not one of the four must be 0 (got %d for -1, %d for %d)",
              stream_bytes_per_element(-1), stream_bytes_per_element(STREAM_KERNELS), STREAM_KERNELS);
}

Test(bytes, write_allocate, .timeout = 5,
     .description = "A write-allocate cache reads a line before it writes into it, so each array a kernel writes "
                    "crosses the memory bus twice: once in, once out. Each STREAM kernel writes one array.")
{
    static const int want[STREAM_KERNELS] = {24, 24, 32, 32};
    for (int k = 0; k < STREAM_KERNELS; k++) {
        int got = write_allocate_bytes_per_element(k);
        cr_assert(got == want[k], "write_allocate_bytes_per_element(%s) = %d, want %d: STREAM's %d plus the read "
                  "of the line the store writes", kernel_names[k], got, want[k], want[k] - 8);
    }
    cr_assert(write_allocate_bytes_per_element(-1) == 0 && write_allocate_bytes_per_element(STREAM_KERNELS) == 0,
              "write_allocate_bytes_per_element of a kernel that is not one of the four must be 0 (got %d for -1, "
              "%d for %d)", write_allocate_bytes_per_element(-1), write_allocate_bytes_per_element(STREAM_KERNELS),
              STREAM_KERNELS);
}

Test(bytes, memcpy_counts_read_and_write, .timeout = 5,
     .description = "memcpy is STREAM's copy without the loop: count what copy counts. Copying 8 GiB must not "
                    "overflow either.")
{
    const long long copied[] = {1, 1000, 8LL << 30};
    for (int i = 0; i < 3; i++) {
        long long got = memcpy_bytes_moved(copied[i]);
        cr_assert(got == 2 * copied[i], "memcpy_bytes_moved(%lld) = %lld, want %lld (each byte read once and "
                  "written once)", copied[i], got, 2 * copied[i]);
    }
}

Test(bytes, bandwidth_in_gb_per_s, .timeout = 5,
     .description = "A bandwidth is bytes per second; datasheets (and data/gpus.csv) count a GB as 10^9 bytes, "
                    "not 2^30.")
{
    static const struct { double bytes, seconds, want; } cases[] = {{24e9, 1.0, 24.0}, {1.5e9, 0.5, 3.0},
                                                                    {805306368, 2.4e-4, 3355.4432}};
    for (int i = 0; i < 3; i++) {
        double got = bandwidth_gb_per_s(cases[i].bytes, cases[i].seconds);
        double relative_error = (got - cases[i].want) / cases[i].want;   /* 1e-6: float arithmetic passes */
        cr_assert(fabs(relative_error) <= 1e-6, "bandwidth_gb_per_s(%.0f bytes, %g s) = %.9g, want %.9g GB/s (%+.2g "
                  "relative%s)", cases[i].bytes, cases[i].seconds, got, cases[i].want, relative_error,
                  fabs(relative_error + 0.0687) < 0.001 ? ": GiB/s, 2^30 bytes, where GB/s count 10^9" : "");
    }
}

/* ---------------------------------------------------------------------------------
 * The kernels' results: the same checks for the C and the CUDA versions.
 * Each array gets GUARD elements after its n, filled with a sentinel byte of its own (so a
 * copy of a's guard into c's still shows); the output is poisoned. */

typedef struct arrays { double *a, *b, *c; } arrays;
/* Every byte 0xff: the poison prepare() fills an output with, never written since. */
static int is_poison(double x)
{
    unsigned char bytes[sizeof x];
    memcpy(bytes, &x, sizeof x);
    for (size_t i = 0; i < sizeof x; i++)
        if (bytes[i] != 0xff) return 0;
    return 1;
}
static unsigned char sentinel(int array) { return (unsigned char)(0x5a + array); }   /* a 0, b 1, c 2 */

static double *guarded(size_t n, int array)
{
    double *x = malloc((n + GUARD) * sizeof(double));
    memset(x + n, sentinel(array), GUARD * sizeof(double));
    return x;
}

static long long guard_changes(const double *x, size_t n, int array)
{
    const unsigned char *guard = (const unsigned char *)(x + n);
    long long changed = 0;
    for (size_t i = 0; i < GUARD * sizeof(double); i++) changed += guard[i] != sentinel(array);
    return changed;
}

/* Inputs filled, the output (the array `kernel` writes) poisoned. */
static arrays prepare(int kernel, size_t n, double **output)
{
    arrays x = {guarded(n, 0), guarded(n, 1), guarded(n, 2)};
    for (size_t i = 0; i < n; i++) x.a[i] = value(i, 1), x.b[i] = value(i, 2), x.c[i] = value(i, 3);
    *output = kernel == STREAM_SCALE ? x.b : kernel == STREAM_TRIAD ? x.a : x.c;
    lab_poison(*output, n * sizeof(double));
    return x;
}

/* What `kernel` writes, made after it has returned from the inputs' formula (value), not from the arrays it
 * was given: while it runs there is no answer in memory to copy. The caller frees it. */
static double *expected(int kernel, size_t n)
{
    double *want = malloc(n * sizeof(double));
    cr_assert(want != NULL || n == 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        double a = value(i, 1), b = value(i, 2), c = value(i, 3);
        switch (kernel) {
        case STREAM_COPY: want[i] = a; break;
        case STREAM_SCALE: want[i] = Q * c; break;
        case STREAM_ADD: want[i] = a + b; break;
        default: want[i] = b + Q * c; break;
        }
    }
    return want;
}

/* The output holds the result, the inputs are as they were, no guard element changed. */
static void check_result(const char *where, int kernel, size_t n, arrays x, const double *output)
{
    const char *names[3] = {"a", "b", "c"};
    double *all[3] = {x.a, x.b, x.c};
    int written = kernel == STREAM_SCALE ? 1 : kernel == STREAM_TRIAD ? 0 : 2;
    size_t untouched = 0;
    for (size_t i = 0; i < n; i++) untouched += is_poison(output[i]);
    cr_assert(untouched < n || n == 0, "%s %s, n = %zu: not one element of the output %s was written: is the kernel "
              "written yet, and does it write %s?", where, kernel_names[kernel], n, names[written], names[written]);
    double *want = expected(kernel, n);
    lab_comparison result = lab_compare_doubles(names[written], output, want, n, 0, 0);
    free(want);
    cr_assert(result.mismatches == 0, "%s %s, n = %zu, q = %.12g: %s", where, kernel_names[kernel], n, Q, result.message);
    for (int array = 0; array < 3; array++) {
        if (array == written) continue;
        for (size_t i = 0; i < n; i++)
            cr_assert(all[array][i] == value(i, array + 1), "%s %s, n = %zu: the input %s[%zu] changed from %g to %g; "
                      "%s writes only %s", where, kernel_names[kernel], n, names[array], i, value(i, array + 1),
                      all[array][i], kernel_names[kernel], names[written]);
        cr_assert(guard_changes(all[array], n, array) == 0, "%s %s, n = %zu: bytes after %s[%zu], past the end of the "
                  "array, were written", where, kernel_names[kernel], n, names[array], n - 1);
    }
    cr_assert(guard_changes(output, n, written) == 0, "%s %s, n = %zu: %lld bytes after the end of the output %s "
              "(index %zu onwards) were written", where, kernel_names[kernel], n, guard_changes(output, n, written),
              names[written], n);
}

static void free_arrays(arrays x) { free(x.a), free(x.b), free(x.c); }

static void check_cpu(int kernel)
{
    for (int s = 0; s < SIZES; s++) {
        size_t n = (size_t)sizes[s];
        double *output;
        arrays x = prepare(kernel, n, &output);
        switch (kernel) {
        case STREAM_COPY: cpu_stream_copy(x.a, x.c, n); break;
        case STREAM_SCALE: cpu_stream_scale(Q, x.c, x.b, n); break;
        case STREAM_ADD: cpu_stream_add(x.a, x.b, x.c, n); break;
        default: cpu_stream_triad(Q, x.b, x.c, x.a, n); break;
        }
        check_result("C", kernel, n, x, output);
        free_arrays(x);
    }
}

#define HINT_CPU "The kernel's line of lab.h for every element, with the arrays in the roles lab.h gives them: the " \
                 "output is the array on the left of the =, and q is the parameter, not STREAM's 3."
Test(cpu_stream, copy, .timeout = 10, .description = HINT_CPU) { check_cpu(STREAM_COPY); }
Test(cpu_stream, scale, .timeout = 10, .description = HINT_CPU) { check_cpu(STREAM_SCALE); }
Test(cpu_stream, add, .timeout = 10, .description = HINT_CPU) { check_cpu(STREAM_ADD); }
Test(cpu_stream, triad, .timeout = 10, .description = HINT_CPU) { check_cpu(STREAM_TRIAD); }

/* The C library's memcpy, counted while a check watches: this test program's definition takes the
 * place of the library's for every caller in the process, and hands the work to memmove, which does
 * the same for arrays that do not overlap. Through a volatile pointer: the compiler would turn a
 * memmove between restrict pointers back into memcpy, a call to itself. */
static volatile int memcpy_watched;
static volatile long memcpy_calls;
static void *(*volatile move_bytes)(void *, const void *, size_t) = memmove;
void *memcpy(void *restrict to, const void *restrict from, size_t bytes)
{
    if (memcpy_watched) memcpy_calls++;
    return move_bytes(to, from, bytes);
}

Test(cpu_stream, copy_is_a_loop, .timeout = 10,
     .description = "STREAM's copy is the loop its line of source names, so that its column measures a loop and "
                    "memcpy's column the library. The compiler turns a plain copy loop into a call to memcpy unless "
                    "the definition carries STREAM_LOOP_AS_WRITTEN, as given.")
{
    static const size_t counts[] = {1, 1000, 100003};
    for (int k = 0; k < 3; k++) {
        double *output;
        arrays x = prepare(STREAM_COPY, counts[k], &output);
        memcpy_calls = 0, memcpy_watched = 1;
        cpu_stream_copy(x.a, x.c, counts[k]);
        memcpy_watched = 0;
        check_result("C", STREAM_COPY, counts[k], x, output);
        free_arrays(x);
        cr_assert(memcpy_calls == 0, "C copy, n = %zu: cpu_stream_copy called memcpy %ld time(s). The lab asks for the "
                  "loop, so that copy and memcpy are two different ways of moving the same bytes; if you wrote the "
                  "loop, keep STREAM_LOOP_AS_WRITTEN before its definition (without it the compiler makes it a memcpy "
                  "call).", counts[k], memcpy_calls);
    }
}

/* The simulator reports a stopped launch on stderr; the checks quote it. */

/* Runs the CUDA kernel; fails with the CUDA error (and what the simulator said) if any. */
static stream_gpu_run run_gpu(int kernel, size_t n, arrays x, int count_metrics)
{
    char said[1024];
    lab_capture_stderr();
    stream_gpu_run run = gpu_stream(kernel, Q, x.a, x.b, x.c, (int)n, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "CUDA %s, n = %zu: the run ended with the CUDA error \"%s\".%s%s", kernel_names[kernel],
              n, run.error, *said ? " The simulator said:\n" : "", said);
    return run;
}

static void check_gpu(int kernel)
{
    for (int s = 0; s < SIZES; s++) {
        size_t n = (size_t)sizes[s];
        double *output;
        arrays x = prepare(kernel, n, &output);
        stream_gpu_run run = run_gpu(kernel, n, x, 0);
        cr_assert(run.written_past_end == 0, "CUDA %s, n = %zu: %lld elements past the end of an array were written",
                  kernel_names[kernel], n, run.written_past_end);
        check_result("CUDA", kernel, n, x, output);
        free_arrays(x);
    }
}

#define HINT_GPU "stream_copy's shape: one element per thread, none past n; the kernel's line of lab.h, with the " \
                 "arrays in the roles the kernel's parameters give them."
Test(gpu_stream, copy, .timeout = 20,
     .description = "stream_copy and launch_stream are given: if this fails, the file was edited outside its TODOs "
                    "(make reset DAY=10 restores it; your files are backed up).")
{
    check_gpu(STREAM_COPY);
}
Test(gpu_stream, scale, .timeout = 20, .description = HINT_GPU) { check_gpu(STREAM_SCALE); }
Test(gpu_stream, add, .timeout = 20, .description = HINT_GPU) { check_gpu(STREAM_ADD); }
Test(gpu_stream, triad, .timeout = 20, .description = HINT_GPU) { check_gpu(STREAM_TRIAD); }

/* ---------------------------------------------------------------------------------
 * The bytes the simulator counted: exactly STREAM's, in whole sectors. */

static void check_counted_bytes(int kernel)
{
    static const int reads[STREAM_KERNELS] = {1, 1, 2, 2};   /* static: not on the stack while the kernel runs */
    size_t n = COUNTED_N;
    double *output;
    arrays x = prepare(kernel, n, &output);
    stream_gpu_run run = run_gpu(kernel, n, x, 1);
    double *want = expected(kernel, n);
    lab_comparison result = lab_compare_doubles("output", output, want, n, 0, 0);
    free(want);
    cr_assert(result.mismatches == 0, "CUDA %s is not right yet (n = %zu: %s): its byte counts mean nothing until it "
              "is; the gpu_stream checks say what is wrong", kernel_names[kernel], n, result.message);
    free_arrays(x);
    if (!run.counted) cr_skip("counted only on the simulator");
    double loaded = run.load_bytes / (double)n, stored = run.store_bytes / (double)n;
    cr_assert(loaded == 8.0 * reads[kernel] && stored == 8.0,
              "CUDA %s, n = %zu: counted %.3g bytes loaded and %.3g stored per element (%.3g in all); STREAM counts "
              "%d loaded and 8 stored (%d). %s", kernel_names[kernel], n, loaded, stored, loaded + stored,
              8 * reads[kernel], 8 * reads[kernel] + 8,
              loaded + stored > 8.0 * reads[kernel] + 8 ? "More means an array read or written twice, or requests "
              "that touch sectors they use only part of." : "Less means an input the line names was not read.");
    int predicted = stream_bytes_per_element(kernel);
    cr_assert(predicted == loaded + stored, "CUDA %s, n = %zu: the simulator counted %.0f bytes per element, and your "
              "stream_bytes_per_element(%s), the prediction, says %d. The simulator has no cache: it counts the "
              "bytes the loads and stores name, which is STREAM's count (the bytes/ checks say what is off).",
              kernel_names[kernel], n, loaded + stored, kernel_names[kernel], predicted);
    cr_assert(run.load_sectors_per_request == 8 && run.store_sectors_per_request == 8,
              "CUDA %s: %.2f sectors per load request and %.2f per store request; a warp's 32 neighbouring doubles "
              "are 256 bytes, 8 sectors", kernel_names[kernel], run.load_sectors_per_request,
              run.store_sectors_per_request);
}

#define HINT_COUNTED "Each kernel reads each input once and writes its output once, thread i taking element i. " \
                     "Writing the output in two steps, or reading it back, costs a store or a load more per element."
Test(gpu_bytes, copy, .timeout = 20, .description = HINT_COUNTED) { check_counted_bytes(STREAM_COPY); }
Test(gpu_bytes, scale, .timeout = 20, .description = HINT_COUNTED) { check_counted_bytes(STREAM_SCALE); }
Test(gpu_bytes, add, .timeout = 20, .description = HINT_COUNTED) { check_counted_bytes(STREAM_ADD); }
Test(gpu_bytes, triad, .timeout = 20, .description = HINT_COUNTED) { check_counted_bytes(STREAM_TRIAD); }

/* ---------------------------------------------------------------------------------
 * The bytes the C kernels move, counted: how many times each walks each array.
 *
 * Timing cannot tell a triad done in one pass from one in two on a busy two-core machine (in DRAM
 * the second takes 1.2 to 1.6 times as long, inside the noise), but counting can: driver/sweeps.c
 * counts, page by page, how many times a kernel enters each array. Each walk of an array is at
 * least 8 bytes per element as STREAM counts them (16 if the walk both reads and writes it), so a
 * one-pass kernel's walks are its bytes per element, held against the line of lab.h and against
 * your stream_bytes_per_element, the prediction. */

enum { SWEPT_N = 100003 };   /* 196 pages of 4 KiB per array, and a tail that is not a whole vector */

static void check_sweeps(int kernel)
{
    static const int named[STREAM_KERNELS][3] = {{1, 0, 1}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}};   /* a, b, c */
    static const char *array_names[3] = {"a", "b", "c"};
    stream_sweeps sweeps = count_stream_sweeps(kernel, SWEPT_N);
    double walks[3], bytes = 0;
    for (int k = 0; k < 3; k++) walks[k] = (double)sweeps.entered[k] / (double)sweeps.pages, bytes += 8 * walks[k];
    for (int k = 0; k < 3; k++) {
        cr_assert(named[kernel][k] || sweeps.entered[k] == 0, "C %s, n = %d: touched %s (%lld of its %zu pages), an "
                  "array its line of lab.h does not name", kernel_names[kernel], SWEPT_N, array_names[k],
                  sweeps.entered[k], sweeps.pages);
        cr_assert(!named[kernel][k] || sweeps.entered[k] >= (long long)sweeps.pages, "C %s, n = %d: entered %lld of "
                  "the %zu pages of %s, which its line of lab.h names: %s", kernel_names[kernel], SWEPT_N,
                  sweeps.entered[k], sweeps.pages, array_names[k], sweeps.entered[k] ? "does the loop "
                  "cover all n elements?" : "the loop never touched it (is the kernel written yet?)");
        if (!named[kernel][k] || sweeps.entered[k] == (long long)sweeps.pages) continue;
        if (walks[k] >= 1.5)
            cr_assert_fail("C %s, n = %d: walked %s %.2f times (%lld entries into its %zu pages), where one pass, "
                           "front to back, walks it once: at least %.0f bytes per element as STREAM counts (8 a "
                           "walk), for the %d the line names. Is %s read or written in a second loop, or are the "
                           "elements visited out of order?", kernel_names[kernel], SWEPT_N, array_names[k], walks[k],
                           sweeps.entered[k], sweeps.pages, bytes,
                           8 * (named[kernel][0] + named[kernel][1] + named[kernel][2]), array_names[k]);
        cr_assert_fail("C %s, n = %d: entered the %zu pages of %s %lld times: the loop left some of them and came "
                       "back, so it does not walk %s front to back. Is it a loop of your own, one element after the "
                       "next?", kernel_names[kernel], SWEPT_N, sweeps.pages, array_names[k], sweeps.entered[k],
                       array_names[k]);
    }
    int predicted = stream_bytes_per_element(kernel);
    cr_assert(fabs(bytes - predicted) < 0.5, "C %s, n = %d: walked a %.2f, b %.2f and c %.2f times: %.0f bytes per "
              "element as STREAM counts (8 a walk), and your stream_bytes_per_element(%s), the prediction, says %d "
              "(the bytes/ checks say what is off)", kernel_names[kernel], SWEPT_N, walks[0], walks[1], walks[2],
              bytes, kernel_names[kernel], predicted);
}

#define HINT_SWEEPS "One loop, one pass over the arrays its line names: each array read or written once per " \
                    "element. Far past the caches every further pass is every byte of the array again."
Test(cpu_bytes, copy, .timeout = 10, .description = HINT_SWEEPS) { check_sweeps(STREAM_COPY); }
Test(cpu_bytes, scale, .timeout = 10, .description = HINT_SWEEPS) { check_sweeps(STREAM_SCALE); }
Test(cpu_bytes, add, .timeout = 10, .description = HINT_SWEEPS) { check_sweeps(STREAM_ADD); }
Test(cpu_bytes, triad, .timeout = 10, .description = HINT_SWEEPS) { check_sweeps(STREAM_TRIAD); }
