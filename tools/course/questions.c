/* questions.c — the course kit's question bank: numeric questions whose parameters (a model of
 * data/models.csv, a GPU of data/gpus.csv, data types, a batch, lengths) are drawn from a seed and
 * whose answers come from lib/perfmodel, the code the labs of days 14-30 are checked against.
 * Each question carries its worked solution: the formula with the numbers put in.
 *
 *   build/tools/questions --seed 7 --gift bank.gift --csv bank.csv [--per-kind 3]
 *   make questions SEED=7 OUT=build/questions
 *
 * The CSV has the columns id, day, question, answer, unit, tolerance, solution, kind, parameters;
 * `parameters` restates every drawn value as key=value words, so that tests/course/recompute.c can
 * recompute each answer from data/ alone. The GIFT file is Moodle's format: one numeric question
 * a paragraph, {#answer:tolerance####worked solution}, a $CATEGORY per day.
 * The same seed always gives the same bank (a generator of its own, never rand()). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel.h"
#include "table.h"

/* ---------------------------------------------------------------------------------
 * Drawing parameters: splitmix64, the same on every machine */

static uint64_t rng_state;

static uint64_t next_random(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int pick(int count) { return (int)(next_random() % (uint64_t)count); }

#define PICK(array) (array[pick((int)(sizeof array / sizeof array[0]))])

static const int batches[] = {1, 2, 4, 8, 16, 32, 64, 128};
static const int prompts[] = {128, 256, 512, 1024, 2048, 4096};
static const int gens[] = {32, 64, 128, 256, 512};
static const perfmodel_dtype weight_types[] = {DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8, DTYPE_INT8, DTYPE_INT4};
static const perfmodel_dtype kv_types[] = {DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8};

static int model_count, gpu_count;
static char model_names[64][64], gpu_keys[64][32];
static int gpu_sms[64];

static void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("questions: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}

static void load_tables(void)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    if (models->rows > 64 || gpus->rows > 64) die("more than 64 rows in data/models.csv or data/gpus.csv");
    for (int r = 0; r < models->rows; r++) snprintf(model_names[model_count++], 64, "%s", lab_table_text_or_exit(models, r, "name"));
    for (int r = 0; r < gpus->rows; r++) {
        snprintf(gpu_keys[gpu_count], 32, "%s", lab_table_text_or_exit(gpus, r, "key"));
        gpu_sms[gpu_count++] = (int)lab_table_number_or_exit(gpus, r, "sms");
    }
    lab_table_free(models);
    lab_table_free(gpus);
}

/* One drawn situation and what lib/perfmodel says about it. */
typedef struct {
    perfmodel_shape m;
    perfmodel_hardware h;
    perfmodel_workload w;
    perfmodel_prediction e;
    int gpu;   /* index into gpu_keys */
} Case;

static void estimate_case(Case *c)
{
    char error[512];
    if (perfmodel_validate_workload(&c->m, &c->w, error, sizeof error) != 0) die("%s", error);
    perfmodel_estimate(&c->m, &c->h, &c->w, &c->e);
}

static Case draw_case(void)
{
    Case c;
    char error[2048];
    memset(&c, 0, sizeof c);
    if (perfmodel_load_model_shape(model_names[pick(model_count)], &c.m, error, sizeof error) != 0) die("%s", error);
    c.gpu = pick(gpu_count);
    if (perfmodel_load_gpu(gpu_keys[c.gpu], &c.h, error, sizeof error) != 0) die("%s", error);
    c.w = (perfmodel_workload){.weights = PICK(weight_types), .kv = PICK(kv_types), .batch = PICK(batches), .prompt = PICK(prompts),
                     .gen = PICK(gens)};
    estimate_case(&c);
    return c;
}

/* ---------------------------------------------------------------------------------
 * Text */

typedef struct {
    char id[16], kind[32], unit[32];
    int day;
    double answer, tolerance;
    int integer;   /* a whole-number answer, printed without decimals */
    char question[1536], solution[3072], parameters[512];
} Question;

/* A number in plain decimal notation (no exponent: GIFT and spreadsheets read it as it is) with
 * `digits` significant digits, trailing zeros dropped. One of 32 rotating buffers. */
static const char *num(double x, int digits)
{
    static char buffers[32][64];
    static int next;
    char *s = buffers[next++ % 32];
    if (x == 0 || !isfinite(x)) {
        snprintf(s, 64, "%.0f", x);
        return s;
    }
    int magnitude = (int)floor(log10(fabs(x)));
    int decimals = digits - 1 - magnitude;
    if (decimals < 0) {   /* round to `digits` significant digits, then print as a whole number */
        double unit = pow(10, -decimals);
        snprintf(s, 64, "%.0f", round(x / unit) * unit);
        return s;
    }
    snprintf(s, 64, "%.*f", decimals, x);
    char *dot = strchr(s, '.');
    if (dot) {
        char *end = s + strlen(s) - 1;
        while (end > dot && *end == '0') *end-- = 0;
        if (end == dot) *end = 0;
    }
    return s;
}

/* A whole count, exactly. */
static const char *whole(double x) { return num(x, 17); }

static void add(char *buffer, size_t size, const char *format, ...)
{
    size_t used = strlen(buffer);
    va_list args;
    va_start(args, format);
    int n = vsnprintf(buffer + used, size - used, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= size - used) die("a question's text outgrew its buffer (%s)", buffer);
}

#define Q(...) add(q->question, sizeof q->question, __VA_ARGS__)
#define S(...) add(q->solution, sizeof q->solution, __VA_ARGS__)
#define P(...) add(q->parameters, sizeof q->parameters, __VA_ARGS__)

static const char *dtype(perfmodel_dtype t) { return perfmodel_dtype_name(t); }

/* The parts of a worked solution are recomputed from the shape to show the formula; each must give
 * back lib/perfmodel's number, or the solution would explain a different answer. */
static void agree(double shown, double model, const char *what)
{
    if (fabs(shown - model) > 1e-9 * fabs(model) + 1e-9) die("the worked solution's %s (%.17g) is not perfmodel's (%.17g)", what, shown, model);
}

static void describe_model(Question *q, const perfmodel_shape *m)
{
    Q("%s (data/models.csv: %d layers, hidden %d, %d query heads and %d KV heads of %d, intermediate %d, vocabulary %d",
      m->name, m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim, m->intermediate, m->vocab);
    if (m->experts > 1) Q(", %d experts of which %d per token", m->experts, m->experts_per_token);
    if (m->qkv_bias) Q(", biases on Q, K and V");
    Q(m->tied_embeddings ? ", embeddings tied to the classifier)" : ", untied embeddings)");
}

static void describe_gpu(Question *q, const Case *c)
{
    Q("%s (data/gpus.csv row %s: %s GB/s, %s GB)", c->h.name, c->h.key, num(c->h.bandwidth / 1e9, 6), num(c->h.memory_bytes / 1e9, 6));
}

static void case_parameters(Question *q, const Case *c)
{
    P("model=%s gpu=%s weights=%s kv=%s batch=%d prompt=%d gen=%d", c->m.name, c->h.key, dtype(c->w.weights), dtype(c->w.kv),
      c->w.batch, c->w.prompt, c->w.gen);
}

/* ---------------------------------------------------------------------------------
 * Pieces of the model the worked solutions show */

static double attention_matrices(const perfmodel_shape *m)
{
    double q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
    return m->hidden * q + 2.0 * m->hidden * kv + q * m->hidden;
}
static double qkv_biases(const perfmodel_shape *m)
{
    return m->qkv_bias ? ((double)m->heads + 2.0 * m->kv_heads) * m->head_dim : 0;
}
static double expert_matrices(const perfmodel_shape *m) { return 3.0 * m->hidden * (double)m->intermediate; }
static double router_matrix(const perfmodel_shape *m) { return m->experts > 1 ? (double)m->experts * m->hidden : 0; }
static double vector_parameters(const perfmodel_shape *m) { return (2.0 * m->layers + 1) * m->hidden + m->layers * qkv_biases(m); }
static int quant_group(const perfmodel_shape *m)
{
    int g = QUANT_GROUP;
    while (g > 1 && (m->hidden % g != 0 || m->intermediate % g != 0)) g /= 2;
    return g;
}
static int quantized(perfmodel_dtype t) { return t == DTYPE_INT8 || t == DTYPE_INT4; }

/* "compute-bound" or "memory-bound", and the two times, for a FLOP and byte count */
static void show_roofline(Question *q, const perfmodel_prediction *e, double flops, double bytes, const char *bound)
{
    S("compute time = %s TFLOP / %s TFLOP/s (%s) = %s ms; memory time = %s GB / %s GB/s = %s ms; the bound is the larger, "
      "%s ms (%s-bound)",
      num(flops / 1e12, 6), num(e->peak_flops / 1e12, 6), e->compute_type, num(flops / e->peak_flops * 1e3, 6), num(bytes / 1e9, 6),
      num(e->bandwidth / 1e9, 6), num(bytes / e->bandwidth * 1e3, 6), num(fmax(flops / e->peak_flops, bytes / e->bandwidth) * 1e3, 6),
      bound);
}

/* the decode step's FLOPs and bytes, spelled out */
static void show_decode_step(Question *q, const Case *c)
{
    const perfmodel_shape *m = &c->m;
    const perfmodel_prediction *e = &c->e;
    double active = (double)perfmodel_active_layer_matrix_parameters(m), ctx = e->decode_context;
    double per_token = 2.0 * m->layers * active + 2.0 * m->vocab * (double)m->hidden + 4.0 * m->layers * (double)m->heads * m->head_dim * ctx;
    agree(c->w.batch * per_token, e->decode_step_flops, "decode FLOPs");
    double kv = c->w.batch * (ctx + 1) * e->kv_bytes_per_token, weights = e->decode_step_bytes - kv;
    S("mean context c = prompt + gen / 2 = %d + %d / 2 = %s positions. FLOPs = B × (2 × L × P_layer + 2 × V × d + 4 × L × H × d_h × c) "
      "= %d × (2 × %d × %s + 2 × %d × %d + 4 × %d × %d × %d × %s) = %s GFLOP, P_layer = %s matrix parameters a token multiplies in "
      "a layer. Bytes = weights read once (%s GB, %s", c->w.prompt, c->w.gen, num(ctx, 6), c->w.batch, m->layers, whole(active),
      m->vocab, m->hidden, m->layers, m->heads, m->head_dim, num(ctx, 6), num(e->decode_step_flops / 1e9, 6), whole(active),
      num(weights / 1e9, 6), dtype(c->w.weights));
    if (m->experts > 1) S(", the experts %d tokens are routed to", c->w.batch);
    S(") + KV cache B × (c + 1) × %s bytes (read c positions, write 1) = %s GB; total %s GB. ", whole(e->kv_bytes_per_token),
      num(kv / 1e9, 6), num(e->decode_step_bytes / 1e9, 6));
}

/* the prefill's FLOPs and bytes, spelled out */
static void show_prefill(Question *q, const Case *c)
{
    const perfmodel_shape *m = &c->m;
    const perfmodel_prediction *e = &c->e;
    double active = (double)perfmodel_active_layer_matrix_parameters(m), p = c->w.prompt;
    double rows = (double)c->w.batch * p;
    double flops = c->w.batch * (p * 2.0 * m->layers * active + 2.0 * m->vocab * (double)m->hidden +
                                 2.0 * m->layers * (double)m->heads * m->head_dim * p * (p + 1));
    agree(flops, e->prefill_flops, "prefill FLOPs");
    double kv = 2.0 * rows * e->kv_bytes_per_token;
    S("FLOPs = B × (P × 2 × L × P_layer + 2 × V × d + 2 × L × H × d_h × P × (P + 1)) = %d × (%d × 2 × %d × %s + 2 × %d × %d + 2 × %d "
      "× %d × %d × %d × %d) = %s TFLOP. Bytes: the weights read once for all %s rows, one GEMM per matrix (%s GB), "
      "plus 2 × rows × %s bytes of KV cache = %s GB. ",
      c->w.batch, c->w.prompt, m->layers, whole(active), m->vocab, m->hidden, m->layers, m->heads, m->head_dim, c->w.prompt,
      c->w.prompt + 1, num(flops / 1e12, 6), whole(rows), num((e->prefill_bytes - kv) / 1e9, 6),
      whole(e->kv_bytes_per_token), num(e->prefill_bytes / 1e9, 6));
}

/* ---------------------------------------------------------------------------------
 * The kinds of question. Each fills q from a fresh draw; returning 0 asks for another draw. */

static int ridge(Question *q)
{
    Case c = draw_case();
    Q("On the %s, the performance model multiplies %s weights at its %s peak. What is the ridge point of that roofline, the "
      "arithmetic intensity where a kernel stops being memory-bound, in FLOP per byte?", c.h.name, dtype(c.w.weights), c.e.compute_type);
    q->answer = c.e.ridge_flop_per_byte;
    S("ridge = peak / bandwidth = %s TFLOP/s / %s GB/s = %s FLOP/byte (data/gpus.csv row %s; peak: %s)", num(c.e.peak_flops / 1e12, 6),
      num(c.e.bandwidth / 1e9, 6), num(q->answer, 6), c.h.key, c.e.compute_type);
    P("gpu=%s weights=%s", c.h.key, dtype(c.w.weights));
    return 1;
}

static int attainable(Question *q)
{
    Case c = draw_case();
    double intensity = ldexp(1.0, pick(13) - 2);   /* 0.25 .. 1024 FLOP/byte */
    double bandwidth_bound = intensity * c.e.bandwidth;
    Q("A kernel does %s FLOP per byte it moves, on the %s (%s GB/s), multiplying %s data at the %s peak. What FLOP rate does the "
      "roofline allow it, in TFLOP/s?", num(intensity, 6), c.h.name, num(c.h.bandwidth / 1e9, 6), dtype(c.w.weights), c.e.compute_type);
    q->answer = fmin(c.e.peak_flops, bandwidth_bound) / 1e12;
    S("attainable = min(peak, I × bandwidth) = min(%s TFLOP/s, %s × %s GB/s = %s TFLOP/s) = %s TFLOP/s: %s (the ridge is at %s FLOP/byte)",
      num(c.e.peak_flops / 1e12, 6), num(intensity, 6), num(c.e.bandwidth / 1e9, 6), num(bandwidth_bound / 1e12, 6), num(q->answer, 6),
      bandwidth_bound < c.e.peak_flops ? "memory-bound" : "compute-bound", num(c.e.ridge_flop_per_byte, 6));
    P("gpu=%s weights=%s intensity=%s", c.h.key, dtype(c.w.weights), num(intensity, 6));
    return 1;
}

static int littles_law(Question *q)
{
    static const int latencies_ns[] = {300, 370, 450, 500, 600, 700};
    static const int bytes_per_warp[] = {128, 256, 512};
    Case c = draw_case();
    int latency = PICK(latencies_ns), per_warp = PICK(bytes_per_warp), sms = gpu_sms[c.gpu];
    /* GB/s times ns is bytes; the table's bandwidths are whole GB/s, so the count is exact */
    long long in_flight = llround(c.h.bandwidth / 1e9 * latency), per_sm_warps = (long long)sms * per_warp;
    Q("To read memory at the full %s GB/s of the %s (%d SMs) with a memory latency of %d ns, each warp keeping %d bytes of loads in "
      "flight, how many warps must each SM hold (Little's law, rounded up)?", num(c.h.bandwidth / 1e9, 6), c.h.name, sms, latency,
      per_warp);
    q->answer = (double)((in_flight + per_sm_warps - 1) / per_sm_warps);
    q->integer = 1;
    S("bytes in flight = bandwidth × latency = %s GB/s × %d ns = %lld bytes, %s per SM (/ %d SMs); warps per SM = ceil(%s / %d) = %s",
      num(c.h.bandwidth / 1e9, 6), latency, in_flight, num((double)in_flight / sms, 6), sms, num((double)in_flight / sms, 6), per_warp,
      whole(q->answer));
    P("gpu=%s latency_ns=%d bytes_per_warp=%d", c.h.key, latency, per_warp);
    return 1;
}

static int parameters(Question *q)
{
    Case c = draw_case();
    const perfmodel_shape *m = &c.m;
    Q("How many parameters does ");
    describe_model(q, m);
    Q(" have, counting embeddings, every layer's attention, MLP%s and two norm vectors, and the final norm? Answer in billions.",
      m->experts > 1 ? " experts, router" : "");
    q->answer = (double)perfmodel_shape_parameters(m) / 1e9;
    double embeddings = (double)m->vocab * m->hidden * (m->tied_embeddings ? 1 : 2);
    double layer = attention_matrices(m) + qkv_biases(m) + m->experts * expert_matrices(m) + router_matrix(m) + 2.0 * m->hidden;
    agree(embeddings + m->layers * layer + m->hidden, (double)perfmodel_shape_parameters(m), "parameter count");
    S("embeddings V × d × %d = %s; a layer: attention d × H × d_h + 2 × d × H_kv × d_h + H × d_h × d = %s", m->tied_embeddings ? 1 : 2,
      whole(embeddings), whole(attention_matrices(m)));
    if (m->qkv_bias) S(", Q/K/V biases (H + 2 × H_kv) × d_h = %s", whole(qkv_biases(m)));
    S(", MLP %d × 3 × d × d_ff = %s", m->experts, whole(m->experts * expert_matrices(m)));
    if (m->experts > 1) S(", router E × d = %s", whole(router_matrix(m)));
    S(", norms 2 × d = %d, so %s a layer; total = %s + %d × %s + %d (final norm) = %s = %s billion", 2 * m->hidden, whole(layer),
      whole(embeddings), m->layers, whole(layer), m->hidden, whole((double)perfmodel_shape_parameters(m)), num(q->answer, 6));
    P("model=%s", m->name);
    return 1;
}

static int decode_flops(Question *q)
{
    static const int contexts[] = {2, 512, 2048, 4096, 8192, 32768};
    Case c = draw_case();
    int context = PICK(contexts);
    /* a step after a prompt of context - 1 tokens with gen = 1 attends to exactly `context` positions */
    c.w = (perfmodel_workload){.weights = DTYPE_FP16, .kv = DTYPE_FP16, .batch = 1, .prompt = context - 1, .gen = 1};
    estimate_case(&c);
    const perfmodel_shape *m = &c.m;
    double active = (double)perfmodel_active_layer_matrix_parameters(m);
    Q("One token of ");
    describe_model(q, m);
    Q(" attends to %d positions. How many FLOPs does it cost: the matrix multiplications of every layer (its routed experts only), "
      "attention's scores and weighted sum, and the classifier (norms, RoPE and softmax left out)? Answer in GFLOP.", context);
    q->answer = c.e.decode_step_flops / 1e9;
    double matrices = 2.0 * m->layers * active, classifier = 2.0 * m->vocab * (double)m->hidden;
    double attention = 4.0 * m->layers * (double)m->heads * m->head_dim * context;
    agree(matrices + classifier + attention, c.e.decode_step_flops, "token FLOPs");
    S("2 × L × P_layer + 2 × V × d + 4 × L × H × d_h × c = 2 × %d × %s + 2 × %d × %d + 4 × %d × %d × %d × %d = %s + %s + %s = %s GFLOP "
      "(P_layer = %s parameters a token multiplies per layer; attention is %s %% of it)",
      m->layers, whole(active), m->vocab, m->hidden, m->layers, m->heads, m->head_dim, context, whole(matrices), whole(classifier),
      whole(attention), num(q->answer, 6), whole(active), num(100 * attention / c.e.decode_step_flops, 3));
    P("model=%s context=%d", m->name, context);
    return 1;
}

static int weights(Question *q)
{
    Case c = draw_case();
    const perfmodel_shape *m = &c.m;
    Q("How many GB (10^9 bytes) do the weights of ");
    describe_model(q, m);
    Q(" take in %s%s?", dtype(c.w.weights),
      c.w.weights == DTYPE_INT4 ? ", with one FP32 scale and a one-byte zero point for each group of values of a row and the norm vectors and biases kept in FP32"
      : quantized(c.w.weights) ? ", with one FP32 scale for each group of values of a row and the norm vectors and biases kept in FP32" : "");
    q->answer = c.e.weights_bytes / 1e9;
    double vectors = vector_parameters(m), matrices = (double)perfmodel_shape_parameters(m) - vectors;
    if (quantized(c.w.weights)) {
        int g = quant_group(m);
        int per_group = c.w.weights == DTYPE_INT4 ? 5 : 4;   /* INT4 keeps a zero point beside its scale */
        double scales = per_group * floor(matrices / g);
        agree(matrices * perfmodel_dtype_bytes(c.w.weights) + scales + 4.0 * vectors, c.e.weights_bytes, "weight bytes");
        S("matrices %s parameters × %s bytes + %s %d × floor(%s / %d) (groups of %d, the largest power of two up to 64 dividing d and "
          "d_ff) + vectors %s × 4 bytes = %s + %s + %s = %s GB",
          whole(matrices), num(perfmodel_dtype_bytes(c.w.weights), 3), per_group == 5 ? "scales and zero points" : "scales",
          per_group, whole(matrices), g, g, whole(vectors),
          whole(matrices * perfmodel_dtype_bytes(c.w.weights)), whole(scales), whole(4.0 * vectors), num(q->answer, 6));
    } else {
        agree((matrices + vectors) * perfmodel_dtype_bytes(c.w.weights), c.e.weights_bytes, "weight bytes");
        S("%s parameters × %s bytes = %s bytes = %s GB", whole(matrices + vectors), num(perfmodel_dtype_bytes(c.w.weights), 3),
          whole(c.e.weights_bytes), num(q->answer, 6));
    }
    P("model=%s weights=%s", m->name, dtype(c.w.weights));
    return 1;
}

static int kv_per_token(Question *q)
{
    Case c = draw_case();
    const perfmodel_shape *m = &c.m;
    Q("With its KV cache in %s, how many KiB of keys and values does one token of one sequence add to the cache of ", dtype(c.w.kv));
    describe_model(q, m);
    Q("?");
    q->answer = c.e.kv_bytes_per_token / 1024;
    S("2 (K and V) × L × H_kv × d_h × bytes = 2 × %d × %d × %d × %s = %s bytes = %s KiB", m->layers, m->kv_heads, m->head_dim,
      num(perfmodel_dtype_bytes(c.w.kv), 3), whole(c.e.kv_bytes_per_token), num(q->answer, 6));
    P("model=%s kv=%s", m->name, dtype(c.w.kv));
    return 1;
}

static int kv_total(Question *q)
{
    Case c = draw_case();
    const perfmodel_shape *m = &c.m;
    Q("A batch of %d sequences of ", c.w.batch);
    describe_model(q, m);
    Q(" each holds %d prompt and %d generated tokens, with the KV cache in %s. How many GiB (2^30 bytes) does the cache hold at the end?",
      c.w.prompt, c.w.gen, dtype(c.w.kv));
    q->answer = c.e.kv_bytes_total / 1073741824.0;
    S("per token 2 × L × H_kv × d_h × bytes = 2 × %d × %d × %d × %s = %s bytes; × B × (prompt + gen) = %s × %d × %d = %s bytes = %s GiB",
      m->layers, m->kv_heads, m->head_dim, num(perfmodel_dtype_bytes(c.w.kv), 3), whole(c.e.kv_bytes_per_token),
      whole(c.e.kv_bytes_per_token), c.w.batch, c.w.prompt + c.w.gen, whole(c.e.kv_bytes_total), num(q->answer, 6));
    P("model=%s kv=%s batch=%d prompt=%d gen=%d", m->name, dtype(c.w.kv), c.w.batch, c.w.prompt, c.w.gen);
    return 1;
}

static int max_batch(Question *q)
{
    Case c = draw_case();
    const perfmodel_shape *m = &c.m;
    if (c.e.max_batch < 1) return 0;   /* "the weights do not fit" is a question of its own kind */
    Q("Serve ");
    describe_model(q, m);
    Q(" with %s weights and the KV cache in %s on one ", dtype(c.w.weights), dtype(c.w.kv));
    describe_gpu(q, &c);
    Q(". Every sequence holds up to %d + %d tokens. What is the largest batch whose memory (weights, KV cache and the engine's "
      "activation buffers) fits in the book's budget, nine tenths of the capacity?", c.w.prompt, c.w.gen);
    q->answer = (double)c.e.max_batch;
    q->integer = 1;
    perfmodel_workload at = c.w;
    at.batch = (int)c.e.max_batch;
    perfmodel_prediction fits;
    perfmodel_estimate(&c.m, &c.h, &at, &fits);
    double left = c.e.usable_bytes - c.e.weights_bytes, per_sequence = (c.w.prompt + c.w.gen) * c.e.kv_bytes_per_token;
    S("%s GB of %s GB are usable (the runtime keeps a tenth); weights %s GB leave %s GB; a sequence's cache is %d tokens × %s bytes = %s GB, so about %s GB / %s GB = %s sequences. "
      "At batch %s the activation buffers (lib/llama's llama_activation_bytes_of: step rows, attention scores, a row of logits a "
      "sequence) take %s GB more: weights + KV + activations = %s GB, which fits; one sequence more does not. Largest batch: %s",
      num(c.e.usable_bytes / 1e9, 6), num(c.e.capacity_bytes / 1e9, 6), num(c.e.weights_bytes / 1e9, 6), num(left / 1e9, 6), c.w.prompt + c.w.gen,
      whole(c.e.kv_bytes_per_token), num(per_sequence / 1e9, 6), num(left / 1e9, 6), num(per_sequence / 1e9, 6),
      num(left / per_sequence, 6), whole(q->answer), num(fits.activation_bytes / 1e9, 4), num(fits.total_bytes / 1e9, 6), whole(q->answer));
    case_parameters(q, &c);
    return 1;
}

static void workload_text(Question *q, const Case *c)
{
    describe_model(q, &c->m);
    Q(", %s weights, %s KV cache, on one ", dtype(c->w.weights), dtype(c->w.kv));
    describe_gpu(q, c);
    Q(", batch %d, prompts of %d tokens, %d tokens generated", c->w.batch, c->w.prompt, c->w.gen);
}

static int ttft(Question *q)
{
    Case c = draw_case();
    if (!c.e.fits) return 0;   /* what would run, not what could not */
    workload_text(q, &c);
    Q(". What time to first token (the prefill of the whole batch) does the roofline bound predict, in ms?");
    q->answer = c.e.prefill_time_s * 1e3;
    show_prefill(q, &c);
    show_roofline(q, &c.e, c.e.prefill_flops, c.e.prefill_bytes, c.e.prefill_bound);
    case_parameters(q, &c);
    return 1;
}

static int tpot(Question *q)
{
    Case c = draw_case();
    if (!c.e.fits) return 0;   /* what would run, not what could not */
    workload_text(q, &c);
    Q(". What time per output token (one decode step of the batch at the generation's mean context) does the roofline bound "
      "predict, in ms?");
    q->answer = c.e.decode_step_time_s * 1e3;
    show_decode_step(q, &c);
    show_roofline(q, &c.e, c.e.decode_step_flops, c.e.decode_step_bytes, c.e.decode_bound);
    case_parameters(q, &c);
    return 1;
}

static int decode_intensity(Question *q)
{
    Case c = draw_case();
    if (!c.e.fits) return 0;   /* what would run, not what could not */
    workload_text(q, &c);
    Q(". What is the arithmetic intensity of one decode step (its FLOPs over the bytes it must move), in FLOP per byte?");
    q->answer = c.e.decode_step_flops / c.e.decode_step_bytes;
    show_decode_step(q, &c);
    S("Intensity = %s GFLOP / %s GB = %s FLOP/byte, against the %s's ridge of %s FLOP/byte: %s-bound", num(c.e.decode_step_flops / 1e9, 6),
      num(c.e.decode_step_bytes / 1e9, 6), num(q->answer, 6), c.h.name, num(c.e.ridge_flop_per_byte, 6), c.e.decode_bound);
    case_parameters(q, &c);
    return 1;
}

static int knee(Question *q)
{
    Case c = draw_case();
    c.w.prompt = PICK(prompts) / 8;   /* short requests: with long contexts the cache keeps decode memory-bound */
    c.w.gen = 16;
    int batch = 1;
    for (; batch <= 4096; batch++) {
        c.w.batch = batch;
        estimate_case(&c);
        if (strcmp(c.e.decode_bound, "compute") == 0) break;
    }
    if (batch > 4096 || batch == 1 || !c.e.fits) return 0;   /* no knee, none to find, or one the memory cannot hold */
    Case before = c;
    before.w.batch = batch - 1;
    estimate_case(&before);
    describe_model(q, &c.m);
    Q(", %s weights, %s KV cache, on one ", dtype(c.w.weights), dtype(c.w.kv));
    describe_gpu(q, &c);
    Q(", prompts of %d tokens, %d tokens generated. From which batch size on is a decode step compute-bound under the roofline "
      "(the knee of TPOT against batch)?", c.w.prompt, c.w.gen);
    q->answer = batch;
    q->integer = 1;
    S("A decode step's FLOPs grow with every sequence, its bytes mostly do not (the weights are read once a step). At batch %d: "
      "compute %s ms, memory %s ms (memory-bound); at batch %d: compute %s ms, memory %s ms (compute-bound). Peak %s TFLOP/s (%s), "
      "ridge %s FLOP/byte; the step's intensity crosses it at batch %d",
      batch - 1, num(before.e.decode_step_flops / before.e.peak_flops * 1e3, 6), num(before.e.decode_step_bytes / before.e.bandwidth * 1e3, 6),
      batch, num(c.e.decode_step_flops / c.e.peak_flops * 1e3, 6), num(c.e.decode_step_bytes / c.e.bandwidth * 1e3, 6),
      num(c.e.peak_flops / 1e12, 6), c.e.compute_type, num(c.e.ridge_flop_per_byte, 6), batch);
    P("model=%s gpu=%s weights=%s kv=%s prompt=%d gen=%d", c.m.name, c.h.key, dtype(c.w.weights), dtype(c.w.kv), c.w.prompt, c.w.gen);
    return 1;
}

static int throughput(Question *q)
{
    Case c = draw_case();
    if (!c.e.fits) return 0;   /* what would run, not what could not */
    workload_text(q, &c);
    Q(". How many generated tokens per second does the whole batch deliver, by the roofline bounds (B × gen tokens in TTFT + "
      "(gen − 1) × TPOT)?");
    q->answer = c.e.tokens_per_s;
    S("TTFT = %s ms (prefill, %s-bound), TPOT = %s ms (decode, %s-bound); total = %s + %d × %s = %s ms; throughput = %d × %d / %s s = "
      "%s tokens/s",
      num(c.e.ttft_s * 1e3, 6), c.e.prefill_bound, num(c.e.tpot_s * 1e3, 6), c.e.decode_bound, num(c.e.ttft_s * 1e3, 6), c.w.gen - 1,
      num(c.e.tpot_s * 1e3, 6), num(c.e.total_time_s * 1e3, 6), c.w.batch, c.w.gen, num(c.e.total_time_s, 6), num(q->answer, 6));
    case_parameters(q, &c);
    return 1;
}

static int quantized_speedup(Question *q)
{
    static const perfmodel_dtype formats[] = {DTYPE_FP8, DTYPE_INT8, DTYPE_INT4};
    Case c = draw_case();
    c.w.weights = PICK(formats);
    c.w.kv = DTYPE_FP16;
    estimate_case(&c);
    Case base = c;
    base.w.weights = DTYPE_FP16;
    estimate_case(&base);
    if (!c.e.fits || !base.e.fits) return 0;
    describe_model(q, &c.m);
    Q(", FP16 KV cache, on one ");
    describe_gpu(q, &c);
    Q(", batch %d, prompts of %d tokens, %d generated: how many times shorter is the predicted TPOT with %s weights than with FP16 "
      "weights (TPOT in FP16 / TPOT in %s)?", c.w.batch, c.w.prompt, c.w.gen, dtype(c.w.weights), dtype(c.w.weights));
    q->answer = base.e.tpot_s / c.e.tpot_s;
    S("FP16: a step moves %s GB and does %s GFLOP at %s TFLOP/s: TPOT %s ms (%s-bound). %s: %s GB, %s GFLOP at %s TFLOP/s (%s): TPOT %s "
      "ms (%s-bound). Ratio %s / %s = %s",
      num(base.e.decode_step_bytes / 1e9, 6), num(base.e.decode_step_flops / 1e9, 6), num(base.e.peak_flops / 1e12, 6),
      num(base.e.tpot_s * 1e3, 6), base.e.decode_bound, dtype(c.w.weights), num(c.e.decode_step_bytes / 1e9, 6),
      num(c.e.decode_step_flops / 1e9, 6), num(c.e.peak_flops / 1e12, 6), c.e.compute_type, num(c.e.tpot_s * 1e3, 6), c.e.decode_bound,
      num(base.e.tpot_s * 1e3, 6), num(c.e.tpot_s * 1e3, 6), num(q->answer, 6));
    case_parameters(q, &c);
    return 1;
}

static int gpu_speedup(Question *q)
{
    Case from = draw_case(), to = from;
    char error[2048];
    to.gpu = pick(gpu_count);
    if (to.gpu == from.gpu) return 0;
    if (perfmodel_load_gpu(gpu_keys[to.gpu], &to.h, error, sizeof error) != 0) die("%s", error);
    estimate_case(&to);
    if (!from.e.fits || !to.e.fits) return 0;
    int first_token = pick(2);
    describe_model(q, &from.m);
    Q(", %s weights, %s KV cache, batch %d, prompts of %d tokens, %d generated, moves from the %s (%s GB/s) to the %s (%s GB/s). By "
      "what factor does the predicted %s change (the old one divided by the new one)?",
      dtype(from.w.weights), dtype(from.w.kv), from.w.batch, from.w.prompt, from.w.gen, from.h.name, num(from.h.bandwidth / 1e9, 6),
      to.h.name, num(to.h.bandwidth / 1e9, 6), first_token ? "time to first token" : "time per output token");
    double old_time = first_token ? from.e.ttft_s : from.e.tpot_s, new_time = first_token ? to.e.ttft_s : to.e.tpot_s;
    q->answer = old_time / new_time;
    const perfmodel_prediction *a = &from.e, *b = &to.e;
    S("%s: on the %s it is %s-bound at %s ms (peak %s TFLOP/s, %s GB/s); on the %s %s-bound at %s ms (peak %s TFLOP/s, %s GB/s). "
      "Factor %s / %s = %s: a memory-bound phase scales with the bandwidths, a compute-bound one with the peaks",
      first_token ? "TTFT (prefill)" : "TPOT (decode)", from.h.name, first_token ? a->prefill_bound : a->decode_bound,
      num(old_time * 1e3, 6), num(a->peak_flops / 1e12, 6), num(a->bandwidth / 1e9, 6), to.h.name,
      first_token ? b->prefill_bound : b->decode_bound, num(new_time * 1e3, 6), num(b->peak_flops / 1e12, 6), num(b->bandwidth / 1e9, 6),
      num(old_time * 1e3, 6), num(new_time * 1e3, 6), num(q->answer, 6));
    P("model=%s gpu=%s to=%s weights=%s kv=%s batch=%d prompt=%d gen=%d phase=%s", from.m.name, from.h.key, to.h.key,
      dtype(from.w.weights), dtype(from.w.kv), from.w.batch, from.w.prompt, from.w.gen, first_token ? "ttft" : "tpot");
    return 1;
}

typedef struct {
    const char *kind, *title, *unit;
    int day;
    int (*make)(Question *);
} Kind;

/* in the order of the days */
static const Kind kinds[] = {
    {"littles-law", "warps to hide memory latency", "warps per SM", 4, littles_law},
    {"decode-intensity", "arithmetic intensity of a decode step", "FLOP/byte", 13, decode_intensity},
    {"ridge", "ridge point", "FLOP/byte", 14, ridge},
    {"attainable", "attainable FLOP rate", "TFLOP/s", 14, attainable},
    {"parameters", "parameter count", "billion parameters", 16, parameters},
    {"token-flops", "FLOPs of one token", "GFLOP", 16, decode_flops},
    {"ttft", "time to first token", "ms", 19, ttft},
    {"tpot", "time per output token", "ms", 19, tpot},
    {"kv-per-token", "KV cache per token", "KiB", 20, kv_per_token},
    {"kv-total", "KV cache of a batch", "GiB", 20, kv_total},
    {"weights", "bytes of weights", "GB", 25, weights},
    {"quantized-speedup", "decode speed-up of quantized weights", "times", 25, quantized_speedup},
    {"knee", "batch where decode turns compute-bound", "sequences", 27, knee},
    {"throughput", "tokens per second of a batch", "tokens/s", 27, throughput},
    {"max-batch", "largest batch that fits", "sequences", 30, max_batch},
    {"gpu-speedup", "what a GPU change buys", "times", 30, gpu_speedup},
};

/* ---------------------------------------------------------------------------------
 * Output */

/* GIFT's special characters ~ = # { } : are written with a backslash before them. */
static void put_gift(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (strchr("~=#{}:\\", *s)) fputc('\\', out);
        fputc(*s, out);
    }
}

/* A CSV field: quoted, with quotes doubled, whenever it holds a comma, a quote or a line break. */
static void put_csv(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* The answer with 6 significant digits, or exactly when it is a whole number of things; the
 * tolerance 1 % of it (2 significant digits), or for whole numbers 1 % rounded down. */
static void finish(Question *q)
{
    if (!isfinite(q->answer) || q->answer < 0) die("question %s (%s) has no answer: %g", q->id, q->kind, q->answer);
    if (q->integer) q->tolerance = floor(0.01 * q->answer);
    else {
        q->answer = atof(num(q->answer, 6));
        q->tolerance = atof(num(0.01 * q->answer, 2));
    }
}

/* A question the bank already has (the same kind and parameters) is drawn again. */
static int already_drawn(char (*drawn)[600], int count, const char *kind, const char *parameters)
{
    char key[600];
    snprintf(key, sizeof key, "%s %s", kind, parameters);
    for (int i = 0; i < count; i++)
        if (!strcmp(drawn[i], key)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *gift_path = NULL, *csv_path = NULL;
    long long seed = -1;
    int per_kind = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--gift") && i + 1 < argc) gift_path = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--per-kind") && i + 1 < argc) per_kind = atoi(argv[++i]);
        else die("usage: questions --seed N --gift FILE --csv FILE [--per-kind N (1 to 100, default 3)]");
    }
    if (seed < 0 || !gift_path || !csv_path || per_kind < 1 || per_kind > 100)
        die("usage: questions --seed N --gift FILE --csv FILE [--per-kind N (1 to 100, default 3)]; the seed is a whole number >= 0");
    rng_state = (uint64_t)seed;
    load_tables();

    FILE *gift = fopen(gift_path, "w"), *csv = fopen(csv_path, "w");
    if (!gift || !csv) die("cannot write %s or %s", gift_path, csv_path);
    fprintf(gift, "// From GPU to LLM Inference: question bank, seed %lld, made by tools/course/questions.c from data/ and lib/perfmodel.\n"
                  "// Moodle GIFT: numeric questions {#answer:tolerance####worked solution}; import under Question bank > Import > GIFT.\n",
            seed);
    fputs("id,day,question,answer,unit,tolerance,solution,kind,parameters\n", csv);
    int number = 0, last_day = -1;
    static char drawn[100 * sizeof kinds / sizeof kinds[0]][600];   /* kind and parameters of every question so far */
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int n = 0; n < per_kind; n++) {
            Question q;
            int tries = 0;
            do {
                memset(&q, 0, sizeof q);
                tries++;
            } while (tries <= 1000 && (!kinds[k].make(&q) || already_drawn(drawn, number, kinds[k].kind, q.parameters)));
            if (tries > 1000) {   /* the tables hold no more distinct questions of this kind */
                fprintf(stderr, "questions: %s: %d distinct questions, not %d (no new draw in 1000 tries)\n", kinds[k].kind, n, per_kind);
                break;
            }
            snprintf(drawn[number], sizeof drawn[number], "%s %s", kinds[k].kind, q.parameters);
            snprintf(q.id, sizeof q.id, "Q%03d", ++number);
            snprintf(q.kind, sizeof q.kind, "%s", kinds[k].kind);
            snprintf(q.unit, sizeof q.unit, "%s", kinds[k].unit);
            q.day = kinds[k].day;
            finish(&q);
            char answer[64], tolerance[64];
            snprintf(answer, sizeof answer, "%s", q.integer ? whole(q.answer) : num(q.answer, 6));
            snprintf(tolerance, sizeof tolerance, "%s", q.integer ? whole(q.tolerance) : num(q.tolerance, 2));

            if (q.day != last_day) fprintf(gift, "\n$CATEGORY: $course$/From GPU to LLM Inference/Day %02d\n", last_day = q.day);
            fprintf(gift, "\n// %s, day %02d, %s: %s\n::%s %s::", q.id, q.day, q.kind, q.parameters, q.id, kinds[k].title);
            put_gift(gift, q.question);
            fprintf(gift, " (answer in %s) {#%s:%s####", q.unit, answer, tolerance);
            put_gift(gift, q.solution);
            fputs("}\n", gift);

            fprintf(csv, "%s,%d,", q.id, q.day);
            put_csv(csv, q.question);
            fprintf(csv, ",%s,", answer);
            put_csv(csv, q.unit);
            fprintf(csv, ",%s,", tolerance);
            put_csv(csv, q.solution);
            fprintf(csv, ",%s,", q.kind);
            put_csv(csv, q.parameters);
            fputc('\n', csv);
        }
    }
    if (fclose(gift) != 0 || fclose(csv) != 0) die("could not finish writing %s and %s", gift_path, csv_path);
    fprintf(stderr, "questions: %d questions of %zu kinds (seed %lld) in %s and %s\n", number, sizeof kinds / sizeof kinds[0], seed,
            gift_path, csv_path);
    return 0;
}
