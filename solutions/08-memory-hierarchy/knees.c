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

/* How much latency rises over step i, from point i to point i + 1, as a factor. */
static double rise(const double *latency_ns, int i) { return latency_ns[i + 1] / latency_ns[i]; }

int find_knees(const double *working_set_bytes, const double *latency_ns, int points, double *knees, int max_knees)
{
    int found = 0;
    for (int i = 0; i + 1 < points; i++) {
        if (rise(latency_ns, i) < KNEE_MIN_RISE) continue;
        int steepest = i;   /* a climb starts at step i and goes on while the next step is steep too */
        while (i + 2 < points && rise(latency_ns, i + 1) >= KNEE_MIN_RISE)
            if (rise(latency_ns, ++i) > rise(latency_ns, steepest)) steepest = i;
        if (found < max_knees) knees[found++] = working_set_bytes[steepest];
    }
    return found;
}

double predict_knee_bytes(size_t cache_bytes, const double *working_set_bytes, int points)
{
    int fitting = 0;            /* the working sets, from the smallest, that the cache holds whole */
    while (fitting < points && working_set_bytes[fitting] <= (double)cache_bytes) fitting++;
    /* The plateau ends at the last one that fits; the next one spills into the level below. */
    return fitting == 0 || fitting == points ? 0 : working_set_bytes[fitting - 1];
}
