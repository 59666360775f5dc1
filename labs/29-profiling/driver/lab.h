/* lab.h — Day 29: the interface between your tracer, the driver and the tests.
 * Driver file: do not edit.
 *
 * A profiler answers "where did the time go?" by timestamping named ranges: Nsight Systems
 * draws the ranges a program marks with NVTX (nvtxRangePush / nvtxRangePop) on a timeline,
 * and perf or callgrind sum a CPU program's time by function. Today you write the smallest
 * such tool for the book's toy Llama. The engine calls a tracer (llama_session.trace, llama.h's
 * llama_trace_hooks) around every part of a forward step, always properly nested:
 *
 *   step
 *   ├── embedding
 *   ├── layer  (n_layers times)
 *   │   ├── attention_norm, qkv, rope_and_cache, attention, output_projection,
 *   │   └── ffn_norm, ffn
 *   └── classifier   (a step that produces logits)
 *
 * Your tracer timestamps each begin and end, keeps each finished range as a span, writes the
 * spans as a Chrome trace-event file (Google's "Trace Event Format": Perfetto and
 * chrome://tracing open it), and sums the time of each part per request phase (prefill,
 * decode). Times are microseconds from the tracer's origin, read from its clock. */
#ifndef DAY29_LAB_H
#define DAY29_LAB_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { TRACE_MAX_DEPTH = 8 };

/* A finished range. */
typedef struct trace_span {
    const char *name;      /* the engine's name for the part ("qkv"); the pointer the engine gave */
    const char *phase;     /* the tracer's phase when the range began ("prefill", "decode") */
    int rows;              /* the rows the engine passed to begin() */
    int depth;             /* ranges open around it when it began: a step 0, a layer 1, a part 2 */
    double start_us;       /* begin's time, microseconds after the origin */
    double duration_us;    /* end's time minus begin's */
} trace_span;

/* A range begun and not yet ended. */
typedef struct trace_open {
    const char *name;
    const char *phase;
    int rows;
    double start_us;
} trace_open;

typedef struct tracer {
    double (*clock)(void);          /* seconds, monotonic: trace_clock_seconds, or a test's own clock */
    double origin_seconds;          /* clock() when the tracer was made: time 0 of the trace */
    const char *phase;              /* what the engine is doing: the driver sets it before each call */
    trace_open open[TRACE_MAX_DEPTH];
    int depth;                      /* ranges open now */
    trace_span *spans;              /* finished ranges, in the order they end */
    int count, capacity;
    int dropped;                    /* spans that did not fit in `capacity` */
    int errors;                     /* ends that did not match, and begins past TRACE_MAX_DEPTH */
    char first_error[256];          /* what the first of them was */
} tracer;

/* The parts a step is made of, in the engine's order: the leaves of the tree above, which
 * together cover a step but for the loop between them. */
enum { TRACE_PARTS = 9 };
static const char *const trace_part_names[TRACE_PARTS] = {
    "embedding", "attention_norm", "qkv", "rope_and_cache", "attention", "output_projection", "ffn_norm", "ffn",
    "classifier"};

/* Where the time of one phase went. */
typedef struct trace_totals {
    int steps;                      /* "step" spans of the phase */
    double step_us;                 /* their durations, summed */
    double part_us[TRACE_PARTS];    /* each part's durations, summed, in trace_part_names' order */
    double parts_us;                /* the parts together */
} trace_totals;

/* ---- tracer.c (yours): 1. the hooks ---- */

/* llama_trace_hooks' begin and end; `state` is a tracer. begin opens a range at the clock's time
 * now; end closes the innermost open range, which must have the same name (compare the text:
 * strcmp), and appends it to spans. An end that matches no open range, or a begin past
 * TRACE_MAX_DEPTH, counts an error (the first one described in first_error) and changes nothing
 * else; a finished span beyond `capacity` counts in dropped, and its range is closed all the
 * same (popped), so that later ends still match. */
void tracer_begin(void *state, const char *name, int rows);
void tracer_end(void *state, const char *name, int rows);

/* ---- tracer.c (yours): 2. the trace-event file ---- */

/* Writes every span as one complete event ("ph":"X") of the Trace Event Format:
 *   {"traceEvents":[
 *     {"name":"qkv","cat":"prefill","ph":"X","ts":12.345,"dur":6.789,"pid":1,"tid":1,"args":{"rows":32}},
 *     ...
 *   ],"displayTimeUnit":"ms"}
 * name and cat (the span's phase) are JSON strings (a " or a \ in them escaped, a control
 * character written as \u00XX); ts and dur in microseconds with at least three decimals (the
 * format's unit; nanoseconds kept); pid and tid 1 (one process, one thread). Returns 0, or -1
 * with the reason in `error` when the file cannot be written. */
int tracer_write_json(const tracer *t, const char *path, char *error, size_t error_size);

/* ---- tracer.c (yours): 3. the breakdown ---- */

/* The totals of the spans whose phase is `phase` (compare the text): the steps, and each part
 * of trace_part_names. */
trace_totals tracer_totals(const tracer *t, const char *phase);

/* ---- helpers (driver) ---- */

/* A monotonic clock, in seconds. */
static inline double trace_clock_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* A tracer for up to `capacity` spans, timed by `clock` (NULL: trace_clock_seconds), its origin
 * now. Returns 0, or -1 when the spans do not fit in memory. */
static inline int tracer_init(tracer *t, int capacity, double (*clock)(void))
{
    memset(t, 0, sizeof *t);
    t->clock = clock ? clock : trace_clock_seconds;
    t->origin_seconds = t->clock();
    t->phase = "";
    t->capacity = capacity;
    t->spans = (trace_span *)calloc((size_t)capacity, sizeof *t->spans);
    return t->spans ? 0 : -1;
}

static inline void tracer_free(tracer *t)
{
    free(t->spans);
    t->spans = NULL;
}

/* Plugs a tracer into an engine session: the engine calls your begin and end from now on. */
static inline void tracer_plug_into(llama_session *s, tracer *t)
{
    llama_trace_hooks hooks = {t, tracer_begin, tracer_end};
    s->trace = hooks;
}

#ifdef __cplusplus
}
#endif

#endif
