/* sim_counts.h — the simulator/GPU split of the drivers, in one place: what the simulator counted
 * while a driver ran a learner's code (every launch made between lab_counts_begin() and
 * lab_counts_end(), with its counts, sim_metrics.h, summed), so that a driver only copies the sums
 * it reports into its own results struct. Included by the drivers' .cu files (header-only).
 *
 * The same code builds on both backends: on the simulator LAB_SIMULATED is 1 and the counts are
 * real; built with nvcc for a GPU it is 0, the simulator's metrics calls do nothing
 * (lib/lab/nothing_counted.c), and lab_counts_end() returns counted = 0 with every count zero:
 * Nsight Compute measures the same quantities there (make gpu-report). A driver tests
 * LAB_SIMULATED, or counts.counted, where the two backends report differently (a GPU's time is
 * measured with CUDA events; the simulator's time is the CPU's, and not reported), instead of
 * an #ifdef; lab_run_counted() is the usual run: launches, synchronize, counts.
 *
 *   lab_counts counts;
 *   cudaError_t error = lab_run_counted(count, flops, &counts, [&] { return launch(...); });
 *   if (counts.counted) ... counts.launches, counts.total ... */
#ifndef LAB_SIM_COUNTS_H
#define LAB_SIM_COUNTS_H

#include "../sim/include/sim_metrics.h"
#include <string.h>

#ifdef SIM_CUDA
enum { LAB_SIMULATED = 1 };
#else
enum { LAB_SIMULATED = 0 };
#endif

typedef struct lab_counts {
    int counted;                   /* 1 on the simulator; 0 on a GPU, where everything below is 0 */
    int first, launches;           /* the launches sim_metrics_get(first) .. (first + launches - 1) */
    sim_launch_metrics total;      /* every count summed over them, max_bank_conflict_ways the worst;
                                      kernel, grid and block are the last launch's (zeros: none) */
    unsigned first_grid[3];        /* the grid of the first launch */
    unsigned long long blocks;     /* blocks launched, summed over the launches */
    unsigned long long threads;    /* threads launched (blocks x threads per block), summed */
    unsigned max_block_threads;    /* threads in the largest block launched */
} lab_counts;

/* Turns counting on; returns the index the next launch's counts will have. */
static inline int lab_counts_begin(void)
{
    sim_metrics_enable(1);
    return sim_metrics_count();
}

/* Turns counting off and sums the counts of the launches made since lab_counts_begin()
 * returned `first` (a launch that failed is not counted). */
static inline lab_counts lab_counts_end(int first)
{
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    sim_metrics_enable(0);
    counts.counted = LAB_SIMULATED;
    counts.first = first;
    counts.launches = sim_metrics_count() - first;
    sim_launch_metrics *t = &counts.total;
    for (int k = first; k < first + counts.launches; k++) {
        const sim_launch_metrics *m = sim_metrics_get(k);
        unsigned long long blocks = (unsigned long long)m->grid[0] * m->grid[1] * m->grid[2];
        unsigned block_threads = m->block[0] * m->block[1] * m->block[2];
        if (k == first) memcpy(counts.first_grid, m->grid, sizeof counts.first_grid);
        counts.blocks += blocks;
        counts.threads += blocks * block_threads;
        if (block_threads > counts.max_block_threads) counts.max_block_threads = block_threads;
        memcpy(t->kernel, m->kernel, sizeof t->kernel);
        memcpy(t->grid, m->grid, sizeof t->grid);
        memcpy(t->block, m->block, sizeof t->block);
        t->global_load_requests += m->global_load_requests;
        t->global_load_sectors += m->global_load_sectors;
        t->global_load_bytes += m->global_load_bytes;
        t->global_store_requests += m->global_store_requests;
        t->global_store_sectors += m->global_store_sectors;
        t->global_store_bytes += m->global_store_bytes;
        t->shared_load_requests += m->shared_load_requests;
        t->shared_load_wavefronts += m->shared_load_wavefronts;
        t->shared_load_bytes += m->shared_load_bytes;
        t->shared_store_requests += m->shared_store_requests;
        t->shared_store_wavefronts += m->shared_store_wavefronts;
        t->shared_store_bytes += m->shared_store_bytes;
        if (m->max_bank_conflict_ways > t->max_bank_conflict_ways) t->max_bank_conflict_ways = m->max_bank_conflict_ways;
        t->barriers += m->barriers;
        t->warp_steps += m->warp_steps;
        t->active_lanes += m->active_lanes;
        t->atomics += m->atomics;
        t->declared_flops += m->declared_flops;
    }
    return counts;
}

/* The launches' roofline estimates on gpu_key (sim_roofline_estimate_seconds), summed: each
 * launch is bound by its own FLOPs or bytes, so the estimate of counts.total would be another
 * figure. -1 when gpu_key is not a GPU of data/gpus.csv. Read it before any sim_metrics_clear(). */
static inline double lab_counts_roofline_seconds(const lab_counts *counts, const char *gpu_key)
{
    if (!counts->counted) return -1;
    double seconds = 0;
    for (int k = counts->first; k < counts->first + counts->launches; k++) {
        double launch_seconds = sim_roofline_estimate_seconds(sim_metrics_get(k), gpu_key, NULL);
        if (launch_seconds < 0) return -1;
        seconds += launch_seconds;
    }
    return seconds;
}

#if defined(__cplusplus) && defined(__CUDACC__)
/* The usual run of a driver: `launches` (a callable returning the first error of the launches it
 * makes, or cudaSuccess), then cudaDeviceSynchronize(). With `count`, every launch made is counted
 * (flops > 0 is declared to the simulator for the first launch's roofline estimate); the counts are
 * written only when the whole run succeeded, else they are zero. Returns the run's first error. */
template <typename Launches>
static inline cudaError_t lab_run_counted(int count, double flops, lab_counts *counts, Launches launches)
{
    int first = count ? lab_counts_begin() : 0;
    if (count && flops > 0) sim_declare_flops(flops);
    cudaError_t error = launches();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counted;
    memset(&counted, 0, sizeof counted);
    if (count) counted = lab_counts_end(first);
    if (counts) {
        if (error != cudaSuccess) memset(&counted, 0, sizeof counted);
        *counts = counted;
    }
    return error;
}
#endif

#endif
