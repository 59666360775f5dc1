/* knees.c — Day 08: the levels of the memory hierarchy, read off a latency curve and predicted.
 *
 * What you write today:
 *   1. find_knees: where each plateau of a measured latency curve ends.
 *   2. predict_knee_bytes: before measuring, where the plateau of a cache of a given size should
 *      end on the sweep. The lab program and latency/knees_match_the_os set your prediction for
 *      each cache the OS reports beside the knees find_knees reads off your curve.
 *
 * Rules: plain C; read the arrays, write only knees[0 .. max_knees-1]. The contracts are in
 * driver/lab.h.
 *
 * Check:  make check DAY=08        Stuck?  make hint DAY=08
 */
#include "lab.h"

int find_knees(const double *working_set_bytes, const double *latency_ns, int points, double *knees, int max_knees)
{
    // TODO Task: one knee per climb of the curve, from one level to the next, in order; return how many.
    // Contract: a step (point i to i+1) is steep when latency rises by a factor of KNEE_MIN_RISE or
    //   more; steep steps side by side are one climb; the knee is the working set where the climb's
    //   steepest step starts (of equally steep steps, the first). At most max_knees, the first ones.
    // Idea: a rise is judged as a ratio: 2 ns is a new level at 1 ns and noise at 100 ns.
    (void)working_set_bytes, (void)latency_ns, (void)points, (void)knees, (void)max_knees;
    return 0;
}

double predict_knee_bytes(size_t cache_bytes, const double *working_set_bytes, int points)
{
    // TODO Task: the working set of the sweep at which the plateau of a cache of cache_bytes ends.
    // Contract: working_set_bytes[0 .. points-1] ascending, in bytes; return one of them, or 0
    //   when the sweep shows no end of that plateau (none of its working sets fits, or all do).
    // Idea: a working set runs at the latency of the smallest level that holds all of it.
    (void)cache_bytes, (void)working_set_bytes, (void)points;
    return 0;
}
