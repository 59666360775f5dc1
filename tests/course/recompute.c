/* recompute.c — checks every answer of a question bank (tools/course/questions.c) against a
 * computation of its own: data/models.csv and data/gpus.csv read by the CSV reader below, and
 * the book's formulas (days 04, 14, 16, 19, 20, 25, 27, 30 and lib/perfmodel/perfmodel.h's
 * conventions) written out again here, without lib/perfmodel or lib/lab.
 *
 *   recompute DATA_DIR BANK.csv
 *
 * Prints "ok ..." lines, or "FAIL id: ..." for each answer that differs; exits 1 on any. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv.h"

static double number(const Csv *csv, int row, const char *column)
{
    const char *text = cell(csv, row, column);
    return *text ? atof(text) : NAN;
}

/* ---------------------------------------------------------------------------------
 * The tables */

typedef struct {
    double L, d, H, Hkv, dh, dff, V, E, k, bias, tied;
} Model;

typedef struct {
    char name[64];
    double sms, fp32, fp16, bf16, fp8, memory, bandwidth;   /* TFLOP/s, GiB, GB/s as in the table */
} Gpu;

static Csv models, gpus;

static Model model_named(const char *name)
{
    for (int r = 1; r < models.count; r++)
        if (!strcmp(cell(&models, r, "name"), name)) {
            Model m = {number(&models, r, "layers"), number(&models, r, "hidden_size"), number(&models, r, "attention_heads"),
                       number(&models, r, "kv_heads"), number(&models, r, "head_dim"), number(&models, r, "intermediate_size"),
                       number(&models, r, "vocab_size"), number(&models, r, "experts"), number(&models, r, "experts_per_token"),
                       number(&models, r, "qkv_bias"), number(&models, r, "tied_embeddings")};
            if (!(m.E >= 1)) m.E = 1;
            if (!(m.k >= 1)) m.k = 1;
            return m;
        }
    die("no such model: ", name);
    return (Model){0};
}

static Gpu gpu_keyed(const char *key)
{
    for (int r = 1; r < gpus.count; r++)
        if (!strcmp(cell(&gpus, r, "key"), key)) {
            Gpu g;
            snprintf(g.name, sizeof g.name, "%s", cell(&gpus, r, "name"));
            g.sms = number(&gpus, r, "sms");
            g.fp32 = number(&gpus, r, "fp32_tflops");
            g.fp16 = number(&gpus, r, "fp16_tensor_tflops");
            g.bf16 = number(&gpus, r, "bf16_tensor_tflops");
            g.fp8 = number(&gpus, r, "fp8_tensor_tflops");
            g.memory = number(&gpus, r, "memory_gib");
            g.bandwidth = number(&gpus, r, "memory_bandwidth_gb_per_s");
            return g;
        }
    die("no such GPU: ", key);
    return (Gpu){.sms = 0};
}

static double bytes_of(const char *type)
{
    static const struct { const char *name; double bytes; } types[] = {
        {"fp32", 4}, {"fp16", 2}, {"bf16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(type, types[i].name)) return types[i].bytes;
    die("no such data type: ", type);
    return NAN;
}

static int is_quantized(const char *type) { return !strcmp(type, "int8") || !strcmp(type, "int4"); }

/* Peak FLOP/s for a weight type: FP32 on the CUDA cores; BF16 and FP8 on their tensor cores where
 * the GPU has them, else FP16's; FP16 and the weight-only INT8/INT4 (dequantised to FP16) at FP16's. */
static double peak(const Gpu *g, const char *weights)
{
    double tflops = g->fp16;
    if (!strcmp(weights, "fp32")) tflops = g->fp32;
    else if (!strcmp(weights, "bf16") && !isnan(g->bf16)) tflops = g->bf16;
    else if (!strcmp(weights, "fp8") && !isnan(g->fp8)) tflops = g->fp8;
    return tflops * 1e12;
}

/* ---------------------------------------------------------------------------------
 * Day 16: what a model holds; days 19, 25, 30: what a step reads */

static double attention_weights(const Model *m)   /* the Q, K, V and O matrices */
{
    double q = m->H * m->dh, kv = m->Hkv * m->dh;
    return m->d * q + 2 * m->d * kv + q * m->d;
}
static double biases(const Model *m) { return m->bias ? (m->H + 2 * m->Hkv) * m->dh : 0; }   /* a layer's, on Q, K, V */
static double expert(const Model *m) { return 3 * m->d * m->dff; }
static double router(const Model *m) { return m->E > 1 ? m->E * m->d : 0; }

static double parameters(const Model *m)
{
    return m->V * m->d * (m->tied ? 1 : 2) + m->L * (attention_weights(m) + biases(m) + m->E * expert(m) + router(m) + 2 * m->d) + m->d;
}

/* norms (two a layer and the final one) and biases: kept in FP32 when the matrices are quantized */
static double vectors(const Model *m) { return (2 * m->L + 1) * m->d + m->L * biases(m); }

static double group_size(const Model *m)
{
    int g = 64;
    while (g > 1 && (fmod(m->d, g) != 0 || fmod(m->dff, g) != 0)) g /= 2;
    return g;
}

/* bytes of `count` matrix parameters in `type`: INT8 adds an FP32 scale a group, INT4 a scale and
 * a one-byte zero point */
static double matrix_bytes(const Model *m, double count, const char *type)
{
    double per_group = !is_quantized(type) ? 0 : !strcmp(type, "int4") ? 5 : 4;
    return count * bytes_of(type) + per_group * floor(count / group_size(m));
}
static double vector_bytes(const Model *m, const char *type) { return vectors(m) * (is_quantized(type) ? 4 : bytes_of(type)); }

static double weight_bytes(const Model *m, const char *type)
{
    return matrix_bytes(m, parameters(m) - vectors(m), type) + vector_bytes(m, type);
}

/* weights a forward step over `tokens` rows reads: attention and router of every layer, the experts
 * its tokens reach (uniform routing: E (1 - (1 - k/E)^tokens) of them), the classifier table, and
 * the embedding rows looked up when the table is not shared */
static double step_weight_bytes(const Model *m, const char *type, double tokens)
{
    double reached = m->E == 1 ? 1 : m->E * (1 - pow(1 - m->k / m->E, tokens));
    double matrices = m->L * (attention_weights(m) + router(m) + reached * expert(m)) + m->V * m->d +
                      (m->tied ? 0 : fmin(tokens, m->V) * m->d);
    return matrix_bytes(m, matrices, type) + vector_bytes(m, type);
}

static double multiplied_per_layer(const Model *m) { return attention_weights(m) + m->k * expert(m) + router(m); }

static double kv_per_token(const Model *m, const char *kv) { return 2 * m->L * m->Hkv * m->dh * bytes_of(kv); }

/* the engine's buffers (lib/llama's session): per row of a step (at most 512) 4 rows of the model
 * width, 2 of the KV width, 2 of the MLP's, 3 ints; one thread's scores; a row of logits a sequence */
static double activation_bytes(const Model *m, double batch, double context)
{
    double rows = fmin(512, batch * context);
    double floats = rows * (4 * m->H * m->dh + 2 * m->Hkv * m->dh + 2 * m->dff) + context + batch * m->V;
    return 4 * floats + 12 * rows;
}

typedef struct { const char *weights, *kv; double batch, prompt, gen; } Work;

static double budget(const Model *m, const Work *w, double batch)
{
    double context = w->prompt + w->gen;
    return weight_bytes(m, w->weights) + batch * context * kv_per_token(m, w->kv) + activation_bytes(m, batch, context);
}

static double largest_batch(const Model *m, const Gpu *g, const Work *w)
{
    /* GiB; the runtime keeps a tenth (PERFMODEL_MEMORY_UTILIZATION) */
    double capacity = g->memory * 1073741824.0 * 0.9;
    if (budget(m, w, 1) > capacity) return 0;
    double context = w->prompt + w->gen;
    double fixed = weight_bytes(m, w->weights) + 4 * (512 * (4 * m->H * m->dh + 2 * m->Hkv * m->dh + 2 * m->dff) + context) + 12 * 512;
    double b = fmax(1, floor((capacity - fixed) / (context * kv_per_token(m, w->kv) + 4 * m->V)));
    while (budget(m, w, b + 1) <= capacity) b++;
    while (b > 1 && budget(m, w, b) > capacity) b--;
    return b;
}

typedef struct { double flops, bytes, compute_s, memory_s, time_s; } Phase;

static Phase bound(double flops, double bytes, double peak_flops, double bandwidth)
{
    Phase p = {flops, bytes, flops / peak_flops, bytes / bandwidth, 0};
    p.time_s = fmax(p.compute_s, p.memory_s);
    return p;
}

/* one decode step at the generation's mean context: prompt + gen/2 (prompt + 1 when gen = 1) */
static Phase decode(const Model *m, const Gpu *g, const Work *w)
{
    double c = w->gen > 1 ? w->prompt + w->gen / 2 : w->prompt + 1;
    double flops = w->batch * (2 * m->L * multiplied_per_layer(m) + 2 * m->V * m->d + 4 * m->L * m->H * m->dh * c);
    double bytes = step_weight_bytes(m, w->weights, w->batch) + w->batch * (c + 1) * kv_per_token(m, w->kv);
    return bound(flops, bytes, peak(g, w->weights), g->bandwidth * 1e9);
}

/* the prefill of every prompt on a GPU: all its rows in one GEMM per matrix, each weight read once */
static Phase prefill(const Model *m, const Gpu *g, const Work *w)
{
    double p = w->prompt, rows = w->batch * p;
    double flops = w->batch * (p * 2 * m->L * multiplied_per_layer(m) + 2 * m->V * m->d + 2 * m->L * m->H * m->dh * p * (p + 1));
    double bytes = step_weight_bytes(m, w->weights, rows) + 2 * rows * kv_per_token(m, w->kv);
    return bound(flops, bytes, peak(g, w->weights), g->bandwidth * 1e9);
}

/* ---------------------------------------------------------------------------------
 * One question: its parameters, and its answer again */

/* The value of key=value in a question's parameters, in one of 8 rotating buffers: copy what must
 * outlive the next eight calls. */
static const char *parameter(const char *parameters, const char *key)
{
    static char value[8][128];
    static int next;
    char *out = value[next++ % 8];
    size_t n = strlen(key);
    for (const char *p = parameters; (p = strstr(p, key)); p++) {
        if ((p == parameters || p[-1] == ' ') && p[n] == '=') {
            size_t i = 0;
            for (p += n + 1; *p && *p != ' ' && i < 127; p++) out[i++] = *p;
            out[i] = 0;
            return out;
        }
    }
    die("a question lacks the parameter ", key);
    return NULL;
}

static double recompute(const char *kind, const char *ps)
{
#define TEXT(key) parameter(ps, key)
#define NUM(key) atof(parameter(ps, key))
    if (!strcmp(kind, "littles-law")) {
        Gpu g = gpu_keyed(TEXT("gpu"));
        long long in_flight = llround(g.bandwidth * NUM("latency_ns")), per_sm = (long long)g.sms * (long long)NUM("bytes_per_warp");
        return (double)((in_flight + per_sm - 1) / per_sm);
    }
    if (!strcmp(kind, "ridge")) {
        Gpu g = gpu_keyed(TEXT("gpu"));
        return peak(&g, TEXT("weights")) / (g.bandwidth * 1e9);
    }
    if (!strcmp(kind, "attainable")) {
        Gpu g = gpu_keyed(TEXT("gpu"));
        return fmin(peak(&g, TEXT("weights")), NUM("intensity") * g.bandwidth * 1e9) / 1e12;
    }
    Model m = model_named(TEXT("model"));
    if (!strcmp(kind, "parameters")) return parameters(&m) / 1e9;
    if (!strcmp(kind, "token-flops"))
        return (2 * m.L * multiplied_per_layer(&m) + 2 * m.V * m.d + 4 * m.L * m.H * m.dh * NUM("context")) / 1e9;
    if (!strcmp(kind, "weights")) return weight_bytes(&m, TEXT("weights")) / 1e9;
    if (!strcmp(kind, "kv-per-token")) return kv_per_token(&m, TEXT("kv")) / 1024;
    if (!strcmp(kind, "kv-total")) return NUM("batch") * (NUM("prompt") + NUM("gen")) * kv_per_token(&m, TEXT("kv")) / 1073741824.0;

    Gpu g = gpu_keyed(TEXT("gpu"));
    char weights[16], kv[16];
    snprintf(weights, sizeof weights, "%s", TEXT("weights"));
    snprintf(kv, sizeof kv, "%s", TEXT("kv"));
    if (!strcmp(kind, "knee")) {
        for (double b = 1; b <= 4096; b++) {
            Work w = {weights, kv, b, NUM("prompt"), NUM("gen")};
            Phase step = decode(&m, &g, &w);
            if (step.compute_s > step.memory_s) return b;
        }
        return -1;
    }
    Work w = {weights, kv, NUM("batch"), NUM("prompt"), NUM("gen")};
    if (!strcmp(kind, "max-batch")) return largest_batch(&m, &g, &w);
    if (!strcmp(kind, "ttft")) return prefill(&m, &g, &w).time_s * 1e3;
    if (!strcmp(kind, "tpot")) return decode(&m, &g, &w).time_s * 1e3;
    if (!strcmp(kind, "decode-intensity")) {
        Phase step = decode(&m, &g, &w);
        return step.flops / step.bytes;
    }
    if (!strcmp(kind, "throughput"))
        return w.batch * w.gen / (prefill(&m, &g, &w).time_s + (w.gen - 1) * decode(&m, &g, &w).time_s);
    if (!strcmp(kind, "quantized-speedup")) {
        Work fp16 = w;
        fp16.weights = "fp16";
        return decode(&m, &g, &fp16).time_s / decode(&m, &g, &w).time_s;
    }
    if (!strcmp(kind, "gpu-speedup")) {
        Gpu to = gpu_keyed(TEXT("to"));
        int first = !strcmp(TEXT("phase"), "ttft");
        return first ? prefill(&m, &g, &w).time_s / prefill(&m, &to, &w).time_s : decode(&m, &g, &w).time_s / decode(&m, &to, &w).time_s;
    }
    die("unknown kind of question: ", kind);
    return NAN;
#undef TEXT
#undef NUM
}

static int whole_kind(const char *kind) { return !strcmp(kind, "littles-law") || !strcmp(kind, "knee") || !strcmp(kind, "max-batch"); }

int main(int argc, char **argv)
{
    if (argc != 3) die("usage: recompute DATA_DIR BANK.csv", "");
    char path[4096];
    snprintf(path, sizeof path, "%s/models.csv", argv[1]);
    models = read_csv(path);
    snprintf(path, sizeof path, "%s/gpus.csv", argv[1]);
    gpus = read_csv(path);
    Csv bank = read_csv(argv[2]);
    if (bank.count < 2) die("no questions in ", argv[2]);

    int failures = 0, checked = 0;
    char kinds[64][32];
    int kind_count = 0;
    for (int r = 1; r < bank.count; r++) {
        const char *id = cell(&bank, r, "id"), *kind = cell(&bank, r, "kind"), *answer_text = cell(&bank, r, "answer");
        double answer = atof(answer_text), tolerance = atof(cell(&bank, r, "tolerance"));
        double expected = recompute(kind, cell(&bank, r, "parameters"));
        int whole = whole_kind(kind);
        int right = whole ? answer == expected : fabs(answer - expected) <= 1e-5 * fabs(expected);
        double wanted_tolerance = whole ? floor(0.01 * expected) : 0.01 * fabs(expected);
        int tolerance_right = whole ? tolerance == wanted_tolerance : fabs(tolerance - wanted_tolerance) <= 0.05 * wanted_tolerance;
        if (!right) printf("FAIL %s (%s): the bank says %s, recomputed %.9g\n", id, kind, answer_text, expected);
        else if (!tolerance_right) printf("FAIL %s (%s): tolerance %g, want about 1 %% of %g (%g)\n", id, kind, tolerance, expected, wanted_tolerance);
        else if (!strstr(cell(&bank, r, "solution"), answer_text))
            printf("FAIL %s (%s): the worked solution does not arrive at the answer %s\n", id, kind, answer_text);
        if (right && tolerance_right && strstr(cell(&bank, r, "solution"), answer_text)) checked++;
        else failures++;
        int known = 0;
        for (int k = 0; k < kind_count; k++) known |= !strcmp(kinds[k], kind);
        if (!known && kind_count < 64) snprintf(kinds[kind_count++], 32, "%s", kind);
    }
    if (failures) {
        printf("FAIL %d of %d answers differ from the recomputation\n", failures, bank.count - 1);
        return 1;
    }
    printf("ok %d answers of %d kinds equal an independent recomputation from data/ (within the 6 printed digits; whole "
           "numbers exactly), each tolerance 1 %% and each worked solution ending at its answer\n", checked, kind_count);
    return 0;
}
