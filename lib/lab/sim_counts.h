/* sim_counts.h — what the simulator counted while a driver ran a learner's code: every launch
 * made between lab_counts_begin() and lab_counts_end(), with its counts (sim_metrics.h) summed,
 * so that a driver only copies the sums it reports into its own results struct. Included by the
 * drivers' .cu files (header-only). On the simulator only: on a GPU (nvcc) nothing is counted
 * and this header declares nothing, so the drivers use it under #ifdef SIM_CUDA; Nsight
 * Compute measures the same quantities there.
 *
 *   int first = lab_counts_begin();              counting on (sim_declare_flops() may follow)
 *   ... the launches, cudaDeviceSynchronize() ...
 *   lab_counts counts = lab_counts_end(first);   counting off; counts.launches, counts.total */
#ifndef LAB_SIM_COUNTS_H
#define LAB_SIM_COUNTS_H

#ifdef SIM_CUDA
#include <sim_metrics.h>
#include <string.h>

typedef struct lab_counts {
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
    double seconds = 0;
    for (int k = counts->first; k < counts->first + counts->launches; k++) {
        double launch_seconds = sim_roofline_estimate_seconds(sim_metrics_get(k), gpu_key, NULL);
        if (launch_seconds < 0) return -1;
        seconds += launch_seconds;
    }
    return seconds;
}
#endif

#endif
