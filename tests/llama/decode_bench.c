/* decode_bench.c — the engine's decode speed on this machine beside the bounds of the
 * performance model, for tests/llama/bench (`make bench PART=engine`).
 *
 *   decode_bench ROUNDS STEPS SHAPE...      (tests/llama/bench: 7 3 42M 110M)
 *
 * For each shape, FP32, weight-only INT8 and weight-only INT4 weights, batches 1 to 32, one
 * thread: every configuration is timed for `steps` decode steps once per round, the rounds
 * interleave all configurations (a STREAM read of the model's bytes, and the engine's matrix
 * kernels on weights in L2 at every batch), and each figure is the median over the rounds.
 * Whatever else runs on the machine then slows every configuration alike, and the ratios
 * between them stay meaningful.
 *
 * Three kinds of figure, labelled as such:
 *   bound       the roofline of lib/perfmodel with the bandwidth measured in this run:
 *               max(bytes / STREAM read, FLOPs / FMA peak, weights / conversion rate);
 *               at batch 1 bytes / STREAM read is the memory bound;
 *   calibrated  the engine's time from the model's memory time m (bytes / STREAM read) and
 *               compute time c (the matrices at the rates their kernels reach with the
 *               weights in L2, measured at each batch: the GEMV and GEMM efficiency), as
 *               ((m/u)^p + (c/v)^p)^(1/p), with u, v and p fitted through batches 1, 4 and
 *               32 of this run; batches 2, 8 and 16 are predictions, each printed with its
 *               error;
 *   measured    the engine, by the thread's CPU time as the probes are (cpu_probes.h),
 *               with the wall clock beside it; and the kernels' rates.
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
#include "matmul.h"
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

/* The engine's matrix kernels with their weights in L2: multiply-adds a second of llama_matmul
 * at `rows` rows over as many of the first outputs of `w` as fit in PROBE_BYTES, repeated for
 * at least a millisecond of this thread's CPU time. How fast the kernels compute when they do
 * not wait for memory, for each tile shape the batch selects (matmul.c): the GEMV and GEMM
 * efficiency behind the model's compute time. */
enum { PROBE_BYTES = 256 * 1024 };

static double kernel_rate(const WeightMatrix *w, int rows, const float *x, float *out)
{
    double bytes_a_weight = w->format == WEIGHTS_FP32 ? 4.0 : w->format == WEIGHTS_INT8 ? 1.0 : 0.5;
    int outputs = (int)(PROBE_BYTES / (w->cols * bytes_a_weight)) / 8 * 8;
    if (outputs < 8) outputs = 8;
    if (outputs > w->rows) outputs = w->rows;
    WeightMatrix slice = *w;
    slice.rows = outputs;
    llama_matmul(out, x, rows, &slice, 0, outputs);   /* into the caches */
    for (long repeats = 1;; repeats *= 2) {
        double start = seconds_of(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < repeats; i++) llama_matmul(out, x, rows, &slice, 0, outputs);
        double seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - start;
        if (seconds >= 1e-3) return (double)rows * outputs * w->cols * (double)repeats / seconds;
    }
}

/* the kernels' rates for one format at every batch, each round's: [batch][0] for rows of dim
 * columns (wq, wk, wv, wo, w1, w3, the classifier), [batch][1] for rows of hidden_dim (w2) */
typedef struct {
    double rate[BATCHES][2][MAX_ROUNDS];
} KernelRates;

static void probe_kernels(const Transformer *t, KernelRates *k, int round)
{
    const LlamaConfig *c = &t->config;
    int widest = c->hidden_dim > c->dim ? c->hidden_dim : c->dim;
    float *x = malloc(sizeof(float) * 32 * (size_t)widest), *out = malloc(sizeof(float) * 32 * (PROBE_BYTES / 8 + 8));
    if (!x || !out) fail("kernel probe", "out of memory");
    for (size_t i = 0; i < 32 * (size_t)widest; i++) x[i] = (float)((i * 37) % 101) * 0.01f - 0.5f;
    for (int b = 0; b < BATCHES; b++) {
        k->rate[b][0][round] = kernel_rate(&t->layers[0].wq, batch_sizes[b], x, out);
        k->rate[b][1][round] = kernel_rate(&t->layers[0].w2, batch_sizes[b], x, out);
    }
    free(x);
    free(out);
}

/* multiply-adds of one row of a step in matrices of dim columns and of hidden_dim columns */
static void step_macs(const LlamaConfig *c, double *dim_columns, double *hidden_columns)
{
    double dim = c->dim, hidden = c->hidden_dim, kv_dim = llama_kv_dim_of(c);
    *dim_columns = c->n_layers * (2 * dim * dim + 2 * kv_dim * dim + 2 * hidden * dim) + (double)c->vocab_size * dim;
    *hidden_columns = c->n_layers * dim * hidden;
}

/* One decode step as the model counts it: the roofline's bound (lib/perfmodel), and the two
 * times the calibration combines: memory m, the step's bytes at the STREAM bandwidth, and
 * compute c, the matrices' multiply-adds at the kernels' probed rates for this batch plus the
 * rest of the step's FLOPs (attention) at the FMA peak */
static StepModel model_step(const ModelShape *m, const Hardware *h, const LlamaConfig *c, int format, int b,
                            const double rate[2], int gen)
{
    int batch = batch_sizes[b];
    Workload w = {.weights = format_types[format], .kv = DTYPE_FP32, .batch = batch, .prompt = PROMPT, .gen = gen};
    Estimate e;
    perfmodel_estimate(m, h, &w, &e);
    double dim_macs, hidden_macs;
    step_macs(c, &dim_macs, &hidden_macs);
    double other_flops = fmax(0.0, e.decode_step_flops - 2.0 * batch * (dim_macs + hidden_macs));
    return (StepModel){e.decode_step_time_s, e.decode_step_bytes / e.bandwidth,
                       batch * (dim_macs / rate[0] + hidden_macs / rate[1]) + other_flops / e.peak_flops};
}

/* The calibrated step time: ((m/u)^p + (c/v)^p)^(1/p), with u the fraction of the STREAM
 * bandwidth the engine streams at, v the fraction of the probed kernels' rates it computes at
 * (its weights come from DRAM, not L2), and p how far the two overlap: p = 1 adds them
 * (nothing overlaps), and as p grows it tends to max(m/u, c/v), the roofline's overlap. */
typedef struct {
    double u, v, p;
    int capped;   /* batch 1 asked for u above 1 (streaming faster than STREAM reads): u is 1 */
} Fit;

static double predict(const Fit *fit, StepModel s)
{
    return pow(pow(s.memory_s / fit->u, fit->p) + pow(s.compute_s / fit->v, fit->p), 1.0 / fit->p);
}

/* u, v and p through batches 1, 4 and 32: for each p of a grid, the u and v that give batches 1
 * (mostly memory) and 32 (mostly compute) their measured times, each solved in turn until they
 * settle; then the p whose prediction of batch 4 is nearest its measured time. u is at most 1:
 * where batch 1 asks for more, it is 1 and batch 1's prediction is off by what it asked. */
static Fit fit_overlap(StepModel one, StepModel four, StepModel all, double t1, double t4, double t32)
{
    Fit best = {1.0, 1.0, 1.0, 1};
    double best_error = INFINITY;
    for (double p = 1.0; p <= 64.0; p *= 1.125) {
        Fit fit = {1.0, 1.0, p, 0};
        for (int i = 0; i < 50; i++) {
            double rest = pow(t1, p) - pow(one.compute_s / fit.v, p);
            fit.u = rest > 0 ? one.memory_s / pow(rest, 1.0 / p) : 1.0;
            fit.capped = !(fit.u <= 1.0);
            if (fit.capped) fit.u = 1.0;
            rest = pow(t32, p) - pow(all.memory_s / fit.u, p);
            fit.v = rest > 0 ? all.compute_s / pow(rest, 1.0 / p) : 1.0;
        }
        double error = fabs(predict(&fit, four) - t4);
        if (error < best_error) best_error = error, best = fit;
    }
    return best;
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
    static KernelRates kernels[FORMATS];
    for (int r = 0; r < rounds; r++) {
        bandwidth[r] = perfmodel_stream_bandwidth(STREAM_READ, (size_t)t[0].weights_bytes, 3);
        for (int f = 0; f < FORMATS; f++) probe_kernels(&t[f], &kernels[f], r);
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

    double step_rates[FORMATS][BATCHES][2];
    for (int f = 0; f < FORMATS; f++) {
        const char *name = format_names[f];
        printf("%s_%s_kernels:", shape, name);
        for (int b = 0; b < BATCHES; b++) {
            for (int k = 0; k < 2; k++) step_rates[f][b][k] = lab_median(kernels[f].rate[b][k], rounds);
            printf(" %d rows %.0f%s", batch_sizes[b], 2e-9 * step_rates[f][b][0], b < BATCHES - 1 ? "," : "");
        }
        printf(" GFLOP/s measured (the kernels on a matrix of %d columns in L2; the FMA peak is %.0f)\n", c.dim,
               h.fp32_flops * 1e-9);
    }
    for (int f = 0; f < FORMATS; f++) {
        const char *name = format_names[f];
        StepModel step[BATCHES];
        for (int b = 0; b < BATCHES; b++) step[b] = model_step(&m, &h, &c, f, b, step_rates[f][b], gen);
        Fit fit = fit_overlap(step[0], step[2], step[BATCHES - 1], measured[f][0], measured[f][2], measured[f][BATCHES - 1]);
        printf("%s_%s_memory_bound: %.1f tokens/s (%.1f MB a step / %.2f GB/s)\n", shape, name, 1.0 / step[0].memory_s,
               step[0].memory_s * h.bandwidth * 1e-6, h.bandwidth * 1e-9);
        printf("%s_%s_batch1_of_memory_bound: %.0f %%\n", shape, name, step[0].memory_s / measured[f][0] * 100);
        printf("%s_%s_calibration: ((m/u)^p + (c/v)^p)^(1/p) through batches 1, 4 and 32: streaming at u = %.0f %% of the "
               "bandwidth%s, computing at v = %.0f %% of the kernels' rates, overlap p = %.2f (1: none; large: the "
               "roofline's max)\n", shape, name, 100 * fit.u, fit.capped ? " (batch 1 asked for more)" : "", 100 * fit.v, fit.p);
        for (int b = 0; b < BATCHES; b++) {
            int batch = batch_sizes[b];
            double calibrated = predict(&fit, step[b]);
            char error_text[64] = "calibrated on this batch";
            if (b != 0 && b != 2 && b != BATCHES - 1)
                snprintf(error_text, sizeof error_text, "error %+.1f %%", (calibrated - measured[f][b]) / measured[f][b] * 100);
            printf("%s_%s_batch%d: %.1f tokens/s measured (%.2fx batch 1); step %.2f ms measured (wall %.2f), %.2f ms bound, "
                   "%.2f ms memory and %.2f ms compute modelled, %.2f ms calibrated prediction (%s)\n", shape, name, batch,
                   batch / measured[f][b], measured[f][0] / measured[f][b] * batch, measured[f][b] * 1e3, wall[f][b] * 1e3,
                   step[b].bound_s * 1e3, step[b].memory_s * 1e3, step[b].compute_s * 1e3, calibrated * 1e3, error_text);
        }
    }
    double two_thread_bandwidth = lab_median(bandwidth2, rounds);
    printf("%s_stream_read_2threads: %.2f GB/s (two threads reading halves at once, by the wall clock, median of %d)\n", shape,
           two_thread_bandwidth * 1e-9, rounds);
    for (int f = 0; f < 2; f++) {
        StepModel one = model_step(&m, &h, &c, f, 0, step_rates[f][0], gen);
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
