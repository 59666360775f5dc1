/* main.c — Day 19 driver: prefill and decode on the toy Llama (lib/llama), run through your
 * run_prefill_then_decode, counted by your functions beside the engine's own counters, and
 * placed on this CPU's roofline (lib/perfmodel's probes). Do not edit.
 *
 *   build/19-prefill-decode/labs-sim/lab RESULTS.csv     (make check DAY=19 runs it)
 *
 * Prints, in order:
 *   1. a 32-token prompt and one decode step of the 15M shape (seeded weights): each counter,
 *      yours beside the engine's, and the decode step's logits against a full recomputation;
 *   2. each phase's intensity for several prompts, FP32 and INT8, their ratio beside your
 *      estimate;
 *   3. your prediction of the prompt at which a prefill's KV reads pass its weight bytes: for
 *      the 15M shape beside the engine's counters at that prompt and the one before, and for
 *      Llama-2-7B in FP16 (data/models.csv);
 *   4. this CPU's roofline (one core: the FMA peak and the bandwidth of reading the model's
 *      weights, measured), and both phases of every prompt on it: measured time, achieved
 *      FLOP/s, and the attainable FLOP/s at their intensity.
 * Writes one row per prompt length (15M, FP32, one thread; medians of REPEATS rounds over all prompts):
 *   prompt,prefill_ms_per_token,decode_ms_per_token,prefill_intensity,decode_intensity,
 *   prefill_gflop_per_s,decode_gflop_per_s,prefill_attainable_gflop_per_s,
 *   decode_attainable_gflop_per_s,peak_gflop_per_s,bandwidth_gb_per_s,prefill_spread,decode_spread
 * (time per token: the prefill's time over its prompt; a decode step makes one token; spread: the
 * slowest of the repeats over the fastest, minus 1, so 0.1 means the repeats lay within 10 %). */
#include "lab.h"
#include "cpu_probes.h"
#include "results.h"
#include "table.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEED = 19, REPEATS = 7, TABLE_PROMPT = 32 };
static const int timed_prompts[] = {1, 2, 4, 8, 16, 32, 64, 128, 192, 255};
enum { TIMED = sizeof timed_prompts / sizeof timed_prompts[0] };

static char error[512];

static double flops_of(const phase_counts *c) { return c->matmul_flops + c->attention_flops; }

/* a seeded prompt of n tokens and the token decoded after it */
static void make_tokens(int *tokens, int n, int vocab, uint64_t seed)
{
    uint64_t state = llama_seed_generator(seed);
    for (int i = 0; i < n; i++) tokens[i] = (int)(llama_random_u32(&state) % (uint32_t)vocab);
}

static int build_15m(llama_transformer *t, int int8)
{
    llama_config c;
    if (llama_named_shape("15M", &c, error, sizeof error) != 0 ||
        llama_build_transformer_generated(t, &c, SEED, error, sizeof error) != 0 ||
        (int8 && llama_quantize_transformer(t, llama_int8_group_size(&c, 64), error, sizeof error) != 0)) {
        fprintf(stderr, "the engine refused the 15M model: %s\n", error);
        return -1;
    }
    return 0;
}

/* one request on a fresh session; NULL-error run or the reason */
static phase_run run_once(const llama_transformer *t, const int *tokens, int prompt, float *logits)
{
    llama_session s;
    phase_run run = {0};
    if (llama_build_session(&s, t, 1, prompt + 1, 1, error, sizeof error) != 0) return run.error = error, run;
    run = run_prefill_then_decode(&s, tokens, prompt, tokens[prompt], logits);
    llama_free_session(&s);
    return run;
}

/* the logits of the whole sequence prefilled at once: what the decode step must reproduce */
static int recompute(const llama_transformer *t, const int *tokens, int n, float *logits)
{
    llama_session s;
    if (llama_build_session(&s, t, 1, n, 1, error, sizeof error) != 0) return -1;
    const float *out = llama_prefill(&s, 0, tokens, n, error, sizeof error);
    if (out) memcpy(logits, out, (size_t)t->config.vocab_size * sizeof(float));
    llama_free_session(&s);
    return out ? 0 : -1;
}

/* ---------------------------------------------------------------------------------
 * 1. The counters, yours beside the engine's */

static void print_field(const char *name, double yours, double engine)
{
    printf("   %-16s %18.0f %18.0f   %s\n", name, yours, engine, yours == engine ? "exact" : "DIFFERS");
}

static void print_phase(const char *phase, const phase_counts *yours, const phase_counts *engine)
{
    printf("   %s:\n", phase);
    print_field("steps", (double)yours->steps, (double)engine->steps);
    print_field("rows", (double)yours->rows, (double)engine->rows);
    print_field("matmul FLOPs", yours->matmul_flops, engine->matmul_flops);
    print_field("attention FLOPs", yours->attention_flops, engine->attention_flops);
    print_field("weight bytes", yours->weight_bytes, engine->weight_bytes);
    print_field("KV write bytes", yours->kv_write_bytes, engine->kv_write_bytes);
    print_field("KV read bytes", yours->kv_read_bytes, engine->kv_read_bytes);
}

/* the engine's counters and the decode step's logits, run here without your code */
static int run_directly(const llama_transformer *t, const int *tokens, int prompt, llama_counters *prefill,
                        llama_counters *decode, float *logits)
{
    llama_session s;
    if (llama_build_session(&s, t, 1, prompt + 1, 1, error, sizeof error) != 0) return -1;
    const float *out = llama_prefill(&s, 0, tokens, prompt, error, sizeof error);
    *prefill = s.counters;
    memset(&s.counters, 0, sizeof s.counters);
    if (out) out = llama_decode_batch(&s, (int[]){0}, &tokens[prompt], 1, error, sizeof error);
    *decode = s.counters;
    if (out) memcpy(logits, out, (size_t)t->config.vocab_size * sizeof(float));
    llama_free_session(&s);
    return out ? 0 : -1;
}

static int same_counts(const phase_counts *a, const phase_counts *b) { return memcmp(a, b, sizeof *a) == 0; }

static double largest_difference(const float *a, const float *b, int n)
{
    double largest = 0;
    for (int i = 0; i < n; i++) largest = fmax(largest, fabs((double)a[i] - b[i]));
    return isnan(largest) ? NAN : largest;
}

static void print_counters(const llama_transformer *t)
{
    int tokens[TABLE_PROMPT + 1], vocab = t->config.vocab_size;
    make_tokens(tokens, TABLE_PROMPT + 1, vocab, SEED);
    float *direct = calloc((size_t)vocab, sizeof(float)), *full = calloc((size_t)vocab, sizeof(float));
    float *yours = malloc((size_t)vocab * sizeof(float));
    for (int i = 0; i < vocab; i++) yours[i] = NAN;
    llama_counters engine_prefill, engine_decode;
    if (run_directly(t, tokens, TABLE_PROMPT, &engine_prefill, &engine_decode, direct) != 0 ||
        recompute(t, tokens, TABLE_PROMPT + 1, full) != 0) {
        printf("   the engine refused: %s\n", error);
        exit(1);
    }
    stored_model m = stored_model_of(t);
    phase_counts prefill = prefill_counts(&m, TABLE_PROMPT, llama_step_rows_of(1, TABLE_PROMPT + 1));
    phase_counts decode = decode_counts(&m, TABLE_PROMPT);
    phase_counts engine_p = counts_of(&engine_prefill), engine_d = counts_of(&engine_decode);
    printf("1. The 15M shape (dim %d, %d layers, %d heads, vocab %d, tied; seeded FP32 weights): a %d-token\n"
           "   prompt, then one decode step. Your counts from the shape beside the engine's counters:\n",
           t->config.dim, t->config.n_layers, t->config.n_heads, t->config.vocab_size, TABLE_PROMPT);
    printf("   %-16s %18s %18s\n", "", "yours", "engine");
    print_phase("prefill (one GEMM per matrix, M = 32)", &prefill, &engine_p);
    print_phase("decode at position 32 (one GEMV per matrix, M = 1)", &decode, &engine_d);
    printf("   The engine's decode step against all %d tokens prefilled at once: largest logit difference %.3g.\n",
           TABLE_PROMPT + 1, largest_difference(direct, full, vocab));

    phase_run run = run_once(t, tokens, TABLE_PROMPT, yours);
    if (run.error) {
        printf("   Your run_prefill_then_decode: %s\n\n", run.error);
    } else {
        phase_counts run_p = counts_of(&run.prefill), run_d = counts_of(&run.decode);
        printf("   Your run_prefill_then_decode: prefill counters %s, decode counters %s the engine's run alone;\n"
               "   its decode logits against the whole sequence recomputed: largest difference %.3g; %.3f ms and %.3f ms.\n\n",
               same_counts(&run_p, &engine_p) ? "equal to" : "DIFFER from", same_counts(&run_d, &engine_d) ? "equal to" : "DIFFER from",
               largest_difference(yours, full, vocab), 1e3 * run.prefill_seconds, 1e3 * run.decode_seconds);
    }
    free(direct), free(full), free(yours);
}

/* ---------------------------------------------------------------------------------
 * 2. Intensity of each phase */

static void print_intensities(const llama_transformer *fp32, const llama_transformer *int8)
{
    printf("2. Intensity (FLOPs / bytes) of each phase, from your counts, for the 15M shape:\n");
    printf("   %7s %6s %16s %16s %10s %10s\n", "weights", "prompt", "prefill FLOP/B", "decode FLOP/B", "ratio",
           "estimate");
    const llama_transformer *models[] = {fp32, int8};
    const int prompts[] = {1, 8, 32, 128, 255};
    for (int k = 0; k < 2; k++) {
        stored_model m = stored_model_of(models[k]);
        for (int i = 0; i < 5; i++) {
            phase_counts p = prefill_counts(&m, prompts[i], llama_step_rows_of(1, prompts[i] + 1));
            phase_counts d = decode_counts(&m, prompts[i]);
            double a = phase_intensity(&p), b = phase_intensity(&d);
            printf("   %7s %6d %16.3f %16.3f %10.2f %10.2f\n", k ? "INT8" : "FP32", prompts[i], a, b, a / b,
                   intensity_ratio_estimate(&m, prompts[i]));
        }
    }
    printf("   (estimate: prompt x the layers' matrices plus the classifier once, over the same for one row —\n"
           "   both phases read every weight once. The KV cache's bytes pull the ratio below it as the prompt grows.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 3. Where a prefill's KV reads pass its weights: predicted, then counted */

/* the engine's counters for a one-step prefill of n tokens */
static int prefill_counters(const llama_transformer *t, int n, llama_counters *counted)
{
    int *tokens = malloc((size_t)n * sizeof(int));
    make_tokens(tokens, n, t->config.vocab_size, SEED);
    llama_session s;
    int status = llama_build_session(&s, t, 1, n, 1, error, sizeof error);
    if (status == 0) {
        status = llama_prefill(&s, 0, tokens, n, error, sizeof error) ? 0 : -1;
        *counted = s.counters;
        llama_free_session(&s);
    }
    free(tokens);
    return status;
}

static void print_crossing_15m(const llama_transformer *t)
{
    llama_counters one, before, at;
    if (prefill_counters(t, 1, &one) != 0) return;
    double weights = one.weight_bytes, kv = one.kv_read_bytes;
    int n = kv_reads_pass_weights_at(weights, kv);
    printf("3. Where a prefill's KV reads pass its weight bytes (your kv_reads_pass_weights_at):\n"
           "   15M, FP32: a step reads %.0f bytes of weights, and %.0f bytes of KV per position attended\n"
           "   (both counted by the engine for a 1-token prompt). Your prediction: a %d-token prompt.\n",
           weights, kv, n);
    if (n < 2 || n > t->config.seq_len || prefill_counters(t, n - 1, &before) != 0 ||
        prefill_counters(t, n, &at) != 0) {
        printf("   (nothing to count: %d is not a prompt this shape holds, 2 to %d)\n", n, t->config.seq_len);
        return;
    }
    int as_predicted = before.kv_read_bytes <= weights && at.kv_read_bytes > weights;
    printf("   The engine counts: %d tokens read %.0f bytes of KV, %d tokens %.0f: %s\n", n - 1,
           before.kv_read_bytes, n, at.kv_read_bytes, as_predicted ? "as predicted" : "NOT as predicted");
}

/* Llama-2-7B in FP16: the book's weight bytes (parameters x 2), and the matrices alone */
static void print_crossing_llama(void)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    int row = lab_table_find(models, "name", "Llama-2-7B");
    if (row < 0) {
        printf("   (data/models.csv has no Llama-2-7B row)\n\n");
        lab_table_free(models);
        return;
    }
    double layers = lab_table_number_or_exit(models, row, "layers");
    double hidden = lab_table_number_or_exit(models, row, "hidden_size");
    double kv_width = lab_table_number_or_exit(models, row, "kv_heads") *
                      lab_table_number_or_exit(models, row, "head_dim");
    double mlp = lab_table_number_or_exit(models, row, "intermediate_size");
    double vocab = lab_table_number_or_exit(models, row, "vocab_size");
    double weights = 2 * lab_table_number_or_exit(models, row, "parameters");
    double matrices = 2 * (layers * (2 * hidden * hidden + 2 * kv_width * hidden + 3 * mlp * hidden) + vocab * hidden);
    double kv = 2 * layers * kv_width * 2;   /* K and V, FP16 */
    printf("   Llama-2-7B, FP16 weights and cache, %.0f bytes of KV per position (%.2f positions' worth of weights):\n"
           "   with weights = parameters x 2 = %.0f bytes (the book's convention): %d tokens;\n"
           "   with the matrices a step multiplies alone (layers + classifier), %.0f bytes: %d tokens.\n\n",
           kv, weights / kv, weights, kv_reads_pass_weights_at(weights, kv), matrices,
           kv_reads_pass_weights_at(matrices, kv));
    lab_table_free(models);
}

/* ---------------------------------------------------------------------------------
 * 4. Timed, on this CPU's roofline */

static double attainable(double peak, double bandwidth, double intensity)   /* day 14's roofline */
{
    return fmin(peak, intensity * bandwidth);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 19 — prefill and decode: the two phases of a request\n\n");
    llama_transformer fp32, int8;
    if (build_15m(&fp32, 0) != 0 || build_15m(&int8, 1) != 0) return 1;
    print_counters(&fp32);
    print_intensities(&fp32, &int8);
    print_crossing_15m(&fp32);
    print_crossing_llama();

    /* nothing worth timing until the phases run and the counts are there */
    stored_model m = stored_model_of(&fp32);
    phase_counts probe = decode_counts(&m, 1);
    float *scratch = malloc((size_t)fp32.config.vocab_size * sizeof(float));
    int probe_tokens[3] = {1, 2, 3};
    phase_run probe_run = run_once(&fp32, probe_tokens, 2, scratch);
    free(scratch);
    if (!(phase_intensity(&probe) > 0) || probe_run.error || !(probe_run.prefill_seconds > 0)) {
        fflush(stdout);
        fprintf(stderr, "Nothing to time or place on the roofline yet: your decode_counts and phase_intensity give the "
                        "15M model an intensity of %g, and your run_prefill_then_decode says: %s. The verdict below "
                        "says which check fails.\n", phase_intensity(&probe),
                probe_run.error ? probe_run.error : "(no error) but it measured no time");
        return 1;
    }

    double peak = perfmodel_peak_fp32_flops();
    double bandwidth = perfmodel_stream_bandwidth(STREAM_READ, (size_t)fp32.weights_bytes, 5);
    printf("4. This CPU, one core, measured: FMA peak %.1f GFLOP/s, reading %.0f MB (the model's weights) %.1f GB/s;\n"
           "   ridge point %.2f FLOP/byte. The 15M model, FP32, one thread, median of %d runs\n"
           "   (spread: the slowest of them over the fastest, minus 1):\n",
           peak / 1e9, fp32.weights_bytes / 1e6, bandwidth / 1e9, peak / bandwidth, REPEATS);
    printf("   %6s %10s %10s %8s %8s %9s %9s %10s %10s %7s %7s\n", "prompt", "prefill", "decode", "prefill", "decode",
           "prefill", "decode", "prefill", "decode", "prefill", "decode");
    printf("   %6s %10s %10s %8s %8s %9s %9s %10s %10s %7s %7s\n", "", "ms/token", "ms/token", "FLOP/B", "FLOP/B",
           "GFLOP/s", "GFLOP/s", "attainable", "attainable", "spread", "spread");
    lab_results out = lab_results_open_or_exit(argv[1], "prompt,prefill_ms_per_token,decode_ms_per_token,prefill_intensity,"
                                            "decode_intensity,prefill_gflop_per_s,decode_gflop_per_s,"
                                            "prefill_attainable_gflop_per_s,decode_attainable_gflop_per_s,"
                                            "peak_gflop_per_s,bandwidth_gb_per_s,prefill_spread,decode_spread");
    int vocab = fp32.config.vocab_size, longest = timed_prompts[TIMED - 1];
    int *tokens = malloc((size_t)(longest + 1) * sizeof(int));
    float *logits = malloc((size_t)vocab * sizeof(float));
    make_tokens(tokens, longest + 1, vocab, SEED);
    /* One session per prompt, reused (its buffers touched once, in the first round); the rounds go
     * over all the prompts, so that a busy moment of the machine spreads over them. */
    double prefill_runs[TIMED][REPEATS], decode_runs[TIMED][REPEATS];
    llama_session sessions[TIMED];
    for (int i = 0; i < TIMED; i++) {
        if (llama_build_session(&sessions[i], &fp32, 1, timed_prompts[i] + 1, 1, error, sizeof error) != 0) {
            fprintf(stderr, "the engine refused a session of %d tokens: %s\n", timed_prompts[i] + 1, error);
            return 1;
        }
    }
    for (int r = 0; r < REPEATS; r++)
        for (int i = 0; i < TIMED; i++) {
            llama_reset_sequence(&sessions[i], 0);
            phase_run run = run_prefill_then_decode(&sessions[i], tokens, timed_prompts[i], tokens[timed_prompts[i]], logits);
            if (run.error) {
                fprintf(stderr, "the engine refused a %d-token prompt: %s\n", timed_prompts[i], run.error);
                return 1;
            }
            prefill_runs[i][r] = run.prefill_seconds;
            decode_runs[i][r] = run.decode_seconds;
        }
    for (int i = 0; i < TIMED; i++) {
        int prompt = timed_prompts[i];
        double prefill_seconds = lab_median(prefill_runs[i], REPEATS);
        double decode_seconds = lab_median(decode_runs[i], REPEATS);
        /* lab_median sorted the runs: the first is the fastest, the last the slowest */
        double prefill_spread = prefill_runs[i][REPEATS - 1] / prefill_runs[i][0] - 1;
        double decode_spread = decode_runs[i][REPEATS - 1] / decode_runs[i][0] - 1;
        phase_counts p = prefill_counts(&m, prompt, llama_step_rows_of(1, prompt + 1));
        phase_counts d = decode_counts(&m, prompt);
        double pi = phase_intensity(&p), di = phase_intensity(&d);
        double pf = flops_of(&p) / prefill_seconds, df = flops_of(&d) / decode_seconds;
        double pa = attainable(peak, bandwidth, pi), da = attainable(peak, bandwidth, di);
        printf("   %6d %10.3f %10.3f %8.2f %8.2f %9.2f %9.2f %10.2f %10.2f %6.0f%% %6.0f%%\n", prompt,
               1e3 * prefill_seconds / prompt, 1e3 * decode_seconds, pi, di, pf / 1e9, df / 1e9, pa / 1e9, da / 1e9,
               100 * prefill_spread, 100 * decode_spread);
        lab_results_row_or_exit(&out, "%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g", prompt,
                        1e3 * prefill_seconds / prompt, 1e3 * decode_seconds, pi, di, pf / 1e9, df / 1e9, pa / 1e9,
                        da / 1e9, peak / 1e9, bandwidth / 1e9, prefill_spread, decode_spread);
    }
    lab_results_close_or_exit(&out);
    for (int i = 0; i < TIMED; i++) llama_free_session(&sessions[i]);
    printf("   (measured on this machine's CPU, not a GPU. attainable: min(peak, intensity x bandwidth), day 14's\n"
           "   roofline. Decode stays left of the ridge at every prompt: each token reads every weight again.)\n");
    free(tokens), free(logits);
    llama_free_transformer(&fp32), llama_free_transformer(&int8);
    return 0;
}
