/* chase.c — Day 08: a pointer-chasing probe of the memory hierarchy.
 *
 * What you write today:
 *   1. make_random_cycle: the order in which the chase visits the lines of a working set.
 *   2. chase: the walk itself, one dependent load after another.
 *   3. chase_latency_ns: the time one of those loads takes, in nanoseconds.
 * The driver lays your cycle into 64-byte lines and calls chase_latency_ns once per working set,
 * from 4 KiB to 256 MiB. The contracts are in driver/lab.h.
 *
 * Rules: plain C; random numbers only from chase_random_below, the clock only from
 * chase_cpu_seconds (both in lab.h). Write next[0 .. count-1] and nothing else.
 *
 * Check:  make check DAY=08        Stuck?  make hint DAY=08
 */
#include "lab.h"

#include <math.h>

static volatile uint32_t sink;   /* where the chase ends, stored so the compiler must do the loads */

void make_random_cycle(uint32_t *next, uint32_t count, uint64_t seed)
{
    uint64_t state = seed;
    if (count == 0) return;
    for (uint32_t i = 0; i < count; i++) next[i] = i;
    /* Sattolo: swap each slot with one strictly below it, so no line can end up pointing at itself
     * and the permutation is a single cycle (Fisher-Yates' j <= i makes many small cycles). */
    for (uint32_t i = count - 1; i > 0; i--) {
        uint32_t j = chase_random_below(&state, i);
        uint32_t t = next[i];
        next[i] = next[j], next[j] = t;
    }
}

uint32_t chase(const chase_line *lines, uint32_t start, uint64_t loads)
{
    uint32_t at = start;
    for (uint64_t k = 0; k < loads; k++) at = lines[at].next;   /* the next address is this load's value */
    return at;
}

double chase_latency_ns(const chase_line *lines, uint32_t count)
{
    uint32_t at = chase(lines, 0, count);   /* untimed: brings into the caches what fits there */
    double best = INFINITY;
    for (int run = 0; run < CHASE_REPEATS; run++) {
        double start = chase_cpu_seconds();
        at = chase(lines, at, CHASE_MIN_LOADS);   /* on from where the last run ended: the whole cycle */
        best = fmin(best, chase_cpu_seconds() - start);
    }
    sink = at;
    return best / CHASE_MIN_LOADS * 1e9;
}
