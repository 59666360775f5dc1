/* sim_metrics.h — what the simulator counted for each launch, read through a small C API.
 *
 * These are the quantities Nsight Compute measures on a GPU, counted exactly from the
 * accesses the kernel made (never timed, never estimated):
 *   requests   one per warp per memory instruction executed (lanes of a warp that run the
 *              same load for the n-th time form one request)
 *   sectors    the distinct 32-byte pieces of memory a global request touches: 4 for 32
 *              consecutive floats, 32 for 32 floats 128 bytes apart
 *   wavefronts the passes shared memory needs for a request: 1 without bank conflicts,
 *              up to 32 when every lane hits a different word of the same bank
 *   SIMT efficiency  active lanes / 32, averaged over the warp-level steps the lanes took
 * Counting takes up to about twice the time of the checks alone, so it is off unless a
 * program turns it on (sim_metrics_enable(1); sim_metrics_enable(0) turns it off again) or
 * the environment has SIM_REPORT=1, which counts every launch and prints a table after each,
 * whatever the program asks. */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_launch_metrics {
    char kernel[96];
    unsigned grid[3], block[3];
    unsigned long long global_load_requests, global_load_sectors, global_load_bytes;
    unsigned long long global_store_requests, global_store_sectors, global_store_bytes;
    unsigned long long shared_load_requests, shared_load_wavefronts, shared_load_bytes;
    unsigned long long shared_store_requests, shared_store_wavefronts, shared_store_bytes;
    unsigned max_bank_conflict_ways;   /* the worst shared request's wavefronts */
    unsigned long long barriers;       /* __syncthreads() completed, summed over blocks */
    unsigned long long warp_steps;     /* warp-level steps through basic blocks */
    unsigned long long active_lanes;   /* lanes active in those steps, summed */
    unsigned long long atomics;        /* atomic operations, one per thread */
    double declared_flops;             /* from sim_declare_flops(), for the roofline estimate */
} sim_launch_metrics;

void sim_metrics_enable(int on);
int sim_metrics_count(void);
/* index 0 is the first launch counted; -1 the last, -2 the one before. NULL if none. */
const sim_launch_metrics *sim_metrics_get(int index);
void sim_metrics_clear(void);
/* The floating-point operations the next launch performs, for the roofline estimate. */
void sim_declare_flops(double flops);

double sim_sectors_per_request(const sim_launch_metrics *m, int stores);
double sim_wavefronts_per_request(const sim_launch_metrics *m, int stores);
double sim_simt_efficiency(const sim_launch_metrics *m);

/* A lower-bound time on a GPU of data/gpus.csv (its key, e.g. "h100-sxm"), from the declared
 * FLOPs at the FP32 peak and the counted sectors at the memory bandwidth, as if no sector
 * were read twice from DRAM. Writes "memory" or "compute" into bound. An estimate. */
double sim_roofline_estimate_seconds(const sim_launch_metrics *m, const char *gpu_key, const char **bound);

void sim_metrics_print(FILE *out, const sim_launch_metrics *m);

/* What lay between the two events of the last cudaEventElapsedTime: the kernel launches and
 * the cudaMemcpy calls (a 2D copy counts one per row) run after the first event was recorded
 * and before the second. elapsed_times counts the calls so far, so a caller can tell that a
 * new one was made. Counted, not timed: a driver reads it to tell events that enclose the
 * kernel from events that enclose nothing, or the copies as well. */
typedef struct sim_event_span { unsigned long long elapsed_times, launches, copies; } sim_event_span;
sim_event_span sim_last_event_span(void);

#ifdef __cplusplus
}
#endif

#endif
