/* sim.c — Day 26 driver: the serving simulator (a discrete-event loop over engine steps), the
 * static-batching scheduler it is compared with, and the latency metrics. Do not edit.
 *
 * The loop: requests that have arrived by the clock join the queue; the scheduler names the
 * step's batch; the step lasts what the cost function says (the roofline of the batch); every
 * request of the batch gets one token at the step's end; the clock moves to the step's end, or,
 * when nothing runs or waits, jumps to the next arrival. Every token is logged (step, request,
 * index), and the tests check the log, not the scheduler's word. The simulator trusts the
 * scheduler's batch as it is: it only refuses a request number out of range. */
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * Static batching */

int static_next_batch(scheduler *s, batch_entry *batch)
{
    int unfinished = 0;
    for (int i = 0; i < s->running_count; i++) {
        int id = s->running[i];
        unfinished += s->generated[id] < s->requests[id].output_tokens;
    }
    if (unfinished == 0) {   /* the whole batch is done: its padded KV tensor is freed at once */
        s->running_count = 0;
        s->kv_reserved_tokens = 0;
        while (s->waiting_head < s->waiting_tail && s->running_count < s->max_batch) {
            const request *next = &s->requests[s->waiting[s->waiting_head]];
            long need = (long)next->prompt_tokens + next->output_tokens;
            if (s->kv_reserved_tokens + need > s->kv_budget_tokens) break;
            s->running[s->running_count++] = s->waiting[s->waiting_head++];
            s->kv_reserved_tokens += need;
        }
    }
    int size = 0;
    for (int i = 0; i < s->running_count; i++) {
        int id = s->running[i];
        if (s->generated[id] < s->requests[id].output_tokens)
            batch[size++] = (batch_entry){id, s->generated[id] == 0};
    }
    return size;
}

/* ---------------------------------------------------------------------------------
 * The simulator */

static void stop(simulation *run, const char *format, long a, long b, long c)
{
    snprintf(run->error_text, sizeof run->error_text, format, a, b, c);
    run->error = run->error_text;
}

simulation simulate(const request *requests, int request_count, scheduler_policy policy, step_cost cost,
                    const cost_model *model, serving_limits limits, int max_steps)
{
    simulation run = {0};
    int room = request_count + limits.max_batch + 1;   /* a scheduler past its limits is logged, not a crash */
    int *generated = calloc((size_t)request_count, sizeof *generated);
    int *waiting = malloc((size_t)request_count * sizeof *waiting);
    int *running = malloc((size_t)room * sizeof *running);
    batch_entry *batch = malloc((size_t)room * sizeof *batch);
    sequence_work *work = malloc((size_t)room * sizeof *work);
    int event_room = 1024, step_room = 1024;
    run.events = malloc((size_t)event_room * sizeof *run.events);
    run.steps = malloc((size_t)step_room * sizeof *run.steps);
    run.first_token_s = malloc((size_t)request_count * sizeof(double));
    run.finish_s = malloc((size_t)request_count * sizeof(double));
    for (int i = 0; i < request_count; i++) run.first_token_s[i] = run.finish_s[i] = -1;

    scheduler s = {requests, request_count, limits.kv_budget_tokens, limits.max_batch, generated, waiting, 0, 0,
                   running, 0, 0};
    double now = 0;
    int arrived = 0, finished = 0;
    while (finished < request_count) {
        while (arrived < request_count && requests[arrived].arrival_s <= now) waiting[s.waiting_tail++] = arrived++;
        if (run.step_count == max_steps) {
            stop(&run, "the simulator ran %ld steps and %ld of %ld requests are still unfinished: does your scheduler "
                       "retire finished requests and admit new ones?", max_steps, request_count - finished, request_count);
            break;
        }
        int size = policy(&s, batch);
        if (size < 0 || size >= room) {
            stop(&run, "the scheduler returned a batch of %ld requests; there are %ld requests in all (and max_batch "
                       "is %ld)", size, request_count, limits.max_batch);
            break;
        }
        if (size == 0) {
            if (finished == arrived && arrived < request_count) {   /* idle: nothing runs or waits */
                now = fmax(now, requests[arrived].arrival_s);
                continue;
            }
            stop(&run, "the scheduler returned an empty batch with %ld requests waiting and %ld admitted and "
                       "unfinished: nothing will ever run them (does it admit the oldest waiting request when it "
                       "fits, and give back a finished request's reservation?)",
                 s.waiting_tail - s.waiting_head, arrived - finished - (s.waiting_tail - s.waiting_head), 0);
            break;
        }
        for (int b = 0; b < size; b++) {
            int id = batch[b].request;
            if (id < 0 || id >= request_count) {
                stop(&run, "the scheduler put request %ld into a batch; requests are numbered 0 to %ld", id,
                     request_count - 1, 0);
                break;
            }
            const request *r = &requests[id];
            work[b] = batch[b].prefill ? (sequence_work){r->prompt_tokens, r->prompt_tokens}
                                       : (sequence_work){1, r->prompt_tokens + generated[id]};
        }
        if (run.error) break;
        double seconds = cost(model, work, size);
        if (!(seconds > 0) || !isfinite(seconds)) {
            snprintf(run.error_text, sizeof run.error_text, "the step cost of a batch of %d requests came out as %g s: "
                     "a step reads the weights at least, so it takes time (step_seconds)", size, seconds);
            run.error = run.error_text;
            break;
        }
        if (run.step_count == step_room) run.steps = realloc(run.steps, (size_t)(step_room *= 2) * sizeof *run.steps);
        run.steps[run.step_count] = (step_record){now, now + seconds, run.event_count, size};
        now += seconds;
        for (int b = 0; b < size; b++) {
            int id = batch[b].request;
            if (run.event_count == event_room)
                run.events = realloc(run.events, (size_t)(event_room *= 2) * sizeof *run.events);
            run.events[run.event_count++] = (token_event){run.step_count, id, generated[id], batch[b].prefill};
            if (run.first_token_s[id] < 0) run.first_token_s[id] = now;
            if (++generated[id] == requests[id].output_tokens) {
                run.finish_s[id] = now;
                finished++;
            }
        }
        run.step_count++;
    }
    free(generated), free(waiting), free(running), free(batch), free(work);
    return run;
}

void free_simulation(simulation *run)
{
    free(run->events), free(run->steps), free(run->first_token_s), free(run->finish_s);
    *run = (simulation){0};
}

/* ---------------------------------------------------------------------------------
 * What a user sees */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p of the values at or below it. */
static double percentile(double *values, int count, double p)
{
    if (count == 0) return NAN;
    qsort(values, (size_t)count, sizeof *values, by_value);
    int rank = (int)ceil(p * count - 1e-9);
    return values[rank < 1 ? 0 : rank - 1];
}

serving_metrics measure_simulation(const request *requests, int request_count, const simulation *run)
{
    serving_metrics m = {0};
    double *ttft = malloc((size_t)request_count * sizeof *ttft), *tpot = malloc((size_t)request_count * sizeof *tpot);
    int done = 0, multi = 0;
    double tokens = 0, last = 0;
    for (int i = 0; i < request_count; i++) {
        if (run->finish_s[i] < 0) continue;
        tokens += requests[i].output_tokens;
        last = fmax(last, run->finish_s[i]);
        ttft[done++] = run->first_token_s[i] - requests[i].arrival_s;
        if (requests[i].output_tokens > 1)
            tpot[multi++] = (run->finish_s[i] - run->first_token_s[i]) / (requests[i].output_tokens - 1);
    }
    m.makespan_s = request_count ? last - requests[0].arrival_s : 0;
    m.tokens_per_s = m.makespan_s > 0 ? tokens / m.makespan_s : 0;
    m.requests_per_s = m.makespan_s > 0 ? done / m.makespan_s : 0;
    m.ttft_p50_s = percentile(ttft, done, 0.50), m.ttft_p99_s = percentile(ttft, done, 0.99);
    m.tpot_p50_s = percentile(tpot, multi, 0.50), m.tpot_p99_s = percentile(tpot, multi, 0.99);
    m.mean_batch = run->step_count ? (double)run->event_count / run->step_count : 0;
    free(ttft), free(tpot);

    /* ITL: every token after a request's first, the time since that request's previous token */
    double *gaps = malloc(((size_t)run->event_count + 1) * sizeof *gaps);
    double *previous = malloc(((size_t)request_count + 1) * sizeof *previous);
    int gap_count = 0;
    for (int e = 0; e < run->event_count; e++) {
        const token_event *t = &run->events[e];
        double at = run->steps[t->step].end_s;
        if (t->token > 0 && run->finish_s[t->request] >= 0) gaps[gap_count++] = at - previous[t->request];
        previous[t->request] = at;
    }
    m.itl_p50_s = percentile(gaps, gap_count, 0.50), m.itl_p99_s = percentile(gaps, gap_count, 0.99);
    free(gaps), free(previous);
    return m;
}
