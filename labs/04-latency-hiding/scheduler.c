/* scheduler.c — Day 04: a cycle-by-cycle model of one warp scheduler.
 *
 * What you write today:
 *   simulate_scheduler: N warps share one issue slot. Each cycle the scheduler issues one
 *   instruction from one ready warp, or from none when no warp is ready. A warp issues c
 *   instructions in a row (its round), the c-th being a load; it then waits L cycles and is
 *   ready again (driver/lab.h draws the timeline). Count the cycles that issued, after the warm-up.
 *
 * Rules: plain C; at most one instruction per cycle; the model is deterministic (no rand()).
 * Which warp issues, when several are ready:
 *   - a warp in the middle of its round keeps the slot (both policies): it has independent
 *     math left and nothing to wait for;
 *   - otherwise POLICY_OLDEST_FIRST takes the warp that has been ready the longest (the
 *     earliest cycle its wait ended; ties go to the lower warp number), and
 *     POLICY_ROUND_ROBIN the next ready warp after the one that issued last (warp N-1 is
 *     followed by warp 0; before anything has issued, the search starts at warp 0).
 *
 * Check:  make check DAY=04        Stuck?  make hint DAY=04
 */
#include "lab.h"

#include <stdlib.h>

/* The warp that issues at cycle `now`, or -1 if none is ready. `running` is the warp in the
 * middle of its round (-1 if none), `last` the warp that issued last (-1 before any). */
static int pick_warp(const scheduler_config *config, const long long *ready_at, long long now, int running,
                     int last)
{
    // TODO: a warp in the middle of its round issues again. Otherwise, among the warps with
    //       ready_at[w] <= now: for POLICY_OLDEST_FIRST the one with the smallest ready_at (the
    //       lower number on ties); for POLICY_ROUND_ROBIN the first one found counting up from
    //       last + 1, wrapping from warp N-1 to warp 0. Return -1 if no warp is ready.
    (void)config, (void)ready_at, (void)now, (void)running, (void)last;
    return -1;
}

scheduler_result simulate_scheduler(const scheduler_config *config, int *issued_by)
{
    scheduler_result result = {0, config->measured_cycles, 0.0};
    // TODO: 1. State for each warp: the first cycle it may issue (ready_at: from
    //          config->first_ready, or latency_cycles for every warp when that is NULL) and the
    //          instructions left in its round (math_cycles).
    //       2. For each cycle now = 0 ... warmup_cycles + measured_cycles - 1: pick_warp. If a
    //          warp issues, count the cycle when now >= warmup_cycles, and take one instruction
    //          off its round; after its c-th (the load) it may issue again at now + 1 + L, and
    //          its next round has c instructions again. Keep two variables for pick_warp:
    //          `running` (the warp in mid-round; -1 once its round ends) and `last` (the warp
    //          that issued last). Record the warp (or -1) in issued_by[now] when issued_by is
    //          not NULL.
    //       3. utilisation = issued_cycles / measured_cycles. Free what you allocated.
    (void)issued_by, (void)pick_warp;
    return result;
}
