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

static double now_us(const tracer *t) { return 1e6 * (t->clock() - t->origin_seconds); }

static void count_error(tracer *t, const char *what, const char *name)
{
    if (t->errors++ == 0) snprintf(t->first_error, sizeof t->first_error, "%s \"%s\"", what, name);
}

void tracer_begin(void *state, const char *name, int rows)
{
    tracer *t = state;
    if (t->depth == TRACE_MAX_DEPTH) return count_error(t, "a begin nested deeper than TRACE_MAX_DEPTH:", name);
    trace_open *open = &t->open[t->depth++];
    open->name = name, open->phase = t->phase, open->rows = rows;
    open->start_us = now_us(t);   /* last: the time of the tracer's own work is not the range's */
}

void tracer_end(void *state, const char *name, int rows)
{
    tracer *t = state;
    double end_us = now_us(t);    /* first, for the same reason */
    if (t->depth == 0) return count_error(t, "an end with no range open:", name);
    trace_open *open = &t->open[t->depth - 1];
    if (strcmp(open->name, name) != 0) return count_error(t, "an end that does not close the innermost range:", name);
    t->depth--;
    if (t->count == t->capacity) {
        t->dropped++;
        return;
    }
    trace_span span = {open->name, open->phase, open->rows, t->depth, open->start_us, end_us - open->start_us};
    t->spans[t->count++] = span;
}

/* ---------------------------------------------------------------------------------
 * 2. The trace-event file */

static void write_json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
        else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

int tracer_write_json(const tracer *t, const char *path, char *error, size_t error_size)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(error, error_size, "cannot write %s", path);
        return -1;
    }
    fprintf(f, "{\"traceEvents\":[\n");
    for (int i = 0; i < t->count; i++) {
        const trace_span *s = &t->spans[i];
        fprintf(f, "{\"name\":");
        write_json_string(f, s->name);
        fprintf(f, ",\"cat\":");
        write_json_string(f, s->phase);
        fprintf(f, ",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1,\"args\":{\"rows\":%d}}%s\n", s->start_us,
                s->duration_us, s->rows, i + 1 < t->count ? "," : "");
    }
    fprintf(f, "],\"displayTimeUnit\":\"ms\"}\n");
    if (fclose(f) != 0) {
        snprintf(error, error_size, "cannot finish writing %s", path);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 3. The breakdown */

trace_totals tracer_totals(const tracer *t, const char *phase)
{
    trace_totals totals = {0};
    for (int i = 0; i < t->count; i++) {
        const trace_span *s = &t->spans[i];
        if (strcmp(s->phase, phase) != 0) continue;
        if (strcmp(s->name, "step") == 0) totals.steps++, totals.step_us += s->duration_us;
        for (int p = 0; p < TRACE_PARTS; p++)
            if (strcmp(s->name, trace_part_names[p]) == 0) totals.part_us[p] += s->duration_us, totals.parts_us += s->duration_us;
    }
    return totals;
}
