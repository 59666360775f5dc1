/* lab.h — Day 10: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY10_LAB_H
#define DAY10_LAB_H

#include <stddef.h>
#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* STREAM's four kernels (McCalpin), over arrays of doubles, with the scalar q:
 *   copy   c[i] = a[i]
 *   scale  b[i] = q * c[i]
 *   add    c[i] = a[i] + b[i]
 *   triad  a[i] = b[i] + q * c[i]                                                    */
enum stream_kernel { STREAM_COPY, STREAM_SCALE, STREAM_ADD, STREAM_TRIAD, STREAM_KERNELS };

/* ---- bytes.c (yours): the byte arithmetic ---- */
/* The bytes per element STREAM counts for `kernel`: the doubles the source names, read or
 * written. 0 for a kernel that is not one of the four. */
int stream_bytes_per_element(int kernel);
/* The bytes per element a write-allocate cache moves between itself and DRAM: every store
 * first reads the line it writes. 0 for a kernel that is not one of the four. */
int write_allocate_bytes_per_element(int kernel);
/* The bytes memcpy moves when it copies `bytes_copied` bytes, counted as STREAM counts. */
long long memcpy_bytes_moved(long long bytes_copied);
/* Bytes over seconds, in GB/s (10^9 bytes a second, as every datasheet counts). */
double bandwidth_gb_per_s(double bytes, double seconds);

/* ---- stream_cpu.c (yours): the four kernels in C, n elements each ---- */
/* Written before a definition, keeps the compiler from replacing a copy loop with a call to
 * memcpy (clang and gcc both do at -O2: "loop idiom recognition"), so that STREAM's copy times
 * the loop as written and memcpy's column the library. */
#if defined(__clang__)
#define STREAM_LOOP_AS_WRITTEN __attribute__((no_builtin("memcpy")))
#elif defined(__GNUC__)
#define STREAM_LOOP_AS_WRITTEN __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define STREAM_LOOP_AS_WRITTEN
#endif
void cpu_stream_copy(const double *a, double *c, size_t n);
void cpu_stream_scale(double q, const double *c, double *b, size_t n);
void cpu_stream_add(const double *a, const double *b, double *c, size_t n);
void cpu_stream_triad(double q, const double *b, const double *c, double *a, size_t n);

/* ---- stream.cu (yours): the four kernels in CUDA; device pointers ---- */
/* Launches `kernel` over n elements of the device arrays a, b, c. Returns the launch's error. */
cudaError_t launch_stream(int kernel, double q, double *a, double *b, double *c, int n);

/* ---- run.cu (driver): host arrays in, host arrays out ---- */
typedef struct stream_gpu_run {
    const char *error;            /* NULL, or the CUDA error the run ended with */
    long long written_past_end;   /* guard elements after a, b or c that changed (must be 0) */
    int counted;                  /* 1 when the simulator counted the fields below */
    double load_bytes;            /* 32 x the global 32-byte sectors loaded */
    double store_bytes;           /* 32 x the global sectors stored */
    double load_sectors_per_request, store_sectors_per_request;   /* 8 for 32 lanes reading doubles */
} stream_gpu_run;

/* Copies a, b and c (n elements each, host memory) to the device, each followed by a guard
 * region, runs launch_stream, and copies all three back. With count_metrics, the simulator
 * counts the launch. */
stream_gpu_run gpu_stream(int kernel, double q, double *a, double *b, double *c, int n, int count_metrics);
/* On a real GPU: the best time in milliseconds of `repeats` launches over n elements
 * (events, after a warm-up); kernel STREAM_KERNELS times cudaMemcpy of n doubles device to
 * device. On the simulator: -1, because its time is this CPU's, not a GPU's. */
double gpu_stream_best_milliseconds(int kernel, int n, int repeats);
/* The GPU's name, or "the simulator". */
const char *gpu_name(void);

/* ---- measure.c (driver): timing the C kernels against memcpy, side by side ---- */
typedef struct stream_arrays { double *a, *b, *c; size_t capacity; } stream_arrays;
/* Three arrays of `capacity` doubles, 2 MiB-aligned, every page touched before any timing. */
stream_arrays stream_arrays_create(size_t capacity);
void stream_arrays_free(stream_arrays *arrays);
/* Runs your C kernel `kernel` over n elements of the arrays, with the scalar STREAM uses (3). */
void cpu_stream_run(int kernel, stream_arrays *arrays, size_t n);

/* The arrays a kernel touches (2 or 3); memcpy touches 2. The working set of a point is
 * arrays x n x 8 bytes, so the five lines of the plot share one x axis. */
int stream_arrays_touched(int kernel);

/* Best times of the four kernels and of memcpy at one working set, measured in `rounds`
 * rounds, each timing the five one after another (so a busy neighbour slows all five
 * alike). A sample repeats its kernel until it has moved at least 16 MiB, so that even an
 * L1-sized working set is timed over many microseconds. Index STREAM_KERNELS is memcpy. */
typedef struct stream_point { size_t n[STREAM_KERNELS + 1]; double best_seconds[STREAM_KERNELS + 1]; } stream_point;
stream_point measure_stream_point(stream_arrays *arrays, size_t working_set_bytes, int rounds);

/* ---- sweeps.c (driver): how many times a C kernel walks each array, counted ---- */
/* Runs your C kernel over n elements of three arrays whose pages are watched: each page a
 * kernel touches is entered once for every time the kernel comes back to it after leaving it
 * (two pages of each array are open at a time). A kernel that walks an array once enters each
 * of its pages once; pages x passes for one that walks it again. No timing: the same count on
 * a busy machine as on a quiet one. */
typedef struct stream_sweeps {
    size_t pages;              /* pages of each array */
    long long entered[3];      /* page entries into a, b and c */
} stream_sweeps;
stream_sweeps count_stream_sweeps(int kernel, size_t n);

#ifdef __cplusplus
}
#endif

#endif
