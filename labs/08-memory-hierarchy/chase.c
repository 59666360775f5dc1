/* chase.c — Day 08: a pointer-chasing probe of the memory hierarchy.
 *
 * What you write today:
 *   1. make_random_cycle: one random cycle through all `count` lines (Sattolo's algorithm), so
 *      that no prefetcher can guess the next line and a pass visits every line once.
 *   2. chase: follow the chain — each load's address is the value the previous load returned.
 *   3. chase_latency_ns: time enough dependent loads that the clock's own cost does not count,
 *      and return the nanoseconds one load takes.
 *
 * Rules: plain C; random numbers only from chase_random_below, the clock only from
 * chase_cpu_seconds (both in lab.h). Write next[0 .. count-1] and nothing else.
 *
 * Check:  make check DAY=08        Stuck?  make hint DAY=08
 */
#include "lab.h"

void make_random_cycle(uint32_t *next, uint32_t count, uint64_t seed)
{
    // TODO: start from next[i] = i, then shuffle so that the result is ONE cycle through all lines.
    // Fisher-Yates (swap slot i with any slot j <= i) gives a random permutation, but one made of
    // many small cycles; which one-character change makes every swap close the cycle instead?
    // Draw j with chase_random_below(&state, ...), the state starting at seed.
    (void)next, (void)count, (void)seed;
}

uint32_t chase(const chase_line *lines, uint32_t start, uint64_t loads)
{
    // TODO: `loads` times, go to the line the current line names. Each load's address must be the
    // value the previous load returned: that dependence is what makes the time per load a latency.
    (void)lines, (void)loads;
    return start;
}

double chase_latency_ns(const chase_line *lines, uint32_t count)
{
    // TODO: one untimed pass over all `count` lines; then CHASE_REPEATS timed runs of
    // CHASE_MIN_LOADS loads each (chase_cpu_seconds before and after), every run going on from
    // where the last one ended; keep the fastest. Return nanoseconds per load. Store where the chase ended in a file-scope
    // `static volatile uint32_t`: a result nobody uses lets the compiler delete the whole loop.
    (void)lines, (void)count;
    return 0;
}
