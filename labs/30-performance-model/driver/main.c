/* main.c — Day 30 driver: your performance model beside the book's (lib/perfmodel) on the Day
 * 30 article's worked numbers, then against the toy Llama measured on this CPU. Do not edit.
 *
 *   build/30-performance-model/labs-sim/lab RESULTS.csv     (make check DAY=30 runs it)
 *
 * Prints, in order:
 *   1. the article's numbers, yours beside lib/perfmodel's: Llama-2-70B in FP16 on an H100 SXM
 *      (does it fit, TPOT, the ~42 ms of the article), Llama-2-13B in FP16 on an A100 80GB at
 *      batch 1 and 8, the KV-cache formula, and the checklist's rows each prediction shows;
 *   2. the toy engine (15M shape, FP32, one thread) on this CPU: predicted by your model with
 *      this core's bandwidth and FMA peak measured (lib/perfmodel's probes), and measured —
 *      decode steps at batches 1 to 16, prefills of 8 to 255 tokens.
 * Writes one row per measured configuration:
 *   phase,batch,prompt,context,flops,bytes,intensity,predicted_ms,measured_ms,
 *   measured_over_predicted,measured_gflop_per_s,attainable_gflop_per_s,peak_gflop_per_s,
 *   bandwidth_gb_per_s,bound
 * (predicted: a roofline bound, the least time; measured: this machine's CPU, not a GPU). */
#include "lab.h"
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROMPT = 32, DECODE_ROUNDS = 5, DECODE_STEPS = 3, PREFILL_ROUNDS = 5 };
static const int batches[] = {1, 2, 4, 8, 16};
static const int prompts[] = {8, 32, 128, 255};
enum { BATCHES = sizeof batches / sizeof batches[0], PROMPTS = sizeof prompts / sizeof prompts[0] };

static char error[2048];

static perfmodel_shape model_or_exit(const char *name)
{
    perfmodel_shape m;
    if (perfmodel_load_model_shape(name, &m, error, sizeof error) != 0) fprintf(stderr, "%s\n", error), exit(1);
    return m;
}

static perfmodel_hardware gpu_or_exit(const char *key)
{
    perfmodel_hardware h;
    if (perfmodel_load_gpu(key, &h, error, sizeof error) != 0) fprintf(stderr, "%s\n", error), exit(1);
    return h;
}

static void compare(const char *what, double yours, double book, const char *unit, double scale)
{
    int same = yours == book || fabs(yours - book) <= 1e-12 * fabs(book);
    printf("   %-40s %14.6g %14.6g %-6s %s\n", what, yours * scale, book * scale, unit, same ? "same" : "DIFFERS");
}

static const char *symptom_names[SYMPTOMS] = {"high TTFT on long prompts", "high TPOT at a small batch",
                                              "slower as the context grows", "jittery utilisation", "out of memory",
                                              "throughput flat in the batch", "TPOT spikes during prefill"};

static void print_symptoms(const plan *p, const perfmodel_workload *w)
{
    perfmodel_targets interactive = {PERFMODEL_INTERACTIVE_TTFT_S, PERFMODEL_INTERACTIVE_TPOT_S};
    unsigned shown = predicted_symptoms(p, w, &interactive);
    printf("   checklist rows against the interactive target (TTFT %.0f ms, TPOT %.0f ms):", interactive.ttft_s * 1e3,
           interactive.tpot_s * 1e3);
    if (!shown) printf(" none");
    for (int s = 0; s < SYMPTOMS; s++)
        if (shown & (1u << s)) printf(" [%s]", symptom_names[s]);
    printf("\n");
}

static void article_case(const char *title, const char *model, const char *gpu, perfmodel_workload w)
{
    perfmodel_shape m = model_or_exit(model);
    perfmodel_hardware h = gpu_or_exit(gpu);
    plan p = predict(&m, &h, &w);
    perfmodel_prediction e;
    perfmodel_estimate(&m, &h, &w, &e);
    printf("%s\n   %-40s %14s %14s\n", title, "", "yours", "lib/perfmodel");
    compare("weights", p.memory.weights_bytes, e.weights_bytes, "GB", 1e-9);
    compare("KV cache per token", p.memory.kv_bytes_per_token, e.kv_bytes_per_token, "KiB", 1.0 / 1024);
    compare("KV cache, all sequences", p.memory.kv_bytes_total, e.kv_bytes_total, "GB", 1e-9);
    printf("   %-40s %14s %14s        (%.1f GB usable of %.1f GB: the runtime keeps a tenth)\n", "fits",
           p.memory.fits ? "yes" : "no", e.fits ? "yes" : "no", e.usable_bytes * 1e-9, h.memory_bytes * 1e-9);
    printf("   %-40s %14lld %14lld        (yours leaves activations out)\n", "largest batch that fits",
           (long long)p.memory.max_batch, (long long)e.max_batch);
    compare("decode step: bytes", p.decode.bytes, e.decode_step_bytes, "GB", 1e-9);
    compare("decode step: FLOPs", p.decode.flops, e.decode_step_flops, "GFLOP", 1e-9);
    compare("TPOT (a decode step's bound)", p.tpot.seconds, e.tpot_s, "ms", 1e3);
    printf("   %-40s %14s %14s\n", "decode bound", p.tpot.memory_bound ? "memory" : "compute", e.decode_bound);
    compare("tokens/s (batch / TPOT)", w.batch / p.tpot.seconds, w.batch / e.tpot_s, "tok/s", 1);
    if (p.tpot.seconds > 0)
        printf("   %-40s %13.2f%%                (compute time / TPOT: the most of the peak a step can use)\n",
               "share of the peak used in decode", 100 * p.tpot.compute_seconds / p.tpot.seconds);
    print_symptoms(&p, &w);
    int64_t most = largest_batch_within_tpot(&m, &h, &w, PERFMODEL_INTERACTIVE_TPOT_S);
    printf("   %-40s %14lld                (TPOT within %.0f ms, and the budget fits)\n",
           "largest batch within the target", (long long)most, PERFMODEL_INTERACTIVE_TPOT_S * 1e3);
}

static void print_article(void)
{
    printf("1. The Day 30 article's worked numbers (predicted: roofline bounds from data/models.csv and data/gpus.csv)\n\n");
    perfmodel_workload chat = {DTYPE_FP16, DTYPE_FP16, 1, 128, 128};
    article_case("Llama-2-70B, FP16 weights and KV, on one H100 SXM (3350 GB/s, 80 GB); batch 1, prompt 128, gen 128:",
                 "Llama-2-70B", "h100-sxm", chat);
    perfmodel_shape m70 = model_or_exit("Llama-2-70B");
    perfmodel_hardware h100 = gpu_or_exit("h100-sxm");
    plan p = predict(&m70, &h100, &chat);
    double article_rule = 70e9 * 2 / h100.bandwidth;   /* "70B x 2 bytes / 3.35 TB/s" */
    double all_weights = p.memory.weights_bytes / h100.bandwidth;
    double kv_for_42 = (0.042 * h100.bandwidth - (p.decode.bytes - (p.decode_context + 1) * p.memory.kv_bytes_per_token)) /
                       p.memory.kv_bytes_per_token;
    printf("   the article's rule, 70e9 x 2 bytes / bandwidth:       %.2f ms\n", article_rule * 1e3);
    printf("   every stored weight once (embedding table too):       %.2f ms\n", all_weights * 1e3);
    printf("   what a step reads (one embedding row), at context %.0f: %.2f ms\n", p.decode_context, p.tpot.seconds * 1e3);
    if (p.memory.kv_bytes_per_token > 0)
        printf("   a step reaches 42 ms when each sequence attends about %.0f tokens of KV cache\n", kv_for_42);
    printf("\n");

    article_case("Llama-2-13B, FP16, on an A100 SXM 80GB (2039 GB/s); batch 1, prompt 128, gen 128:", "Llama-2-13B",
                 "a100-80gb", chat);
    perfmodel_workload eight = chat;
    eight.batch = 8;
    article_case("\n... and at batch 8:", "Llama-2-13B", "a100-80gb", eight);

    perfmodel_shape m7 = model_or_exit("Llama-2-7B");
    perfmodel_workload long_context = {DTYPE_FP16, DTYPE_FP16, 1, 4000, 96};
    const double any_memory = 1e15;   /* only the KV bytes are printed here, whatever the capacity */
    memory_plan kv = plan_memory(&m7, &long_context, any_memory);
    printf("\n   The KV formula, 2 x layers x KV heads x head_dim x bytes per token (yours):\n");
    printf("   Llama-2-7B, FP16, 4096 tokens:  %.0f bytes = %.3f GiB\n", kv.kv_bytes_total, kv.kv_bytes_total / (1u << 30));
    perfmodel_workload huge = {DTYPE_FP16, DTYPE_FP16, 1, 131072 - 96, 96};
    printf("   Llama-2-7B, FP16, 128K tokens:   %.1f GB (the shape alone: Llama-2-7B's context is 4096)\n",
           plan_memory(&m7, &huge, any_memory).kv_bytes_total * 1e-9);
    printf("   Llama-2-70B (8 KV heads for 64 query heads): %.0f KiB a token, %.0f KiB without GQA\n\n",
           kv_bytes_per_token(&m70, DTYPE_FP16) / 1024, kv_bytes_per_token(&m70, DTYPE_FP16) * 64 / 8 / 1024);
}

/* ---------------------------------------------------------------------------------
 * 2. The toy engine on this CPU */

static void write_row(lab_results *out, const char *phase, int batch, int prompt, const plan *p, const phase_cost *cost,
                      const bound *b, double measured_s, double peak, double bandwidth)
{
    double intensity = cost->flops / cost->bytes;
    lab_results_row_or_exit(out, "%s,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s", phase, batch, prompt,
                    p->decode_context, cost->flops, cost->bytes, intensity, b->seconds * 1e3, measured_s * 1e3,
                    measured_s / b->seconds, cost->flops / measured_s / 1e9, fmin(peak, intensity * bandwidth) / 1e9,
                    peak / 1e9, bandwidth / 1e9, b->memory_bound ? "memory" : "compute");
    printf("   %-8s %5d %6d %10.3f %10.3f %8.2f %9.2f %9.2f %10.2f  %s\n", phase, batch, prompt, b->seconds * 1e3,
           measured_s * 1e3, measured_s / b->seconds, intensity, cost->flops / measured_s / 1e9,
           fmin(peak, intensity * bandwidth) / 1e9, b->memory_bound ? "memory" : "compute");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 30 — the engineer's performance model\n\n");
    print_article();

    llama_transformer t;
    perfmodel_shape toy;
    if (build_toy_engine(&t, &toy, error, sizeof error) != 0) {
        fprintf(stderr, "the engine refused the 15M model: %s\n", error);
        return 1;
    }
    perfmodel_hardware cpu;
    perfmodel_measure_cpu(&cpu, (size_t)t.weights_bytes);
    int gen = DECODE_ROUNDS * DECODE_STEPS + 1;
    perfmodel_workload first = {DTYPE_FP32, DTYPE_FP32, 1, PROMPT, gen};
    plan check = predict(&toy, &cpu, &first);
    if (!(check.tpot.seconds > 0) || !isfinite(check.tpot.seconds) || !(check.ttft.seconds > 0) || !isfinite(check.ttft.seconds)) {
        fflush(stdout);
        fprintf(stderr, "Nothing to compare with the engine yet: your predict() gives the toy model a TPOT of %g s and a "
                        "TTFT of %g s on this CPU. The verdict below says which check fails.\n", check.tpot.seconds,
                check.ttft.seconds);
        return 1;
    }
    double peak = peak_flops_for(&cpu, DTYPE_FP32);
    printf("2. The toy Llama (15M shape: dim %d, %d layers, vocab %d, tied; seeded FP32 weights, %.1f MB) on this CPU,\n"
           "   one core. Measured probes: FMA peak %.1f GFLOP/s, reading %.0f MB %.2f GB/s; ridge %.1f FLOP/byte.\n"
           "   predicted = your roofline bound; measured = the engine, median of %d rounds (thread CPU time).\n",
           t.config.dim, t.config.n_layers, t.config.vocab_size, t.weights_bytes * 1e-6, peak * 1e-9,
           cpu.bandwidth_working_set * 1e-6, cpu.bandwidth * 1e-9, peak / cpu.bandwidth, DECODE_ROUNDS);
    printf("   %-8s %5s %6s %10s %10s %8s %9s %9s %10s  %s\n", "phase", "batch", "prompt", "predicted", "measured", "meas/",
           "FLOP/B", "GFLOP/s", "attainable", "bound");
    printf("   %-8s %5s %6s %10s %10s %8s %9s %9s %10s\n", "", "", "", "ms", "ms", "pred", "", "measured", "GFLOP/s");
    lab_results out = lab_results_open_or_exit(argv[1], "phase,batch,prompt,context,flops,bytes,intensity,predicted_ms,measured_ms,"
                                            "measured_over_predicted,measured_gflop_per_s,attainable_gflop_per_s,"
                                            "peak_gflop_per_s,bandwidth_gb_per_s,bound");
    for (int b = 0; b < BATCHES; b++) {
        perfmodel_workload w = {DTYPE_FP32, DTYPE_FP32, batches[b], PROMPT, gen};
        plan p = predict(&toy, &cpu, &w);
        double measured = measure_decode_step(&t, batches[b], PROMPT, DECODE_ROUNDS, DECODE_STEPS, error, sizeof error);
        if (measured <= 0) fprintf(stderr, "the engine refused: %s\n", error), exit(1);
        write_row(&out, "decode", batches[b], PROMPT, &p, &p.decode, &p.tpot, measured, peak, cpu.bandwidth);
    }
    for (int i = 0; i < PROMPTS; i++) {
        perfmodel_workload w = {DTYPE_FP32, DTYPE_FP32, 1, prompts[i], 1};
        plan p = predict(&toy, &cpu, &w);
        double measured = measure_prefill(&t, prompts[i], PREFILL_ROUNDS, error, sizeof error);
        if (measured <= 0) fprintf(stderr, "the engine refused: %s\n", error), exit(1);
        write_row(&out, "prefill", 1, prompts[i], &p, &p.prefill, &p.ttft, measured, peak, cpu.bandwidth);
    }
    lab_results_close_or_exit(&out);
    perfmodel_prediction e;
    perfmodel_estimate(&toy, &cpu, &first, &e);
    printf("   (lib/perfmodel on the same measured CPU, batch 1: TPOT %.3f ms, yours %.3f ms. Measured on this machine's\n"
           "   CPU, not a GPU; meas/pred above 1 is the engine's distance from its roofline bound.)\n",
           e.tpot_s * 1e3, check.tpot.seconds * 1e3);
    llama_free_transformer(&t);
    return 0;
}
