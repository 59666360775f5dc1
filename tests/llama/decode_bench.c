/* decode_bench.c — the engine's decode speed on this machine beside the performance model's
 * bound and prediction, for tests/llama/bench (`make bench PART=engine`).
 *
 *   decode_bench ROUNDS STEPS SHAPE...      (tests/llama/bench: 7 3 42M 110M)
 *
 * For each shape: FP32, weight-only INT8 and weight-only INT4 weights at batches 1 to 32 on
 * one thread, and FP32 and INT8 at batches 1 to 32 on two threads. Every configuration
 * runs `steps` decode steps once per round, each just after the step's matrix products run
 * alone (the probe); the rounds interleave all configurations and the other probes, and
 * each figure is the median over the steps of all rounds. Whatever else runs on the
 * machine then slows every configuration alike, and the ratios between them hold.
 *
 * Three kinds of figure, labelled as such:
 *   bound       the roofline of lib/perfmodel with the bandwidth measured in this run:
 *               max(bytes / STREAM read, FLOPs / FMA peak, weights / conversion rate);
 *               at batch 1, bytes / STREAM read is the memory bound (DRAM's: where a step's
 *               bytes fit in the L3, it says so, for a step may then find them there);
 *   predicted   the step from what the engine's matrix kernels achieve, probed at each
 *               batch: the step's matrix products run alone (the same kernels, weights and
 *               threads, so the same level of memory, but no norms or adds), with the
 *               step's attention between them, timed apart (over a KV cache of the step's
 *               sizes and layout, on the same threads: it finds its keys and values where
 *               the step does, pushed out of the caches by the weights streamed since),
 *               plus the step's other blocks (norms, RoPE, adds, SwiGLU) probed alone.
 *               Nothing of the decode measurement goes into it, so every case is a
 *               prediction, printed with its error;
 *   measured    the engine, by the thread's CPU time as the probes are (cpu_probes.h) on
 *               one thread, by the wall clock on two; and the kernels' rates, with their
 *               weights streamed as in a step and with them in L2 (the compute ceiling).
 * And per case whether its tokens/s ever fall as the batch grows (report_batching), and its
 * knee, the batch where the step turns compute-bound, three ways (report_knee). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blocks.h"
#include "cpu_probes.h"
#include "llama.h"
#include "matmul.h"
#include "perfmodel.h"
#include "threads.h"
#include "timer.h"
#include "weights.h"

enum { BATCHES = 6, FORMATS = 3, TWO_THREAD_FORMATS = 2, PROMPT = 8, MOST_ROWS = 32 };
enum { MAX_ROUNDS = 64, MAX_STEPS = 8, MAX_SAMPLES = MAX_ROUNDS * MAX_STEPS };
static const int batch_sizes[BATCHES] = {1, 2, 4, 8, 16, 32};
static const char *format_names[FORMATS] = {"fp32", "int8", "int4"};
static const perfmodel_dtype format_types[FORMATS] = {DTYPE_FP32, DTYPE_INT8, DTYPE_INT4};

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

/* the median of n values, leaving them in their order (the samples stay paired) */
static double median_of(const double *values, int n)
{
    double copy[MAX_SAMPLES];
    memcpy(copy, values, sizeof(double) * (size_t)n);
    return lab_median(copy, n);
}

/* One configuration (a format, a batch, a number of threads) and its timings, one sample
 * per step: seconds of the whole decode step, of the step's matrix products alone and of its
 * attention (the probe), by this thread's CPU time (what the engine costs, not counting the
 * time other programs hold the core) and by the clock on the wall */
typedef struct {
    llama_session session;
    int sequences[MOST_ROWS], tokens[MOST_ROWS];
    double step_s[MAX_SAMPLES], wall_step_s[MAX_SAMPLES];
    double matrices_s[MAX_SAMPLES], wall_matrices_s[MAX_SAMPLES];
    double attention_s[MAX_SAMPLES];   /* by the wall clock (step_matrices says why) */
} Config;

/* ----------------------------------------------------------------------------------
 * The probe behind the predictions: a step's matrix products alone, and its attention */

/* Products of one input, on every thread of a pool: each thread its share of each
 * matrix's outputs, as forward.c shares them */
typedef struct {
    const llama_weight_matrix *weights[3];
    int count, rows;
    const float *x;
    float *out[3];
} MatrixGroup;

static void multiply_group(void *context, int thread, int threads)
{
    const MatrixGroup *g = context;
    for (int j = 0; j < g->count; j++) {
        int first, last;
        llama_share_of(g->weights[j]->rows, MATMUL_OUTPUT_TILE, thread, threads, &first, &last);
        if (first < last) llama_matmul(g->out[j], g->x, g->rows, g->weights[j], first, last);
    }
}

/* an input of MOST_ROWS rows of the widest matrix, three outputs as wide as the widest, and
 * a KV cache for MOST_ROWS sequences of `capacity` positions laid out as a session's
 * (forward.c: sequence by sequence, layer by layer, position by position), on large pages,
 * with scores for two threads */
typedef struct {
    float *x, *out[3];
    float *keys, *values, *scores;
    int capacity;
} ProbeBuffers;

static void allocate_probe_buffers(ProbeBuffers *b, const llama_config *c, int capacity)
{
    size_t columns = (size_t)(c->hidden_dim > c->dim ? c->hidden_dim : c->dim);
    size_t outputs = (size_t)(c->vocab_size > c->hidden_dim ? c->vocab_size : c->hidden_dim);
    /* on cache lines, as a session's activations are (forward.c); both sizes are multiples of 64 bytes */
    b->x = aligned_alloc(64, sizeof(float) * MOST_ROWS * columns);
    for (int j = 0; j < 3; j++) b->out[j] = aligned_alloc(64, sizeof(float) * MOST_ROWS * outputs);
    size_t cache = (size_t)MOST_ROWS * c->n_layers * capacity * llama_kv_dim_of(c);
    b->capacity = capacity;
    b->keys = llama_allocate_large_pages(sizeof(float) * cache), b->values = llama_allocate_large_pages(sizeof(float) * cache);
    b->scores = malloc(sizeof(float) * 2 * (size_t)capacity);
    if (!b->x || !b->out[0] || !b->out[1] || !b->out[2] || !b->keys || !b->values || !b->scores) fail("probe", "out of memory");
    for (size_t i = 0; i < MOST_ROWS * columns; i++) b->x[i] = (float)((i * 37) % 101) * 0.01f - 0.5f;
    for (size_t i = 0; i < cache; i++) b->keys[i] = (float)((i * 29) % 97) * 0.01f - 0.5f, b->values[i] = (float)(i % 89) * 0.01f;
}

static void free_probe_buffers(ProbeBuffers *b)
{
    free(b->x), free(b->keys), free(b->values), free(b->scores);
    for (int j = 0; j < 3; j++) free(b->out[j]);
}

/* One layer's attention for `rows` rows, each over `length` positions of its own sequence's
 * cache, on every thread of a pool: each thread its share of the row x head pairs, as
 * forward.c shares them, with the engine's llama_attend */
typedef struct {
    const ProbeBuffers *b;
    const llama_config *c;
    int layer, rows, length;
} AttentionProbe;

static void attend_probe(void *context, int thread, int threads)
{
    const AttentionProbe *a = context;
    const llama_config *c = a->c;
    int head_dim = llama_head_dim_of(c), kv_dim = llama_kv_dim_of(c), heads_per_kv_head = c->n_heads / c->n_kv_heads;
    int first, last;
    llama_share_of(a->rows * c->n_heads, 1, thread, threads, &first, &last);
    for (int pair = first; pair < last; pair++) {
        int row = pair / c->n_heads, head = pair % c->n_heads;
        size_t at = (((size_t)row * c->n_layers + a->layer) * a->b->capacity) * kv_dim + (size_t)(head / heads_per_kv_head) * head_dim;
        llama_attend(a->b->out[1] + (size_t)row * c->dim + (size_t)head * head_dim, a->b->x + (size_t)row * c->dim,
                     a->b->keys + at, a->b->values + at, a->length, kv_dim, head_dim,
                     a->b->scores + (size_t)thread * a->b->capacity);
    }
}

/* Every matrix product of one decode step of `rows` rows, by the engine's kernels on the
 * session's threads, grouped as forward.c groups them for its pool (q, k and v; o; gate
 * and up; down; then the classifier): the same weights from the same level of memory,
 * without the rest of the step; and, where the step attends (after q, k and v), each
 * layer's attention over `length` positions, its seconds into *attention_s. Those are
 * by the wall clock, one thread or two: on an idle AMD EPYC virtual machine a thread's CPU
 * time read around 20 microseconds of arithmetic came out 0.7 to 2.1 times the wall's
 * (2000 readings; more than the wall's cannot be true: the accounting is coarse), around
 * 2 milliseconds 0.98 to 1.00 times */
static void step_matrices(llama_session *s, int rows, const ProbeBuffers *b, int length, double *attention_s)
{
    const llama_transformer *t = s->transformer;
    *attention_s = 0;
    for (int l = 0; l < t->config.n_layers; l++) {
        const llama_layer_weights *w = &t->layers[l];
        MatrixGroup groups[4] = {
            {{&w->wq, &w->wk, &w->wv}, 3, rows, b->x, {b->out[0], b->out[1], b->out[2]}},
            {{&w->wo}, 1, rows, b->x, {b->out[0]}},
            {{&w->w1, &w->w3}, 2, rows, b->x, {b->out[0], b->out[1]}},
            {{&w->w2}, 1, rows, b->x, {b->out[0]}},
        };
        AttentionProbe attention = {b, &t->config, l, rows, length};
        llama_run_parallel(s->pool, multiply_group, &groups[0]);
        double start = seconds_of(CLOCK_MONOTONIC);
        llama_run_parallel(s->pool, attend_probe, &attention);
        *attention_s += seconds_of(CLOCK_MONOTONIC) - start;
        for (int g = 1; g < 4; g++) llama_run_parallel(s->pool, multiply_group, &groups[g]);
    }
    MatrixGroup classifier = {{&t->classifier}, 1, rows, b->x, {b->out[0]}};
    llama_run_parallel(s->pool, multiply_group, &classifier);
}

/* `steps` samples from sample `first` on: each the step's matrix products alone and its
 * attention (over as many positions as the step attends: the prompt, the steps before and
 * its own), then the decode step itself, so that each pair is timed within a few
 * milliseconds */
static void time_config(Config *c, const ProbeBuffers *b, int first, int batch, int steps, int vocab)
{
    char error[256];
    for (int step = first; step < first + steps; step++) {
        double cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID), wall = seconds_of(CLOCK_MONOTONIC), attention_s;
        step_matrices(&c->session, batch, b, PROMPT + step + 1, &attention_s);
        double cpu_between = seconds_of(CLOCK_THREAD_CPUTIME_ID), wall_between = seconds_of(CLOCK_MONOTONIC);
        for (int i = 0; i < batch; i++) c->tokens[i] = (c->tokens[i] * 31 + 7 + i) % vocab;
        if (!llama_decode_batch(&c->session, c->sequences, c->tokens, batch, error, sizeof error)) fail("decode", error);
        c->attention_s[step] = attention_s;
        c->matrices_s[step] = cpu_between - cpu - attention_s, c->wall_matrices_s[step] = wall_between - wall - attention_s;
        c->step_s[step] = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu_between;
        c->wall_step_s[step] = seconds_of(CLOCK_MONOTONIC) - wall_between;
    }
}

/* ----------------------------------------------------------------------------------
 * The other probe: the rest of a step, block by block */

/* The blocks a step runs beside its matrix products and attention (blocks.h), each on data
 * of a step's sizes in the caches. Per row and layer forward.c runs two norms, RoPE of q and
 * k (and copies k and v into the cache), two residual adds and the SwiGLU gate (timed with
 * the copy that restores its input, as it works in place); per row, one more norm before
 * the classifier. */
enum { NORM, ROPE, ADD, SWIGLU, BLOCKS };

typedef struct {
    const llama_config *c;
    float *x, *y, *weight, *gate, *gate_input, *up, *angles, *keys, *values;
    double seconds[BLOCKS][MAX_ROUNDS];   /* a call of each block, each round's */
} BlockProbe;

static float *filled(size_t count, float first, float step)
{
    float *v = malloc(sizeof(float) * count);
    if (!v) fail("block probe", "out of memory");
    for (size_t i = 0; i < count; i++) v[i] = first + step * (float)(i % 97);
    return v;
}

static void build_block_probe(BlockProbe *p, const llama_config *c)
{
    size_t dim = (size_t)c->dim, hidden = (size_t)c->hidden_dim, kv_dim = (size_t)llama_kv_dim_of(c);
    *p = (BlockProbe){.c = c};
    p->x = filled(dim, -0.5f, 0.01f), p->y = filled(dim, 0.3f, -0.005f), p->weight = filled(dim, 1.0f, 0.0f);
    p->gate = filled(hidden, 0.0f, 0.0f), p->gate_input = filled(hidden, -2.0f, 0.04f), p->up = filled(hidden, 0.5f, 0.01f);
    int half = llama_head_dim_of(c) / 2;   /* a rotation, so that RoPE keeps the vectors' lengths */
    p->angles = filled((size_t)(2 * half), 0.0f, 0.0f);
    for (int i = 0; i < half; i++) p->angles[i] = cosf(0.1f * (float)i), p->angles[half + i] = sinf(0.1f * (float)i);
    p->keys = filled(kv_dim, -0.3f, 0.006f), p->values = filled(kv_dim, 0.2f, -0.004f);   /* a position's slot */
}

static void free_block_probe(BlockProbe *p)
{
    float *buffers[] = {p->x, p->y, p->weight, p->gate, p->gate_input, p->up, p->angles, p->keys, p->values};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++) free(buffers[i]);
}

static void run_block(BlockProbe *p, int block)
{
    const llama_config *c = p->c;
    int head_dim = llama_head_dim_of(c), kv_dim = llama_kv_dim_of(c);
    const float *angle_cos = p->angles, *angle_sin = p->angles + head_dim / 2;
    switch (block) {
    case NORM: llama_rmsnorm(p->y, p->x, p->weight, c->dim); break;
    case ROPE:
        llama_rope(p->x, c->dim, head_dim, angle_cos, angle_sin);
        llama_rope(p->y, kv_dim, head_dim, angle_cos, angle_sin);
        memcpy(p->keys, p->y, sizeof(float) * (size_t)kv_dim);
        memcpy(p->values, p->x, sizeof(float) * (size_t)kv_dim);
        break;
    case ADD: llama_add_into(p->x, p->y, c->dim); break;
    default:
        memcpy(p->gate, p->gate_input, sizeof(float) * (size_t)c->hidden_dim);
        llama_swiglu(p->gate, p->up, c->hidden_dim);
    }
}

/* each block's seconds a call, repeated for at least a fifth of a millisecond of this
 * thread's CPU time */
static void probe_blocks(BlockProbe *p, int round)
{
    for (int block = 0; block < BLOCKS; block++)
        for (long repeats = 16;; repeats *= 2) {
            double start = seconds_of(CLOCK_THREAD_CPUTIME_ID);
            for (long i = 0; i < repeats; i++) run_block(p, block);
            double seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - start;
            if (seconds >= 2e-4) {
                p->seconds[block][round] = seconds / (double)repeats;
                break;
            }
        }
}

/* A step's blocks of `rows` rows from one round's probe, all on the calling thread */
static double step_blocks(const BlockProbe *p, int round, int rows)
{
    const llama_config *c = p->c;
    double per_layer = 2 * p->seconds[NORM][round] + p->seconds[ROPE][round] + 2 * p->seconds[ADD][round] +
                       p->seconds[SWIGLU][round];
    return rows * (c->n_layers * per_layer + p->seconds[NORM][round]);
}

/* A pool's worker spins a few milliseconds after its last task before it sleeps: long
 * enough to take a core from the configuration timed next. Each two-thread configuration
 * waits this long first. */
static void let_pools_sleep(void)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

/* The bandwidth of two threads reading at once, each half of a buffer of `bytes` with the
 * read probe's kernel (perfmodel_stream_read): both start together (a barrier), and the pass
 * takes the clock on the wall from the start to the later of the two ends; the best of three
 * passes, after one untimed pass, as the probes take theirs. */
typedef struct {
    const float *values;
    size_t count;
    float sum;
    pthread_barrier_t *start, *end;
} HalfRead;

static void read_half_once(HalfRead *h) { h->sum += perfmodel_stream_read(h->values, h->count); }

enum { READ_PASSES = 4 };   /* one untimed, then three timed */
static volatile float read_sink;

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
    size_t count = bytes / sizeof(float) / 32 * 32;   /* halves of whole cache lines: the second starts on one */
    float *values = llama_allocate_large_pages(count * sizeof *values);   /* in large pages, as the weights are */
    if (!values) fail("two-thread read", "out of memory");
    for (size_t i = 0; i < count; i++) values[i] = 1.0f;
    pthread_barrier_t start, end;
    pthread_barrier_init(&start, NULL, 2);
    pthread_barrier_init(&end, NULL, 2);
    HalfRead halves[2] = {{values, count / 2, 0, &start, &end}, {values + count / 2, count / 2, 0, &start, &end}};
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
    free(values);
    return (double)(count * sizeof *values) / best;
}

/* The engine's matrix kernels with their weights in L2: multiply-adds a second of llama_matmul
 * at `rows` rows over as many of the first outputs of `w` as fit in PROBE_BYTES, repeated for
 * at least a millisecond of this thread's CPU time. How fast the kernels compute when they do
 * not wait for memory, for each tile shape the batch selects (matmul.c): the ceiling the
 * streamed rates approach as the batch grows. */
enum { PROBE_BYTES = 256 * 1024 };

static double kernel_rate(const llama_weight_matrix *w, int rows, const float *x, float *out)
{
    double bytes_a_weight = w->format == WEIGHTS_FP32 ? 4.0 : w->format == WEIGHTS_INT8 ? 1.0 : 0.5;
    int outputs = (int)(PROBE_BYTES / (w->cols * bytes_a_weight)) / 8 * 8;
    if (outputs < 8) outputs = 8;
    if (outputs > w->rows) outputs = w->rows;
    llama_weight_matrix slice = *w;
    slice.rows = outputs;
    llama_matmul(out, x, rows, &slice, 0, outputs);   /* into the caches */
    for (long repeats = 1;; repeats *= 2) {
        double start = seconds_of(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < repeats; i++) llama_matmul(out, x, rows, &slice, 0, outputs);
        double seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - start;
        if (seconds >= 1e-3) return (double)rows * outputs * w->cols * (double)repeats / seconds;
    }
}

/* the kernels' rates with their weights in L2 at every batch, each round's, on a matrix of
 * dim columns (wq's) */
typedef struct {
    double rate[BATCHES][MAX_ROUNDS];
} KernelRates;

static void probe_kernels(const llama_transformer *t, const ProbeBuffers *b, KernelRates *k, int round)
{
    for (int i = 0; i < BATCHES; i++) k->rate[i][round] = kernel_rate(&t->layers[0].wq, batch_sizes[i], b->x, b->out[0]);
}

/* multiply-adds of one row of a step in its matrices */
static double step_macs(const llama_config *c)
{
    double dim = c->dim, hidden = c->hidden_dim, kv_dim = llama_kv_dim_of(c);
    return c->n_layers * (2 * dim * dim + 2 * kv_dim * dim + 3 * hidden * dim) + (double)c->vocab_size * dim;
}

/* ----------------------------------------------------------------------------------
 * The model: the roofline's bound, and the prediction from the probes */

/* One decode step as lib/perfmodel counts it: the roofline's bound and its memory time (all
 * its bytes at the bandwidth) */
typedef struct {
    double bound_s, memory_s;
} StepModel;

static StepModel model_step(const perfmodel_shape *m, const perfmodel_hardware *h, int format, int batch, int gen)
{
    perfmodel_workload w = {.weights = format_types[format], .kv = DTYPE_FP32, .batch = batch, .prompt = PROMPT, .gen = gen};
    perfmodel_prediction e;
    perfmodel_estimate(m, h, &w, &e);
    return (StepModel){e.decode_step_time_s, e.decode_step_bytes / e.bandwidth};
}

/* How the predictions did, over every case of the run */
static struct {
    int cases, within;
    double worst;
    char worst_case[64];
} predictions;

/* A case's prediction, step by step: its matrix products and its attention as probed just
 * before the step, plus its other blocks from that round's block probe, set against the step
 * itself (a machine that is slower for a while slows both). Printed as the medians over the
 * steps, and the error as the median of the steps' errors. */
static void predict(const char *name, const double *matrices_s, const double *attention_s, const double *measured_s,
                    const BlockProbe *blocks, int rows, int samples, int steps, char *text, size_t size)
{
    double predicted[MAX_SAMPLES], other[MAX_SAMPLES], errors[MAX_SAMPLES];
    for (int i = 0; i < samples; i++) {
        other[i] = step_blocks(blocks, i / steps, rows);
        predicted[i] = matrices_s[i] + attention_s[i] + other[i];
        errors[i] = (predicted[i] - measured_s[i]) / measured_s[i] * 100;
    }
    double error = median_of(errors, samples);
    snprintf(text, size,
             "%.2f ms predicted (its matrix products %.2f ms and its attention %.2f ms, probed as the step streams them, "
             "and its other blocks %.2f ms, probed alone), error %+.1f %%",
             median_of(predicted, samples) * 1e3, median_of(matrices_s, samples) * 1e3, median_of(attention_s, samples) * 1e3,
             median_of(other, samples) * 1e3, error);
    predictions.cases++;
    predictions.within += fabs(error) <= 10.0;
    if (fabs(error) >= fabs(predictions.worst))
        predictions.worst = error, snprintf(predictions.worst_case, sizeof predictions.worst_case, "%s", name);
}

/* Whether a case's tokens/s fall as the batch grows. For each batch after the first, the
 * ratio of its tokens/s to the batch before's, sample by sample: the two are timed within
 * milliseconds of each other every round, so a machine slower for a while slows both. A
 * fall is a median ratio below 1 that at least 3 in 4 of the pairs share (a sign test: were
 * the bench's 21 pairs independent, noise alone would do that 1.3 % of the time), not a
 * median that noise can move. */
static struct {
    int cases, never_fall;
} batching;

static void report_batching(const char *label, const Config configs[BATCHES], int wall_clock, int samples)
{
    int falls = 0, shown = 1;   /* the step printed: the worst fall, else the least gain */
    double shown_ratio = INFINITY, shown_share = 0;
    for (int b = 1; b < BATCHES; b++) {
        const double *now = wall_clock ? configs[b].wall_step_s : configs[b].step_s;
        const double *before = wall_clock ? configs[b - 1].wall_step_s : configs[b - 1].step_s;
        double ratios[MAX_SAMPLES];
        int below = 0;
        for (int i = 0; i < samples; i++) {
            ratios[i] = (batch_sizes[b] / now[i]) / (batch_sizes[b - 1] / before[i]);
            below += ratios[i] < 1;
        }
        double ratio = median_of(ratios, samples), share = (double)below / samples;
        int fall = ratio < 1 && share >= 0.75;
        if ((fall && !falls) || ((fall || !falls) && ratio < shown_ratio)) shown_ratio = ratio, shown = b, shown_share = share;
        falls += fall;
    }
    batching.cases++;
    batching.never_fall += falls == 0;
    printf("%s_batching: tokens/s %s from batch 1 to %d; %s, batch %d -> %d: x%.3f (the median of %d paired samples, "
           "%.0f %% of them below 1)\n",
           label, falls ? "FALL" : "never fall", batch_sizes[BATCHES - 1], falls ? "the worst fall" : "the least gain",
           batch_sizes[shown - 1], batch_sizes[shown], shown_ratio, samples, shown_share * 100);
}

/* The batch where a step turns compute-bound, day 27's knee: B* = W / (f / ridge - k), W
 * the bytes a step reads once, f the FLOPs and k the bytes of each sequence, ridge a compute
 * rate over a bandwidth (infinite where f / ridge <= k), and no less than the batch whose
 * FLOPs take as long as converting the step's quantized weights once (the roofline's other
 * compute roof). Three of them for each case: measured (where batch 1's tokens/s, rising
 * with the batch, would meet the largest batch's), predicted from the kernels' probes (their
 * streaming at one row, their GEMM rate at the largest batch) and the roofline's (the FMA
 * peak and STREAM read). */
static double knee_of(double weights, double flops, double bytes, double ridge, double convert_s, double peak)
{
    double denominator = flops / ridge - bytes, knee = denominator > 0 ? weights / denominator : INFINITY;
    return fmax(knee, convert_s * peak / flops);
}

static void report_knee(const char *label, const perfmodel_shape *m, const perfmodel_hardware *h, int format, int gen, double macs,
                        const double matrices_s[BATCHES], const double measured_s[BATCHES])
{
    perfmodel_prediction one, two;
    perfmodel_workload w = {.weights = format_types[format], .kv = DTYPE_FP32, .batch = 1, .prompt = PROMPT, .gen = gen};
    perfmodel_estimate(m, h, &w, &one);
    w.batch = 2;
    perfmodel_estimate(m, h, &w, &two);
    double f = two.decode_step_flops - one.decode_step_flops, k = two.decode_step_bytes - one.decode_step_bytes;
    double weights = one.decode_step_bytes - k, convert_s = macs / one.conversion_rate;   /* FP32: an infinite rate */
    int last = BATCHES - 1, largest = batch_sizes[last];
    double streaming = weights / matrices_s[0], computing = 2 * macs * largest / matrices_s[last];
    printf("%s_knee: batch %.1f measured (tokens/s at batch %d over batch 1's), %.1f predicted (day 27's closed form at the "
           "kernels' probed rates: %.1f GB/s streaming at 1 row, %.1f GFLOP/s at %d rows), %.1f on the roofline (the FMA peak "
           "and STREAM read)\n",
           label, measured_s[0] / measured_s[last] * largest, largest, knee_of(weights, f, k, computing / streaming, 0, computing),
           streaming * 1e-9, computing * 1e-9, largest,
           knee_of(weights, f, k, one.peak_flops / one.bandwidth, convert_s, one.peak_flops));
}

/* one line of a format's kernel rates, in multiply-adds a second, at every batch */
static void print_rates(const char *shape, const char *format, const char *kind, const double macs_a_second[BATCHES],
                        const char *what)
{
    printf("%s_%s_kernels_%s:", shape, format, kind);
    for (int b = 0; b < BATCHES; b++) printf(" %d rows %.1f%s", batch_sizes[b], 2e-9 * macs_a_second[b], b < BATCHES - 1 ? "," : "");
    printf(" GFLOP/s measured (%s)\n", what);
}

/* The L3 that CPU 0 shares with the cores near it, as Linux reports it (sysfs); else the C
 * library's figure. glibc's sysconf gives an AMD EPYC's L3 as the whole socket's (384 MiB
 * for twelve 32 MiB caches, one a CCD); a core finds its data only in its own CCD's. */
static double l3_cache_bytes(void)
{
    for (int index = 0; index < 8; index++) {
        char path[64];
        int level = 0;
        double size = 0;
        char unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fscanf(f, "%d", &level) != 1) level = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        if (level != 3 || !(f = fopen(path, "r"))) continue;
        if (fscanf(f, "%lf%c", &size, &unit) < 1) size = 0;
        fclose(f);
        if (size > 0) return size * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);
    }
    return (double)sysconf(_SC_LEVEL3_CACHE_SIZE);
}

/* ----------------------------------------------------------------------------------
 * One shape: build, time in rounds, report */

static void build_config(Config *k, const llama_transformer *t, int batch, int capacity, int threads)
{
    char error[256];
    int prompt[PROMPT];
    const llama_config *c = &t->config;
    if (llama_build_session(&k->session, t, batch, capacity, threads, error, sizeof error) != 0) fail("session", error);
    for (int i = 0; i < batch; i++) {
        for (int p = 0; p < PROMPT; p++) prompt[p] = (i * 101 + p * 13 + 1) % c->vocab_size;
        k->sequences[i] = i, k->tokens[i] = prompt[PROMPT - 1];
        if (!llama_prefill(&k->session, i, prompt, PROMPT, error, sizeof error)) fail("prefill", error);
    }
}

static void bench_shape(const char *shape, int rounds, int steps)
{
    char error[256];
    llama_config c;
    if (llama_named_shape(shape, &c, error, sizeof error) != 0) fail(shape, error);
    llama_transformer t[FORMATS];
    for (int f = 0; f < FORMATS; f++)
        if (llama_build_transformer_generated(&t[f], &c, 1, error, sizeof error) != 0) fail(shape, error);
    if (llama_quantize_transformer(&t[1], llama_int8_group_size(&c, 64), error, sizeof error) != 0) fail(shape, error);
    if (llama_quantize_transformer_int4(&t[2], llama_int8_group_size(&c, 64), error, sizeof error) != 0) fail(shape, error);

    int capacity = PROMPT + rounds * steps + 1;
    static Config one[FORMATS][BATCHES], two[TWO_THREAD_FORMATS][BATCHES];
    for (int f = 0; f < FORMATS; f++)
        for (int b = 0; b < BATCHES; b++) build_config(&one[f][b], &t[f], batch_sizes[b], capacity, 1);
    for (int f = 0; f < TWO_THREAD_FORMATS; f++)
        for (int b = 0; b < BATCHES; b++) build_config(&two[f][b], &t[f], batch_sizes[b], capacity, 2);
    ProbeBuffers buffers;
    allocate_probe_buffers(&buffers, &c, capacity);
    static BlockProbe blocks;
    build_block_probe(&blocks, &c);

    /* the rounds: every configuration's steps, each after its matrices alone, and the
     * bandwidths, the kernels in L2 and the blocks */
    double bandwidth[MAX_ROUNDS], bandwidth2[MAX_ROUNDS];
    static KernelRates kernels[FORMATS];
    for (int r = 0; r < rounds; r++) {
        bandwidth[r] = perfmodel_stream_bandwidth(STREAM_READ, (size_t)t[0].weights_bytes, 3);
        for (int f = 0; f < FORMATS; f++) probe_kernels(&t[f], &buffers, &kernels[f], r);
        probe_blocks(&blocks, r);
        for (int b = 0; b < BATCHES; b++)
            for (int f = 0; f < FORMATS; f++) {
                time_config(&one[f][b], &buffers, r * steps, batch_sizes[b], steps, c.vocab_size);
            }
        bandwidth2[r] = two_thread_read_bandwidth((size_t)t[0].weights_bytes);
        for (int b = 0; b < BATCHES; b++)
            for (int f = 0; f < TWO_THREAD_FORMATS; f++) {
                let_pools_sleep();
                time_config(&two[f][b], &buffers, r * steps, batch_sizes[b], steps, c.vocab_size);
            }
    }
    free_probe_buffers(&buffers);
    int samples = rounds * steps;
    double measured[FORMATS][BATCHES], wall[FORMATS][BATCHES], matrices[FORMATS][BATCHES], wall2[TWO_THREAD_FORMATS][BATCHES];
    for (int f = 0; f < FORMATS; f++)
        for (int b = 0; b < BATCHES; b++) {
            measured[f][b] = median_of(one[f][b].step_s, samples);
            wall[f][b] = median_of(one[f][b].wall_step_s, samples);
            matrices[f][b] = median_of(one[f][b].matrices_s, samples);
        }
    for (int f = 0; f < TWO_THREAD_FORMATS; f++)
        for (int b = 0; b < BATCHES; b++) wall2[f][b] = median_of(two[f][b].wall_step_s, samples);

    perfmodel_shape m;
    perfmodel_shape_from_config(&c, shape, &m);
    perfmodel_hardware h;
    perfmodel_measure_cpu(&h, (size_t)t[0].weights_bytes);
    h.bandwidth = lab_median(bandwidth, rounds);
    double two_thread_bandwidth = lab_median(bandwidth2, rounds), macs = step_macs(&c);
    int gen = rounds * steps + 1;
    printf("%s_stream_read: %.2f GB/s (median of %d, interleaved with the decode steps)\n", shape, h.bandwidth * 1e-9, rounds);
    printf("%s_stream_read_2threads: %.2f GB/s (two threads reading halves at once, by the wall clock, median of %d)\n", shape,
           two_thread_bandwidth * 1e-9, rounds);
    printf("%s_fma_peak: %.1f GFLOP/s; int8 conversion %.1f G weights/s\n", shape, h.fp32_flops * 1e-9, h.dequantizing_flops / 2e9);

    for (int f = 0; f < FORMATS; f++) {
        const char *name = format_names[f];
        double streamed[BATCHES], in_l2[BATCHES];
        char what[128];
        for (int b = 0; b < BATCHES; b++)
            streamed[b] = macs * batch_sizes[b] / matrices[f][b], in_l2[b] = lab_median(kernels[f].rate[b], rounds);
        print_rates(shape, name, "streaming", streamed,
                    "a step's matrix products alone, the weights streamed as in the step: the GEMV and GEMM efficiency "
                    "the predictions use");
        snprintf(what, sizeof what, "a matrix of %d columns in L2: the kernels' ceiling; the FMA peak is %.0f", c.dim,
                 h.fp32_flops * 1e-9);
        print_rates(shape, name, "in_l2", in_l2, what);
        if (format_types[f] == DTYPE_FP32) continue;
        printf("%s_%s_many_rows:", shape, name);
        for (int rows = MATMUL_MANY_ROWS; rows <= 2 * MATMUL_MANY_ROWS; rows *= 2) {
            double ratio;
            int dequantize = llama_matmul_dequantizes(t[f].format, rows, &ratio);
            printf("%s from %d rows, %s (the buffer %.2fx their time)", rows > MATMUL_MANY_ROWS ? ";" : "", rows,
                   dequantize ? "tiles converted once into a buffer" : "tiles converting in registers", ratio);
        }
        printf(", measured on this core (make test passes either way: the same bits)\n");
    }
    for (int f = 0; f < FORMATS; f++) {
        const char *name = format_names[f];
        StepModel first = model_step(&m, &h, f, 1, gen);
        printf("%s_%s_memory_bound: %.1f tokens/s (%.1f MB a step / %.2f GB/s)\n", shape, name, 1.0 / first.memory_s,
               first.memory_s * h.bandwidth * 1e-6, h.bandwidth * 1e-9);
        printf("%s_%s_batch1_of_memory_bound: %.0f %%\n", shape, name, first.memory_s / measured[f][0] * 100);
        /* A step that fits in the last-level cache may find its weights there: the step just
         * before it (and its probe) read the same bytes, and the bound is DRAM's */
        double step_bytes = first.memory_s * h.bandwidth, l3_bytes = l3_cache_bytes();
        if (l3_bytes > 0 && step_bytes < l3_bytes)
            printf("%s_%s_fits_in_l3: %.1f MB a step, this CPU's L3 %.0f MB (shared with its other cores): a step may find "
                   "part of its bytes there, not in DRAM, and go faster than the memory bound (DRAM's, from STREAM read)\n",
                   shape, name, step_bytes * 1e-6, l3_bytes * 1e-6);
        for (int b = 0; b < BATCHES; b++) {
            int batch = batch_sizes[b];
            StepModel step = model_step(&m, &h, f, batch, gen);
            char label[64], prediction[320];
            snprintf(label, sizeof label, "%s_%s_batch%d", shape, name, batch);
            predict(label, one[f][b].matrices_s, one[f][b].attention_s, one[f][b].step_s, &blocks, batch, samples, steps,
                    prediction, sizeof prediction);
            printf("%s: %.1f tokens/s measured (%.2fx batch 1); step %.2f ms measured (wall %.2f), %.2f ms bound, %s\n", label,
                   batch / measured[f][b], measured[f][0] / measured[f][b] * batch, measured[f][b] * 1e3, wall[f][b] * 1e3,
                   step.bound_s * 1e3, prediction);
        }
        char label[64];
        snprintf(label, sizeof label, "%s_%s", shape, name);
        report_batching(label, one[f], 0, samples);
        report_knee(label, &m, &h, f, gen, macs, matrices[f], measured[f]);
    }
    for (int f = 0; f < TWO_THREAD_FORMATS; f++) {
        const char *name = format_names[f];
        for (int b = 0; b < BATCHES; b++) {
            int batch = batch_sizes[b];
            StepModel step = model_step(&m, &h, f, batch, gen);
            char label[64], prediction[320], of_bound[96] = "";
            snprintf(label, sizeof label, "%s_%s_batch%d_2threads", shape, name, batch);
            predict(label, two[f][b].wall_matrices_s, two[f][b].attention_s, two[f][b].wall_step_s, &blocks, batch,
                    samples, steps, prediction, sizeof prediction);
            if (batch == 1) {
                double bound_s = step.memory_s * h.bandwidth / two_thread_bandwidth;
                snprintf(of_bound, sizeof of_bound, ", %.0f %% of the two-thread memory bound (%.1f tokens/s)",
                         bound_s / wall2[f][b] * 100, 1.0 / bound_s);
            }
            printf("%s: %.1f tokens/s measured (wall %.2f ms a step, %.2fx one thread's wall)%s; %s\n", label,
                   batch / wall2[f][b], wall2[f][b] * 1e3, wall[f][b] / wall2[f][b], of_bound, prediction);
        }
        char label[64];
        snprintf(label, sizeof label, "%s_%s_2threads", shape, name);
        report_batching(label, two[f], 1, samples);
    }
    for (int f = 1; f < FORMATS; f++)
        for (int b = 0; b < BATCHES; b++)
            printf("%s_%s_over_fp32_batch%d: %.2f x\n", shape, format_names[f], batch_sizes[b], measured[0][b] / measured[f][b]);
    for (int b = 0; b < BATCHES; b++) {
        for (int f = 0; f < FORMATS; f++) llama_free_session(&one[f][b].session);
        for (int f = 0; f < TWO_THREAD_FORMATS; f++) llama_free_session(&two[f][b].session);
    }
    free_block_probe(&blocks);
    for (int f = 0; f < FORMATS; f++) llama_free_transformer(&t[f]);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: decode_bench ROUNDS STEPS SHAPE...\n");
        return 2;
    }
    int rounds = atoi(argv[1]), steps = atoi(argv[2]);
    if (rounds < 1 || rounds > MAX_ROUNDS || steps < 1 || steps > MAX_STEPS) {
        fprintf(stderr, "decode_bench: rounds 1 to %d and steps 1 to %d\n", MAX_ROUNDS, MAX_STEPS);
        return 2;
    }
    for (int i = 3; i < argc; i++) bench_shape(argv[i], rounds, steps);
    printf("predictions_within_10_percent: %d of %d cases (the largest error %+.1f %%, %s)\n", predictions.within,
           predictions.cases, predictions.worst, predictions.worst_case);
    printf("batching_never_falls: %d of %d cases (one and two threads)\n", batching.never_fall, batching.cases);
    return 0;
}
