/* measure.c — Day 10 driver: times your C kernels and memcpy over the same arrays, side by
 * side. Do not edit.
 *
 * How it times, and why (STREAM's own rules, adapted to a shared machine):
 *   - every page is touched before any timing, so no sample pays for page faults;
 *   - each sample runs its kernel enough times back to back to move at least 16 MiB, so
 *     that a 16 KiB working set is timed over milliseconds, not over the clock's resolution;
 *   - the five are timed one after another in each round and the best of the rounds is
 *     kept: a busy neighbour slows a round, never speeds one, and it slows all five alike. */
#include "lab.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { ALIGNMENT = 2 << 20, SAMPLE_BYTES = 16 << 20 };

static double *allocate_doubles(size_t count)
{
    void *memory = NULL;
    size_t bytes = (count * sizeof(double) + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    if (posix_memalign(&memory, ALIGNMENT, bytes) != 0) {
        fprintf(stderr, "measure.c: cannot allocate %zu MiB for the STREAM arrays\n", bytes >> 20);
        exit(1);
    }
    madvise(memory, bytes, MADV_HUGEPAGE);   /* fewer TLB misses, as STREAM's large pages */
    return memory;
}

stream_arrays stream_arrays_create(size_t capacity)
{
    stream_arrays arrays = {allocate_doubles(capacity), allocate_doubles(capacity), allocate_doubles(capacity),
                            capacity};
    for (size_t i = 0; i < capacity; i++) arrays.a[i] = 1.0, arrays.b[i] = 2.0, arrays.c[i] = 0.5;   /* STREAM's */
    return arrays;
}

void stream_arrays_free(stream_arrays *arrays)
{
    free(arrays->a), free(arrays->b), free(arrays->c);
    memset(arrays, 0, sizeof *arrays);
}

int stream_arrays_touched(int kernel) { return kernel == STREAM_COPY || kernel == STREAM_SCALE || kernel == STREAM_KERNELS ? 2 : 3; }

void cpu_stream_run(int kernel, stream_arrays *arrays, size_t n)
{
    const double q = 3.0;   /* STREAM's scalar */
    switch (kernel) {
    case STREAM_COPY: cpu_stream_copy(arrays->a, arrays->c, n); break;
    case STREAM_SCALE: cpu_stream_scale(q, arrays->c, arrays->b, n); break;
    case STREAM_ADD: cpu_stream_add(arrays->a, arrays->b, arrays->c, n); break;
    case STREAM_TRIAD: cpu_stream_triad(q, arrays->b, arrays->c, arrays->a, n); break;
    default: memcpy(arrays->c, arrays->a, n * sizeof(double)); break;   /* STREAM_KERNELS: memcpy */
    }
}

/* One sample: `passes` back-to-back runs; returns the time of one. */
static double time_sample(int kernel, stream_arrays *arrays, size_t n, int passes)
{
    double start = lab_now_seconds();
    for (int p = 0; p < passes; p++) cpu_stream_run(kernel, arrays, n);
    return (lab_now_seconds() - start) / passes;
}

stream_point measure_stream_point(stream_arrays *arrays, size_t working_set_bytes, int rounds)
{
    stream_point point;
    int passes[STREAM_KERNELS + 1];
    for (int k = 0; k <= STREAM_KERNELS; k++) {
        size_t n = working_set_bytes / ((size_t)stream_arrays_touched(k) * sizeof(double));
        if (n > arrays->capacity) n = arrays->capacity;
        if (n < 1) n = 1;
        point.n[k] = n;
        point.best_seconds[k] = 1e30;
        passes[k] = (int)(SAMPLE_BYTES / working_set_bytes) + 1;
        cpu_stream_run(k, arrays, n);   /* warm: the working set is in the cache it fits, if any */
    }
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k <= STREAM_KERNELS; k++) {
            double seconds = time_sample(k, arrays, point.n[k], passes[k]);
            if (seconds < point.best_seconds[k]) point.best_seconds[k] = seconds;
        }
    return point;
}
