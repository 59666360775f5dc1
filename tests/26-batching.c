/* 26-batching.c — the checks for day 26, smallest first: step_seconds is the roofline of a step
 * (the weights once, each request's KV entries, FLOPs per new token; the larger of the two times,
 * exactly, on made-up machines); then your continuous_next_batch run through the simulator on
 * traces small enough to follow by hand (the exact log of three requests, a one-token request,
 * a request that needs the whole budget), on seeded random traces with tight budgets and batch
 * limits, on a trace built to starve a long request, and on the shipped trace. Every scheduler
 * check reads the simulator's token log, not the scheduler's own counters, and prices steps
 * with the test's own roofline, so a wrong step_seconds cannot hide a right scheduler or the
 * other way round. On each log: every request gets tokens 0, 1, ... in order, each once, the
 * first from a prefill, none before it arrives, and finishes exactly once; from its prefill to
 * its last token it advances every step (iteration-level); the KV slots reserved (prompt +
 * output of every admitted, unfinished request) never exceed the budget, nor the running
 * requests max_batch; requests are admitted in arrival order; and a step never leaves the
 * oldest waiting request out when it fits. static_idle_share, the share of a static batch's
 * request-slots that make no token, is held against the chapter's example, against the same share
 * counted from the simulator's log of static_next_batch, and near INT_MAX. Last: the shipped
 * trace is the generator's output, and continuous batching serves it at least 1.2 times the
 * tokens/s of static batching.
 * Nothing here reads a clock: the simulator's time is the sum of predicted step costs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "robust.h"

/* ---------------------------------------------------------------------------------
 * The step cost */

#define HINT_STEP "step_seconds: bytes = weights_bytes once for the whole step + the sum of kv_tokens x " \
                  "kv_bytes_per_token; FLOPs = the sum of new_tokens x flops_per_token; the step overlaps them, so " \
                  "it lasts the larger of FLOPs / peak and bytes / bandwidth. An empty step takes 0."

static const cost_model made_up = {1.0e9, 2.0e5, 3.0e9, 7.0e13, 2.0e12};   /* ridge 35 FLOP/byte */

/* What a check expects exists only once the code under test has returned: computed from its inputs (the
 * roofline of `work`, a trace's invariants, a static batch's log), which that code must have left as they were
 * (fingerprint, before and after: an answer made by changing them is caught), or written as a constant in the
 * check; never held in a local that the code could read off its caller's stack. */
static double roofline_step(const cost_model *m, const sequence_work *work, int sequences)
{
    if (sequences == 0) return 0;
    double flops = 0, bytes = m->weights_bytes;
    for (int i = 0; i < sequences; i++) flops += work[i].new_tokens * m->flops_per_token,
                                        bytes += work[i].kv_tokens * m->kv_bytes_per_token;
    return fmax(flops / m->peak_flop_per_s, bytes / m->bandwidth_byte_per_s);
}

static void expect_step(const sequence_work *work, int sequences, const char *what)
{
    uint64_t inputs = lab_fingerprint(work, sizeof *work * (size_t)sequences, 1);
    double got = step_seconds(&made_up, work, sequences);
    cr_assert(lab_fingerprint(work, sizeof *work * (size_t)sequences, 1) == inputs,
              "%s: step_seconds changed the work it was given (a request's new_tokens or kv_tokens): it only reads it",
              what);
    double want = roofline_step(&made_up, work, sequences);
    cr_assert(fabs(got - want) <= 1e-12 * want, "%s: step_seconds gave %.6g s, want %.6g s (weights %.3g bytes, KV "
              "%.3g bytes a token, %.3g FLOPs a token, %.3g FLOP/s, %.3g byte/s)", what, got, want,
              made_up.weights_bytes, made_up.kv_bytes_per_token, made_up.flops_per_token, made_up.peak_flop_per_s,
              made_up.bandwidth_byte_per_s);
}

Test(step, one_decode_is_the_weights_and_its_kv, .timeout = 5, .description = HINT_STEP)
{
    sequence_work one = {1, 100};
    expect_step(&one, 1, "one decode of a request with 100 tokens of context (memory-bound)");
}

Test(step, weights_once_kv_for_each_request, .timeout = 5, .description = HINT_STEP)
{
    sequence_work work[64];
    for (int i = 0; i < 64; i++) work[i] = (sequence_work){1, 50 + 37 * i};
    expect_step(work, 64, "64 decodes of different contexts (the weights are read once, not 64 times)");
    expect_step(work, 2, "2 decodes");
}

Test(step, a_long_prefill_is_compute_bound, .timeout = 5, .description = HINT_STEP)
{
    sequence_work work[3] = {{1000, 1000}, {1, 500}, {3, 800}};
    expect_step(work, 3, "a 1000-token prefill beside two decodes (compute-bound: FLOPs per new token)");
    expect_step(work, 1, "a 1000-token prefill alone");
}

/* A machine of one FLOP and one byte a second, with one-byte weights: every FLOP and byte is a
 * whole second, so a count that is off by one is off by a second, not by 10^-9 of the step. */
Test(step, counts_exact_on_a_machine_of_one_flop_a_second, .timeout = 5, .description = HINT_STEP)
{
    static const cost_model unit = {1, 1, 1, 1, 1};
    sequence_work decode = {1, 0}, prefill = {3, 3};
    double got = step_seconds(&unit, &decode, 1);
    cr_assert(got == 1, "one new token and no KV on a machine of 1 FLOP/s and 1 byte/s, 1 byte of weights, 1 FLOP a "
              "token: step_seconds gave %g s, want 1 s (1 FLOP; 1 byte)", got);
    got = step_seconds(&unit, &prefill, 1);
    cr_assert(got == 4, "3 new tokens, 3 KV entries of 1 byte, on the same machine: step_seconds gave %g s, want 4 s "
              "(3 FLOPs; 1 + 3 bytes)", got);
}

Test(step, an_empty_step_takes_nothing, .timeout = 5, .description = HINT_STEP)
{
    cr_assert(step_seconds(&made_up, NULL, 0) == 0, "step_seconds of 0 requests gave %g, want 0",
              step_seconds(&made_up, NULL, 0));
}

/* ---------------------------------------------------------------------------------
 * Reading the log */

#define HINT_ORDER "Each step, every running request advances one token: a prefill (prefill = 1) when " \
                   "generated[id] is 0, else a decode. Retire a request as soon as generated[id] reaches its " \
                   "output_tokens, and put each running request into the batch exactly once."
#define HINT_BUDGET "Admit the oldest waiting request only if kv_reserved_tokens + its prompt_tokens + " \
                    "output_tokens <= kv_budget_tokens and running_count < max_batch; take that reservation off " \
                    "when the request retires (at most exactly the budget is allowed)."
#define HINT_FCFS "First come, first served: admit from s->waiting[s->waiting_head] only, and when it does not " \
                  "fit, stop admitting for this step (do not skip it for a smaller one behind: that starves it)."
#define HINT_EAGER "Iteration-level batching admits at every step, not only when the batch is empty: after " \
                   "retiring, admit every waiting request that fits, oldest first, then build the batch."

#define TRACE_CHANGED "%d requests: the trace changed while the simulator ran your code (s->requests: an arrival, a " \
                      "prompt or an output length): a scheduler only reads it"

static char failure[512];

typedef struct request_log {
    int tokens, prefill_step, last_step;
} request_log;

typedef struct run_result {
    simulation run;
    request_log *per_request;
    long *reserved;     /* per step: prompt + output of every admitted, unfinished request */
    int *holding;       /* per step: how many such requests */
} run_result;

static run_result run_trace(const request *trace, int count, serving_limits limits)
{
    static const cost_model h100_7b = {13.48e9, 524288, 13.5e9, 989.4e12, 3.35e12};
    long tokens = 0;
    for (int i = 0; i < count; i++) tokens += trace[i].output_tokens;
    uint64_t inputs = lab_fingerprint(trace, sizeof *trace * (size_t)count, 1);
    run_result r = {simulate(trace, count, continuous_next_batch, roofline_step, &h100_7b, limits, (int)(2 * tokens + 10))};
    cr_assert(r.run.error == NULL, "%d requests, KV budget %ld tokens, max_batch %d: the simulator stopped: %s",
              count, limits.kv_budget_tokens, limits.max_batch, r.run.error);
    cr_assert(lab_fingerprint(trace, sizeof *trace * (size_t)count, 1) == inputs, TRACE_CHANGED, count);
    r.per_request = calloc((size_t)count, sizeof *r.per_request);
    for (int i = 0; i < count; i++) r.per_request[i] = (request_log){0, -1, -1};
    for (int e = 0; e < r.run.event_count; e++) {
        const token_event *ev = &r.run.events[e];
        request_log *log = &r.per_request[ev->request];
        if (log->prefill_step < 0) log->prefill_step = ev->step;
        log->last_step = ev->step;
        log->tokens++;
    }
    int steps = r.run.step_count;
    r.reserved = calloc((size_t)steps + 1, sizeof *r.reserved);
    r.holding = calloc((size_t)steps + 1, sizeof *r.holding);
    for (int i = 0; i < count; i++) {
        const request_log *log = &r.per_request[i];
        if (log->prefill_step < 0) continue;
        int end = log->tokens >= trace[i].output_tokens ? log->last_step + 1 : steps;
        for (int k = log->prefill_step; k < end; k++)
            r.reserved[k] += (long)trace[i].prompt_tokens + trace[i].output_tokens, r.holding[k]++;
    }
    return r;
}

static void free_run(run_result *r)
{
    free_simulation(&r->run);
    free(r->per_request), free(r->reserved), free(r->holding);
}

/* Tokens 0, 1, ... of each request in order, each once, the first from a prefill and the others
 * not, none before it arrives, all of them in the end; one step each, consecutive steps. */
static const char *tokens_in_order(const request *trace, int count, const run_result *r)
{
    int *next = calloc((size_t)count, sizeof *next);
    const char *bad = NULL;
    for (int e = 0; e < r->run.event_count && !bad; e++) {
        const token_event *ev = &r->run.events[e];
        const request *q = &trace[ev->request];
        const step_record *step = &r->run.steps[ev->step];
        if (ev->token != next[ev->request])
            snprintf(failure, sizeof failure, "step %d gave request %d its token %d, but it had %d tokens: a request "
                     "was put twice into one batch, or admitted again", ev->step, ev->request, ev->token,
                     next[ev->request]), bad = failure;
        else if (ev->token >= q->output_tokens)
            snprintf(failure, sizeof failure, "step %d gave request %d a token %d; it wants %d tokens (0 to %d): a "
                     "finished request was not retired", ev->step, ev->request, ev->token, q->output_tokens,
                     q->output_tokens - 1), bad = failure;
        else if (ev->prefill != (ev->token == 0))
            snprintf(failure, sizeof failure, "step %d ran request %d as a %s for its token %d: a request's first "
                     "token comes from its prefill, every later one from a decode", ev->step, ev->request,
                     ev->prefill ? "prefill" : "decode", ev->token), bad = failure;
        else if (step->start_s < q->arrival_s)
            snprintf(failure, sizeof failure, "step %d began at %.6f s and ran request %d, which arrives at %.6f s",
                     ev->step, step->start_s, ev->request, q->arrival_s), bad = failure;
        else if (ev->token > 0 && ev->step != r->per_request[ev->request].prefill_step + ev->token)
            snprintf(failure, sizeof failure, "request %d got its token %d in step %d, but was admitted in step %d: "
                     "every running request must advance every step (it was left out of a batch)", ev->request,
                     ev->token, ev->step, r->per_request[ev->request].prefill_step), bad = failure;
        next[ev->request]++;
    }
    for (int i = 0; i < count && !bad; i++)
        if (next[i] != trace[i].output_tokens)
            snprintf(failure, sizeof failure, "request %d (arrival %.4f s, prompt %d, output %d) got %d tokens, not "
                     "%d", i, trace[i].arrival_s, trace[i].prompt_tokens, trace[i].output_tokens, next[i],
                     trace[i].output_tokens), bad = failure;
    free(next);
    return bad;
}

static const char *within_limits(const request *trace, int count, serving_limits limits, const run_result *r)
{
    (void)trace, (void)count;
    for (int k = 0; k < r->run.step_count; k++) {
        if (r->reserved[k] > limits.kv_budget_tokens) {
            snprintf(failure, sizeof failure, "in step %d the %d admitted, unfinished requests reserve %ld KV slots "
                     "(prompt + output each); the budget is %ld", k, r->holding[k], r->reserved[k],
                     limits.kv_budget_tokens);
            return failure;
        }
        if (r->holding[k] > limits.max_batch || r->run.steps[k].events > limits.max_batch) {
            snprintf(failure, sizeof failure, "in step %d, %d requests were admitted and unfinished and %d ran; "
                     "max_batch is %d", k, r->holding[k], r->run.steps[k].events, limits.max_batch);
            return failure;
        }
    }
    return NULL;
}

static const char *first_come_first_served(const request *trace, int count, const run_result *r)
{
    (void)trace;
    for (int i = 1; i < count; i++)
        if (r->per_request[i].prefill_step < r->per_request[i - 1].prefill_step) {
            snprintf(failure, sizeof failure, "request %d was admitted in step %d, before request %d (which arrived "
                     "earlier) in step %d", i, r->per_request[i].prefill_step, i - 1, r->per_request[i - 1].prefill_step);
            return failure;
        }
    return NULL;
}

/* In every step, the oldest request that has arrived and is not admitted does not fit. */
static const char *admits_whenever_it_fits(const request *trace, int count, serving_limits limits, const run_result *r)
{
    int oldest = 0;
    for (int k = 0; k < r->run.step_count; k++) {
        while (oldest < count && r->per_request[oldest].prefill_step <= k) oldest++;
        if (oldest == count || trace[oldest].arrival_s > r->run.steps[k].start_s) continue;
        long need = (long)trace[oldest].prompt_tokens + trace[oldest].output_tokens;
        if (r->holding[k] < limits.max_batch && r->reserved[k] + need <= limits.kv_budget_tokens) {
            snprintf(failure, sizeof failure, "step %d (at %.4f s) left request %d waiting (arrived %.4f s, needs %ld "
                     "KV slots) although %ld of %ld slots were reserved and %d of %d requests were running", k,
                     r->run.steps[k].start_s, oldest, trace[oldest].arrival_s, need, r->reserved[k],
                     limits.kv_budget_tokens, r->holding[k], limits.max_batch);
            return failure;
        }
    }
    return NULL;
}

#define EXPECT_NONE(check, what) do { const char *why = (check); cr_assert(why == NULL, "%s: %s", what, why); } while (0)

static void check_everything(const request *trace, int count, serving_limits limits, const char *what)
{
    run_result r = run_trace(trace, count, limits);
    EXPECT_NONE(tokens_in_order(trace, count, &r), what);
    EXPECT_NONE(within_limits(trace, count, limits, &r), what);
    EXPECT_NONE(first_come_first_served(trace, count, &r), what);
    EXPECT_NONE(admits_whenever_it_fits(trace, count, limits, &r), what);
    free_run(&r);
}

/* A seeded trace of `count` requests, lengths 1..longest, arrivals with mean gap `gap_s`. */
static void random_trace(unsigned seed, int count, int longest, double gap_s, request *out)
{
    unsigned long long state = seed * 2654435761ull + 1;
    double now = 0;
    for (int i = 0; i < count; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        now += gap_s * (double)((state >> 33) % 1000) / 500.0;
        int prompt = 1 + (int)((state >> 20) % (unsigned)longest), output = 1 + (int)((state >> 7) % (unsigned)longest);
        out[i] = (request){now, prompt, output};
    }
}

/* ---------------------------------------------------------------------------------
 * Static batching's idle share: predicted from the lengths, counted from the simulator's log */

#define HINT_IDLE "static_idle_share: count the batch's steps (what ends a static batch?), the slots they hold " \
                  "and the slots that make a token, as in the chapter's exercise 4; a sum of lengths near INT_MAX " \
                  "needs 64 bits; -1 for count < 1 or a length below 1."

/* got: static_idle_share's answer, passed in so that `want` is not in a local while it runs */
static void expect_idle_share(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want)), "%s: static_idle_share gave %.9g, want %.9g%s", what,
              got, want, got > 0 && fabs(got + want - 1) <= 1e-9 ? " (that is the busy share: the idle one is the rest)"
                                                                   : "");
}

Test(idle, the_chapters_four_requests, .timeout = 5, .description = HINT_IDLE)
{
    static const int lengths[] = {10, 20, 40, 400};
    expect_idle_share(static_idle_share(lengths, 4), 1 - 470.0 / 1600,
                      "exercise 4's batch: outputs 10, 20, 40 and 400 tokens");
}

/* Batches of every size in any order, the longest anywhere; after each batch in memory comes a
 * length longer than all of them, which a loop that reads one past the batch takes for its longest. */
Test(idle, counted_from_the_static_schedulers_log, .timeout = 30, .description = HINT_IDLE)
{
    static const cost_model flat = {1.0e9, 0, 0, 1.0e12, 1.0e12};   /* every step 1 ms */
    unsigned long long state = 26;
    for (int trial = 0; trial < 40; trial++) {
        int count = 1 + trial % 12, lengths[13], prompts[12];
        for (int i = 0; i < count; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            lengths[i] = 1 + (int)((state >> 33) % 60);
            prompts[i] = 1 + (int)((state >> 20) % 30);
        }
        lengths[count] = 1000;
        uint64_t inputs = lab_fingerprint(lengths, sizeof *lengths * (size_t)(count + 1), 1);
        double got = static_idle_share(lengths, count);
        cr_assert(lab_fingerprint(lengths, sizeof *lengths * (size_t)(count + 1), 1) == inputs, "a static batch of %d "
                  "requests: static_idle_share changed the lengths it was given (or the one past them): it only reads "
                  "them", count);
        /* the batch, and the share counted from its log, only now that static_idle_share has returned */
        request batch[12];
        for (int i = 0; i < count; i++) batch[i] = (request){0.0, prompts[i], lengths[i]};
        simulation run = simulate(batch, count, static_next_batch, roofline_step, &flat,
                                  (serving_limits){1L << 40, count}, 100000);
        cr_assert(run.error == NULL, "the static scheduler stopped: %s", run.error);
        double counted = 1.0 - (double)run.event_count / ((double)count * run.step_count);
        char what[160];
        snprintf(what, sizeof what, "a static batch of %d requests (the first %d, %d, ... tokens), counted from the "
                 "simulator's log over its %d steps", count, lengths[0], count > 1 ? lengths[1] : 0, run.step_count);
        expect_idle_share(got, counted, what);
        free_simulation(&run);
    }
}

Test(idle, lengths_near_int_max, .timeout = 5, .description = HINT_IDLE)
{
    static const int lengths[] = {2147483647, 2147483647, 1};
    expect_idle_share(static_idle_share(lengths, 3), 1 - (2.0 * 2147483647 + 1) / (3.0 * 2147483647),
                      "two requests of INT_MAX tokens and one of 1 (their sum does not fit an int)");
    static const int past_float[] = {16777216, 1};
    expect_idle_share(static_idle_share(past_float, 2), 1 - 16777217.0 / 33554432,
                      "2^24 tokens and 1 (the sum, 2^24 + 1, is not a float: divide in double)");
    static const int equal_past_float[] = {16777217, 16777217};
    expect_idle_share(static_idle_share(equal_past_float, 2), 0,
                      "two requests of 2^24 + 1 tokens (nothing idles; 2^24 + 1 is not a float: multiply in double)");
}

Test(idle, refuses_what_is_not_a_batch, .timeout = 5, .description = HINT_IDLE)
{
    static const int ones[] = {1, 1}, with_zero[] = {5, 0, 7}, with_negative[] = {5, -3};
    expect_idle_share(static_idle_share(ones, 1), 0, "one request of one token (a valid batch: nothing idles)");
    expect_idle_share(static_idle_share(ones, 2), 0, "two requests of one token each");
    expect_idle_share(static_idle_share(ones, 0), -1, "no request");
    expect_idle_share(static_idle_share(with_zero, 3), -1, "a request of 0 tokens (each makes at least one)");
    expect_idle_share(static_idle_share(with_negative, 2), -1, "a request of -3 tokens");
}

/* ---------------------------------------------------------------------------------
 * What a user sees: TPOT per request, ITL per token */

Test(metrics, itl_shows_the_stall_that_tpot_averages_away, .timeout = 5,
     .description = "measure_simulation (the simulator's, given) on a log made by hand: A's decodes wait 10 s for B's "
                    "prefill once. TPOT, a mean per request, gives A 4 s; ITL, every gap between a request's tokens "
                    "pooled, gives p50 1 s and p99 10 s: the stall itself.")
{
    /* A (4 tokens) and B (3 tokens) arrive at 0. Steps end at 1, 2, 12, 13, 14 s:
     * step 0 A prefill; 1 A decode; 2 A decode + B's long prefill; 3 A and B decode; 4 B decode */
    request trace[2] = {{0, 8, 4}, {0, 900, 3}};
    token_event events[] = {{0, 0, 0, 1}, {1, 0, 1, 0}, {2, 0, 2, 0}, {2, 1, 0, 1},
                            {3, 0, 3, 0}, {3, 1, 1, 0}, {4, 1, 2, 0}};
    step_record steps[] = {{0, 1, 0, 1}, {1, 2, 1, 1}, {2, 12, 2, 2}, {12, 13, 4, 2}, {13, 14, 6, 1}};
    double first[] = {1, 12}, finish[] = {13, 14};
    simulation run = {events, 7, steps, 5, first, finish, NULL, ""};
    serving_metrics m = measure_simulation(trace, 2, &run);
    cr_assert(m.tpot_p99_s == 4 && m.tpot_p50_s == 1, "TPOT p50 %g s and p99 %g s, want 1 (B: 2 s over 2 tokens) and 4 "
              "(A: 12 s over 3 tokens)", m.tpot_p50_s, m.tpot_p99_s);
    cr_assert(m.itl_p50_s == 1 && m.itl_p99_s == 10, "ITL p50 %g s and p99 %g s, want 1 and 10: the gaps are A's 1, "
              "10, 1 and B's 1, 1", m.itl_p50_s, m.itl_p99_s);
}

/* ---------------------------------------------------------------------------------
 * Small traces, by hand */

Test(schedule, three_requests_exactly, .timeout = 10, .description = HINT_ORDER " " HINT_EAGER)
{
    /* A (3 tokens) and B (1 token) at 0; C (2 tokens) at 1 ms, during step 0 (4 ms or more). */
    request trace[3] = {{0, 5, 3}, {0, 2, 1}, {0.001, 4, 2}};
    run_result r = run_trace(trace, 3, (serving_limits){1000, 8});
    /* step 0: A, B prefill; step 1: A decode, C prefill (B retired); step 2: A, C decode */
    static const token_event want[] = {{0, 0, 0, 1}, {0, 1, 0, 1}, {1, 0, 1, 0}, {1, 2, 0, 1}, {2, 0, 2, 0}, {2, 2, 1, 0}};
    int n = sizeof want / sizeof want[0], same = r.run.event_count == n;
    for (int e = 0; same && e < n; e++)
        same = r.run.events[e].step == want[e].step && r.run.events[e].request == want[e].request &&
               r.run.events[e].token == want[e].token && r.run.events[e].prefill == want[e].prefill;
    char got[256] = "";
    for (int e = 0; e < r.run.event_count && e < 10; e++)
        snprintf(got + strlen(got), sizeof got - strlen(got), " (step %d: request %d token %d%s)", r.run.events[e].step,
                 r.run.events[e].request, r.run.events[e].token, r.run.events[e].prefill ? " prefill" : "");
    cr_assert(same, "requests A = 0 (prompt 5, 3 tokens) and B = 1 (prompt 2, 1 token) at 0 s and C = 2 (prompt 4, 2 "
              "tokens) at 1 ms, ample budget: want step 0: A and B prefill; step 1: A decode, C prefill (B has its "
              "one token and left); step 2: A and C decode. Got%s%s", got, r.run.event_count > 10 ? " ..." : "");
    free_run(&r);
}

Test(schedule, a_one_token_request_leaves_after_its_prefill, .timeout = 10, .description = HINT_ORDER)
{
    request trace[4] = {{0, 7, 1}, {0, 3, 1}, {0.5, 1, 1}, {0.5, 9, 4}};
    check_everything(trace, 4, (serving_limits){100, 4}, "four requests, three of one token");
}

Test(schedule, a_request_may_take_exactly_the_budget, .timeout = 10, .description = HINT_BUDGET)
{
    /* each needs 10 + 6 = 16 slots: with a budget of 16 they run one after the other */
    request trace[3] = {{0, 10, 6}, {0, 10, 6}, {0, 10, 6}};
    check_everything(trace, 3, (serving_limits){16, 8}, "three requests of 16 slots, budget 16");
    request pair[2] = {{0, 3, 5}, {0, 4, 4}};
    check_everything(pair, 2, (serving_limits){16, 8}, "two requests of 8 slots, budget exactly 16");
}

Test(schedule, max_batch_of_one_serves_in_order, .timeout = 10, .description = HINT_BUDGET " " HINT_FCFS)
{
    request trace[6];
    random_trace(3, 6, 12, 0.002, trace);
    check_everything(trace, 6, (serving_limits){1000, 1}, "six requests, max_batch 1");
}

/* ---------------------------------------------------------------------------------
 * Random traces, tight limits */

Test(random, tight_kv_budget, .timeout = 30, .description = HINT_BUDGET " " HINT_ORDER)
{
    request trace[300];
    for (unsigned seed = 1; seed <= 8; seed++) {
        random_trace(seed, 300, 40, 0.001, trace);
        char what[96];
        snprintf(what, sizeof what, "seed %u: 300 requests of 1-40 + 1-40 tokens, budget 97 slots", seed);
        check_everything(trace, 300, (serving_limits){97, 64}, what);
    }
}

Test(random, tight_batch_limit, .timeout = 30, .description = HINT_BUDGET " " HINT_EAGER)
{
    request trace[300];
    for (unsigned seed = 11; seed <= 18; seed++) {
        random_trace(seed, 300, 60, 0.0005, trace);
        char what[96];
        snprintf(what, sizeof what, "seed %u: 300 requests, ample budget, max_batch 5", seed);
        check_everything(trace, 300, (serving_limits){1 << 20, 5}, what);
    }
}

Test(random, idle_gaps_between_bursts, .timeout = 30, .description = HINT_EAGER " " HINT_ORDER)
{
    request trace[200];
    random_trace(21, 200, 20, 0.5, trace);   /* mean gap 0.5 s: the server is often idle */
    check_everything(trace, 200, (serving_limits){200, 16}, "200 requests, sparse arrivals");
}

/* A long request behind short ones, while short ones keep coming: a scheduler that skips it
 * for the short ones that fit would keep it waiting as long as they come. */
Test(starvation, a_long_request_is_not_overtaken, .timeout = 30, .description = HINT_FCFS)
{
    enum { SHORT = 400 };
    request trace[SHORT + 1];
    trace[0] = (request){0, 10, 10};
    trace[1] = (request){0.0001, 60, 40};   /* needs 100 slots: all of the budget */
    for (int i = 2; i <= SHORT; i++) trace[i] = (request){0.0001 * i, 5, 5};
    serving_limits limits = {100, 32};
    run_result r = run_trace(trace, SHORT + 1, limits);
    EXPECT_NONE(first_come_first_served(trace, SHORT + 1, &r), "one request of the whole budget behind a short one, "
                "400 short ones behind it");
    EXPECT_NONE(tokens_in_order(trace, SHORT + 1, &r), "the same trace");
    EXPECT_NONE(within_limits(trace, SHORT + 1, limits, &r), "the same trace");
    cr_assert(r.per_request[1].prefill_step <= r.per_request[0].last_step + 1, "the long request 1 waited until step "
              "%d; request 0, the only one ahead of it, finished in step %d: it was overtaken",
              r.per_request[1].prefill_step, r.per_request[0].last_step);
    free_run(&r);
}

/* ---------------------------------------------------------------------------------
 * The shipped trace */

static request *shipped(int *count)
{
    char error[256];
    request *trace;
    *count = load_trace(TRACE_FILE, &trace, error, sizeof error);
    cr_assert(*count > 0, "%s", error);
    return trace;
}

Test(shipped, trace_is_the_generators_output, .timeout = 10, .description = "data/requests-sharegpt-like.csv is made by "
     "labs/26-batching/driver/trace.c (lab --write-trace); it was changed or its generator was")
{
    int count;
    request *trace = shipped(&count), *want = malloc(TRACE_REQUESTS * sizeof *want);
    generate_trace(TRACE_SEED, TRACE_REQUESTS, TRACE_RATE_PER_S, want);
    cr_assert(count == TRACE_REQUESTS, "the shipped trace has %d requests, want %d", count, TRACE_REQUESTS);
    for (int i = 0; i < count; i++)
        cr_assert(fabs(trace[i].arrival_s - want[i].arrival_s) <= 1e-6 && trace[i].prompt_tokens == want[i].prompt_tokens &&
                  trace[i].output_tokens == want[i].output_tokens, "request %d of the shipped trace differs from the "
                  "generator's", i);
    free(trace), free(want);
}

Test(shipped, every_invariant_on_an_h100, .timeout = 60, .description = HINT_ORDER " " HINT_BUDGET " " HINT_FCFS)
{
    int count;
    request *trace = shipped(&count);
    cost_model model;
    serving_limits limits;
    char error[256];
    cr_assert(serving_setup(&model, &limits, error, sizeof error) == 0, "%s", error);
    check_everything(trace, count, limits, "the shipped trace, Llama-2-7B on an H100 SXM");
    serving_limits small = {limits.kv_budget_tokens / 20, 64};
    check_everything(trace, count, small, "the shipped trace on a twentieth of the KV budget");
    free(trace);
}

Test(shipped, continuous_beats_static_throughput, .timeout = 60,
     .description = HINT_EAGER " (and, for the step cost: " HINT_STEP ")")
{
    int count;
    request *trace = shipped(&count);
    cost_model model;
    serving_limits limits;
    char error[256];
    cr_assert(serving_setup(&model, &limits, error, sizeof error) == 0, "%s", error);
    long tokens = 0;
    for (int i = 0; i < count; i++) tokens += trace[i].output_tokens;
    uint64_t inputs = lab_fingerprint(trace, sizeof *trace * (size_t)count, 1);
    simulation fixed = simulate(trace, count, static_next_batch, step_seconds, &model, limits, (int)tokens + 1);
    simulation continuous = simulate(trace, count, continuous_next_batch, step_seconds, &model, limits, (int)tokens + 1);
    cr_assert(fixed.error == NULL, "static batching with your step_seconds: %s", fixed.error);
    cr_assert(continuous.error == NULL, "continuous batching: %s", continuous.error);
    cr_assert(lab_fingerprint(trace, sizeof *trace * (size_t)count, 1) == inputs, TRACE_CHANGED, count);
    serving_metrics s = measure_simulation(trace, count, &fixed), c = measure_simulation(trace, count, &continuous);
    cr_assert(c.tokens_per_s >= 1.2 * s.tokens_per_s, "on the shipped trace (%.0f requests/s) continuous batching "
              "served %.0f tokens/s and static %.0f (ratio %.2f; want 1.2 or more: the reference gives about 1.3)",
              TRACE_RATE_PER_S, c.tokens_per_s, s.tokens_per_s, c.tokens_per_s / s.tokens_per_s);
    free_simulation(&fixed), free_simulation(&continuous), free(trace);
}
