/* tracer.c — Day 29: a tracer for the toy Llama — the engine's named ranges timestamped,
 * written as a Chrome trace-event file, and summed into a per-phase breakdown.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. tracer_begin and tracer_end: the hooks the engine calls around each part of a step; a
 *      stack of open ranges, each closed range kept as a span (start and duration, in µs).
 *   2. tracer_write_json: the spans as complete events ("ph":"X") of the Trace Event Format.
 *   3. tracer_totals: the time of each part of a step, summed over one phase of a request.
 *
 * Rules: plain C; time only from t->clock (the tests give the tracer a clock of their own and
 * check your timestamps to the nanosecond). The tests read your file with a strict JSON parser,
 * check that the ranges nest, and that the parts add up to the wall time of a real run.
 *
 * Check:  make check DAY=29        Stuck?  make hint DAY=29
 */
#include "lab.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * 1. The hooks */

void tracer_begin(void *state, const char *name, int rows)
{
    // TODO: task: open a range named `name`, remembering what its span will need (the phase, the
    //       rows, and the time it starts, in µs from the origin). Contract: at most
    //       TRACE_MAX_DEPTH ranges open at once; one more is an error (lab.h: errors, first_error)
    //       and opens nothing. Idea: the range's time is the engine's work, not the tracer's.
    (void)state, (void)name, (void)rows;
}

void tracer_end(void *state, const char *name, int rows)
{
    // TODO: task: end the range named `name` and keep it as a span (spans in the order their
    //       ranges end; depth as lab.h defines it). Contract: the engine's ranges nest, so only one
    //       open range may end here; an end that cannot be that one is an error and changes
    //       nothing. Every accepted end closes its range, even one whose span finds no room
    //       (counted in dropped). Idea: ranges nest like function calls — work out from that which
    //       range an end closes, and what is left open around it afterwards.
    (void)state, (void)name, (void)rows;
}

/* ---------------------------------------------------------------------------------
 * 2. The trace-event file */

int tracer_write_json(const tracer *t, const char *path, char *error, size_t error_size)
{
    // TODO: task: the spans written to `path` as a trace-event file. Contract: one object,
    //       {"traceEvents":[ ... ],"displayTimeUnit":"ms"}, with one complete event per span,
    //       {"name":...,"cat":PHASE,"ph":"X","ts":%.3f,"dur":%.3f,"pid":1,"tid":1,"args":{"rows":N}},
    //       separated by commas; names and phases are JSON strings (" and \ escaped, a byte below
    //       0x20 as \u00XX). 0 when written; -1, and `error` says why, when the file cannot be
    //       opened or finished (a full disk shows only at the close). Idea: the file is read by a
    //       strict JSON parser here and by Perfetto later; a comma after the last event is an error.
    (void)t, (void)path;
    snprintf(error, error_size, "tracer_write_json is not written yet (tracer.c)");
    return -1;
}

/* ---------------------------------------------------------------------------------
 * 3. The breakdown */

trace_totals tracer_totals(const tracer *t, const char *phase)
{
    // TODO: task: the breakdown of one phase: how many "step" spans and their time (step_us),
    //       each part's time at its index in trace_part_names (part_us) and the parts' sum
    //       (parts_us). Contract: spans of other phases count for nothing. Idea: a "layer" is made
    //       of parts already counted.
    (void)t, (void)phase;
    trace_totals totals = {0};
    return totals;
}
