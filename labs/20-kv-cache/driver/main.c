/* main.c — Day 20 driver: what a KV cache holds, what it costs in memory, and what it saves in
 * time, with your formula and your cache. Do not edit.
 *
 *   build/20-kv-cache/labs-sim/lab RESULTS.csv     (make check DAY=20 runs it)
 *
 * Prints, in order:
 *   1. your kv_cache_bytes for every model of data/models.csv (FP16, one sequence): per token,
 *      at 4096, 32768 and 131072 tokens, what it would be without grouped-query attention, your
 *      kv_cache_passes_weights_at (the context at which a decode step reads more cache than FP16
 *      weights, parameters x 2 bytes), and how many 4096-token sequences fit beside the weights in
 *      an 80 GiB H100 (the book's memory budget: nine tenths usable);
 *   2. your formula beside lib/llama's for the sessions the lab builds;
 *   3. the toy Llama's 42M shape (seeded FP32 weights, one thread) generating with your cache and
 *      with the engine's own, against recomputing the whole sequence for every token (a prefill):
 *      measured time per token, FLOPs counted by the engine, and the largest logit difference,
 *      at positions 1 to 1016;
 *   4. the FLOPs of generating all 1024 tokens both ways, from the engine's counts;
 *   5. the same comparison for Llama-2-7B on an H100 SXM, predicted by lib/perfmodel.
 * Writes
 *   series,model,position,context_tokens,time_ms,counted_gflop,kv_bytes
 * series measured-cached (your cache) / measured-engine-cache / measured-uncached: one row per
 * position (time_ms measured on this CPU, counted_gflop counted by the engine); series kv-fp16: one row per model and context
 * length (256 .. 131072 tokens, two per octave), kv_bytes from your formula. */
#include "lab.h"
#include "machine.h"
#include "perfmodel.h"
#include "results.h"
#include "table.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CAPACITY = 1024, UNCACHED_REPEATS = 3, CACHED_STEPS = 7 };
static const char *const timed_shape = "42M";
/* each position p times the decode steps at p .. p + CACHED_STEPS - 1, so positions are that far apart at least */
static const int positions[] = {1, 8, 16, 32, 64, 128, 256, 512, 768, 1016};
enum { POSITIONS = sizeof positions / sizeof positions[0] };

static kv_model kv_model_of_row(const lab_table *models, int row)
{
    kv_model m = {(int)lab_table_number_or_exit(models, row, "layers"), (int)lab_table_number_or_exit(models, row, "hidden_size"),
                  (int)lab_table_number_or_exit(models, row, "attention_heads"), (int)lab_table_number_or_exit(models, row, "kv_heads"),
                  (int)lab_table_number_or_exit(models, row, "head_dim")};
    return m;
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

/* ---------------------------------------------------------------------------------
 * 1. The formula, for the models of the table */

static void print_formula(const lab_table *models, double usable_bytes)
{
    printf("1. Your kv_cache_bytes for the models of data/models.csv, FP16 (2 bytes), one sequence:\n");
    printf("   %-13s %6s %8s %8s %10s %12s %10s %10s %12s %12s %10s\n", "model", "layers", "kv_heads", "head_dim",
           "per token", "4096 tokens", "32768", "131072", "4096 as MHA", "KV > weights", "4096-seqs");
    printf("   %-13s %6s %8s %8s %10s %12s %10s %10s %12s %12s %10s\n", "", "", "", "", "KiB", "GiB", "GiB", "GiB",
           "GiB", "from tokens", "in 80 GiB");
    for (int row = 0; row < models->rows; row++) {
        kv_model m = kv_model_of_row(models, row), mha = m;
        mha.kv_heads = mha.heads;
        double weights = 2.0 * lab_table_number_or_exit(models, row, "parameters");
        double per_token = (double)kv_cache_bytes(&m, 2, 1, 1), sequence = (double)kv_cache_bytes(&m, 2, 4096, 1);
        double room = usable_bytes - weights;
        char fit[32];
        if (room < 0) snprintf(fit, sizeof fit, "none");
        else if (sequence > 0) snprintf(fit, sizeof fit, "%.0f", floor(room / sequence));
        else snprintf(fit, sizeof fit, "?");
        printf("   %-13s %6d %8d %8d %10.0f %12.3f %10.2f %10.2f %12.2f %12.0f %10s\n", lab_table_text_or_exit(models, row, "name"),
               m.layers, m.kv_heads, m.head_dim, per_token / 1024, gib(sequence), gib((double)kv_cache_bytes(&m, 2, 32768, 1)),
               gib((double)kv_cache_bytes(&m, 2, 131072, 1)), gib((double)kv_cache_bytes(&mha, 2, 4096, 1)),
               (double)kv_cache_passes_weights_at(&m, 2, weights, 1), fit);
    }
    printf("   (KV > weights: your kv_cache_passes_weights_at, the first context at which one sequence's cache is\n"
           "   more than the model's FP16 weights, parameters x 2 bytes: from there on, a decode step reads more\n"
           "   cache than weights.\n"
           "   4096-seqs: how many 4096-token caches fit beside those weights in an H100's 80 GiB, less the\n"
           "   runtime's tenth (lib/perfmodel's budget: 77.3 GB usable; activations left out).)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 2. Your formula beside lib/llama's */

static void print_engine_formula(void)
{
    printf("2. Your formula beside lib/llama's llama_kv_cache_bytes, for FP32 caches of the engine's shapes:\n");
    const char *const shapes[] = {"tiny-mha", "15M", "42M", "110M"};
    for (int i = 0; i < 4; i++) {
        char error[256];
        llama_config c;
        if (llama_named_shape(shapes[i], &c, error, sizeof error) != 0) continue;
        kv_model m = {c.n_layers, c.dim, c.n_heads, c.n_kv_heads, llama_head_dim_of(&c)};
        int64_t yours = kv_cache_bytes(&m, 4, c.seq_len, 1);
        int64_t library = llama_kv_cache_bytes(c.n_layers, c.n_kv_heads, llama_head_dim_of(&c), 4, c.seq_len, 1);
        printf("   %-9s %2d layers x %2d heads of %2d, %4d tokens: yours %10lld bytes, lib/llama %10lld  %s\n", shapes[i],
               c.n_layers, c.n_kv_heads, llama_head_dim_of(&c), c.seq_len, (long long)yours, (long long)library,
               yours == library ? "equal" : "DIFFERS");
    }
    printf("\n");
}

/* ---------------------------------------------------------------------------------
 * 3. Cached against uncached, measured */

typedef struct timing {
    int position;
    double cached_ms, engine_cached_ms, uncached_ms;   /* medians, measured */
    double cached_flops, uncached_flops;               /* counted by the engine */
    double largest_difference;                         /* of a logit, cached against uncached */
} timing;

static double counted_flops(const llama_counters *c) { return c->matmul_flops + c->attention_flops; }

static double largest_difference(const float *a, const float *b, int n)
{
    double largest = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= largest)) largest = d;   /* NaN wins */
    }
    return largest;
}

/* A session's cache filled up to position p - 1 (a prefill of the tokens it does not hold yet:
 * many rows at once), then the decode steps at p, p + 1, ... timed: each one token, one append
 * per layer, attention over the cache. Returns the median step in ms, or -1 with the reason;
 * the first step's logits and counted FLOPs go to `logits` and `flops`. */
static double time_decode_steps(llama_session *s, const int *tokens, int *length, int p, float *logits, double *flops,
                                char *error, size_t error_size)
{
    if (p > *length && !llama_prefill(s, 0, tokens + *length, p - *length, error, error_size)) return -1;
    *length = p;
    double seconds[CACHED_STEPS];
    for (int step = 0; step < CACHED_STEPS; step++) {
        memset(&s->counters, 0, sizeof s->counters);
        double start = lab_now_seconds();
        const float *out = llama_decode_batch(s, (int[]){0}, &tokens[*length], 1, error, error_size);
        seconds[step] = lab_now_seconds() - start;
        if (!out) return -1;
        if (step == 0) {
            memcpy(logits, out, (size_t)s->transformer->config.vocab_size * sizeof(float));
            *flops = counted_flops(&s->counters);
        }
        (*length)++;
    }
    return 1e3 * lab_median(seconds, CACHED_STEPS);
}

/* Runs the comparison: your cache, the engine's own, and no cache at all. Returns 0, or -1 with
 * a message when your cache refuses an append or its logits are not the recomputed ones. */
static int measure(const llama_transformer *t, const int *tokens, timing *out, char *error, size_t error_size)
{
    int vocab = t->config.vocab_size;
    llama_session cached, engine_cached, uncached;
    kv_plug plug;
    if (llama_build_session(&cached, t, 1, CAPACITY, 1, error, error_size) != 0) return -1;
    if (llama_build_session(&engine_cached, t, 1, CAPACITY, 1, error, error_size) != 0) return -1;
    if (llama_build_session(&uncached, t, 1, CAPACITY, 1, error, error_size) != 0) return -1;
    if (kv_plug_into(&cached, &plug, error, error_size) != 0) return -1;
    float *cached_logits = malloc((size_t)vocab * sizeof(float)), *engine_logits = malloc((size_t)vocab * sizeof(float));
    int status = 0, length = 0, engine_length = 0;
    for (int k = 0; k < POSITIONS && status == 0; k++) {
        int p = positions[k];
        timing *row = &out[k];
        row->position = p;
        double engine_flops;
        row->cached_ms = time_decode_steps(&cached, tokens, &length, p, cached_logits, &row->cached_flops, error,
                                           error_size);
        if (row->cached_ms >= 0 && plug.refused) {
            snprintf(error, error_size, "your kv_cache_append refused an append the engine made: %s", plug.first_refusal);
            row->cached_ms = -1;
        }
        if (row->cached_ms < 0) break;
        row->engine_cached_ms = time_decode_steps(&engine_cached, tokens, &engine_length, p, engine_logits, &engine_flops,
                                                  error, error_size);
        if (row->engine_cached_ms < 0) break;
        /* without the cache: the whole sequence so far, recomputed (the engine's own prefill) */
        int repeats = p <= 512 ? UNCACHED_REPEATS : 1;
        double recompute[UNCACHED_REPEATS];
        for (int r = 0; r < repeats && status == 0; r++) {
            llama_reset_sequence(&uncached, 0);
            memset(&uncached.counters, 0, sizeof uncached.counters);
            double start = lab_now_seconds();
            const float *logits = llama_prefill(&uncached, 0, tokens, p + 1, error, error_size);
            recompute[r] = lab_now_seconds() - start;
            if (!logits) status = -1;
            else if (r == 0) {
                row->uncached_flops = counted_flops(&uncached.counters);
                row->largest_difference = largest_difference(cached_logits, logits, vocab);
            }
        }
        if (status != 0) break;
        row->uncached_ms = 1e3 * lab_median(recompute, repeats);
        if (!(row->largest_difference <= 1e-3)) {
            snprintf(error, error_size, "at position %d your cache's logits differ from the recomputed ones by up to %g: "
                     "the engine is not computing the same tokens with it", p, row->largest_difference);
            status = -1;
        }
    }
    for (int k = 0; k < POSITIONS && status == 0; k++)
        if (out[k].cached_ms < 0 || out[k].engine_cached_ms < 0) status = -1;
    free(cached_logits), free(engine_logits);
    kv_plug_free(&plug);
    llama_free_session(&cached), llama_free_session(&engine_cached), llama_free_session(&uncached);
    return status;
}

static void print_timings(const llama_transformer *t, const timing *rows, const char *cpu)
{
    const llama_config *c = &t->config;
    kv_model m = {c->n_layers, c->dim, c->n_heads, c->n_kv_heads, llama_head_dim_of(c)};
    printf("3. The toy Llama's %s shape (%.1f MB of seeded FP32 weights; its FP32 cache of %d tokens, by your\n"
           "   formula: %.1f MB), one thread, measured on %s:\n", timed_shape, t->weights_bytes / 1e6, CAPACITY,
           kv_cache_bytes(&m, 4, CAPACITY, 1) / 1e6, cpu);
    printf("   a token at position p, with your cache (one decode step: median of the %d steps from p on)\n"
           "   and without (a prefill of all p + 1 tokens so far: median of %d, one run past 512):\n",
           CACHED_STEPS, UNCACHED_REPEATS);
    printf("   %8s %10s %10s %12s %9s %13s %15s %11s\n", "position", "your cache", "engine's", "uncached",
           "speed-up", "cached", "uncached", "logit");
    printf("   %8s %10s %10s %12s %9s %13s %15s %11s\n", "", "ms", "cache ms", "ms", "", "GFLOP", "GFLOP", "difference");
    for (int k = 0; k < POSITIONS; k++)
        printf("   %8d %10.3f %10.3f %12.3f %8.1fx %13.4f %15.3f %11.2g\n", rows[k].position, rows[k].cached_ms,
               rows[k].engine_cached_ms, rows[k].uncached_ms, rows[k].uncached_ms / rows[k].cached_ms,
               rows[k].cached_flops / 1e9, rows[k].uncached_flops / 1e9, rows[k].largest_difference);
    printf("   (time: measured; speed-up: uncached over your cache; GFLOP: counted by the engine, matrix products\n"
           "   and attention, the same for both caches. The engine's own cache is timed the same way: the same\n"
           "   FLOPs and bytes, its attention summed in several SIMD lanes at once. The logits with and without\n"
           "   a cache are the same within rounding: the cache changes what is computed twice, not the answer.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 4. Generating every token: the sums */

/* The engine's count for a forward step over `rows` new tokens whose first is at `first`,
 * logits for the last: each row every layer's matrices, the classifier once, and attention
 * over positions 0 .. its own. The lab holds it against the counters it measured. */
static double step_flops(const llama_config *c, int first, int rows)
{
    double dim = c->dim, kv_dim = llama_kv_dim_of(c), hidden = c->hidden_dim;
    double layer = 2 * dim * dim + 2 * kv_dim * dim + 3 * hidden * dim;
    double attended = (double)rows * first + (double)rows * (rows + 1) / 2;
    return 2.0 * rows * c->n_layers * layer + 2.0 * c->vocab_size * dim +
           4.0 * llama_head_dim_of(c) * c->n_heads * c->n_layers * attended;
}

static int print_totals(const llama_config *c, const timing *rows)
{
    for (int k = 0; k < POSITIONS; k++) {
        double cached = step_flops(c, rows[k].position, 1), uncached = step_flops(c, 0, rows[k].position + 1);
        if (cached != rows[k].cached_flops || uncached != rows[k].uncached_flops) {
            fprintf(stderr, "the engine counted %.17g and %.17g FLOPs at position %d, the lab's formula %.17g and %.17g\n",
                    rows[k].cached_flops, rows[k].uncached_flops, rows[k].position, cached, uncached);
            return -1;
        }
    }
    double cached = step_flops(c, 0, 1), uncached = step_flops(c, 0, 1);
    for (int p = 1; p < CAPACITY; p++) cached += step_flops(c, p, 1), uncached += step_flops(c, 0, p + 1);
    double matrices = 0;
    for (int p = 0; p < CAPACITY; p++) matrices += step_flops(c, 0, p + 1) - 4.0 * llama_head_dim_of(c) * c->n_heads *
                                                    c->n_layers * (double)(p + 1) * (p + 2) / 2;
    printf("4. Generating all %d tokens of the %s shape one at a time (the engine's counts, summed over every\n"
           "   position; the lab checked its formula against the counters at each position above):\n", CAPACITY,
           timed_shape);
    printf("   with the cache:    %10.1f GFLOP    (grows as n: every token one row)\n", cached / 1e9);
    printf("   without the cache: %10.1f GFLOP    (grows as n^2: token p recomputes p + 1 rows; %.1f of them in the\n"
           "                                       matrices, the rest attention, which grows as n^3)\n", uncached / 1e9,
           matrices / 1e9);
    printf("   ratio: %.0f x\n\n", uncached / cached);
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 5. An H100, predicted */

static void print_predicted(void)
{
    char error[512];
    perfmodel_shape m;
    perfmodel_hardware h;
    if (perfmodel_load_model_shape("Llama-2-7B", &m, error, sizeof error) != 0 ||
        perfmodel_load_gpu("h100-sxm", &h, error, sizeof error) != 0) {
        printf("5. (no prediction: %s)\n\n", error);
        return;
    }
    printf("5. Llama-2-7B, FP16, one sequence, on an H100 SXM (predicted by lib/perfmodel: roofline bounds):\n");
    printf("   %8s %16s %18s %9s %10s\n", "position", "cached ms", "uncached ms", "ratio", "uncached");
    const int points[] = {1, 127, 511, 1023, 4095};
    for (int i = 0; i < 5; i++) {
        int p = points[i];
        perfmodel_prediction decode, prefill;
        perfmodel_workload cached = {DTYPE_FP16, DTYPE_FP16, 1, p, 1}, uncached = {DTYPE_FP16, DTYPE_FP16, 1, p + 1, 1};
        perfmodel_estimate(&m, &h, &cached, &decode);
        perfmodel_estimate(&m, &h, &uncached, &prefill);
        printf("   %8d %16.3f %18.3f %8.1fx %10s\n", p, 1e3 * decode.decode_step_time_s, 1e3 * prefill.prefill_time_s,
               prefill.prefill_time_s / decode.decode_step_time_s, prefill.prefill_bound);
    }
    printf("   (cached: one decode step, bound by reading the weights and the cache; uncached: a prefill of p + 1\n"
           "   tokens, bound by memory until the prompt passes the ridge point, then by compute.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * main */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 20 — the KV cache: its size, and the recomputation it saves\n\n");
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    int llama2_7b = lab_table_find(models, "name", "Llama-2-7B");
    if (llama2_7b < 0) {
        fprintf(stderr, "data/models.csv has no row named Llama-2-7B\n");
        return 1;
    }
    perfmodel_hardware h100;
    char error[512];
    if (perfmodel_load_gpu("h100-sxm", &h100, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    print_formula(models, h100.memory_bytes * PERFMODEL_MEMORY_UTILIZATION);
    print_engine_formula();
    kv_model llama = kv_model_of_row(models, llama2_7b);
    if (kv_cache_bytes(&llama, 2, 4096, 1) <= 0) {
        fflush(stdout);
        fprintf(stderr, "Your kv_cache_bytes gives Llama-2-7B's cache of 4096 FP16 tokens %lld bytes, so there is nothing "
                "to plot yet: the verdict below says which check fails.\n", (long long)kv_cache_bytes(&llama, 2, 4096, 1));
        return 1;
    }

    llama_config config;
    llama_transformer t;
    if (llama_named_shape(timed_shape, &config, error, sizeof error) != 0 ||
        llama_build_transformer_generated(&t, &config, 20, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    int *tokens = malloc(CAPACITY * sizeof(int));
    uint64_t state = llama_seed_generator(2020);
    for (int i = 0; i < CAPACITY; i++) tokens[i] = (int)(llama_random_u32(&state) % (uint32_t)config.vocab_size);
    timing rows[POSITIONS] = {0};
    fflush(stdout);
    if (measure(&t, tokens, rows, error, sizeof error) != 0) {
        fprintf(stderr, "The engine with your cache: %s.\nNothing to plot yet: the verdict below says which check fails.\n",
                error);
        return 1;
    }
    char cpu[128];
    lab_cpu_name(cpu, sizeof cpu);
    print_timings(&t, rows, cpu);
    if (print_totals(&config, rows) != 0) return 1;
    print_predicted();

    lab_results out = lab_results_open_or_exit(argv[1], "series,model,position,context_tokens,time_ms,counted_gflop,kv_bytes");
    /* one series after the other, so that the plot's lines join each series' points */
    for (int k = 0; k < POSITIONS; k++)
        lab_results_row_or_exit(&out, "measured-cached,%s,%d,,%.6g,%.6g,", timed_shape, rows[k].position, rows[k].cached_ms,
                        rows[k].cached_flops / 1e9);
    for (int k = 0; k < POSITIONS; k++)
        lab_results_row_or_exit(&out, "measured-engine-cache,%s,%d,,%.6g,%.6g,", timed_shape, rows[k].position,
                        rows[k].engine_cached_ms, rows[k].cached_flops / 1e9);
    for (int k = 0; k < POSITIONS; k++)
        lab_results_row_or_exit(&out, "measured-uncached,%s,%d,,%.6g,%.6g,", timed_shape, rows[k].position, rows[k].uncached_ms,
                        rows[k].uncached_flops / 1e9);
    for (int row = 0; row < models->rows; row++) {
        kv_model m = kv_model_of_row(models, row);
        for (int step = 16; step <= 34; step++) {   /* 2^(step/2): 256 .. 131072 */
            int64_t context = llround(pow(2.0, step / 2.0));
            lab_results_row_or_exit(&out, "kv-fp16,%s,,%lld,,,%lld", lab_table_text_or_exit(models, row, "name"), (long long)context,
                            (long long)kv_cache_bytes(&m, 2, context, 1));
        }
    }
    lab_results_close_or_exit(&out);
    printf("Wrote the measured times at %d positions, and the FP16 cache of every model of data/models.csv\n"
           "from 256 to 131072 tokens (machine: %s).\n", POSITIONS, cpu);
    free(tokens);
    llama_free_transformer(&t);
    lab_table_free(models);
    return 0;
}
