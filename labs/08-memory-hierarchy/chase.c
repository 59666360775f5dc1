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

void make_random_cycle(uint32_t *next, uint32_t count, uint64_t seed)
{
    // TODO Task: an order of the `count` lines, written as next[line] = the line visited after it.
    // Contract: count >= 1; following next[] from any line visits every line once and comes back
    //   (one cycle); the order is random, drawn with chase_random_below from a state that starts
    //   at `seed`, so one seed gives one cycle on every machine.
    // Idea: a shuffle that lets no line stay where it is makes one cycle; one that does, several.
    (void)next, (void)count, (void)seed;
}

uint32_t chase(const chase_line *lines, uint32_t start, uint64_t loads)
{
    // TODO Task: follow the chain `loads` times from line `start`; return the line it ends at.
    // Contract: 0 loads end where they start; every load reads lines[at].next.
    // Idea: each load's address is the value the last one returned, so only one is ever in
    //   flight and the time per load is the latency of the level that holds the lines.
    (void)lines, (void)loads;
    return start;
}

double chase_latency_ns(const chase_line *lines, uint32_t count)
{
    // TODO Task: the nanoseconds one dependent load takes over this chain of `count` lines.
    // Contract (lab.h): one untimed pass over every line, then CHASE_REPEATS timed runs of
    //   CHASE_MIN_LOADS loads, the fastest kept. The clock must see exactly the loads you divide
    //   by, at 256 MiB as at 16 KiB, and the runs must walk the whole working set.
    // Idea: many loads between two readings of the clock, fastest of several: the clock's own
    //   cost and other programs drop out, the memory's latency stays.
    // Warning: a result nobody uses lets the compiler delete the loop you are timing.
    (void)lines, (void)count;
    return 0;
}
