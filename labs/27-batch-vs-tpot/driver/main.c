/* main.c — Day 27 driver: TPOT and throughput against the batch, predicted by your roofline
 * for Llama-2-7B on an H100 and an A100 (rows of data/models.csv and data/gpus.csv) and
 * measured on the book's toy Llama on this CPU through your decode_steps. Do not edit.
 *
 *   build/27-batch-vs-tpot/labs-sim/lab RESULTS.csv     (make check DAY=27 runs it)
 *
 * Prints, in order:
 *   1. Llama-2-7B in FP16, a 16-token prompt and 16 generated (each sequence attends 24
 *      positions on average), batches 1 to 1024 on the H100 SXM and the A100 80GB: your TPOT,
 *      tokens/s and bound beside perfmodel_estimate's TPOT; your knee, the knee of the FLOPs
 *      alone (batch x 2 x parameters crossing the ridge) and the KV cache's shift between them;
 *   2. the same model at a 1024-token prompt: where the knee goes when the cache is long, and
 *      the contexts at which each regime holds (epsilon = 1/2 and 1) for three models;
 *   3. this CPU (one core, probes measured) and the 15M shape in FP32: your predicted TPOT and
 *      knee, and batched decode measured through your decode_steps, batches 1 to 64 (the best
 *      of ROUNDS rounds, the rounds interleaving every batch so that a busy moment of the
 *      machine spreads over all of them).
 * Writes one row per series and batch:
 *   series,batch,tpot_ms,tokens_per_s,knee_batch
 * series: h100-sxm and a100-80gb (predicted), h100-sxm-long (predicted, the 1024-token prompt, the
 * batches that fit one H100), h100-sxm-long-unfit (the same past them, from the last that fits),
 * h100-sxm-long-compute (its compute time alone, B f / P), h100-sxm-long-most (one row: the largest
 * batch that fits at that context), cpu-predicted, cpu-measured (this machine's
 * CPU; knee_batch: the series' predicted knee, the same on every row, inf where there is none;
 * cpu-measured repeats the CPU's). */
#include "lab.h"
#include "cpu_probes.h"
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GPU_PROMPT = 16, GPU_GEN = 16, LONG_PROMPT = 1024, LONG_GEN = 128 };
enum { CPU_PROMPT = 8, CPU_STEPS = 3, ROUNDS = 5, CPU_BATCHES = 7, LARGEST_CPU_BATCH = 64 };
static const int cpu_batches[CPU_BATCHES] = {1, 2, 4, 8, 16, 32, 64};
static const char *gpu_keys[] = {"h100-sxm", "a100-80gb"};

static char error[512];

static void fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, error);
    exit(1);
}

/* perfmodel's estimate of one decode step at `batch` */
static perfmodel_prediction estimate_of(const perfmodel_shape *m, const perfmodel_hardware *h, int batch, int prompt, int gen)
{
    perfmodel_workload w = {.weights = DTYPE_FP16, .kv = DTYPE_FP16, .batch = batch, .prompt = prompt, .gen = gen};
    perfmodel_prediction e;
    perfmodel_estimate(m, h, &w, &e);
    return e;
}

/* ---------------------------------------------------------------------------------
 * 1 and 2. Llama-2-7B on two GPUs, predicted */

static void print_knee(const char *name, const decode_model *d, const machine *hw, const perfmodel_shape *m, double context,
                       double weights_bytes)
{
    double ridge = hw->peak_flop_per_s / hw->bandwidth_byte_per_s, knee = knee_batch(d, hw, context);
    double params = (double)perfmodel_shape_parameters(m);
    double naive = ridge * weights_bytes / (2.0 * params);   /* B x 2 x params FLOPs over the weights' bytes = ridge */
    double f = d->flops_per_token + d->attention_flops_per_position * context;
    double k = d->token_bytes + (context + 1.0) * d->kv_bytes_per_position;
    double shift = k * ridge / f;                                     /* the KV cache's share, the chapter's epsilon */
    printf("   %s: ridge %.1f FLOP/byte; B x 2 x %.4g parameters FLOPs over the weights' bytes cross it at B = %.0f;\n"
           "   one sequence's KV traffic is %.1f %% of its FLOPs' worth of bytes at the ridge (epsilon), so the\n"
           "   knee moves to %.0f / (1 - epsilon) = %.0f. Your knee_batch: %.1f.\n",
           name, ridge, params, naive, 100 * shift, naive, shift < 1 ? naive / (1 - shift) : INFINITY, knee);
}

static void gpu_series(lab_results *out, const perfmodel_shape *m, const char *key)
{
    perfmodel_hardware h;
    if (perfmodel_load_gpu(key, &h, error, sizeof error) != 0) fail(key);
    decode_model d = decode_model_of(m, DTYPE_FP16, DTYPE_FP16);
    machine hw = machine_of(m, &h, DTYPE_FP16);
    double context = estimate_of(m, &h, 1, GPU_PROMPT, GPU_GEN).decode_context;
    double knee = knee_batch(&d, &hw, context);
    printf("   %s (%.0f GB/s, %.1f TFLOP/s FP16 Tensor Cores), each sequence attending %.0f positions:\n", h.name,
           hw.bandwidth_byte_per_s / 1e9, hw.peak_flop_per_s / 1e12, context);
    printf("   %6s %12s %14s %9s %16s\n", "batch", "TPOT ms", "tokens/s", "bound", "perfmodel TPOT");
    for (int batch = 1; batch <= 1024; batch *= 2) {
        perfmodel_prediction e = estimate_of(m, &h, batch, GPU_PROMPT, GPU_GEN);
        double tpot = predicted_tpot(&d, &hw, batch, context), rate = predicted_tokens_per_s(&d, &hw, batch, context);
        int compute = step_flops(&d, batch, context) / hw.peak_flop_per_s > step_bytes(&d, batch, context) / hw.bandwidth_byte_per_s;
        printf("   %6d %12.3f %14.0f %9s %13.3f ms %s\n", batch, 1e3 * tpot, rate, compute ? "compute" : "memory",
               1e3 * e.tpot_s, fabs(tpot - e.tpot_s) <= 1e-9 * e.tpot_s ? "equal" : "DIFFERS");
        lab_results_row_or_exit(out, "%s,%d,%.6g,%.6g,%.6g", key, batch, 1e3 * tpot, rate, knee);
    }
    print_knee(h.name, &d, &hw, m, context, estimate_of(m, &h, 1, GPU_PROMPT, GPU_GEN).weights_bytes);
    perfmodel_prediction one = estimate_of(m, &h, 1, GPU_PROMPT, GPU_GEN), many = estimate_of(m, &h, 64, GPU_PROMPT, GPU_GEN);
    perfmodel_prediction most = estimate_of(m, &h, 256, GPU_PROMPT, GPU_GEN);
    printf("   TPOT at batch 64 is %.2f times batch 1's; at batch 256, %.2f times batch 64's.\n\n", many.tpot_s / one.tpot_s,
           most.tpot_s / many.tpot_s);
}

/* The context c at which one sequence's KV traffic k(c) is `share` of the bytes its FLOPs f(c) are
 * worth at the ridge (epsilon = share): token_bytes + (c + 1) kv = share (flops + attention c) / ridge. */
static double context_at_epsilon(const decode_model *d, double ridge, double share)
{
    return (share * d->flops_per_token / ridge - d->token_bytes - d->kv_bytes_per_position) /
           (d->kv_bytes_per_position - share * d->attention_flops_per_position / ridge);
}

static void long_context(lab_results *out, const perfmodel_shape *m)
{
    perfmodel_hardware h;
    if (perfmodel_load_gpu("h100-sxm", &h, error, sizeof error) != 0) fail("h100-sxm");
    decode_model d = decode_model_of(m, DTYPE_FP16, DTYPE_FP16);
    machine hw = machine_of(m, &h, DTYPE_FP16);
    double context = estimate_of(m, &h, 1, LONG_PROMPT, LONG_GEN).decode_context;
    double knee = knee_batch(&d, &hw, context);
    printf("2. The same on the H100 SXM with a %d-token prompt and %d generated (%.0f positions attended): "
           "your knee_batch\n   says %g; TPOT at batch 1, 64 and 256: %.2f, %.2f, %.2f ms (perfmodel: %.2f, %.2f, "
           "%.2f ms). Each\n   sequence's cache (%.0f MB) outweighs its FLOPs' worth of bytes at the ridge (%.0f MB): "
           "memory-bound at any batch.\n",
           LONG_PROMPT, LONG_GEN, context, knee, 1e3 * predicted_tpot(&d, &hw, 1, context),
           1e3 * predicted_tpot(&d, &hw, 64, context), 1e3 * predicted_tpot(&d, &hw, 256, context),
           1e3 * estimate_of(m, &h, 1, LONG_PROMPT, LONG_GEN).tpot_s,
           1e3 * estimate_of(m, &h, 64, LONG_PROMPT, LONG_GEN).tpot_s,
           1e3 * estimate_of(m, &h, 256, LONG_PROMPT, LONG_GEN).tpot_s, (context + 1) * d.kv_bytes_per_position / 1e6,
           (d.flops_per_token + d.attention_flops_per_position * context) /
               (hw.peak_flop_per_s / hw.bandwidth_byte_per_s) / 1e6);
    /* the batches whose caches fit one H100 (the book's budget), and the rest, joined at the last that fits */
    int64_t fit = estimate_of(m, &h, 1, LONG_PROMPT, LONG_GEN).max_batch;
    printf("   At this context at most %lld sequences fit one H100 (weights + caches within %.0f %% of its memory).\n",
           (long long)fit, 100 * PERFMODEL_MEMORY_UTILIZATION);
    for (int part = 0; part < 3; part++) /* each series' rows together, so that the plot joins them */
        for (int batch = 1; batch <= 1024; batch *= 2) {
            double tpot = predicted_tpot(&d, &hw, batch, context),
                   compute = step_flops(&d, batch, context) / hw.peak_flop_per_s;
            if (part == 0 && batch <= fit)
                lab_results_row_or_exit(out, "h100-sxm-long,%d,%.6g,%.6g,%.6g", batch, 1e3 * tpot, batch / tpot, knee);
            if (part == 1 && 2 * batch > fit)
                lab_results_row_or_exit(out, "h100-sxm-long-unfit,%d,%.6g,%.6g,%.6g", batch, 1e3 * tpot, batch / tpot,
                                        knee);
            if (part == 2)
                lab_results_row_or_exit(out, "h100-sxm-long-compute,%d,%.6g,%.6g,%.6g", batch, 1e3 * compute,
                                        batch / compute, knee);
        }
    double tpot_most = predicted_tpot(&d, &hw, (int)fit, context);
    lab_results_row_or_exit(out, "h100-sxm-long-most,%lld,%.6g,%.6g,%.6g", (long long)fit, 1e3 * tpot_most,
                            fit / tpot_most, knee);
    /* which regime: the knee bends TPOT first while epsilon < 1/2, the caches double it first above */
    printf("   Which regime a deployment is in (predicted, FP16): below the first context the compute knee bends TPOT\n"
           "   before the caches double it (epsilon < 1/2); past the second there is no knee (epsilon >= 1).\n");
    const char *models[] = {"Llama-2-7B", "Mistral-7B", "Llama-3-8B", "Llama-2-70B"};
    for (int i = 0; i < 4; i++) {
        perfmodel_shape other;
        if (perfmodel_load_model_shape(models[i], &other, error, sizeof error) != 0) fail(models[i]);
        decode_model od = decode_model_of(&other, DTYPE_FP16, DTYPE_FP16);
        for (int g = 0; g < 2; g++) {
            perfmodel_hardware gh;
            if (perfmodel_load_gpu(gpu_keys[g], &gh, error, sizeof error) != 0) fail(gpu_keys[g]);
            machine gm = machine_of(&other, &gh, DTYPE_FP16);
            double ridge = gm.peak_flop_per_s / gm.bandwidth_byte_per_s;
            printf("   %-12s %-10s epsilon = 1/2 at %5.0f positions, epsilon = 1 at %5.0f\n", models[i], gpu_keys[g],
                   context_at_epsilon(&od, ridge, 0.5), context_at_epsilon(&od, ridge, 1.0));
        }
    }
    printf("\n");
}

/* ---------------------------------------------------------------------------------
 * 3. This CPU, predicted and measured */

static void cpu_series(lab_results *out)
{
    llama_config c;
    llama_transformer t;
    if (llama_named_shape("15M", &c, error, sizeof error) != 0 || llama_build_transformer_generated(&t, &c, 27, error, sizeof error) != 0)
        fail("the 15M model");
    perfmodel_shape m;
    perfmodel_shape_from_config(&c, "15M", &m);
    decode_model d = decode_model_of(&m, DTYPE_FP32, DTYPE_FP32);
    double context = CPU_PROMPT + (CPU_STEPS + 1) / 2.0;   /* a step at position p attends p + 1 positions */

    /* one session per batch, every sequence prefilled with its own prompt */
    llama_session sessions[CPU_BATCHES];
    int tokens[CPU_BATCHES][LARGEST_CPU_BATCH];
    double best[CPU_BATCHES];
    for (int b = 0; b < CPU_BATCHES; b++) {
        int batch = cpu_batches[b];
        best[b] = INFINITY;
        if (llama_build_session(&sessions[b], &t, batch, CPU_PROMPT + CPU_STEPS + 1, 1, error, sizeof error) != 0)
            fail("a session");
        for (int i = 0; i < batch; i++) {
            int prompt[CPU_PROMPT];
            for (int p = 0; p < CPU_PROMPT; p++) prompt[p] = (i * 101 + p * 13 + 1) % c.vocab_size;
            if (!llama_prefill(&sessions[b], i, prompt, CPU_PROMPT, error, sizeof error)) fail("a prefill");
        }
    }
    /* nothing worth timing until your decode_steps runs */
    for (int i = 0; i < LARGEST_CPU_BATCH; i++) tokens[0][i] = i + 1;
    decode_run probe = decode_steps(&sessions[0], 1, 1, tokens[0]);
    if (probe.error || !(probe.seconds_per_step > 0)) {
        fflush(stdout);
        fprintf(stderr, "Nothing to measure yet: your decode_steps says: %s. The verdict below says which check fails.\n",
                probe.error ? probe.error : "(no error) but it measured no time");
        exit(1);
    }

    perfmodel_hardware h;
    perfmodel_measure_cpu(&h, (size_t)t.weights_bytes);
    machine hw = machine_of(&m, &h, DTYPE_FP32);
    double knee = knee_batch(&d, &hw, context);
    for (int r = 0; r < ROUNDS; r++)
        for (int b = 0; b < CPU_BATCHES; b++) {
            int batch = cpu_batches[b];
            for (int i = 0; i < batch; i++) {
                llama_truncate_sequence(&sessions[b], i, CPU_PROMPT, error, sizeof error);
                tokens[b][i] = (i * 7 + r + 1) % c.vocab_size;
            }
            decode_run run = decode_steps(&sessions[b], batch, CPU_STEPS, tokens[b]);
            if (run.error) {
                snprintf(error, sizeof error, "%s", run.error);
                fail("batched decode");
            }
            best[b] = fmin(best[b], run.seconds_per_step);
        }
    printf("3. This CPU, one core, measured by the probes: FMA peak %.1f GFLOP/s, reading the 15M model's %.0f MB %.1f GB/s;\n"
           "   ridge %.2f FLOP/byte. The 15M shape (FP32, one thread), each sequence attending %.1f positions; your\n"
           "   knee_batch: %.1f. Batched decode through your decode_steps, best of %d rounds of %d steps:\n",
           hw.peak_flop_per_s / 1e9, t.weights_bytes / 1e6, hw.bandwidth_byte_per_s / 1e9,
           hw.peak_flop_per_s / hw.bandwidth_byte_per_s, context, knee, ROUNDS, CPU_STEPS);
    printf("   %6s %16s %16s %18s %18s\n", "batch", "TPOT ms pred.", "TPOT ms meas.", "tokens/s pred.", "tokens/s meas.");
    for (int b = 0; b < CPU_BATCHES; b++) {
        int batch = cpu_batches[b];
        double tpot = predicted_tpot(&d, &hw, batch, context), rate = predicted_tokens_per_s(&d, &hw, batch, context);
        printf("   %6d %16.3f %16.3f %18.0f %18.0f\n", batch, 1e3 * tpot, 1e3 * best[b], rate, batch / best[b]);
        lab_results_row_or_exit(out, "cpu-predicted,%d,%.6g,%.6g,%.6g", batch, 1e3 * tpot, rate, knee);
    }
    for (int b = 0; b < CPU_BATCHES; b++)   /* each series' rows together, so that the plot joins them */
        lab_results_row_or_exit(out, "cpu-measured,%d,%.6g,%.6g,%.6g", cpu_batches[b], 1e3 * best[b], cpu_batches[b] / best[b], knee);
    /* the rates the engine reached: streaming at batch 1, computing at the largest batch; the knee at those rates */
    double streamed = step_bytes(&d, 1, context) / best[0];
    double computed = step_flops(&d, LARGEST_CPU_BATCH, context) / best[CPU_BATCHES - 1];
    machine achieved = {computed, streamed};
    printf("   (measured on this machine's CPU, not a GPU: the tokens/s of batch 8 are %.2f times batch 1's, of batch 64\n"
           "   %.2f times batch 16's. The engine streamed %.1f GB/s at batch 1 (%.0f %% of the probe) and computed %.1f GFLOP/s\n"
           "   at batch %d (%.0f %% of the peak): at those rates the knee is %.1f.)\n",
           (8 / best[3]) / (1 / best[0]), (64 / best[6]) / (16 / best[4]), streamed / 1e9,
           100 * streamed / hw.bandwidth_byte_per_s, computed / 1e9, LARGEST_CPU_BATCH, 100 * computed / hw.peak_flop_per_s,
           knee_batch(&d, &achieved, context));
    for (int b = 0; b < CPU_BATCHES; b++) llama_free_session(&sessions[b]);
    llama_free_transformer(&t);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 27 — batch against TPOT: flat while memory-bound, rising once compute-bound\n\n");
    perfmodel_shape m;
    if (perfmodel_load_model_shape("Llama-2-7B", &m, error, sizeof error) != 0) fail("Llama-2-7B");
    decode_model d = decode_model_of(&m, DTYPE_FP16, DTYPE_FP16);
    machine probe = {1e15, 1e12};
    if (!(predicted_tpot(&d, &probe, 1, 24) > 0)) {
        fprintf(stderr, "Nothing to predict yet: your predicted_tpot gives Llama-2-7B a TPOT of %g s. The verdict below "
                        "says which check fails.\n", predicted_tpot(&d, &probe, 1, 24));
        return 1;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "series,batch,tpot_ms,tokens_per_s,knee_batch");
    printf("1. Llama-2-7B, FP16 weights and KV cache, a %d-token prompt and %d generated, predicted by your roofline:\n",
           GPU_PROMPT, GPU_GEN);
    for (int g = 0; g < 2; g++) gpu_series(&out, &m, gpu_keys[g]);
    long_context(&out, &m);
    cpu_series(&out);
    lab_results_close_or_exit(&out);
    return 0;
}
