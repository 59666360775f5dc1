/* decode_bench.c — the engine's decode speed on this machine beside the bounds of the
 * performance model, for tests/llama/bench (`make bench PART=engine`).
 *
 *   decode_bench ROUNDS STEPS SHAPE...      (tests/llama/bench: 7 3 42M 110M)
 *
 * For each shape, FP32, weight-only INT8 and weight-only INT4 weights, batches 1 to 32, one
 * thread: every configuration is timed for `steps` decode steps once per round, the rounds
 * interleave all configurations (and a STREAM read of the model's bytes), and each figure
 * is the median over the rounds. Whatever else runs on the machine then slows every
 * configuration alike, and the ratios between them stay meaningful.
 *
 * Three kinds of figure, labelled as such:
 *   bound       the roofline of lib/perfmodel with the bandwidth measured in this run:
 *               max(bytes / STREAM read, FLOPs / FMA peak, weights / conversion rate);
 *               at batch 1 bytes / STREAM read is the memory bound;
 *   calibrated  the engine's time from the model's memory time m and compute time c, with
 *               the efficiencies u (of the bandwidth) and v (of the peak) fitted through
 *               batches 1 and 32 of this run, in one of three forms: m/u + c/v (streaming and
 *               computing one after the other), max(m/u, c/v) (overlapped, as the roofline
 *               assumes) or c/v (memory traffic hidden under the compute). Batch 4 chooses the
 *               form (the one nearest its measured time); batches 2, 8 and 16 are predictions,
 *               each printed with its error;
 *   measured    the engine, by the thread's CPU time as the probes are (cpu_probes.h),
 *               with the wall clock beside it.
 * And batch 1 on two threads (FP32 and INT8), by the wall clock, against the two-thread memory
 * bound: the model's bytes at the bandwidth of two threads streaming halves of them at once. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_probes.h"
#include "llama.h"
#include "perfmodel.h"
#include "timer.h"

enum { BATCHES = 6, FORMATS = 3, PROMPT = 8, MAX_ROUNDS = 64 };
static const int batch_sizes[BATCHES] = {1, 2, 4, 8, 16, 32};
static const char *format_names[FORMATS] = {"fp32", "int8", "int4"};
static const DataType format_types[FORMATS] = {DTYPE_FP32, DTYPE_INT8, DTYPE_INT4};

static double seconds_of(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fail(const char *what, const char *error)
{
    fprintf(stderr, "decode_bench: %s: %s\n", what, error);
    exit(1);
}

typedef struct {
    Session session;
    int sequences[32], tokens[32];
    double step_s[MAX_ROUNDS], wall_step_s[MAX_ROUNDS];
} Config;

/* `steps` decode steps of every sequence of the configuration, in round `round`: seconds a
 * step, of this thread's CPU time (what the engine costs, not counting the time other
 * programs hold the core) and of the clock on the wall */
static void time_steps(Config *c, int round, int batch, int steps, int vocab)
{
    char error[256];
    double cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID), wall = seconds_of(CLOCK_MONOTONIC);
    for (int step = 0; step < steps; step++) {
        for (int i = 0; i < batch; i++) c->tokens[i] = (c->tokens[i] * 31 + 7 + i) % vocab;
        if (!llama_decode_batch(&c->session, c->sequences, c->tokens, batch, error, sizeof error)) fail("decode", error);
    }
    c->step_s[round] = (seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu) / steps;
    c->wall_step_s[round] = (seconds_of(CLOCK_MONOTONIC) - wall) / steps;
}

/* One decode step as the model counts it: the roofline's bound, and the two times the
 * calibration adds — memory (the step's bytes at the STREAM bandwidth) and compute (its
 * FLOPs at the FMA peak, plus, for INT8 and INT4, converting the weights as the engine does:
 * once per tile of rows, matmul.c's tiles being 1, 2 (for 2 or 3 rows) and 4 rows high) */
typedef struct {
    double bound_s, memory_s, compute_s;
} StepModel;

/* The bandwidth of two threads reading at once, each half of a buffer of `bytes`: both start
 * together (a barrier), and the pass takes the clock on the wall from the start to the later of
 * the two ends; the best of three passes, after one untimed pass, as the probes take theirs.
 * The sum is of 64-bit integers, which the compiler vectorises and no FP rounding orders. */
typedef struct {
    const uint64_t *words;
    size_t count;
    uint64_t sum;
    pthread_barrier_t *start, *end;
} HalfRead;

static void read_half_once(HalfRead *h)
{
    /* four streams at once, as a matrix-vector product reads four rows: one stream alone keeps
     * too few cache lines in flight to reach the bandwidth a core can have */
    size_t quarter = h->count / 4;
    const uint64_t *a = h->words, *b = a + quarter, *c = b + quarter, *d = c + quarter;
    uint64_t sum = 0;
    for (size_t i = 0; i < quarter; i++) sum += a[i] + b[i] + c[i] + d[i];
    h->sum += sum;
}

enum { READ_PASSES = 4 };   /* one untimed, then three timed */
static volatile uint64_t read_sink;

static void *read_half(void *argument)
{
    HalfRead *h = argument;
    for (int pass = 0; pass < READ_PASSES; pass++) {
        pthread_barrier_wait(h->start);
        read_half_once(h);
        pthread_barrier_wait(h->end);
    }
    return NULL;
}

static double two_thread_read_bandwidth(size_t bytes)
{
    size_t count = bytes / sizeof(uint64_t) / 8 * 8;
    uint64_t *words = malloc(count * sizeof *words);
    if (!words) fail("two-thread read", "out of memory");
    for (size_t i = 0; i < count; i++) words[i] = i;
    pthread_barrier_t start, end;
    pthread_barrier_init(&start, NULL, 2);
    pthread_barrier_init(&end, NULL, 2);
    HalfRead halves[2] = {{words, count / 2, 0, &start, &end}, {words + count / 2, count / 2, 0, &start, &end}};
    pthread_t other;
    if (pthread_create(&other, NULL, read_half, &halves[1]) != 0) fail("two-thread read", "no second thread");
    double best = 0.0;
    for (int pass = 0; pass < READ_PASSES; pass++) {
        pthread_barrier_wait(&start);
        double began = seconds_of(CLOCK_MONOTONIC);
        read_half_once(&halves[0]);
        pthread_barrier_wait(&end);
        double seconds = seconds_of(CLOCK_MONOTONIC) - began;
        if (pass > 0 && (best == 0.0 || seconds < best)) best = seconds;
    }
    pthread_join(other, NULL);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&end);
    read_sink = halves[0].sum + halves[1].sum;   /* the sums are used: the reads stay */
    free(words);
    return (double)(count * sizeof *words) / best;
}

static StepModel model_step(const ModelShape *m, const Hardware *h, const LlamaConfig *c, int format, int batch, int gen)
{
    Workload w = {.weights = format_types[format], .kv = DTYPE_FP32, .batch = batch, .prompt = PROMPT, .gen = gen};
    Estimate e;
    perfmodel_estimate(m, h, &w, &e);
    int tile_rows = batch == 1 ? 1 : batch < 4 ? 2 : 4;
    double conversions = format ? (double)llama_matrix_parameter_count(c) * ((batch + tile_rows - 1) / tile_rows) : 0.0;
    return (StepModel){e.decode_step_time_s, e.decode_step_bytes / e.bandwidth,
                       e.decode_step_flops / e.peak_flops + (format ? conversions / e.conversion_rate : 0.0)};
}

/* A calibrated form of the step time: m/u + c/v, max(m/u, c/v) or c/v, with 1/u and 1/v. */
enum { SEQUENTIAL, OVERLAPPED, HIDDEN, FORMS };
typedef struct {
    int form;
    double inverse_u, inverse_v;
    int capped;   /* u came out above 1 and was set to 1 */
} Fit;

static double predict(const Fit *fit, StepModel s)
{
    double memory = s.memory_s * fit->inverse_u, compute = s.compute_s * fit->inverse_v;
    return fit->form == SEQUENTIAL ? memory + compute : fit->form == OVERLAPPED ? fmax(memory, compute) : compute;
}

/* m/u + c/v through batches 1 and 32: two equations, two unknowns. Where that needs u > 1 (the
 * engine streaming faster than STREAM reads), u is 1 and v comes from batch 32. */
static Fit fit_sequential(StepModel one, StepModel all, double t1, double t32)
{
    double determinant = one.memory_s * all.compute_s - all.memory_s * one.compute_s;
    Fit fit = {SEQUENTIAL, (t1 * all.compute_s - t32 * one.compute_s) / determinant,
               (one.memory_s * t32 - all.memory_s * t1) / determinant, 0};
    fit.capped = !(fit.inverse_u >= 1.0);
    if (fit.capped) fit.inverse_u = 1.0, fit.inverse_v = (t32 - all.memory_s) / all.compute_s;
    return fit;
}

static void bench_shape(const char *shape, int rounds, int steps)
{
    char error[256];
    LlamaConfig c;
    if (llama_named_shape(shape, &c, error, sizeof error) != 0) fail(shape, error);
    Transformer t[FORMATS];
    for (int f = 0; f < FORMATS; f++)
        if (llama_build_transformer_generated(&t[f], &c, 1, error, sizeof error) != 0) fail(shape, error);
    if (llama_quantize_transformer(&t[1], llama_int8_group_size(&c, 64), error, sizeof error) != 0) fail(shape, error);
    if (llama_quantize_transformer_int4(&t[2], llama_int8_group_size(&c, 64), error, sizeof error) != 0) fail(shape, error);

    int capacity = PROMPT + rounds * steps + 1, prompt[PROMPT];
    static Config configs[FORMATS][BATCHES];
    for (int f = 0; f < FORMATS; f++)
        for (int b = 0; b < BATCHES; b++) {
            Config *k = &configs[f][b];
            int batch = batch_sizes[b];
            if (llama_build_session(&k->session, &t[f], batch, capacity, 1, error, sizeof error) != 0) fail(shape, error);
            for (int i = 0; i < batch; i++) {
                for (int p = 0; p < PROMPT; p++) prompt[p] = (i * 101 + p * 13 + 1) % c.vocab_size;
                k->sequences[i] = i, k->tokens[i] = prompt[PROMPT - 1];
                if (!llama_prefill(&k->session, i, prompt, PROMPT, error, sizeof error)) fail("prefill", error);
            }
        }

    /* batch 1 on two threads, FP32 and INT8 */
    static Config two_threads[2];
    for (int f = 0; f < 2; f++) {
        Config *k = &two_threads[f];
        if (llama_build_session(&k->session, &t[f], 1, capacity, 2, error, sizeof error) != 0) fail(shape, error);
        for (int p = 0; p < PROMPT; p++) prompt[p] = (p * 13 + 1) % c.vocab_size;
        k->sequences[0] = 0, k->tokens[0] = prompt[PROMPT - 1];
        if (!llama_prefill(&k->session, 0, prompt, PROMPT, error, sizeof error)) fail("prefill", error);
    }

    /* the rounds: every configuration once, FP32, INT8 and INT4 side by side, and the bandwidths */
    double bandwidth[MAX_ROUNDS], bandwidth2[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        bandwidth[r] = perfmodel_stream_bandwidth(STREAM_READ, (size_t)t[0].weights_bytes, 3);
        for (int b = 0; b < BATCHES; b++)
            for (int f = 0; f < FORMATS; f++)
                time_steps(&configs[f][b], r, batch_sizes[b], steps, c.vocab_size);
        bandwidth2[r] = two_thread_read_bandwidth((size_t)t[0].weights_bytes);
        for (int f = 0; f < 2; f++) time_steps(&two_threads[f], r, 1, steps, c.vocab_size);
    }
    double wall2[2];
    for (int f = 0; f < 2; f++) {
        wall2[f] = lab_median(two_threads[f].wall_step_s, rounds);
        llama_free_session(&two_threads[f].session);
    }
    double measured[FORMATS][BATCHES], wall[FORMATS][BATCHES];
    for (int f = 0; f < FORMATS; f++)
        for (int b = 0; b < BATCHES; b++) {
            measured[f][b] = lab_median(configs[f][b].step_s, rounds);
            wall[f][b] = lab_median(configs[f][b].wall_step_s, rounds);
            llama_free_session(&configs[f][b].session);
        }

    ModelShape m;
    perfmodel_shape_from_config(&c, shape, &m);
    Hardware h;
    perfmodel_measure_cpu(&h, (size_t)t[0].weights_bytes);
    h.bandwidth = lab_median(bandwidth, rounds);
    int gen = rounds * steps + 1;
    printf("%s_stream_read: %.2f GB/s (median of %d, interleaved with the decode steps)\n", shape, h.bandwidth * 1e-9, rounds);
    printf("%s_fma_peak: %.1f GFLOP/s; int8 conversion %.1f G weights/s\n", shape, h.fp32_flops * 1e-9, h.dequantizing_flops / 2e9);

    for (int f = 0; f < FORMATS; f++) {
        const char *name = format_names[f];
        StepModel one = model_step(&m, &h, &c, f, 1, gen), all = model_step(&m, &h, &c, f, 32, gen);
        /* calibration: each form's efficiencies through batches 1 and 32, then the form
         * nearest batch 4's measured time */
        double t1 = measured[f][0], t32 = measured[f][BATCHES - 1];
        Fit fits[FORMS];
        fits[SEQUENTIAL] = fit_sequential(one, all, t1, t32);
        fits[OVERLAPPED] = (Fit){OVERLAPPED, t1 / one.memory_s, t32 / all.compute_s, 0};
        fits[HIDDEN] = (Fit){HIDDEN, 0.0, t32 / all.compute_s, 0};
        StepModel four = model_step(&m, &h, &c, f, 4, gen);
        int chosen = HIDDEN;
        for (int k = 0; k < FORMS; k++)
            if (fabs(predict(&fits[k], four) - measured[f][2]) < fabs(predict(&fits[chosen], four) - measured[f][2])) chosen = k;
        const Fit *fit = &fits[chosen];
        printf("%s_%s_memory_bound: %.1f tokens/s (%.1f MB a step / %.2f GB/s)\n", shape, name, 1.0 / one.memory_s,
               one.memory_s * h.bandwidth * 1e-6, h.bandwidth * 1e-9);
        printf("%s_%s_batch1_of_memory_bound: %.0f %%\n", shape, name, one.memory_s / t1 * 100);
        if (chosen == HIDDEN)
            printf("%s_%s_calibration: c/v, the engine computing at %.0f %% of the peak (conversions included), its memory "
                   "traffic hidden under the compute\n", shape, name, 100 / fit->inverse_v);
        else
            printf("%s_%s_calibration: %s, the engine streaming at %.0f %% of the bandwidth%s and computing at %.0f %% of "
                   "the peak (conversions included)\n", shape, name, chosen == SEQUENTIAL ? "m/u + c/v, one after the other"
                   : "max(m/u, c/v), overlapped", 100 / fit->inverse_u, fit->capped ? " (the fit asked for more)" : "",
                   100 / fit->inverse_v);
        for (int b = 0; b < BATCHES; b++) {
            int batch = batch_sizes[b];
            StepModel s = model_step(&m, &h, &c, f, batch, gen);
            double bound = s.bound_s;
            double calibrated = predict(fit, s);
            char error_text[64] = "calibrated on this batch";
            if (batch == 4) snprintf(error_text, sizeof error_text, "chose the form");
            else if ((b > 0 || chosen == HIDDEN) && b < BATCHES - 1)
                snprintf(error_text, sizeof error_text, "error %+.1f %%", (calibrated - measured[f][b]) / measured[f][b] * 100);
            printf("%s_%s_batch%d: %.1f tokens/s measured (%.2fx batch 1); step %.2f ms measured (wall %.2f), %.2f ms bound, "
                   "%.2f ms calibrated prediction (%s)\n", shape, name, batch, batch / measured[f][b],
                   measured[f][0] / measured[f][b] * batch, measured[f][b] * 1e3, wall[f][b] * 1e3, bound * 1e3,
                   calibrated * 1e3, error_text);
        }
    }
    double two_thread_bandwidth = lab_median(bandwidth2, rounds);
    printf("%s_stream_read_2threads: %.2f GB/s (two threads reading halves at once, by the wall clock, median of %d)\n", shape,
           two_thread_bandwidth * 1e-9, rounds);
    for (int f = 0; f < 2; f++) {
        StepModel one = model_step(&m, &h, &c, f, 1, gen);
        double bound_s = one.memory_s * h.bandwidth / two_thread_bandwidth;
        printf("%s_%s_batch1_2threads: %.1f tokens/s measured (wall %.2f ms a step, %.2fx one thread's wall), %.0f %% of "
               "the two-thread memory bound (%.1f tokens/s)\n", shape, format_names[f], 1.0 / wall2[f], wall2[f] * 1e3,
               wall[f][0] / wall2[f], bound_s / wall2[f] * 100, 1.0 / bound_s);
    }
    for (int f = 1; f < FORMATS; f++)
        for (int b = 0; b < BATCHES; b++)
            printf("%s_%s_over_fp32_batch%d: %.2f x\n", shape, format_names[f], batch_sizes[b], measured[0][b] / measured[f][b]);
    for (int f = 0; f < FORMATS; f++) llama_free_transformer(&t[f]);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: decode_bench ROUNDS STEPS SHAPE...\n");
        return 2;
    }
    int rounds = atoi(argv[1]), steps = atoi(argv[2]);
    if (rounds < 1 || rounds > MAX_ROUNDS || steps < 1) {
        fprintf(stderr, "decode_bench: rounds 1 to %d and steps >= 1\n", MAX_ROUNDS);
        return 2;
    }
    for (int i = 3; i < argc; i++) bench_shape(argv[i], rounds, steps);
    return 0;
}
