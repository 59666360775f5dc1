/* main.c — Day 29 driver: the toy Llama traced by your tracer — a timeline you can open in
 * Perfetto, and where a request's time goes, prefill against decode. Do not edit.
 *
 *   build/29-profiling/labs-sim/lab RESULTS.csv     (make check DAY=29 runs it)
 *
 * Runs a request on the 15M shape (seeded FP32 weights, one thread): a prefill of 64 tokens and
 * 32 greedy decode steps, REPEATS times without a tracer and REPEATS times with yours plugged in
 * (llama_session.trace), in turn. Prints, in order:
 *   1. the wall time of each phase, untraced and traced (the fastest of REPEATS), and what tracing cost;
 *   2. your breakdown: each part's time in each phase (measured: its fastest of the requests), the
 *      share of the phase's wall time it took beside the share the shape predicts, and the parts
 *      together against the wall time;
 *   3. where your trace-event file (of the fastest traced request) went: trace.json beside
 *      RESULTS.csv, and how to open it.
 * Writes
 *   series,phase,part,part_index,depth,step,start_ms,end_ms,total_ms,share_percent,predicted_share_percent
 * series breakdown: one row per phase and part (total_ms over the phase, its fastest of the
 * requests, and share_percent of the phase: measured; predicted_share_percent: of the phase's
 * FLOPs (prefill) or bytes (decode), counted from the shape; part "other" is the loop between the
 * parts, the fastest request's wall time minus its parts); series timeline: every span of the
 * prefill step and of the first TIMELINE_DECODE_STEPS decode steps of the fastest traced request (start_ms, end_ms from the
 * prefill's start; part_index: trace_part_names' index, TRACE_PARTS for a layer, TRACE_PARTS + 1
 * for a step). All times measured on this CPU. */
#include "lab.h"
#include "machine.h"
#include "results.h"
#include "timer.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROMPT = 64, DECODE_STEPS = 32, REPEATS = 5, TIMELINE_DECODE_STEPS = 3, SPAN_CAPACITY = 8192 };
static const char *const traced_shape = "15M";

typedef struct request_time {
    double prefill_s, decode_s;   /* wall time of the prefill call, and of all the decode calls */
} request_time;

/* One request: the prompt, then DECODE_STEPS greedy tokens; the tracer (when there is one) is
 * told the phase before each call. */
static int run_request(llama_session *s, tracer *t, const int *prompt, request_time *time, char *error, size_t error_size)
{
    llama_reset_sequence(s, 0);
    if (t) t->phase = "prefill";
    double start = trace_clock_seconds();
    const float *logits = llama_prefill(s, 0, prompt, PROMPT, error, error_size);
    time->prefill_s = trace_clock_seconds() - start;
    if (!logits) return -1;
    int vocab = s->transformer->config.vocab_size, sequence = 0;
    time->decode_s = 0;
    for (int i = 0; i < DECODE_STEPS; i++) {
        int next = llama_argmax(logits, vocab);
        if (t) t->phase = "decode";
        start = trace_clock_seconds();
        logits = llama_decode_batch(s, &sequence, &next, 1, error, error_size);
        time->decode_s += trace_clock_seconds() - start;
        if (!logits) return -1;
    }
    return 0;
}

static int part_index_of(const char *name)
{
    for (int p = 0; p < TRACE_PARTS; p++)
        if (strcmp(name, trace_part_names[p]) == 0) return p;
    return strcmp(name, "layer") == 0 ? TRACE_PARTS : TRACE_PARTS + 1;
}

/* What one reading of the tracer's clock costs, in seconds: the fastest of three runs of a million. */
static double clock_read_seconds(void)
{
    enum { READS = 1000000 };
    double best = 1, sink = 0;
    for (int run = 0; run < 3; run++) {
        double start = trace_clock_seconds();
        for (int i = 0; i < READS; i++) sink += trace_clock_seconds();
        double each = (trace_clock_seconds() - start) / READS;
        if (each < best && sink != 0) best = each;
    }
    return best;
}

/* Each phase's fastest request, part by part: each part's smallest time over the requests, and the
 * steps' too (another program that takes the core for a while slows one part of one request, not
 * the same part of every request). */
static trace_totals fastest_parts(const trace_totals *runs, int n)
{
    trace_totals best = runs[0];
    for (int r = 1; r < n; r++) {
        if (runs[r].step_us < best.step_us) best.step_us = runs[r].step_us;
        for (int p = 0; p < TRACE_PARTS; p++)
            if (runs[r].part_us[p] < best.part_us[p]) best.part_us[p] = runs[r].part_us[p];
    }
    best.parts_us = 0;
    for (int p = 0; p < TRACE_PARTS; p++) best.parts_us += best.part_us[p];
    return best;
}

/* The index of the smallest of n values: the request least disturbed by the rest of the machine. */
static int fastest(const double *seconds, int n)
{
    int best = 0;
    for (int r = 1; r < n; r++)
        if (seconds[r] < seconds[best]) best = r;
    return best;
}

/* What the shape predicts each part's share of a phase to be, from the engine's counts (llama.h's
 * llama_counters): prefill is compute-bound, so a part's share of its FLOPs (matrix products and
 * attention); decode is memory-bound, so its share of the bytes (weights, KV written and read).
 * Norms, RoPE and SwiGLU count as nothing in both, as the engine's counters leave them out. */
static void predicted_shares(const llama_config *c, int decode, double share[TRACE_PARTS])
{
    double dim = c->dim, kv = llama_kv_dim_of(c), hidden = c->hidden_dim, layers = c->n_layers;
    double heads = c->n_heads, head_dim = llama_head_dim_of(c), vocab = c->vocab_size;
    double amount[TRACE_PARTS] = {0}, sum = 0;
    int steps = decode ? DECODE_STEPS : 1, rows = decode ? 1 : PROMPT;
    for (int step = 0; step < steps; step++) {
        int first = decode ? PROMPT + step : 0;
        double attended = (double)rows * first + (double)rows * (rows + 1) / 2;
        if (decode) {   /* bytes */
            amount[0] += 4 * rows * dim;
            amount[2] += 4 * layers * (dim * dim + 2 * kv * dim);
            amount[3] += 8 * kv * rows * layers;
            amount[4] += 8 * kv * attended * layers;
            amount[5] += 4 * layers * dim * dim;
            amount[7] += 4 * layers * 3 * hidden * dim;
            amount[8] += 4 * vocab * dim;
        } else {        /* FLOPs */
            amount[2] += 2 * rows * layers * (dim * dim + 2 * kv * dim);
            amount[4] += 4 * head_dim * heads * attended * layers;
            amount[5] += 2 * rows * layers * dim * dim;
            amount[7] += 2 * rows * layers * 3 * hidden * dim;
            amount[8] += 2 * vocab * dim;
        }
    }
    for (int p = 0; p < TRACE_PARTS; p++) sum += amount[p];
    for (int p = 0; p < TRACE_PARTS; p++) share[p] = 100 * amount[p] / sum;
}

/* A phase, as the breakdown reports it: each part its fastest time, plus the loop between the
 * parts as the fastest request of the phase had it; that request's wall time and parts. */
typedef struct phase_report {
    trace_totals parts;           /* fastest_parts */
    double other_us;              /* the fastest request's wall time minus its parts */
    double time_us;               /* parts.parts_us + other_us: what the shares are of */
    double request_wall_us, request_parts_us, request_steps_us;
} phase_report;

static phase_report report_of(const trace_totals *runs, const double *wall_s, int n)
{
    phase_report r = {fastest_parts(runs, n), 0, 0, 0, 0, 0};
    int best = fastest(wall_s, n);
    r.request_wall_us = 1e6 * wall_s[best], r.request_parts_us = runs[best].parts_us, r.request_steps_us = runs[best].step_us;
    r.other_us = r.request_wall_us - r.request_parts_us;
    r.time_us = r.parts.parts_us + r.other_us;
    return r;
}

static void print_breakdown(const phase_report *prefill, const phase_report *decode, const llama_config *c)
{
    double prefill_predicted[TRACE_PARTS], decode_predicted[TRACE_PARTS];
    predicted_shares(c, 0, prefill_predicted), predicted_shares(c, 1, decode_predicted);
    printf("2. Your breakdown (measured): each part's time summed over the phase, its fastest of %d traced\n"
           "   requests (decode: per step, the mean of %d), and its share of the phase, beside the share the\n"
           "   shape predicts (prefill: of the FLOPs; decode: of the bytes; counted from the shape):\n", REPEATS,
           DECODE_STEPS);
    printf("   %-18s %12s %8s %10s %16s %8s %10s\n", "part", "prefill ms", "share", "predicted", "decode ms/step", "share",
           "predicted");
    for (int p = 0; p < TRACE_PARTS; p++)
        printf("   %-18s %12.3f %7.1f%% %9.1f%% %16.4f %7.1f%% %9.1f%%\n", trace_part_names[p],
               prefill->parts.part_us[p] / 1e3, 100 * prefill->parts.part_us[p] / prefill->time_us, prefill_predicted[p],
               decode->parts.part_us[p] / 1e3 / DECODE_STEPS, 100 * decode->parts.part_us[p] / decode->time_us,
               decode_predicted[p]);
    printf("   %-18s %12.3f %7.1f%% %10s %16.4f %7.1f%%\n", "the loop between", prefill->other_us / 1e3,
           100 * prefill->other_us / prefill->time_us, "", decode->other_us / 1e3 / DECODE_STEPS,
           100 * decode->other_us / decode->time_us);
    printf("   The fastest traced request of each phase, whole: its parts together, its steps, its wall time:\n");
    printf("   %-18s %12.3f %7.1f%% %10s %16.4f %7.1f%%\n", "parts together", prefill->request_parts_us / 1e3,
           100 * prefill->request_parts_us / prefill->request_wall_us, "", decode->request_parts_us / 1e3 / DECODE_STEPS,
           100 * decode->request_parts_us / decode->request_wall_us);
    printf("   %-18s %12.3f %7.1f%% %10s %16.4f %7.1f%%\n", "steps", prefill->request_steps_us / 1e3,
           100 * prefill->request_steps_us / prefill->request_wall_us, "", decode->request_steps_us / 1e3 / DECODE_STEPS,
           100 * decode->request_steps_us / decode->request_wall_us);
    printf("   %-18s %12.3f %8s %10s %16.4f\n", "wall time", prefill->request_wall_us / 1e3, "", "",
           decode->request_wall_us / 1e3 / DECODE_STEPS);
    printf("   (The parts leave out the loop between them and the calls' own checks: together they should come\n"
           "   within a few per cent of the wall time.)\n\n");
}

static void write_results(const char *path, const tracer *t, const phase_report *prefill, const phase_report *decode,
                          const llama_config *c)
{
    double predicted[2][TRACE_PARTS];
    predicted_shares(c, 0, predicted[0]), predicted_shares(c, 1, predicted[1]);
    lab_results out = lab_results_open_or_exit(path, "series,phase,part,part_index,depth,step,start_ms,end_ms,total_ms,share_percent,"
                                         "predicted_share_percent");
    const phase_report *reports[2] = {prefill, decode};
    const char *phases[2] = {"prefill", "decode"};
    for (int k = 0; k < 2; k++) {
        const phase_report *r = reports[k];
        for (int p = 0; p < TRACE_PARTS; p++)
            lab_results_row_or_exit(&out, "breakdown,%s,%s,%d,,,,,%.6g,%.4g,%.4g", phases[k], trace_part_names[p], p,
                            r->parts.part_us[p] / 1e3, 100 * r->parts.part_us[p] / r->time_us, predicted[k][p]);
        lab_results_row_or_exit(&out, "breakdown,%s,other,%d,,,,,%.6g,%.4g,0", phases[k], TRACE_PARTS, r->other_us / 1e3,
                        100 * r->other_us / r->time_us);
    }
    /* the timeline, from the first step's start: spans end before their parents (the step last),
     * so a step's index is known when it ends */
    double origin_us = 0;
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->spans[i].name, "step") == 0) {
            origin_us = t->spans[i].start_us;
            break;
        }
    int step = 0;
    for (int i = 0; i < t->count && step <= TIMELINE_DECODE_STEPS; i++) {
        const trace_span *s = &t->spans[i];
        double end_us = s->start_us + s->duration_us;
        lab_results_row_or_exit(&out, "timeline,%s,%s,%d,%d,%d,%.6f,%.6f,,,", s->phase, s->name, part_index_of(s->name), s->depth,
                        step, (s->start_us - origin_us) / 1e3, (end_us - origin_us) / 1e3);
        if (strcmp(s->name, "step") == 0) step++;
    }
    lab_results_close_or_exit(&out);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 29 — profiling: the toy Llama traced, prefill against decode\n\n");
    char error[512], cpu[128];
    lab_cpu_name(cpu, sizeof cpu);
    llama_config config;
    llama_transformer model;
    llama_session session;
    if (llama_named_shape(traced_shape, &config, error, sizeof error) != 0 ||
        llama_build_transformer_generated(&model, &config, 29, error, sizeof error) != 0 ||
        llama_build_session(&session, &model, 1, PROMPT + DECODE_STEPS, 1, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    int prompt[PROMPT];
    uint64_t state = llama_seed_generator(2929);
    for (int i = 0; i < PROMPT; i++) prompt[i] = (int)(llama_random_u32(&state) % (uint32_t)config.vocab_size);

    /* a warm-up, then REPEATS requests untraced and traced in turn (so that a slower moment of a
     * shared machine falls on both); each wall time and each part is its fastest of the requests,
     * the least disturbed by other programs */
    request_time plain = {0}, traced = {0};
    if (run_request(&session, NULL, prompt, &plain, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    tracer traces[REPEATS] = {{0}};
    trace_totals prefill_runs[REPEATS], decode_runs[REPEATS];
    double wall_s[5][REPEATS];   /* untraced prefill, untraced decode, traced prefill, traced decode, traced request */
    int requests = 0;
    for (int r = 0; r < REPEATS; r++, requests++) {
        tracer *t = &traces[r];
        if (tracer_init(t, SPAN_CAPACITY, NULL) != 0) {
            fprintf(stderr, "no memory for %d spans\n", SPAN_CAPACITY);
            return 1;
        }
        session.trace = (llama_trace_hooks){0};
        if (run_request(&session, NULL, prompt, &plain, error, sizeof error) != 0) {
            fprintf(stderr, "%s\n", error);
            return 1;
        }
        tracer_plug_into(&session, t);
        if (run_request(&session, t, prompt, &traced, error, sizeof error) != 0) {
            fprintf(stderr, "%s\n", error);
            return 1;
        }
        wall_s[0][r] = plain.prefill_s, wall_s[1][r] = plain.decode_s;
        wall_s[2][r] = traced.prefill_s, wall_s[3][r] = traced.decode_s, wall_s[4][r] = traced.prefill_s + traced.decode_s;
        prefill_runs[r] = tracer_totals(t, "prefill"), decode_runs[r] = tracer_totals(t, "decode");
        if (t->errors || t->count == 0) break;
    }
    if (requests < REPEATS) requests++;   /* the one whose tracer went wrong, reported below */
    const tracer *t = &traces[requests - 1];
    plain.prefill_s = wall_s[0][fastest(wall_s[0], requests)], plain.decode_s = wall_s[1][fastest(wall_s[1], requests)];
    traced.prefill_s = wall_s[2][fastest(wall_s[2], requests)], traced.decode_s = wall_s[3][fastest(wall_s[3], requests)];
    printf("1. A request on the %s shape (%.1f MB of seeded FP32 weights, one thread), measured on %s:\n"
           "   a prefill of %d tokens, then %d greedy decode steps.\n", traced_shape, model.weights_bytes / 1e6, cpu,
           PROMPT, DECODE_STEPS);
    printf("   %-9s %14s %14s %10s\n", "phase", "untraced ms", "traced ms", "tracing");
    printf("   %-9s %14.3f %14.3f %+9.1f%%\n", "prefill", 1e3 * plain.prefill_s, 1e3 * traced.prefill_s,
           100 * (traced.prefill_s / plain.prefill_s - 1));
    printf("   %-9s %14.3f %14.3f %+9.1f%%\n", "decode", 1e3 * plain.decode_s, 1e3 * traced.decode_s,
           100 * (traced.decode_s / plain.decode_s - 1));
    double read_s = clock_read_seconds(), reads_s = 2.0 * t->count * read_s;
    printf("   (the fastest of %d requests each way: on a machine shared with other programs the two columns\n"
           "   may differ, either way, by far more than tracing costs. What it costs for certain: %d spans a\n"
           "   request, two clock reads each, at %.1f ns a read (measured), is %.1f us, %.3f %% of the traced\n"
           "   request's %.1f ms.)\n\n", REPEATS, t->count, 1e9 * read_s, 1e6 * reads_s,
           100 * reads_s / (traced.prefill_s + traced.decode_s), 1e3 * (traced.prefill_s + traced.decode_s));

    phase_report prefill = report_of(prefill_runs, wall_s[2], requests), decode = report_of(decode_runs, wall_s[3], requests);
    fflush(stdout);
    if (t->errors || t->count == 0 || prefill.parts.steps != 1 || decode.parts.steps != DECODE_STEPS ||
        !(prefill.parts.parts_us > 0) || !(decode.parts.parts_us > 0)) {
        fprintf(stderr, "Your tracer recorded %d spans (%d errors%s%s), %d prefill and %d decode steps, parts of %.3f and "
                "%.3f ms: the request had 1 prefill and %d decode steps.\nNothing to plot yet: the verdict below says "
                "which check fails.\n", t->count, t->errors, t->errors ? ", the first: " : "", t->errors ? t->first_error : "",
                prefill.parts.steps, decode.parts.steps, prefill.parts.parts_us / 1e3, decode.parts.parts_us / 1e3,
                DECODE_STEPS);
        return 1;
    }
    print_breakdown(&prefill, &decode, &config);

    char folder[4096], json[4200];
    snprintf(folder, sizeof folder, "%s", argv[1]);
    snprintf(json, sizeof json, "%s/trace.json", dirname(folder));
    t = &traces[fastest(wall_s[4], requests)];   /* the file and the timeline: the fastest traced request */
    if (tracer_write_json(t, json, error, sizeof error) != 0) {
        fprintf(stderr, "tracer_write_json: %s\n", error);
        return 1;
    }
    printf("3. Your trace-event file (%d events): %s\n"
           "   Open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing: one row, the steps,\n"
           "   layers and parts nested as they ran.\n\n", t->count, json);
    write_results(argv[1], t, &prefill, &decode, &config);
    printf("Wrote the breakdown of both phases and the timeline of the prefill and %d decode steps (machine: %s).\n",
           TIMELINE_DECODE_STEPS, cpu);
    for (int r = 0; r < REPEATS; r++) tracer_free(&traces[r]);
    llama_free_session(&session);
    llama_free_transformer(&model);
    return 0;
}
