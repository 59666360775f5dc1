/* lab.h — Day 07: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY07_LAB_H
#define DAY07_LAB_H

#include <stddef.h>
#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

enum { REDUCE_VERSIONS = 6 };

/* ---- reduce.cu (yours) ---- */
/* Sums the n elements of `in` into *result with kernel version 1..6, blocks of
 * threads_per_block threads (a power of two from 64 to 1024). All pointers are device
 * pointers; scratch holds at least reduce_scratch_elements(n) elements for the partial
 * sums of versions 1-5. Returns the first CUDA error, or cudaSuccess. */
cudaError_t reduce_int(int version, const int *in, int *result, int *scratch, int n, int threads_per_block);
cudaError_t reduce_float(int version, const float *in, float *result, float *scratch, int n, int threads_per_block);
/* How many blocks the first launch of `version` uses for n elements. */
int reduce_blocks(int version, int n, int threads_per_block);

/* Enough scratch for every version: the first pass writes at most n/64 + 1 partial sums,
 * the second at most n/4096 + 1, and later passes reuse those two regions. */
static inline size_t reduce_scratch_elements(int n) { return (size_t)n / 32 + 64; }

/* ---- run.cu (driver): host arrays in, a host sum out ---- */
typedef struct reduce_run {
    const char *error;                  /* NULL, or the CUDA error the run ended with */
    int counted;                        /* 1 when the simulator counted the fields below */
    int launches;                       /* kernel launches the version made */
    int first_grid_blocks;              /* blocks of its first launch */
    double simt_efficiency;             /* active lanes / 32 over every warp step, all launches */
    double shared_wavefronts_per_request; /* shared loads and stores together; 1 = no bank conflicts */
    double shared_load_wavefronts_per_request, shared_store_wavefronts_per_request;
    unsigned max_bank_conflict_ways;    /* the worst single shared request */
    double barriers;                    /* __syncthreads() completed, summed over blocks and launches */
    double barriers_per_element;        /* barriers / n */
    double atomics;                     /* atomic operations (one per thread that calls one) */
    double global_bytes;                /* 32 x the global sectors loaded and stored */
    double h100_estimate_seconds;       /* roofline estimate on an H100 SXM, summed over launches */
} reduce_run;

/* Copy `in` to the device, poison the result (0xff bytes), call reduce_int / reduce_float,
 * copy the result back into *sum. With count_metrics, the simulator counts the launches. */
reduce_run gpu_reduce_int(int version, const int *in, int n, int threads_per_block, int count_metrics, int *sum);
reduce_run gpu_reduce_float(int version, const float *in, int n, int threads_per_block, int count_metrics,
                            float *sum);
/* On a real GPU: the median time in milliseconds of `repeats` runs (events, after a warm-up).
 * On the simulator: -1, because its time is this CPU's, not a GPU's. */
double gpu_reduce_float_milliseconds(int version, const float *in, int n, int threads_per_block, int repeats);

#ifdef __cplusplus
}
#endif

#endif
