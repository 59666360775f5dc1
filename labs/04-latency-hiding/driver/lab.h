/* lab.h — Day 04: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * The model: one warp scheduler, N resident warps, one instruction issued per cycle at most.
 * Each warp repeats a round forever: it issues c instructions (math), and its c-th
 * instruction is a load whose result it needs next, so it then waits L cycles for memory
 * before it can issue again.
 *
 *   cycle t        the warp issues its c-th instruction (the load)
 *   t+1 ... t+L    the L cycles of its memory wait: it cannot issue
 *   t+L+1          the first cycle it may issue again
 *
 * So one warp alone issues c of every c + L cycles. */
#ifndef DAY04_LAB_H
#define DAY04_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scheduler.c (yours): the cycle-by-cycle model ---- */

/* Which ready warp gets the issue slot. Both keep issuing from a warp for as long as it is
 * ready (until its c-th instruction starts its wait); they differ only in whom they pick
 * when the warp that issued last can no longer issue. */
enum {
    POLICY_OLDEST_FIRST = 0,   /* the warp that has been ready the longest; ties: the lower warp number */
    POLICY_ROUND_ROBIN = 1,    /* the next ready warp after the one that issued last, in warp order */
};

typedef struct scheduler_config {
    int warps;                      /* N >= 1: warps resident on the scheduler */
    int math_cycles;                /* c >= 1: instructions a warp issues per round, the last being its load */
    int latency_cycles;             /* L >= 0: cycles a warp waits after its c-th instruction */
    int policy;                     /* POLICY_OLDEST_FIRST or POLICY_ROUND_ROBIN */
    const long long *first_ready;   /* first_ready[w]: the first cycle warp w may issue. NULL: every warp
                                       starts by waiting for its first load, so all may first issue at cycle L */
    long long warmup_cycles;        /* simulated first and not counted */
    long long measured_cycles;      /* simulated next and counted */
} scheduler_config;

typedef struct scheduler_result {
    long long issued_cycles;        /* cycles of the measured window in which an instruction was issued */
    long long measured_cycles;      /* the measured window's length */
    double utilisation;             /* issued_cycles / measured_cycles; 0 for an empty window */
} scheduler_result;

/* Runs warmup_cycles + measured_cycles cycles of the model. When issued_by is not NULL it has
 * warmup_cycles + measured_cycles elements, and issued_by[t] becomes the warp that issued at
 * cycle t, or -1 when none did. */
scheduler_result simulate_scheduler(const scheduler_config *config, int *issued_by);

/* ---- formulas.c (yours): the closed form and Little's law ---- */

/* min(1, N c / (c + L)): the long-run utilisation the simulation should reach. */
double utilisation_closed_form(int warps, int math_cycles, int latency_cycles);
/* (c + L) / c: the warps at which the closed form reaches 1 (the knee). */
double knee_warps(int math_cycles, int latency_cycles);
/* The fewest whole warps that keep the scheduler busy every cycle. */
int warps_to_hide_latency(int math_cycles, int latency_cycles);

/* Little's law: bytes that must be in flight to sustain a bandwidth across a latency.
 * GB/s times ns is bytes. */
double bytes_in_flight(double bandwidth_gb_per_s, double latency_ns);
/* Little's law the other way: the bandwidth that bytes_in_flight bytes sustain across a
 * latency, capped at the memory's peak. */
double bandwidth_from_bytes_in_flight(double bytes, double latency_ns, double peak_gb_per_s);
/* Warps per SM needed to keep bytes_in_flight(bandwidth, latency) in flight, when each warp has
 * bytes_per_warp in flight and the GPU has sms SMs; a whole number of warps. */
int warps_per_sm_for_bandwidth(double bandwidth_gb_per_s, double latency_ns, int sms, int bytes_per_warp);

#ifdef __cplusplus
}
#endif

#endif
