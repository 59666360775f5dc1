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
    // TODO: open a range named `name` on the tracer's stack of open ranges, remembering what its
    //       span will need (phase, rows, the time it starts, in µs from the origin). Refused past
    //       TRACE_MAX_DEPTH: an error, nothing opened. Idea: the range's time is the engine's
    //       work, not the tracer's — take the timestamp as late as you can.
    (void)state, (void)name, (void)rows;
}

void tracer_end(void *state, const char *name, int rows)
{
    // TODO: close the innermost open range, which must be named `name` (else an error, and
    //       nothing changes), and keep it as a span (in the order ranges end; depth = the ranges
    //       still open around it). Every accepted end closes its range, even one whose span finds
    //       no room (counted in dropped). Idea: a stack — begins push, ends pop, and the
    //       timestamp is taken before the tracer's own work.
    (void)state, (void)name, (void)rows;
}

/* ---------------------------------------------------------------------------------
 * 2. The trace-event file */

int tracer_write_json(const tracer *t, const char *path, char *error, size_t error_size)
{
    // TODO: fopen(path, "w"); write {"traceEvents":[ ... ],"displayTimeUnit":"ms"} with one
    //       complete event per span, commas between events and none after the last:
    //       {"name":...,"cat":PHASE,"ph":"X","ts":%.3f,"dur":%.3f,"pid":1,"tid":1,"args":{"rows":N}}
    //       Names are JSON strings: escape " and \ with a backslash, and write a byte below
    //       0x20 as \u00XX. fclose, and report a failure to open or to close in `error`.
    (void)t, (void)path;
    snprintf(error, error_size, "tracer_write_json is not written yet (tracer.c)");
    return -1;
}

/* ---------------------------------------------------------------------------------
 * 3. The breakdown */

trace_totals tracer_totals(const tracer *t, const char *phase)
{
    // TODO: over the spans whose phase is `phase` (strcmp): count the "step" spans and sum their
    //       durations into step_us; add each part's durations to part_us at its index in
    //       trace_part_names, and to parts_us. "layer" is neither: its parts are counted already.
    (void)t, (void)phase;
    trace_totals totals = {0};
    return totals;
}
