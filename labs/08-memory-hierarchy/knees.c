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
    // TODO: for each step i -> i+1, rise = latency_ns[i + 1] / latency_ns[i]. While the steps are
    // steep, remember the steepest one; when a climb ends (a step that is not steep, or the end of
    // the curve), write working_set_bytes[start of its steepest step] as a knee, if there is room.
    (void)working_set_bytes, (void)latency_ns, (void)points, (void)knees, (void)max_knees;
    return 0;
}
