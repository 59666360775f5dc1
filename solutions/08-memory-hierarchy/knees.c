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
    int found = 0;
    int steepest = -1;          /* the steepest step of the climb in progress; -1: not climbing */
    double steepest_rise = 0;
    for (int i = 0; i + 1 < points; i++) {
        double rise = latency_ns[i + 1] / latency_ns[i];
        if (rise >= KNEE_MIN_RISE) {
            if (steepest < 0 || rise > steepest_rise) steepest = i, steepest_rise = rise;
            continue;
        }
        if (steepest >= 0 && found < max_knees) knees[found++] = working_set_bytes[steepest];
        steepest = -1;          /* the climb is over */
    }
    if (steepest >= 0 && found < max_knees) knees[found++] = working_set_bytes[steepest];   /* a climb at the end */
    return found;
}

double predict_knee_bytes(size_t cache_bytes, const double *working_set_bytes, int points)
{
    int fitting = 0;            /* the working sets, from the smallest, that the cache holds whole */
    while (fitting < points && working_set_bytes[fitting] <= (double)cache_bytes) fitting++;
    /* The plateau ends at the last one that fits; the next one spills into the level below. */
    return fitting == 0 || fitting == points ? 0 : working_set_bytes[fitting - 1];
}
