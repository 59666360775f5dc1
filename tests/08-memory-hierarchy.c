/* 08-memory-hierarchy.c — the checks for day 08: the cycle is one random cycle through every line
 * (exact for tiny counts, walked for larger ones, no stride a prefetcher could follow, decided by
 * the seed); the chase follows the chain; on the simulator the same chase on the GPU side counts
 * one request and one sector per load. Then on this CPU, timed: the latency your probe reports
 * agrees with a stopwatch around your chase, memory far beyond the caches is far slower than L1,
 * the latency never falls as the working set grows, and the knees your find_knees reads off the
 * curve sit at the cache sizes the OS reports. find_knees is also checked on made-up curves whose
 * knees are known exactly.
 *
 * Every timed check compares times measured side by side in one run, takes the best of several
 * runs and leaves margins a busy neighbour cannot cross; none asserts an absolute speed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "lab.h"

enum { GUARD = 16, MAX_POINTS = 64, MAX_LEVELS = 8, MAX_KNEES = 32 };
static const uint32_t POISON = 0xffffffffu;

/* "48 KiB", "1.4 MiB" */
static const char *size_text(double bytes, char *text, size_t size)
{
    if (bytes >= (1 << 20)) snprintf(text, size, "%.3g MiB", bytes / (1 << 20));
    else snprintf(text, size, "%.3g KiB", bytes / 1024);
    return text;
}

/* Runs make_random_cycle on a poisoned array with GUARD poisoned entries after it, and checks that
 * exactly next[0 .. count-1] were written, each inside 0 .. count-1. */
static uint32_t *checked_cycle(uint32_t count, uint64_t seed)
{
    uint32_t *next = malloc(sizeof(uint32_t) * (count + GUARD));
    cr_assert(next != NULL);
    lab_poison(next, sizeof(uint32_t) * (count + GUARD));
    make_random_cycle(next, count, seed);
    for (uint32_t g = 0; g < GUARD; g++)
        cr_assert(next[count + g] == POISON, "make_random_cycle(count = %u) wrote next[%u], past the end of the "
                  "array: write next[0 .. count-1] only", count, count + g);
    for (uint32_t i = 0; i < count; i++) {
        cr_assert(next[i] != POISON, "make_random_cycle(count = %u, seed = %llu) never wrote next[%u]", count,
                  (unsigned long long)seed, i);
        cr_assert(next[i] < count, "make_random_cycle(count = %u) wrote next[%u] = %u: every entry must name a "
                  "line, 0 .. %u", count, i, next[i], count - 1);
    }
    return next;
}

/* ------------------------------------------------------------------------------------------
 * The cycle */

#define HINT_CYCLE "Following next[] from any line must visit every line once and come back: ONE cycle. " \
                   "Shuffling with Fisher-Yates gives a random permutation, which is usually several cycles; " \
                   "Sattolo's variant of it gives a single one (see the hints)."

Test(cycle, tiny_counts_exact, .timeout = 5, .description = HINT_CYCLE)
{
    uint32_t *one = checked_cycle(1, 3);
    cr_assert(one[0] == 0, "count = 1: next[0] = %u, want 0 (the only line leads back to itself)", one[0]);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        uint32_t *two = checked_cycle(2, seed);
        cr_assert(two[0] == 1 && two[1] == 0, "count = 2, seed = %llu: next = {%u, %u}, want {1, 0}: the only cycle "
                  "through two lines (a line that points at itself is a cycle of one)", (unsigned long long)seed,
                  two[0], two[1]);
        free(two);
    }
    free(one);
}

Test(cycle, one_cycle_through_all, .timeout = 10, .description = HINT_CYCLE)
{
    const uint32_t counts[] = {3, 5, 64, 1000, 65537};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint32_t count = counts[c], *next = checked_cycle(count, seed);
            unsigned char *seen = calloc(count, 1);
            uint32_t at = 0, steps = 0;
            do {
                cr_assert(!seen[at], "count = %u, seed = %llu: from line 0 the chain comes back to line %u after %u "
                          "steps, without visiting the other %u lines: more than one cycle", count,
                          (unsigned long long)seed, at, steps, count - steps);
                seen[at] = 1;
                at = next[at];
                steps++;
            } while (at != 0);
            cr_assert(steps == count, "count = %u, seed = %llu: from line 0 the chain comes back after %u steps, "
                      "visiting %u of the %u lines: the rest are on other cycles, which the chase never reaches",
                      count, (unsigned long long)seed, steps, steps, count);
            free(seen), free(next);
        }
}

Test(cycle, not_sequential, .timeout = 5,
     .description = "The order must be random: a chain that walks the lines in order (or backwards, or with any "
                    "fixed stride) is exactly what a hardware prefetcher recognises, and it fetches the next lines "
                    "before they are asked for, hiding the latency you set out to measure.")
{
    enum { COUNT = 4096 };
    uint32_t *next = checked_cycle(COUNT, 5);
    uint32_t *steps = calloc(COUNT, sizeof(uint32_t));   /* how often each step next[i] - i occurs */
    uint32_t most = 0, most_step = 0;
    for (uint32_t i = 0; i < COUNT; i++) {
        uint32_t step = (next[i] + COUNT - i) % COUNT;
        if (++steps[step] > most) most = steps[step], most_step = step;
    }
    cr_assert(most <= COUNT / 100, "count = %d: %u of the %d lines point %u lines ahead (next[i] = i + %u, modulo "
              "%d): a pattern a prefetcher follows; in a random cycle no step is much more common than 1 in %d",
              COUNT, most, COUNT, most_step, most_step, COUNT, COUNT);
    free(steps), free(next);
}

Test(cycle, seed_decides_the_cycle, .timeout = 5,
     .description = "The cycle comes from chase_random_below, drawn from a state that starts at the seed: the same "
                    "seed gives the same cycle on every run and every machine, another seed another cycle.")
{
    enum { COUNT = 1000 };
    uint32_t *a = checked_cycle(COUNT, 11), *b = checked_cycle(COUNT, 11), *c = checked_cycle(COUNT, 12);
    cr_assert(memcmp(a, b, sizeof(uint32_t) * COUNT) == 0, "count = %d: seed 11 gave two different cycles: draw "
              "every random number with chase_random_below from a state that starts at the seed", COUNT);
    cr_assert(memcmp(a, c, sizeof(uint32_t) * COUNT) != 0, "count = %d: seeds 11 and 12 gave the same cycle: the "
              "seed must decide the cycle", COUNT);
    free(a), free(b), free(c);
}

/* ------------------------------------------------------------------------------------------
 * The chase */

Test(chase, follows_the_chain, .timeout = 5,
     .description = "chase makes exactly `loads` loads, each from the line the previous load named, and returns "
                    "the line it ends at: after 0 loads, where it started.")
{
    enum { COUNT = 16 };
    chase_line lines[COUNT];
    memset(lines, 0, sizeof lines);
    for (uint32_t i = 0; i < COUNT; i++) lines[i].next = (5 * i + 3) % COUNT;
    const uint32_t starts[] = {0, 7};
    const uint64_t loads[] = {0, 1, 2, 5, 16, 1001};
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < 6; l++) {
            uint32_t want = starts[s];
            for (uint64_t k = 0; k < loads[l]; k++) want = lines[want].next;
            uint32_t got = chase(lines, starts[s], loads[l]);
            cr_assert(got == want, "chase(start = %u, loads = %llu) over next[i] = (5 i + 3) mod 16 ended at line "
                      "%u, want %u", starts[s], (unsigned long long)loads[l], got, want);
        }
}

Test(chase, gpu_one_sector_per_load, .timeout = 20,
     .description = "Counted on the simulator: one GPU thread chasing your cycle makes one global load request per "
                    "load, and each touches one 32-byte sector (4 bytes used). The thread must end on the line the "
                    "CPU chase ends on.")
{
    enum { COUNT = 256, LOADS = 600 };
    chase_line *lines = chase_lines_new((size_t)COUNT * CHASE_LINE_BYTES);
    char why[256];
    uint32_t count = chase_lines_fill(lines, (size_t)COUNT * CHASE_LINE_BYTES, 4, why, sizeof why);
    cr_assert(count == COUNT, "%s", why);
    gpu_chase_run run = gpu_chase(lines, count, LOADS);
    cr_assert(run.error == NULL, "the GPU chase ended with the CUDA error \"%s\"", run.error);
    uint32_t want = chase(lines, 0, LOADS);
    cr_assert(run.end == want, "the GPU thread ended at line %u after %d loads of your cycle, the CPU chase at line "
              "%u (chase/follows_the_chain checks chase)", run.end, LOADS, want);
    if (!run.counted) cr_skip("counted only on the simulator; on a GPU, ncu counts l1tex__t_requests and sectors");
    cr_assert(run.load_requests == LOADS && run.load_sectors == LOADS, "%d dependent loads by one thread: counted %llu "
              "requests and %llu sectors, want %d of each", LOADS, run.load_requests, run.load_sectors, LOADS);
    chase_lines_free(lines);
}

/* ------------------------------------------------------------------------------------------
 * Timed on this CPU */

/* The largest working set the timed checks use: twice the largest cache the OS reports, at least
 * 64 MiB and at most 256 MiB, so that memory is reached and the sweep stays affordable. */
static size_t largest_working_set(void)
{
    cache_level levels[MAX_LEVELS];
    char why[256];
    int count = os_cache_levels(levels, MAX_LEVELS, why, sizeof why);
    size_t largest = (size_t)64 << 20;
    if (count > 0 && 2 * levels[count - 1].bytes > largest) largest = 2 * levels[count - 1].bytes;
    return largest < ((size_t)256 << 20) ? largest : (size_t)256 << 20;
}

static double measured(chase_line *lines, double bytes, uint64_t seed)
{
    char why[256];
    double latency = measure_latency_ns(lines, (size_t)bytes, seed, why, sizeof why);
    cr_assert(!isnan(latency), "%s (cycle/one_cycle_through_all checks make_random_cycle)", why);
    cr_assert(latency > 0 && isfinite(latency), "chase_latency_ns returned %g ns over a %.0f-byte working set: it "
              "should be the time of one load", latency, bytes);
    return latency;
}

/* The latency curve from 4 KiB to largest_working_set(), two points per doubling. */
static int sweep(chase_line **lines, double *bytes, double *latency)
{
    size_t largest = largest_working_set();
    int points = sweep_working_sets(bytes, MAX_POINTS, 4 << 10, largest);
    *lines = chase_lines_new(largest);
    cr_assert(*lines != NULL, "no memory for a %zu MiB buffer", largest >> 20);
    for (int i = 0; i < points; i++) latency[i] = measured(*lines, bytes[i], 100 + (uint64_t)i);
    return points;
}

Test(latency, agrees_with_a_stopwatch, .timeout = 20,
     .description = "chase_latency_ns should report nanoseconds per load: the fastest of several long runs "
                    "divided by the loads in one run. Time many loads between two readings of the clock, never one "
                    "load at a time (reading the clock costs more than an L1 hit), and check the units.")
{
    enum { COUNT = 256, STRIDE = 97, STOPWATCH_LOADS = 1 << 20 };   /* 16 KiB: in L1 on any CPU */
    chase_line *lines = chase_lines_new((size_t)COUNT * CHASE_LINE_BYTES);
    for (uint32_t i = 0; i < COUNT; i++) lines[i].next = (i + STRIDE) % COUNT;   /* one cycle: 97 is odd */
    cr_assert(chase(lines, 0, COUNT) == 0, "chase is not right yet: see chase/follows_the_chain");
    double stopwatch = 1e30;
    for (int run = 0; run < 5; run++) {
        double start = chase_cpu_seconds();
        uint32_t end = chase(lines, run, STOPWATCH_LOADS);
        double elapsed = chase_cpu_seconds() - start;
        cr_assert(end < COUNT);
        if (elapsed < stopwatch) stopwatch = elapsed;
    }
    stopwatch = stopwatch / STOPWATCH_LOADS * 1e9;
    double got = chase_latency_ns(lines, COUNT);
    cr_assert(got > 0 && isfinite(got), "chase_latency_ns over a 16 KiB chain returned %g ns; a stopwatch around "
              "your chase measures %.2f ns per load", got, stopwatch);
    double ratio = got / stopwatch;
    cr_assert(ratio >= 0.67 && ratio <= 1.5, "chase_latency_ns over a 16 KiB chain (in L1) returned %.3f ns per "
              "load; a stopwatch around %d of your chase's loads measures %.3f ns, %.2f times less. %s", got,
              STOPWATCH_LOADS, stopwatch, ratio,
              ratio > 1000 ? "Microseconds or milliseconds? Seconds for every load together?"
              : ratio > 1.5 ? "Is the clock read around every load, or a few loads, so that its own cost counts?"
              : ratio < 1e-3 ? "Seconds, or time per pass rather than per load?"
              : "Is the time divided by the loads of one run, and are the loads done (the result kept)?");
    chase_lines_free(lines);
}

Test(latency, memory_far_slower_than_l1, .timeout = 30,
     .description = "A working set far larger than every cache must come from memory, ten and more times slower "
                    "than L1. If it does not, the loads are not waiting for memory: the order is one a prefetcher "
                    "follows (not random), or the loads do not depend on each other.")
{
    size_t largest = largest_working_set();
    chase_line *lines = chase_lines_new(largest);
    cr_assert(lines != NULL, "no memory for a %zu MiB buffer", largest >> 20);
    double l1 = measured(lines, 16 << 10, 1), far = measured(lines, (double)largest, 2);
    cr_assert(far >= 10 * l1, "your chase takes %.2f ns per load over 16 KiB (in L1) and %.2f ns over %zu MiB, far "
              "beyond the caches: only %.1f times slower. Main memory is ten and more times slower than L1, unless "
              "the hardware fetches the lines ahead: is the cycle in random order (cycle/not_sequential)?", l1, far,
              largest >> 20, far / l1);
    chase_lines_free(lines);
}

#define FALL 0.8   /* a fall of more than 20 % is more than noise */
enum { RETRIES = 8 };

Test(latency, never_falls, .timeout = 60,
     .description = "A larger working set never fits a faster level, so latency may only stay flat or rise as it "
                    "grows. A fall means the chase does not touch the whole working set (is the cycle one cycle "
                    "through every line?) or that small runs are inflated by the clock's cost.")
{
    chase_line *lines;
    double bytes[MAX_POINTS], latency[MAX_POINTS];
    char a[32], b[32];
    int points = sweep(&lines, bytes, latency);
    for (int i = 0; i + 1 < points; i++) {
        /* Other programs only ever slow a measurement down (they take the shared cache, the memory bus):
         * a fall means the smaller working set was slowed. Measure it again, spread over a second so
         * that a neighbour's burst can pass, keeping the best. */
        for (int retry = 0; retry < RETRIES && latency[i + 1] < FALL * latency[i]; retry++) {
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
            latency[i] = fmin(latency[i], measured(lines, bytes[i], 200 + (uint64_t)retry));
        }
        cr_assert(latency[i + 1] >= FALL * latency[i], "latency fell from %.2f ns at %s to %.2f ns at %s (%.0f%% "
                  "lower; the smaller working set measured %d times): a larger working set cannot be served faster",
                  latency[i],
                  size_text(bytes[i], a, sizeof a), latency[i + 1], size_text(bytes[i + 1], b, sizeof b),
                  100 * (1 - latency[i + 1] / latency[i]), RETRIES + 1);
    }
    chase_lines_free(lines);
}

Test(latency, knees_match_the_os, .timeout = 60,
     .description = "Each cache the OS reports should show as a knee in your curve, within a factor of 2 of its "
                    "size (a quarter to twice, for a last level shared with other cores, whose share of it you "
                    "do not control). find_knees is checked on made-up curves in the knees suite first.")
{
    cache_level levels[MAX_LEVELS];
    char why[256];
    int level_count = os_cache_levels(levels, MAX_LEVELS, why, sizeof why);
    if (level_count == 0) cr_skip("%s: nothing to compare your knees with", why);
    chase_line *lines;
    double bytes[MAX_POINTS], latency[MAX_POINTS], knees[MAX_KNEES];
    int points = sweep(&lines, bytes, latency);
    int found = find_knees(bytes, latency, points, knees, MAX_KNEES);

    char curve[1024] = "", knee_list[512] = "", a[32];
    for (int i = 0, used = 0; i < points && used < (int)sizeof curve - 40; i++)
        used += snprintf(curve + used, sizeof curve - used, "%s%s %.1f", i ? ", " : "", size_text(bytes[i], a, sizeof a),
                         latency[i]);
    for (int k = 0, used = 0; k < found && k < MAX_KNEES && used < (int)sizeof knee_list - 40; k++)
        used += snprintf(knee_list + used, sizeof knee_list - used, "%s%s", k ? ", " : "",
                         size_text(knees[k], a, sizeof a));
    cr_assert(found <= 2 * level_count + 1, "find_knees found %d knees (%s) for the %d caches the OS reports: a knee "
              "is one per climb from a level to the next, not one per steep step. Curve (ns): %s", found, knee_list,
              level_count, curve);
    for (int l = 0; l < level_count; l++) {
        int last_shared = l == level_count - 1 && levels[l].cpus_sharing > 1;
        double low = (double)levels[l].bytes / (last_shared ? 4 : 2), high = 2.0 * (double)levels[l].bytes;
        int matched = 0;
        for (int k = 0; k < found; k++) matched |= knees[k] >= low * 0.9999 && knees[k] <= high * 1.0001;
        char name[64], lo[32], hi[32];
        cache_level_name(&levels[l], name, sizeof name);
        if (!matched && last_shared)
            cr_skip("the OS reports %s, shared with %d CPUs, but no knee lies between %s and %s: other programs "
                    "probably held most of it during this run (your knees: %s; curve, ns: %s). Check again when "
                    "the machine is quiet; the private levels matched.", name, levels[l].cpus_sharing,
                    size_text(low, lo, sizeof lo), size_text(high, hi, sizeof hi), found ? knee_list : "none", curve);
        cr_assert(matched, "the OS reports %s, but none of your knees (%s) lies between %s and %s. Your curve (ns): "
                  "%s", name, found ? knee_list : "none", size_text(low, lo, sizeof lo), size_text(high, hi, sizeof hi),
                  curve);
    }
    chase_lines_free(lines);
}

/* ------------------------------------------------------------------------------------------
 * find_knees on made-up curves: two points per doubling from 4 KiB, as the sweep measures */

enum { CURVE_POINTS = 29 };   /* 4 KiB .. 64 MiB */

static void curve_sizes(double *bytes) { sweep_working_sets(bytes, CURVE_POINTS, 4 << 10, (size_t)64 << 20); }

/* find_knees with a poisoned output and GUARD poisoned slots after the max_knees it may write. */
static int checked_knees(const double *bytes, const double *latency, int points, double *knees, int max_knees)
{
    lab_poison(knees, sizeof(double) * (size_t)(max_knees + GUARD));
    int found = find_knees(bytes, latency, points, knees, max_knees);
    cr_assert(found >= 0 && found <= max_knees, "find_knees returned %d; it may write 0 .. max_knees = %d knees",
              found, max_knees);
    for (int g = 0; g < GUARD; g++) {
        double slot = knees[max_knees + g];
        uint64_t bits;
        memcpy(&bits, &slot, sizeof bits);
        cr_assert(bits == UINT64_MAX, "find_knees(max_knees = %d) wrote knees[%d], past the room it was given",
                  max_knees, max_knees + g);
    }
    return found;
}

static void assert_knees(const char *curve, const double *knees, int found, const double *want, int wanted)
{
    char got_text[256] = "", want_text[256] = "", a[32];
    for (int k = 0, used = 0; k < found && used < 200; k++)
        used += snprintf(got_text + used, sizeof got_text - used, "%s%s", k ? ", " : "", size_text(knees[k], a, sizeof a));
    for (int k = 0, used = 0; k < wanted && used < 200; k++)
        used += snprintf(want_text + used, sizeof want_text - used, "%s%s", k ? ", " : "",
                         size_text(want[k], a, sizeof a));
    int same = found == wanted;
    for (int k = 0; same && k < wanted; k++) same = knees[k] == want[k];
    cr_assert(same, "%s: find_knees gives %d knee%s [%s], want [%s]", curve, found, found == 1 ? "" : "s", got_text,
              want_text);
}

Test(knees, three_clean_steps, .timeout = 5,
     .description = "Flat levels joined by one sudden rise each: one knee per rise, at the working set where the "
                    "rise starts (the largest that still fits the faster level), not the one after it.")
{
    double bytes[CURVE_POINTS], latency[CURVE_POINTS], knees[MAX_KNEES + GUARD];
    curve_sizes(bytes);
    for (int i = 0; i < CURVE_POINTS; i++)
        latency[i] = bytes[i] <= 32 << 10 ? 1.0 : bytes[i] <= 1 << 20 ? 4.0 : bytes[i] <= 32 << 20 ? 15.0 : 100.0;
    int found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    double want[] = {32 << 10, 1 << 20, 32 << 20};
    assert_knees("levels of 1, 4, 15 and 100 ns ending at 32 KiB, 1 MiB and 32 MiB", knees, found, want, 3);
}

Test(knees, one_knee_per_climb, .timeout = 5,
     .description = "A level often gives way over several steps. Steep steps side by side are one climb and give "
                    "ONE knee, at the start of the climb's steepest step, not at its first step or at each step.")
{
    double bytes[CURVE_POINTS], latency[CURVE_POINTS], knees[MAX_KNEES + GUARD];
    curve_sizes(bytes);
    /* 4.4 ns up to 256 KiB, then 4.9, 5.9 (x 1.2), 7.4 (x 1.25), 10.4 (x 1.4), 13.5 (x 1.3), 16.2 (x 1.2),
     * 17 and flat: one climb from 362 KiB, steepest from 724 KiB. */
    const double climb[] = {4.4, 4.9, 5.9, 7.4, 10.4, 13.5, 16.2, 17.0};
    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i < 12 ? 4.4 : i < 20 ? climb[i - 12] : 17.0;
    int found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    double want[] = {bytes[15]};
    assert_knees("4.4 ns climbing to 17 ns over several steep steps from 362 KiB, the steepest from 724 KiB", knees,
                 found, want, 1);
}

Test(knees, noise_is_not_a_knee, .timeout = 5,
     .description = "Compare each step as a ratio against KNEE_MIN_RISE: a rise of 19 % is not a knee, 21 % is. "
                    "At 100 ns, wobbles of several nanoseconds are noise; a difference in ns cannot tell them apart "
                    "from the 3 ns rise out of L1.")
{
    double bytes[CURVE_POINTS], latency[CURVE_POINTS], knees[MAX_KNEES + GUARD];
    curve_sizes(bytes);
    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = 100.0 * (1 + 0.08 * ((i * 7) % 5 - 2) / 2.0);   /* 92 .. 108 */
    int found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    assert_knees("a flat 100 ns with +-8 % of noise", knees, found, NULL, 0);

    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i < 10 ? 10.0 : 11.9;   /* + 19 % */
    found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    assert_knees("10 ns rising to 11.9 ns (19 %) after 90.5 KiB", knees, found, NULL, 0);

    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i < 10 ? 10.0 : 12.1;   /* + 21 % */
    found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    double want[] = {bytes[9]};
    assert_knees("10 ns rising to 12.1 ns (21 %) after 90.5 KiB", knees, found, want, 1);

    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i < 10 ? 10.0 : 12.0;   /* exactly KNEE_MIN_RISE */
    found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    assert_knees("10 ns rising to 12 ns (exactly KNEE_MIN_RISE: 'by KNEE_MIN_RISE or more') after 90.5 KiB", knees,
                 found, want, 1);
}

Test(knees, climbs_at_both_ends, .timeout = 5,
     .description = "A climb can start at the first point, or still be going at the last: it is a knee all the "
                    "same, and a curve that ends while climbing ends a climb. A fall is never a knee.")
{
    double bytes[CURVE_POINTS], latency[CURVE_POINTS], knees[MAX_KNEES + GUARD];
    curve_sizes(bytes);
    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i == 0 ? 1.0 : i < 27 ? 3.0 : i == 27 ? 6.0 : 20.0;
    latency[13] = 2.0;   /* a dip, and the way back up (x 1.5) */
    int found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    double want[] = {bytes[0], bytes[13], bytes[27]};
    assert_knees("1 ns at 4 KiB, 3 ns from 5.6 KiB with a dip to 2 ns at 362 KiB, 6 ns at 45 MiB, 20 ns at 64 MiB",
                 knees, found, want, 3);
    found = checked_knees(bytes, latency, 1, knees, MAX_KNEES);
    assert_knees("a curve of a single point", knees, found, NULL, 0);

    double two[] = {1.0, 3.0};
    found = checked_knees(bytes, two, 2, knees, MAX_KNEES);
    assert_knees("two points, 1 ns then 3 ns: one climb from the first point to the last", knees, found, bytes, 1);

    const double falling_steepness[] = {1.0, 3.0, 3.9, 5.0, 5.0};   /* x 3, then x 1.3, x 1.28 */
    found = checked_knees(bytes, falling_steepness, 5, knees, MAX_KNEES);
    assert_knees("1, 3, 3.9, 5, 5 ns: one climb from the first point, steepest at its first step", knees, found,
                 bytes, 1);
}

Test(knees, first_of_equally_steep_steps, .timeout = 5,
     .description = "The knee is at the steepest step of its climb; when two steps are equally steep, at the first "
                    "of them: replace the climb's steepest step only with a strictly steeper one.")
{
    double bytes[CURVE_POINTS], latency[CURVE_POINTS], knees[MAX_KNEES + GUARD];
    curve_sizes(bytes);
    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i <= 10 ? 10.0 : i == 11 ? 15.0 : 22.5;   /* x 1.5, x 1.5 */
    int found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    double want[] = {bytes[10]};
    assert_knees("10 ns to 128 KiB, 15 ns at 181 KiB, 22.5 ns from 256 KiB: two steps of x 1.5", knees, found, want,
                 1);
}

Test(knees, stops_at_max_knees, .timeout = 5,
     .description = "knees[] has room for max_knees: write the first max_knees knees and return how many you wrote, "
                    "never more.")
{
    double bytes[CURVE_POINTS], latency[CURVE_POINTS], knees[MAX_KNEES + GUARD];
    curve_sizes(bytes);
    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = pow(2.0, i / 4);   /* doubles every four points: 7 climbs */
    int found = checked_knees(bytes, latency, CURVE_POINTS, knees, 2);
    double want[] = {bytes[3], bytes[7]};
    assert_knees("seven climbs, room for two knees", knees, found, want, 2);
    found = checked_knees(bytes, latency, CURVE_POINTS, knees, 0);
    assert_knees("seven climbs, room for none", knees, found, NULL, 0);
}
