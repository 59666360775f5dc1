/* knees.c — Day 08: reading the levels of the memory hierarchy off a latency curve.
 *
 * What you write today: find_knees. Walk the curve step by step (point i to point i+1). A step is
 * steep when the latency rises by a factor of KNEE_MIN_RISE or more. Steep steps side by side are
 * one climb, from one level to the next: report one knee per climb, at the working set where its
 * steepest step starts (the largest working set that still fits the level below the climb).
 *
 * Rules: plain C. Compare ratios, not differences: a 2 ns rise is a new level at 1 ns and noise
 * at 100 ns. Write at most max_knees knees.
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
