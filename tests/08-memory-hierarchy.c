/* 08-memory-hierarchy.c — the checks for day 08: the cycle is one random cycle through every line
 * (exact for tiny counts, walked for larger ones, no stride a prefetcher could follow, decided by
 * the seed); the chase follows the chain; on the simulator the same chase on the GPU side counts
 * one request and one sector per load. Then on this CPU, timed: the latency your probe reports
 * agrees with the test's own timing of the same cycle, in L1 and far beyond the last cache; your
 * cycle is as slow there as a random one; the latency never falls as the working set grows; and
 * the knees your find_knees reads off the curve sit where your predict_knee_bytes put them from
 * the cache sizes the OS reports. find_knees and predict_knee_bytes are also checked on made-up
 * curves and sweeps whose answers are known exactly.
 *
 * Every timed check sets your code beside a reference run in the same process, taken in turn with
 * it, and keeps the fastest of several attempts of each (other programs only ever slow a run
 * down); none asserts an absolute speed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "lab.h"
#include "robust.h"

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
            uint32_t got = chase(lines, starts[s], loads[l]);
            /* followed after chase has returned, by the chain's formula: no answer in memory while it runs, and
             * none made by rewriting the lines */
            uint32_t want = starts[s];
            for (uint64_t k = 0; k < loads[l]; k++) want = (5 * want + 3) % COUNT;
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
    /* The CPU chase first, so that the GPU thread's end is not in memory while your code runs; it must leave
     * the lines it follows as they were, for the GPU to chase the same cycle. */
    uint64_t before = lab_fingerprint(lines, (size_t)COUNT * CHASE_LINE_BYTES, 1);
    uint32_t want = chase(lines, 0, LOADS);
    cr_assert(lab_fingerprint(lines, (size_t)COUNT * CHASE_LINE_BYTES, 1) == before,
              "chase changed the lines it follows: it only reads them");
    gpu_chase_run run = gpu_chase(lines, count, LOADS);
    cr_assert(run.error == NULL, "the GPU chase ended with the CUDA error \"%s\"", run.error);
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

static chase_line *checked_lines(size_t bytes)
{
    chase_line *lines = chase_lines_new(bytes);
    cr_assert(lines != NULL, "no memory for a %zu MiB buffer", bytes >> 20);
    return lines;
}

/* The reference the timed checks set your code beside: the test's own cycle and its own timing,
 * both by the contract of lab.h, in the same process as yours. */

/* Sattolo's cycle through `count` lines, laid straight into the lines. */
static void reference_cycle(chase_line *lines, uint32_t count, uint64_t seed)
{
    uint64_t state = seed;
    for (uint32_t i = 0; i < count; i++) lines[i].next = i;
    for (uint32_t i = count - 1; i > 0; i--) {
        uint32_t j = chase_random_below(&state, i), t = lines[i].next;
        lines[i].next = lines[j].next, lines[j].next = t;
    }
}

static volatile uint32_t reference_end;

static uint32_t reference_walk(const chase_line *lines, uint32_t at, uint64_t loads)
{
    for (uint64_t k = 0; k < loads; k++) at = lines[at].next;
    return at;
}

/* One untimed pass over every line, then the fastest of CHASE_REPEATS timed runs of
 * CHASE_MIN_LOADS loads, each going on from where the last ended: ns per load. */
static double reference_latency_ns(const chase_line *lines, uint32_t count)
{
    uint32_t at = reference_walk(lines, 0, count);
    double best = INFINITY;
    for (int run = 0; run < CHASE_REPEATS; run++) {
        double start = chase_cpu_seconds();
        at = reference_walk(lines, at, CHASE_MIN_LOADS);
        best = fmin(best, chase_cpu_seconds() - start);
    }
    reference_end = at;
    return best / CHASE_MIN_LOADS * 1e9;
}

/* A chain on which walking on and starting again differ by far more than noise: from line 0 it
 * jumps at random among the first (CHASE_REPEATS - 1) CHASE_MIN_LOADS lines, then walks the rest
 * in order, which the prefetcher serves. After the untimed pass, runs that walk on pay for the
 * jumps until the last of the CHASE_REPEATS runs, which walks in order and is the fastest; runs
 * that each start again at line 0, or fewer runs, pay for the jumps every time. */
enum { JUMPS = (CHASE_REPEATS - 1) * CHASE_MIN_LOADS, IN_ORDER = 2 * CHASE_MIN_LOADS };

static void jumps_then_in_order(chase_line *lines, uint64_t seed)
{
    uint32_t *order = malloc(sizeof(uint32_t) * JUMPS);
    cr_assert(order != NULL);
    uint64_t state = seed;
    for (uint32_t k = 0; k < JUMPS; k++) order[k] = k;
    for (uint32_t k = JUMPS - 1; k > 1; k--) {   /* shuffle all but the first, line 0 */
        uint32_t j = 1 + chase_random_below(&state, k), t = order[k];
        order[k] = order[j], order[j] = t;
    }
    for (uint32_t k = 0; k + 1 < JUMPS; k++) lines[order[k]].next = order[k + 1];
    lines[order[JUMPS - 1]].next = JUMPS;
    for (uint32_t i = JUMPS; i < JUMPS + IN_ORDER; i++) lines[i].next = i + 1 < JUMPS + IN_ORDER ? i + 1 : 0;
    free(order);
}

enum { ATTEMPTS = 4 };   /* a timed comparison that fails is measured again, up to this many times in all */

static void pause_for_a_neighbour(void) { nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL); }

static double your_latency_ns(const chase_line *lines, uint32_t count)
{
    double latency = chase_latency_ns(lines, count);
    cr_assert(latency > 0 && isfinite(latency), "chase_latency_ns returned %g ns over a chain of %u lines (%u KiB): it "
              "should be the time of one load", latency, count, count / 16);
    return latency;
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
    *lines = checked_lines(largest);
    for (int i = 0; i < points; i++) latency[i] = measured(*lines, bytes[i], 100 + (uint64_t)i);
    return points;
}

#define AGREE_LOW 0.67    /* your chase_latency_ns over the reference's: a 2x-wrong timing falls outside */
#define AGREE_HIGH 1.5

/* The reference's fastest time so far in timing_ratio. Static and volatile, so it is held in the test
 * program's data, not on the stack or in a register your code saves there: while chase_latency_ns runs,
 * the time it should report is not beside it to copy. */
static volatile double reference_best;

/* Your chase_latency_ns and the reference's timing of the same cycle, taken in turn (yours first, so the
 * first attempt has no reference time yet); each the fastest of the attempts made until the two agree.
 * Returns yours over the reference's. */
static double timing_ratio(const chase_line *lines, uint32_t count, double *yours, double *reference)
{
    *yours = *reference = reference_best = INFINITY;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt) pause_for_a_neighbour();
        *yours = fmin(*yours, your_latency_ns(lines, count));
        reference_best = fmin(reference_best, reference_latency_ns(lines, count));
        double ratio = *yours / reference_best;
        if (ratio >= AGREE_LOW && ratio <= AGREE_HIGH) break;
    }
    *reference = reference_best;
    return *yours / *reference;
}

Test(latency, agrees_with_a_stopwatch, .timeout = 90,
     .description = "chase_latency_ns should report what the test's own timing of the same cycle measures, by the "
                    "contract of lab.h, in L1 and far beyond the last cache: nanoseconds per load, the fastest run's "
                    "time divided by exactly the loads the clock saw, the runs walking the whole working set.")
{
    enum { SMALL = 16 << 10 };   /* in L1 on any CPU */
    size_t far = largest_working_set();
    chase_line *lines = checked_lines(far);
    reference_cycle(lines, 256, 9);
    cr_assert(chase(lines, 0, 256) == 0 && chase(lines, 0, 1) == lines[0].next,
              "chase is not right yet: see chase/follows_the_chain");

    double yours, reference, ratio = timing_ratio(lines, SMALL / CHASE_LINE_BYTES, &yours, &reference);
    cr_assert(ratio >= AGREE_LOW && ratio <= AGREE_HIGH, "over 16 KiB (in L1) chase_latency_ns reports %.3f ns a "
              "load; the test's own timing of the same cycle measures %.3f ns: yours is %.3g times as long. %s", yours,
              reference, ratio,
              ratio > 500 && ratio < 2000 ? "Is it picoseconds, not nanoseconds (x 1e12)?"
              : ratio > 1.5 ? "Is the clock read around every load, or a few loads, so that its own cost counts? "
                              "Or is the time divided by fewer loads than were timed?"
              : ratio > 5e-4 && ratio < 2e-3 ? "Is it microseconds, not nanoseconds (x 1e6 for x 1e9)?"
              : "Less time than the loads take: are the loads done at all (a result nobody uses lets the compiler "
                "delete them), and is the time divided by the loads of one run, not of all runs?");

    uint32_t count = (uint32_t)(far / CHASE_LINE_BYTES);
    reference_cycle(lines, count, 10);
    ratio = timing_ratio(lines, count, &yours, &reference);
    cr_assert(ratio >= AGREE_LOW, "over %zu MiB (twice the last cache) chase_latency_ns reports %.2f ns a load; the "
              "test's own timing of the same cycle measures %.2f ns, %.2f times more, though the two agree in L1. "
              "Do your timed runs walk the whole working set? A run that starts again at line 0 reads the same first "
              "%d lines of the cycle each time: a working set of %d MiB, whatever the buffer's size.", far >> 20,
              yours, reference, 1 / ratio, CHASE_MIN_LOADS, CHASE_MIN_LOADS * CHASE_LINE_BYTES >> 20);
    cr_assert(ratio <= AGREE_HIGH, "over %zu MiB (twice the last cache) chase_latency_ns reports %.2f ns a load; the "
              "test's own timing of the same cycle measures %.2f ns: yours is %.2f times as long, though the two "
              "agree in L1. Your clock sees loads the time is not divided by, about %.0f more a run than the %d it "
              "divides by, and more the larger the working set: is the untimed pass over all %u lines inside a timed "
              "run?", far >> 20, yours, reference, ratio, (ratio - 1) * CHASE_MIN_LOADS, CHASE_MIN_LOADS, count);

    count = JUMPS + IN_ORDER;
    jumps_then_in_order(lines, 13);
    ratio = timing_ratio(lines, count, &yours, &reference);
    cr_assert(ratio >= AGREE_LOW && ratio <= AGREE_HIGH, "over a chain of %u lines the test built, whose first %d "
              "steps from line 0 jump about the buffer at random and whose other steps walk the lines in order, "
              "chase_latency_ns reports %.2f ns a load and the contract's timing %.2f ns: yours is %.2f times as long. "
              "After the untimed pass, the last of %d runs of %d loads that each go on from where the one before "
              "ended walks the ordered part, and it is the fastest. %s", count, JUMPS, yours, reference, ratio,
              CHASE_REPEATS, CHASE_MIN_LOADS,
              ratio > AGREE_HIGH ? "Does each run start again at line 0, so that every run repeats the jumps? Each "
                                   "run must go on from the line where the last one ended. Are there CHASE_REPEATS "
                                   "runs of CHASE_MIN_LOADS loads, and is the fastest kept?"
              : "Less time than the contract's runs take: are all CHASE_REPEATS runs of CHASE_MIN_LOADS loads timed?");
    chase_lines_free(lines);
}

#define AS_RANDOM 0.8   /* your cycle's latency over a random cycle's, far beyond the caches: at least */

/* The share of the steps of the cycle laid in lines[0 .. count-1] that stay within `span` lines. */
static double share_of_short_steps(const chase_line *lines, uint32_t count, uint32_t span)
{
    uint32_t short_steps = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t step = lines[i].next > i ? lines[i].next - i : i - lines[i].next;
        short_steps += step < span;
    }
    return (double)short_steps / count;
}

Test(latency, as_slow_as_a_random_cycle, .timeout = 90,
     .description = "Far beyond the last cache your cycle, timed by the test, must be as slow as a random cycle "
                    "through the same lines: every load a trip to memory. An order the hardware can help with (in "
                    "sequence, a fixed stride, or a block of lines at a time) measures the prefetcher, the open DRAM "
                    "row and the cached page translation, not the latency.")
{
    enum { NEAR_SPAN = 1024 };   /* lines: 64 KiB */
    size_t far = largest_working_set();
    uint32_t count = (uint32_t)(far / CHASE_LINE_BYTES);
    chase_line *lines = checked_lines(far);
    char why[256];
    double random = INFINITY, yours = INFINITY, random_short = 0;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt) pause_for_a_neighbour();
        reference_cycle(lines, count, 11);
        random_short = share_of_short_steps(lines, count, NEAR_SPAN);
        random = fmin(random, reference_latency_ns(lines, count));
        cr_assert(chase_lines_fill(lines, far, 12, why, sizeof why) == count, "%s (cycle/one_cycle_through_all "
                  "checks make_random_cycle)", why);
        yours = fmin(yours, reference_latency_ns(lines, count));
        if (yours >= AS_RANDOM * random) break;
    }
    cr_assert(yours >= AS_RANDOM * random, "over %zu MiB (twice the last cache) your cycle takes %.1f ns a load, a "
              "random cycle through the same lines %.1f ns (both timed by the test): yours is %.0f%% faster, so the "
              "hardware is helping it. %.1f%% of your cycle's steps land within 64 KiB of the line they leave, %.1f%% "
              "of the random one's: is the order a stride, or a block of lines at a time? Every line must be as "
              "likely next as any other.", far >> 20, yours, random, 100 * (1 - yours / random),
              100 * share_of_short_steps(lines, count, NEAR_SPAN), 100 * random_short);
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
     .description = "For each cache the OS reports, predict_knee_bytes predicts from its size where its plateau ends; "
                    "find_knees must find a knee in your measured curve within a factor of 2 of that prediction (a "
                    "quarter to twice, for a last level shared with other cores). find_knees and predict_knee_bytes "
                    "are checked on made-up curves in the knees suite first.")
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
        used += snprintf(curve + used, sizeof curve - used, "%s%s %.1f", i ? ", " : "",
                         size_text(bytes[i], a, sizeof a), latency[i]);
    for (int k = 0, used = 0; k < found && k < MAX_KNEES && used < (int)sizeof knee_list - 40; k++)
        used += snprintf(knee_list + used, sizeof knee_list - used, "%s%s", k ? ", " : "",
                         size_text(knees[k], a, sizeof a));
    cr_assert(found <= 2 * level_count + 1, "find_knees found %d knees (%s) for the %d caches the OS reports: a knee "
              "is one per climb from a level to the next, not one per steep step. Curve (ns): %s", found, knee_list,
              level_count, curve);
    for (int l = 0; l < level_count; l++) {
        char name[64], lo[32], hi[32], at[32];
        cache_level_name(&levels[l], name, sizeof name);
        double predicted = predict_knee_bytes(levels[l].bytes, bytes, points);
        int on_the_sweep = (double)levels[l].bytes >= bytes[0] && (double)levels[l].bytes < bytes[points - 1];
        if (!on_the_sweep) continue;   /* its plateau does not end on this sweep: nothing to compare */
        cr_assert(predicted > 0, "predict_knee_bytes(%s) returned %g, but the sweep runs from %s to %s, so this "
                  "cache's plateau ends on it (knees/predicted_from_the_cache_size checks the prediction)", name,
                  predicted, size_text(bytes[0], lo, sizeof lo), size_text(bytes[points - 1], hi, sizeof hi));
        int last_shared = l == level_count - 1 && levels[l].cpus_sharing > 1;
        double low = predicted / (last_shared ? 4 : 2), high = 2.0 * predicted;
        int matched = 0;
        for (int k = 0; k < found; k++) matched |= knees[k] >= low * 0.9999 && knees[k] <= high * 1.0001;
        size_text(predicted, at, sizeof at), size_text(low, lo, sizeof lo), size_text(high, hi, sizeof hi);
        if (!matched && last_shared)
            cr_skip("the OS reports %s, shared with %d CPUs; you predicted its plateau to end at %s, but no knee lies "
                    "between %s and %s (your knees: %s; curve, ns: %s). This run cannot say why. The OS reports the "
                    "whole cache, and other programs' lines take part of it; far beyond the private caches a load "
                    "may also wait for its address to be translated (a TLB miss), which the cache sizes leave out. "
                    "The private levels matched; the chapter's Reading the plot shows how to tell the two apart.",
                    name, levels[l].cpus_sharing, at, lo, hi, found ? knee_list : "none", curve);
        cr_assert(matched, "the OS reports %s and you predicted its plateau to end at %s, but none of your knees (%s) "
                  "lies between %s and %s. Your curve (ns): %s", name, at, found ? knee_list : "none", lo, hi, curve);
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
    /* The curve copied with one more point past its end, a steep one, that find_knees must not read. */
    double bytes_read[CURVE_POINTS + 1], latency_read[CURVE_POINTS + 1];
    cr_assert(points <= CURVE_POINTS);
    memcpy(bytes_read, bytes, sizeof(double) * (size_t)points);
    memcpy(latency_read, latency, sizeof(double) * (size_t)points);
    bytes_read[points] = 2 * bytes_read[points > 0 ? points - 1 : 0], latency_read[points] = 1e30;
    lab_poison(knees, sizeof(double) * (size_t)(max_knees + GUARD));
    int found = find_knees(bytes_read, latency_read, points, knees, max_knees);
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
        used += snprintf(got_text + used, sizeof got_text - used, "%s%s", k ? ", " : "",
                         size_text(knees[k], a, sizeof a));
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
    assert_knees("10 ns rising to 12.1 ns (21 %) after 90.5 KiB", knees, found, &bytes[9], 1);

    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i < 10 ? 10.0 : 12.0;   /* exactly KNEE_MIN_RISE */
    found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    assert_knees("10 ns rising to 12 ns (exactly KNEE_MIN_RISE: 'by KNEE_MIN_RISE or more') after 90.5 KiB", knees,
                 found, &bytes[9], 1);

    for (int i = 0; i < CURVE_POINTS; i++) latency[i] = i < 10 ? 10.0 : 11.9999999;   /* a hair under it */
    found = checked_knees(bytes, latency, CURVE_POINTS, knees, MAX_KNEES);
    assert_knees("10 ns rising to 11.9999999 ns (a hair under KNEE_MIN_RISE: compute the rise in double, as the "
                 "latencies are)", knees, found, NULL, 0);
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

Test(knees, predicted_from_the_cache_size, .timeout = 5,
     .description = "A working set runs at the latency of the smallest level that holds all of it, so a cache's "
                    "plateau ends at the largest working set of the sweep that fits in it (one that fits exactly "
                    "still fits). Where none fits, or every one does, the sweep shows no end: 0.")
{
    double bytes[CURVE_POINTS + 1];
    curve_sizes(bytes);   /* 4 KiB, 5.66 KiB, 8 KiB, ... 45.25 MiB, 64 MiB */
    bytes[CURVE_POINTS] = 1;   /* past the sweep: a working set every cache would hold, if it were read */
    /* The point of the sweep each knee is at (-1: no knee, 0), static: the answers are in the test program's
     * data, not on the stack beside predict_knee_bytes while it runs. */
    static const struct { size_t cache; int point; } cases[] = {
        {48 << 10, 7},                   /* between two points: the one below */
        {32 << 10, 6},                   /* exactly a point, 32 KiB: it fits */
        {(32 << 10) - 1, 5},
        {1 << 20, 16},                   /* 1 MiB */
        {(size_t)60 << 20, 27},
        {((size_t)32 << 20) - 1, 25},    /* a byte short of 32 MiB: 32 MiB does not fit (compare exactly) */
        {4 << 10, 0},                    /* only the first working set, 4 KiB, fits */
        {(size_t)3 << 10, -1},           /* smaller than every working set */
        {(size_t)64 << 20, -1},          /* every working set fits: the plateau goes on past the sweep */
        {(size_t)1 << 30, -1},
    };
    char cache_text[32], got_text[32], want_text[32];
    uint64_t sweep = lab_fingerprint(bytes, sizeof bytes, 1);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double got = predict_knee_bytes(cases[c].cache, bytes, CURVE_POINTS);
        cr_assert(lab_fingerprint(bytes, sizeof bytes, 1) == sweep, "predict_knee_bytes(a cache of %zu bytes) changed "
                  "working_set_bytes[]: it only reads it", cases[c].cache);
        double want = cases[c].point < 0 ? 0 : bytes[cases[c].point];
        int on_the_sweep = got == 0;
        for (int i = 0; i < CURVE_POINTS; i++) on_the_sweep |= got == bytes[i];
        cr_assert(got == want, "a cache of %s (%zu bytes) on a sweep of 4 KiB to 64 MiB, two points a "
                  "doubling: predict_knee_bytes gives %s (%.0f bytes), want %s%s", size_text((double)cases[c].cache,
                  cache_text, sizeof cache_text), cases[c].cache, size_text(got, got_text, sizeof got_text), got,
                  want ? size_text(want, want_text, sizeof want_text) : "0",
                  !on_the_sweep && got == bytes[CURVE_POINTS] ? ": that is past the sweep: read working_set_bytes[0 "
                                                                ".. points-1] only"
                  : want == 0 ? ": the sweep shows no end of this plateau"
                  : !on_the_sweep ? ": the knee is where the measured curve shows it, one of the sweep's "
                                    "working sets, working_set_bytes[]"
                  : got == 0 ? ": the cache holds some of the sweep's working sets and not the rest, so its plateau "
                               "ends on the sweep"
                  : got > (double)cases[c].cache ? ": a working set larger than the cache does not fit in it"
                  : got < want ? ": a larger working set of the sweep still fits" : "");
    }
    double from_3k[CURVE_POINTS];
    int points = sweep_working_sets(from_3k, CURVE_POINTS, 3 << 10, (size_t)8 << 20);
    double got = predict_knee_bytes(1 << 20, from_3k, points), want = from_3k[16];   /* 768 KiB; next 1086 KiB */
    cr_assert(got == want, "a cache of 1 MiB on a sweep from 3 KiB to 8 MiB: predict_knee_bytes gives %.0f bytes, "
              "want %.0f: read the sizes from working_set_bytes[], whatever sweep it holds", got, want);
    cr_assert(predict_knee_bytes(1 << 20, bytes, 0) == 0, "a sweep of no points shows no knee: want 0");
}
