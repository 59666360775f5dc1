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
    if (running >= 0) return running;   // mid-round: its next instruction is ready now
    int chosen = -1;
    if (config->policy == POLICY_OLDEST_FIRST) {
        for (int w = 0; w < config->warps; w++)
            if (ready_at[w] <= now && (chosen < 0 || ready_at[w] < ready_at[chosen])) chosen = w;
    } else {
        for (int step = 1; step <= config->warps && chosen < 0; step++) {
            int w = (last + step) % config->warps;   // last = -1 starts the search at warp 0
            if (ready_at[w] <= now) chosen = w;
        }
    }
    return chosen;
}

scheduler_result simulate_scheduler(const scheduler_config *config, int *issued_by)
{
    int warps = config->warps, c = config->math_cycles, latency = config->latency_cycles;
    long long total = config->warmup_cycles + config->measured_cycles;
    long long *ready_at = malloc(sizeof(long long) * warps);   // first cycle each warp may issue
    int *left = malloc(sizeof(int) * warps);                   // instructions left in its round
    for (int w = 0; w < warps; w++) {
        ready_at[w] = config->first_ready ? config->first_ready[w] : latency;
        left[w] = c;
    }

    scheduler_result result = {0, config->measured_cycles, 0.0};
    int running = -1, last = -1;
    for (long long now = 0; now < total; now++) {
        int w = pick_warp(config, ready_at, now, running, last);
        if (w >= 0) {
            if (now >= config->warmup_cycles) result.issued_cycles++;
            last = w;
            running = w;
            if (--left[w] == 0) {             // the load: wait cycles now+1 ... now+L
                left[w] = c;
                ready_at[w] = now + 1 + latency;
                running = -1;
            }
        }
        if (issued_by) issued_by[now] = w;
    }
    if (result.measured_cycles > 0) result.utilisation = (double)result.issued_cycles / result.measured_cycles;
    free(ready_at), free(left);
    return result;
}
