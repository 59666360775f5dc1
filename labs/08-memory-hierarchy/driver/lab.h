/* lab.h — Day 08: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * The probe: a buffer of `count` cache lines in which line i holds the index of the next line
 * to visit. Following it is a chain of dependent loads: the address of each load is the value
 * the previous one returned, so the CPU cannot start a load before the one before it has
 * finished, and the time per load is the latency of whichever level of the memory hierarchy
 * holds the buffer. The order is one random cycle through every line, so that no prefetcher
 * can guess the next address and every line is visited once per pass.
 *
 *   line:   0    1    2    3    4    5          next[] = {3, 5, 4, 1, 0, 2}
 *   next:   3    5    4    1    0    2          0 -> 3 -> 1 -> 5 -> 2 -> 4 -> 0  (one cycle)
 */
#ifndef DAY08_LAB_H
#define DAY08_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One 64-byte cache line (the line size of x86-64 and most Arm cores): each load of the chase
 * touches a line of its own, so a working set of W bytes is W / 64 lines. */
typedef struct chase_line {
    uint32_t next;           /* the index of the line to visit after this one */
    uint32_t unused[15];     /* the rest of the line */
} chase_line;

enum {
    CHASE_LINE_BYTES = 64,
    CHASE_MIN_LOADS = 1 << 17,   /* loads in one timed run: enough that two readings of the clock are a small part
                                    of a run even in L1 (the lab program prints both) */
    CHASE_REPEATS = 7,           /* timed runs; the fastest is the one other programs disturbed least */
};

/* The CPU time this thread has run, in seconds. Unlike a wall clock it stops while the OS runs
 * other programs on this core, so a busy machine does not stretch a timed run; what those
 * programs leave in the caches still counts, which is why the fastest of several short runs is
 * kept. Reading it is a system call on many machines: the lab program prints what it costs here. */
static inline double chase_cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The rise in latency from one working set to the next (a factor of sqrt 2 larger) that counts
 * as steep: 20 %, well above what a best-of-CHASE_REPEATS measurement moves on a busy machine. */
#define KNEE_MIN_RISE 1.2

/* The book's random numbers (splitmix64): the same seed gives the same cycle on every machine. */
static inline uint64_t chase_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* A random whole number in [0, bound), bound >= 1. */
static inline uint32_t chase_random_below(uint64_t *state, uint32_t bound)
{
    return (uint32_t)(chase_random(state) % bound);
}

/* ---- chase.c (yours) ---- */

/* Fills next[0 .. count-1] (count >= 1) with one random cycle through all count lines:
 * starting anywhere and following next[] visits every line once before coming back. Draws its
 * random numbers with chase_random_below, from a state that starts at `seed`. */
void make_random_cycle(uint32_t *next, uint32_t count, uint64_t seed);

/* Follows the chain `loads` times from line `start` and returns the line it ends at. */
uint32_t chase(const chase_line *lines, uint32_t start, uint64_t loads);

/* The latency of one dependent load over this chain of `count` lines, in nanoseconds: one
 * untimed pass over all the lines first, then CHASE_REPEATS timed runs of CHASE_MIN_LOADS loads
 * each, timed with chase_cpu_seconds; the fastest run's time divided by its loads. Between its
 * two readings the clock sees exactly the loads the time is divided by, at every working set,
 * and the timed loads walk the whole working set, not the same stretch of the cycle again. */
double chase_latency_ns(const chase_line *lines, uint32_t count);

/* ---- knees.c (yours) ---- */

/* Reads the levels off a latency curve: working_set_bytes[] ascending, latency_ns[] measured at
 * each. A step from point i to point i+1 is steep when latency rises by KNEE_MIN_RISE or more;
 * neighbouring steep steps are one climb from a level to the next. Each climb gives one knee: the
 * working set at the start of its steepest step (the largest one still fitting the level; of
 * equally steep steps, the first).
 * Writes at most max_knees knees, the first ones, into knees[] and returns how many it wrote. */
int find_knees(const double *working_set_bytes, const double *latency_ns, int points, double *knees, int max_knees);

/* Your prediction, made before the curve is measured: where on a sweep of working_set_bytes[]
 * (ascending) the plateau of a cache of cache_bytes should end, that is the knee find_knees
 * should find there. 0 when the curve shows no end of that plateau: no working set of the sweep
 * fits the cache, or every one does. */
double predict_knee_bytes(size_t cache_bytes, const double *working_set_bytes, int points);

/* ---- os_caches.c (driver): what the operating system says the caches are ---- */

typedef struct cache_level {
    int level;          /* 1, 2, 3 */
    char type[16];      /* "Data" or "Unified" (instruction caches are left out) */
    size_t bytes;
    int cpus_sharing;   /* how many CPUs the OS says share it: 1 for a private cache */
} cache_level;

/* The data and unified caches of CPU 0 from /sys/devices/system/cpu/cpu0/cache/index*, by level.
 * Returns how many were found; 0 with the reason in `why` when the OS does not say. */
int os_cache_levels(cache_level *levels, int max_levels, char *why, size_t why_size);
/* "L1d 32 KiB", "L2 1 MiB", ... */
void cache_level_name(const cache_level *level, char *name, size_t size);

/* ---- chain.c (driver): buffers, chains, sweeps ---- */

/* Room for a chain of max_bytes, 2 MiB aligned and with huge pages asked for (fewer TLB misses,
 * so that the curve shows the caches, where the pages are not split beneath the OS: chain.c).
 * NULL when the memory is not there. */
chase_line *chase_lines_new(size_t max_bytes);
void chase_lines_free(chase_line *lines);
/* Lays your make_random_cycle(seed) over the first `bytes` of lines; returns the line count, or
 * 0 (with a message in why) when the cycle left an entry unwritten or out of range. */
uint32_t chase_lines_fill(chase_line *lines, size_t bytes, uint64_t seed, char *why, size_t why_size);
/* chase_lines_fill, then your chase_latency_ns; NaN (and why) when the chain could not be built. */
double measure_latency_ns(chase_line *lines, size_t bytes, uint64_t seed, char *why, size_t why_size);
/* The working sets of a sweep: from `smallest` up to `largest`, two per doubling (a factor of
 * sqrt 2 apart), each a whole number of lines. Returns how many (at most max_points). */
int sweep_working_sets(double *bytes, int max_points, size_t smallest, size_t largest);

/* ---- bandwidth.c (driver) ---- */

/* GB/s (10^9 bytes a second) of one core reading `bytes` sequentially, again and again: the
 * fastest of 5 runs of at least 4 MiB of reading each, timed with chase_cpu_seconds. Negative
 * when the memory is not there. */
double read_bandwidth_gb_per_s(size_t bytes);

/* ---- gpu_chase.cu (driver): the same chase on a GPU ---- */

typedef struct gpu_chase_run {
    const char *error;                 /* NULL, or the CUDA error the run ended with */
    char device[96];                   /* the GPU's name (the simulator names the GPU it pretends to be) */
    uint32_t end;                      /* the line the chase ended at */
    int counted;                       /* 1 on the simulator: the two counts below are filled */
    unsigned long long load_requests, load_sectors;
    double nanoseconds_per_load;       /* on a real GPU: measured with events; on the simulator -1 */
} gpu_chase_run;

/* Copies `count` lines to the device and has one GPU thread follow `loads` of them from line 0. */
gpu_chase_run gpu_chase(const chase_line *lines, uint32_t count, uint32_t loads);

#ifdef __cplusplus
}
#endif

#endif
