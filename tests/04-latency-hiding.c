/* 04-latency-hiding.c — the checks for day 04: the closed form and its knee; the scheduler
 * model cycle by cycle (a wait of exactly L cycles, one issue per cycle, warps that come back,
 * a warm-up that is not counted, the order each policy picks), then its long-run utilisation
 * against min(1, N c / (c + L)) over a grid, for both policies; then Little's law for an H100.
 * The model is deterministic, so most expectations are exact counts. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

/* The grid's tolerance. The model repeats every c + L cycles once warmed up, and every window
 * below holds whole rounds, so the simulation should hit the closed form exactly; 1e-9 leaves
 * room for rounding only. An off-by-one wait moves it by about 1 % at L = 100. */
#define TOLERANCE 1e-9

/* Every hand-worked expected value below (a table of cases, a trace) is static const, in the test program's
 * data, never a local array in the test's own stack frame while the code under test runs, where it could read
 * its caller's locals and return them (tests/grader/forgeries/reads-expected-values.patch); the others are
 * computed after it has returned. */
static const char *policy_name(int policy) { return policy == POLICY_ROUND_ROBIN ? "round-robin" : "oldest-first"; }

/* A trace as text, "0 0 - - 1 ...", at most `count` cycles. */
static void trace_text(char *out, size_t size, const int *trace, int count)
{
    size_t used = 0;
    out[0] = 0;
    for (int t = 0; t < count && used + 8 < size; t++) {
        if (trace[t] == -2) used += snprintf(out + used, size - used, "? ");   // never written
        else if (trace[t] < 0) used += snprintf(out + used, size - used, "- ");
        else used += snprintf(out + used, size - used, "%d ", trace[t]);
    }
}

/* Runs the model with issued_by poisoned (-2: never written) and checks it was filled. */
static scheduler_result run_traced(const scheduler_config *config, int *trace)
{
    long long cycles = config->warmup_cycles + config->measured_cycles;
    for (long long t = 0; t < cycles; t++) trace[t] = -2;
    scheduler_result result = simulate_scheduler(config, trace);
    for (long long t = 0; t < cycles; t++)
        cr_assert(trace[t] != -2, "N = %d, c = %d, L = %d: issued_by[%lld] was never written (want the warp "
                  "that issued at cycle %lld, or -1)", config->warps, config->math_cycles, config->latency_cycles,
                  t, t);
    return result;
}

/* ------------------------------------------------------------------------------------------
 * The closed form */

#define HINT_CLOSED "Ask what fraction of its round one warp keeps the slot busy, what N warps offer together, and " \
                    "what one issue slot can take at most."

Test(closed_form, below_the_knee, .timeout = 5, .description = HINT_CLOSED)
{
    static const struct { int n, c, l; double want; } cases[] = {
        {1, 4, 100, 4.0 / 104}, {1, 8, 0, 1.0}, {3, 4, 20, 0.5}, {13, 8, 100, 104.0 / 108}, {10, 1, 99, 0.1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = utilisation_closed_form(cases[i].n, cases[i].c, cases[i].l);
        cr_assert(fabs(got - cases[i].want) <= 1e-12, "utilisation_closed_form(N = %d, c = %d, L = %d) = %.6f, "
                  "want %.6f", cases[i].n, cases[i].c, cases[i].l, got, cases[i].want);
    }
}

Test(closed_form, capped_at_one, .timeout = 5,
     .description = "Past the knee there are more ready warps than issue slots: the scheduler issues every "
                    "cycle and no more, however many warps offer work.")
{
    struct { int n, c, l; } cases[] = {{14, 8, 100}, {64, 8, 100}, {64, 4, 200}, {2, 4, 0}, {64, 1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = utilisation_closed_form(cases[i].n, cases[i].c, cases[i].l);
        cr_assert(got == 1.0, "utilisation_closed_form(N = %d, c = %d, L = %d) = %.6f, want 1 (N c / (c + L) = "
                  "%.3f is past the knee)", cases[i].n, cases[i].c, cases[i].l, got,
                  (double)cases[i].n * cases[i].c / (cases[i].c + cases[i].l));
    }
}

Test(closed_form, knee_and_warps_needed, .timeout = 5,
     .description = "The knee is the N at which the closed form first reaches 1; a round is the warp's own c cycles "
                    "as well as the L it waits. Warps come whole.")
{
    static const struct { int c, l; double knee; int needed; } cases[] = {
        {8, 100, 13.5, 14}, {4, 100, 26.0, 26}, {8, 800, 101.0, 101}, {1, 0, 1.0, 1}, {3, 10, 13.0 / 3, 5},
        {16, 400, 26.0, 26},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double knee = knee_warps(cases[i].c, cases[i].l);
        int needed = warps_to_hide_latency(cases[i].c, cases[i].l);
        cr_assert(fabs(knee - cases[i].knee) <= 1e-12, "knee_warps(c = %d, L = %d) = %.4f, want %.4f", cases[i].c,
                  cases[i].l, knee, cases[i].knee);
        cr_assert(needed == cases[i].needed, "warps_to_hide_latency(c = %d, L = %d) = %d, want %d", cases[i].c,
                  cases[i].l, needed, cases[i].needed);
    }
}

/* ------------------------------------------------------------------------------------------
 * The model, cycle by cycle */

#define HINT_WAIT "Count the wait on lab.h's timeline: which cycle issues the load, which L cycles are the wait, and " \
                  "which is the first the warp may issue in again. The message shows the trace cycle by cycle."

Test(scheduler, wait_is_exactly_L_cycles, .timeout = 5, .description = HINT_WAIT)
{
    long long first_ready[] = {0};
    scheduler_config config = {1, 2, 3, POLICY_OLDEST_FIRST, first_ready, 0, 15};
    static const int want[] = {0, 0, -1, -1, -1, 0, 0, -1, -1, -1, 0, 0, -1, -1, -1};
    int trace[15];
    run_traced(&config, trace);
    char got_text[128], want_text[128];
    trace_text(got_text, sizeof got_text, trace, 15), trace_text(want_text, sizeof want_text, want, 15);
    cr_assert(memcmp(trace, want, sizeof want) == 0, "one warp, c = 2, L = 3, ready at cycle 0: issued_by is "
              "[%s], want [%s] (- = no issue)", got_text, want_text);
}

Test(scheduler, one_warp, .timeout = 5,
     .description = "One warp alone issues c cycles, then waits L: c of every c + L cycles. " HINT_WAIT)
{
    struct { int c, l; } cases[] = {{4, 100}, {8, 800}, {1, 1}, {16, 7}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int c = cases[i].c, l = cases[i].l, rounds = 10;
        scheduler_config config = {1, c, l, POLICY_OLDEST_FIRST, NULL, l + c, (long long)rounds * (c + l)};
        scheduler_result result = simulate_scheduler(&config, NULL);
        cr_assert(result.issued_cycles == (long long)rounds * c && result.measured_cycles == config.measured_cycles,
                  "N = 1, c = %d, L = %d, %d whole rounds measured: issued %lld of %lld cycles, want %d of %lld "
                  "(utilisation c / (c + L) = %.5f, got %.5f)", c, l, rounds, result.issued_cycles,
                  result.measured_cycles, rounds * c, config.measured_cycles, (double)c / (c + l), result.utilisation);
    }
}

Test(scheduler, no_latency, .timeout = 5,
     .description = "With L = 0 a warp may issue again the very next cycle, so even one warp keeps the slot busy "
                    "every cycle: utilisation 1.0.")
{
    int warps[] = {1, 2, 64}, cs[] = {1, 4, 8};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            scheduler_config config = {warps[i], cs[j], 0, POLICY_OLDEST_FIRST, NULL, 0, 1000};
            scheduler_result result = simulate_scheduler(&config, NULL);
            cr_assert(result.issued_cycles == 1000 && result.utilisation == 1.0, "N = %d, c = %d, L = 0: issued "
                      "%lld of 1000 cycles (utilisation %.4f), want every cycle", warps[i], cs[j],
                      result.issued_cycles, result.utilisation);
        }
}

Test(scheduler, one_issue_per_cycle, .timeout = 10,
     .description = "One issue slot: each cycle at most one warp issues one instruction, however many are "
                    "ready. Far past the knee every cycle issues, and utilisation is exactly 1, never more.")
{
    struct { int n, c, l; } cases[] = {{64, 8, 100}, {64, 4, 200}, {30, 1, 20}, {8, 16, 20}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i].n, c = cases[i].c, l = cases[i].l;
        scheduler_config config = {n, c, l, POLICY_OLDEST_FIRST, NULL, l + c + l, 20LL * (c + l)};
        scheduler_result result = simulate_scheduler(&config, NULL);
        cr_assert(result.issued_cycles == config.measured_cycles && result.utilisation == 1.0,
                  "N = %d, c = %d, L = %d (knee at %.1f warps): issued %lld in %lld cycles (utilisation %.4f), want "
                  "exactly one per cycle", n, c, l, (double)(c + l) / c, result.issued_cycles,
                  result.measured_cycles, result.utilisation);
    }
}

Test(scheduler, c_is_1, .timeout = 5,
     .description = "With c = 1 every instruction is a load: a warp issues once, then waits L cycles, so it "
                    "issues once every 1 + L cycles and N warps fill N of every 1 + L cycles.")
{
    int ns[] = {1, 5, 20, 21, 40};
    for (int i = 0; i < 5; i++) {
        scheduler_config config = {ns[i], 1, 20, POLICY_OLDEST_FIRST, NULL, 41, 21 * 30};
        scheduler_result result = simulate_scheduler(&config, NULL);
        long long want = ns[i] >= 21 ? 21 * 30 : 30LL * ns[i];
        cr_assert(result.issued_cycles == want, "N = %d, c = 1, L = 20, 30 rounds of 21 cycles: issued %lld, want "
                  "%lld", ns[i], result.issued_cycles, want);
    }
}

Test(scheduler, warps_come_back, .timeout = 5,
     .description = "After its wait a warp is ready again and starts a new round: every warp keeps issuing, c "
                    "instructions per round, for the whole run.")
{
    enum { N = 4, C = 3, L = 9, ROUNDS = 50, CYCLES = L + ROUNDS * (C + L) };
    scheduler_config config = {N, C, L, POLICY_OLDEST_FIRST, NULL, 0, CYCLES};
    static int trace[CYCLES];
    run_traced(&config, trace);
    for (int w = 0; w < N; w++) {
        int count = 0, last_cycle = -1;
        for (int t = 0; t < CYCLES; t++)
            if (trace[t] == w) count++, last_cycle = t;
        cr_assert(count == ROUNDS * C, "N = 4, c = 3, L = 9 (at the knee), %d cycles: warp %d issued %d times "
                  "(last at cycle %d), want %d: %d rounds of %d", CYCLES, w, count, last_cycle, ROUNDS * C, ROUNDS, C);
    }
}

Test(scheduler, warmup_not_counted, .timeout = 5,
     .description = "Count only the measured window: issued_cycles counts the cycles after warmup_cycles that "
                    "issued, and utilisation divides it by measured_cycles, not by the whole run. (With "
                    "first_ready NULL every warp may first issue at cycle L, so the first L cycles are idle.)")
{
    static const struct { int n, c, l; long long warmup, measured, issued; } cases[] = {
        {2, 4, 100, 100, 5 * 104, 40},          // the idle start-up only, then 5 rounds
        {1, 4, 100, 100 + 3 * 104, 2 * 104, 8}, // three rounds of warm-up that did issue
        {3, 5, 10, 0, 10 + 4 * 15, 60},         // no warm-up: the idle start-up is counted
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scheduler_config config = {cases[i].n, cases[i].c, cases[i].l, POLICY_OLDEST_FIRST, NULL, cases[i].warmup,
                                   cases[i].measured};
        scheduler_result result = simulate_scheduler(&config, NULL);
        double want = (double)cases[i].issued / cases[i].measured;
        cr_assert(result.issued_cycles == cases[i].issued && result.measured_cycles == cases[i].measured &&
                  fabs(result.utilisation - want) <= 1e-12,
                  "N = %d, c = %d, L = %d, warm-up %lld cycles, %lld measured: got %lld issued of %lld "
                  "(utilisation %.5f), want %lld of %lld (%.5f)", cases[i].n, cases[i].c, cases[i].l,
                  cases[i].warmup, cases[i].measured, result.issued_cycles, result.measured_cycles,
                  result.utilisation, cases[i].issued, cases[i].measured, want);
    }
}

Test(scheduler, short_windows, .timeout = 5,
     .description = "The measured window can be as short as one cycle, or empty: utilisation is the issued cycles "
                    "over the window's cycles, and lab.h says what an empty window gives.")
{
    /* One warp, c = 1, L = 0: it issues every cycle, so a 1-cycle window after 5 cycles of
     * warm-up holds 1 issue, utilisation 1. With L = 3 the warp issues at cycles 3, 7, 11: a
     * 1-cycle window at cycle 4 holds none, 0. An empty window: 0 issued, utilisation 0. */
    static const struct { int c, l; long long warmup, measured, issued; double want; } cases[] = {
        {1, 0, 5, 1, 1, 1.0}, {1, 3, 4, 1, 0, 0.0}, {1, 3, 7, 1, 1, 1.0}, {2, 5, 10, 0, 0, 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scheduler_config config = {1, cases[i].c, cases[i].l, POLICY_OLDEST_FIRST, NULL, cases[i].warmup,
                                   cases[i].measured};
        scheduler_result result = simulate_scheduler(&config, NULL);
        cr_assert(result.issued_cycles == cases[i].issued && result.measured_cycles == cases[i].measured &&
                  result.utilisation == cases[i].want, "N = 1, c = %d, L = %d, warm-up %lld, a window of %lld cycle%s: "
                  "issued %lld of %lld (utilisation %g), want %lld of %lld (%g)", cases[i].c, cases[i].l,
                  cases[i].warmup, cases[i].measured, cases[i].measured == 1 ? "" : "s", result.issued_cycles,
                  result.measured_cycles, result.utilisation, cases[i].issued, cases[i].measured, cases[i].want);
    }
}

Test(scheduler, deterministic, .timeout = 5,
     .description = "The model has no randomness: the same configuration gives the same schedule every time. "
                    "Reset all state inside simulate_scheduler (no static variables carried between calls).")
{
    enum { CYCLES = 3000 };
    static int first[CYCLES], second[CYCLES];
    for (int policy = 0; policy < 2; policy++) {
        scheduler_config config = {7, 3, 25, policy, NULL, 0, CYCLES};
        scheduler_result a = run_traced(&config, first);
        scheduler_result b = run_traced(&config, second);
        int differ = -1;
        for (int t = 0; t < CYCLES && differ < 0; t++)
            if (first[t] != second[t]) differ = t;
        cr_assert(differ < 0 && a.issued_cycles == b.issued_cycles, "%s, N = 7, c = 3, L = 25, run twice: the "
                  "schedules differ from cycle %d (warp %d, then warp %d); issued %lld, then %lld",
                  policy_name(policy), differ, differ >= 0 ? first[differ] : 0, differ >= 0 ? second[differ] : 0,
                  a.issued_cycles, b.issued_cycles);
    }
}

/* Three warps, first ready at cycles 2, 1, 0: the two policies pick different warps at cycle 2. */
static void check_order(int policy, const int *want, const char *hint_case)
{
    long long first_ready[] = {2, 1, 0};
    scheduler_config config = {3, 2, 4, policy, first_ready, 0, 18};
    int trace[18];
    run_traced(&config, trace);
    char got_text[128], want_text[128];
    trace_text(got_text, sizeof got_text, trace, 18), trace_text(want_text, sizeof want_text, want, 18);
    cr_assert(memcmp(trace, want, sizeof trace) == 0, "%s, N = 3, c = 2, L = 4, warps first ready at cycles 2, "
              "1, 0: issued_by is [%s], want [%s] (%s)", policy_name(policy), got_text, want_text, hint_case);
}

Test(scheduler, oldest_first_order, .timeout = 5,
     .description = "Oldest-first: a warp in the middle of its round keeps the slot; otherwise the ready warp whose "
                    "wait ended earliest issues (ties: the lower warp number).")
{
    static const int want[] = {2, 2, 1, 1, 0, 0, 2, 2, 1, 1, 0, 0, 2, 2, 1, 1, 0, 0};
    check_order(POLICY_OLDEST_FIRST, want, "at cycle 2 warp 1 has been ready since cycle 1, warp 0 only since 2");
}

Test(scheduler, oldest_first_ties, .timeout = 5,
     .description = "Oldest-first: when several warps have been ready equally long, lab.h names which one issues; "
                    "the message shows the trace cycle by cycle.")
{
    /* Three warps, c = 2, L = 4, first ready at cycles 4, 0, 4. Warp 1 issues at 0-1 (ready again
     * at 6); nothing is ready at 2-3; at cycle 4 warps 0 and 2 have both been ready since 4: the
     * tie goes to warp 0 (ready again at 10); at 6 warp 2 (ready since 4) is older than warp 1
     * (since 6); then 1, 0, 2, ... every round. Round-robin would take warp 2 at cycle 4. */
    long long first_ready[] = {4, 0, 4};
    scheduler_config config = {3, 2, 4, POLICY_OLDEST_FIRST, first_ready, 0, 18};
    static const int want[] = {1, 1, -1, -1, 0, 0, 2, 2, 1, 1, 0, 0, 2, 2, 1, 1, 0, 0};
    int trace[18];
    run_traced(&config, trace);
    char got_text[128], want_text[128];
    trace_text(got_text, sizeof got_text, trace, 18), trace_text(want_text, sizeof want_text, want, 18);
    cr_assert(memcmp(trace, want, sizeof trace) == 0, "oldest-first, N = 3, c = 2, L = 4, warps first ready at "
              "cycles 4, 0, 4: issued_by is [%s], want [%s] (at cycle 4 warps 0 and 2 tie: the lower number goes "
              "first)", got_text, want_text);
    /* Every warp ready at cycle 0: a three-way tie, broken in warp order. */
    long long all_at_0[] = {0, 0, 0};
    scheduler_config tied = {3, 2, 4, POLICY_OLDEST_FIRST, all_at_0, 0, 18};
    static const int want_tied[] = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2};
    run_traced(&tied, trace);
    trace_text(got_text, sizeof got_text, trace, 18), trace_text(want_text, sizeof want_text, want_tied, 18);
    cr_assert(memcmp(trace, want_tied, sizeof trace) == 0, "oldest-first, N = 3, c = 2, L = 4, every warp ready at "
              "cycle 0: issued_by is [%s], want [%s] (a tie goes to the lower warp number)", got_text, want_text);
}

Test(scheduler, round_robin_without_latency, .timeout = 5,
     .description = "Round-robin: the search for the next warp starts AFTER the warp that issued last. With L = 0 "
                    "that warp is ready again at once, and still it is the others' turn first.")
{
    /* L = 0: a warp that ends its round is ready the very next cycle. N = 3, c = 2: 0 0 1 1 2 2 0 0 ...;
     * N = 2, c = 1: 0 1 0 1 ...; N = 4, c = 3, warps first ready at 0, 0, 0, 0: 0 0 0 1 1 1 2 2 2 3 3 3. */
    static const struct { int n, c; int want[12]; } cases[] = {
        {3, 2, {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}},
        {2, 1, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}},
        {4, 3, {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}},
    };
    for (int i = 0; i < 3; i++) {
        scheduler_config config = {cases[i].n, cases[i].c, 0, POLICY_ROUND_ROBIN, NULL, 0, 12};
        int trace[12];
        run_traced(&config, trace);
        char got_text[128], want_text[128];
        trace_text(got_text, sizeof got_text, trace, 12), trace_text(want_text, sizeof want_text, cases[i].want, 12);
        cr_assert(memcmp(trace, cases[i].want, sizeof trace) == 0, "round-robin, N = %d, c = %d, L = 0: issued_by is "
                  "[%s], want [%s] (the warp that issued last is ready again at once, but the next warp after it "
                  "goes first)", cases[i].n, cases[i].c, got_text, want_text);
    }
}

Test(scheduler, round_robin_first_pick, .timeout = 5,
     .description = "Round-robin: before anything has issued, the search starts at warp 0 and looks at every warp, "
                    "the last one included.")
{
    /* N = 3, c = 2, L = 4, only warp 2 ready at cycle 0 (warps 0 and 1 at 5): warp 2 issues at
     * 0-1 (ready again at 6); nothing is ready at 2-4; then 0 (5-6), 1 (7-8), 2 (9-10), 0, 1, 2. */
    long long first_ready[] = {5, 5, 0};
    scheduler_config config = {3, 2, 4, POLICY_ROUND_ROBIN, first_ready, 0, 18};
    static const int want[] = {2, 2, -1, -1, -1, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0};
    int trace[18];
    run_traced(&config, trace);
    char got_text[128], want_text[128];
    trace_text(got_text, sizeof got_text, trace, 18), trace_text(want_text, sizeof want_text, want, 18);
    cr_assert(memcmp(trace, want, sizeof trace) == 0, "round-robin, N = 3, c = 2, L = 4, warps first ready at cycles "
              "5, 5, 0: issued_by is [%s], want [%s] (at cycle 0 only warp 2 is ready, and the first search must "
              "reach it)", got_text, want_text);
}

Test(scheduler, round_robin_order, .timeout = 5,
     .description = "Round-robin: a warp in the middle of its round keeps the slot; when it stalls, the slot goes "
                    "to the next ready warp after it in warp order (after warp N-1 comes warp 0). It does not "
                    "rotate after every instruction.")
{
    static const int want[] = {2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1};
    check_order(POLICY_ROUND_ROBIN, want, "after warp 2 comes warp 0, then 1");
}

/* ------------------------------------------------------------------------------------------
 * Long-run utilisation against the closed form */

static void check_grid(int policy, int scattered)
{
    int ns[] = {1, 2, 3, 5, 8, 13, 14, 20, 27, 32, 64}, cs[] = {1, 2, 4, 8, 16}, ls[] = {0, 1, 7, 100, 400, 800};
    long long first_ready[64];
    unsigned seed = 12345;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof cs / sizeof cs[0]; b++)
            for (size_t d = 0; d < sizeof ls / sizeof ls[0]; d++) {
                int n = ns[a], c = cs[b], l = ls[d], round = c + l;
                for (int w = 0; w < n; w++) {   // scattered: each warp first ready somewhere in its first round
                    seed = seed * 1664525u + 1013904223u;
                    first_ready[w] = (seed >> 8) % (unsigned)(round + 1);
                }
                /* Warm-up: long enough for any start to settle (L + 2 rounds); then 8 whole rounds. */
                scheduler_config config = {n, c, l, policy, scattered ? first_ready : NULL, l + 2LL * round,
                                           8LL * round};
                scheduler_result result = simulate_scheduler(&config, NULL);
                double want = fmin(1.0, (double)n * c / round);
                cr_assert(fabs(result.utilisation - want) <= TOLERANCE,
                          "%s, %s start, N = %d, c = %d, L = %d: utilisation %.6f (%lld of %lld cycles), want "
                          "min(1, N c / (c + L)) = %.6f", policy_name(policy),
                          scattered ? "scattered" : "synchronous", n, c, l, result.utilisation,
                          result.issued_cycles, result.measured_cycles, want);
            }
}

Test(scheduler, matches_closed_form, .timeout = 30,
     .description = "Over whole rounds after the warm-up, the simulation must give exactly the closed form. If it is "
                    "a little off for every N, look at the length of the wait; if it exceeds 1, at how many "
                    "instructions issue per cycle.")
{
    check_grid(POLICY_OLDEST_FIRST, 0);
}

Test(scheduler, policies_agree, .timeout = 30,
     .description = "Which ready warp goes next does not change the long-run utilisation, as long as a warp keeps "
                    "the slot until its round ends: both policies give min(1, N c / (c + L)), from synchronous and "
                    "from scattered starts. A round-robin that rotates after every instruction makes all warps "
                    "reach their loads together and falls short of it below the knee.")
{
    check_grid(POLICY_OLDEST_FIRST, 1);
    check_grid(POLICY_ROUND_ROBIN, 0);
    check_grid(POLICY_ROUND_ROBIN, 1);
}

/* ------------------------------------------------------------------------------------------
 * Little's law */

Test(littles_law, h100_bytes_in_flight, .timeout = 5,
     .description = "Little's law relates concurrency, throughput and latency; here the concurrency is bytes. Mind "
                    "the units: GB/s and ns carry 10^9 and 10^-9.")
{
    static const struct { double bandwidth, latency, want; } cases[] = {
        {3350, 370, 1239500}, {4800, 370, 1776000}, {2039, 400, 815600}, {1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = bytes_in_flight(cases[i].bandwidth, cases[i].latency);
        cr_assert(fabs(got - cases[i].want) <= 1e-9 * cases[i].want, "bytes_in_flight(%.0f GB/s, %.0f ns) = %.1f, "
                  "want %.1f bytes", cases[i].bandwidth, cases[i].latency, got, cases[i].want);
    }
}

Test(littles_law, bandwidth_from_bytes, .timeout = 5,
     .description = "Little's law the other way round gives the bandwidth a number of bytes in flight sustains; "
                    "no number of bytes can push the memory past its peak.")
{
    static const struct { double bytes, latency, peak, want; } cases[] = {
        {1239500, 370, 3350, 3350}, {524288, 370, 3350, 524288.0 / 370}, {16896, 370, 3350, 16896.0 / 370},
        {1e9, 370, 3350, 3350},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = bandwidth_from_bytes_in_flight(cases[i].bytes, cases[i].latency, cases[i].peak);
        cr_assert(fabs(got - cases[i].want) <= 1e-9 * cases[i].want, "bandwidth_from_bytes_in_flight(%.0f bytes, "
                  "%.0f ns, peak %.0f GB/s) = %.3f, want %.3f GB/s", cases[i].bytes, cases[i].latency,
                  cases[i].peak, got, cases[i].want);
    }
}

Test(littles_law, warps_per_sm, .timeout = 5,
     .description = "Share the bytes in flight out over the SMs and over what each warp keeps in flight; warps come "
                    "whole, and a fraction of a warp short is not enough.")
{
    static const struct { double bandwidth, latency; int sms, bytes, want; } cases[] = {
        {3350, 370, 132, 128, 74}, {3350, 370, 132, 512, 19}, {4800, 370, 132, 128, 106}, {1000, 100, 10, 100, 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = warps_per_sm_for_bandwidth(cases[i].bandwidth, cases[i].latency, cases[i].sms, cases[i].bytes);
        cr_assert(got == cases[i].want, "warps_per_sm_for_bandwidth(%.0f GB/s, %.0f ns, %d SMs, %d bytes a warp) = "
                  "%d, want %d (%.2f exactly)", cases[i].bandwidth, cases[i].latency, cases[i].sms, cases[i].bytes,
                  got, cases[i].want, cases[i].bandwidth * cases[i].latency / ((double)cases[i].sms * cases[i].bytes));
    }
}
