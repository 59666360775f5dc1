/* main.c — Day 28 driver: your verification step on rows of known acceptance rate, your formula
 * beside a Monte-Carlo count of it, and speculative decoding on the toy Llama (lib/llama) with two
 * drafts. Do not edit.
 *
 *   build/28-speculative-decoding/lab RESULTS.csv     (make check DAY=28 runs it)
 *
 * Prints, in order:
 *   1. one target row and one draft row: alpha from your acceptance_rate, the fraction of draft
 *      tokens your verify_draft keeps, and the frequency of each token it emits beside the target's;
 *   2. tokens per target call, your formula beside the mean of TRIALS calls of your verify_draft
 *      (rows built to have exactly the acceptance rate alpha), and your predicted speedups;
 *   3. the toy Llama's "tiny" shape as the target, with two drafts of the same vocabulary: the same
 *      seed with one layer of two (a layer-skipping draft) and the target in INT8. Greedy: the tokens
 *      equal plain greedy decoding. Sampled: tokens per target call counted, and the speedup predicted
 *      from them with the draft's cost ratio c = its weight bytes per step over the target's (decode
 *      reads every weight once a step: memory-bound, so bytes are time);
 *   4. a GPU, predicted by lib/perfmodel: Llama-2-70B in INT8 on an H200 as the target, drafts of
 *      its vocabulary in FP16 (Llama-2-7B, and llama2.c's stories110M): c from your draft_cost_ratio
 *      by bytes alone and with the launch floor, and your best_draft_length at each c.
 * Writes one row per point (sections 2 and 3):
 *   series,alpha,gamma,cost_ratio,tokens_per_call,speedup
 *   series: predicted (your formulas), counted-montecarlo (your verify_draft on synthetic rows),
 *   counted-engine-layer-skip and counted-engine-int8 (tokens per call counted on the toy Llama;
 *   alpha is the fraction of verified draft tokens kept, the speedup predicted at that c). */
#include "lab.h"
#include "perfmodel.h"
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VOCAB = 8, MAX_ROWS = 11, TRIALS = 20000, MAX_GAMMA_SHOWN = 10, SEED = 28 };
enum { PROMPT = 4, GENERATED = 24, GENERATIONS = 60, ENGINE_GAMMA = 8 };
static const double alphas[] = {0.5, 0.7, 0.8, 0.9};
static const double cost_ratios[] = {0.05, 0.25};
static char error[512];

/* a target row p with nothing on the last token, and a draft q = alpha p + (1 - alpha) on the last
 * token: they share exactly alpha of their mass */
static void rows_with_alpha(double alpha, float *p, float *q)
{
    double total = (VOCAB - 1) * VOCAB / 2.0;
    for (int i = 0; i < VOCAB - 1; i++) p[i] = (float)((i + 1) / total), q[i] = (float)(alpha * p[i]);
    p[VOCAB - 1] = 0.0f, q[VOCAB - 1] = (float)(1.0 - alpha);
}

/* gamma draft tokens from the draft rows, then your verification; returns the tokens emitted */
static int one_call(const float *p_rows, const float *q_rows, int gamma, uint64_t *rng, int *out)
{
    int draft_tokens[MAX_ROWS];
    float residual[VOCAB];
    for (int i = 0; i < gamma; i++) draft_tokens[i] = sample_from(q_rows + i * VOCAB, VOCAB, llama_random_unit(rng));
    return verify_draft(p_rows, q_rows, draft_tokens, gamma, VOCAB, rng, residual, out);
}

/* the same rows at every position */
static void repeat_rows(const float *p, const float *q, float *p_rows, float *q_rows)
{
    for (int i = 0; i < MAX_ROWS; i++) memcpy(p_rows + i * VOCAB, p, sizeof(float) * VOCAB),
                                       memcpy(q_rows + i * VOCAB, q, sizeof(float) * VOCAB);
}

/* ---------------------------------------------------------------------------------
 * 1. One position, by hand */

static void print_one_position(void)
{
    const float p[VOCAB] = {0.30f, 0.25f, 0.15f, 0.10f, 0.10f, 0.05f, 0.05f, 0.00f};
    const float q[VOCAB] = {0.10f, 0.40f, 0.15f, 0.05f, 0.00f, 0.05f, 0.05f, 0.20f};
    float p_rows[MAX_ROWS * VOCAB], q_rows[MAX_ROWS * VOCAB];
    repeat_rows(p, q, p_rows, q_rows);
    uint64_t rng = llama_seed_generator(SEED);
    long counts[VOCAB] = {0}, kept = 0, calls = 4 * TRIALS;
    int out[MAX_ROWS];
    for (long k = 0; k < calls; k++) {
        int emitted = one_call(p_rows, q_rows, 1, &rng, out);
        if (emitted < 1 || emitted > 2 || out[0] < 0 || out[0] >= VOCAB) {
            printf("1. verify_draft(gamma 1) returned %d with out[0] = %d: it must emit 1 or 2 tokens of the vocabulary.\n"
                   "   The verdict below says which check fails.\n\n", emitted, out[0]);
            return;
        }
        kept += emitted == 2, counts[out[0]]++;
    }
    printf("1. One position, gamma = 1, %ld calls: target p and draft q below; your acceptance_rate gives\n"
           "   alpha = %.4f (by hand: 0.10+0.25+0.15+0.05+0+0.05+0.05+0 = 0.65); your verify_draft kept %.4f of the draft.\n",
           calls, acceptance_rate(p, q, VOCAB), (double)kept / calls);
    printf("   %-28s", "token");
    for (int i = 0; i < VOCAB; i++) printf(" %6d", i);
    printf("\n   %-28s", "target p");
    for (int i = 0; i < VOCAB; i++) printf(" %6.3f", p[i]);
    printf("\n   %-28s", "draft q");
    for (int i = 0; i < VOCAB; i++) printf(" %6.3f", q[i]);
    printf("\n   %-28s", "max(0, p - q), normalised");
    for (int i = 0; i < VOCAB; i++) printf(" %6.3f", fmaxf(0.0f, p[i] - q[i]) / 0.35f);
    printf("\n   %-28s", "your first token, frequency");
    for (int i = 0; i < VOCAB; i++) printf(" %6.3f", (double)counts[i] / calls);
    printf("\n   (the last row must match p, not q: token 7 never, token 4 from the residual alone.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 2. The formula against a count */

static void print_formula(lab_results *out)
{
    printf("2. Tokens per target call: your expected_tokens_per_call beside the mean of %d calls of your\n"
           "   verify_draft (rows sharing exactly alpha), and your speculative_speedup at two cost ratios c:\n", TRIALS);
    printf("   %5s %5s %12s %12s %14s %14s\n", "alpha", "gamma", "formula", "counted", "speedup c=0.05", "speedup c=0.25");
    float p[VOCAB], q[VOCAB], p_rows[MAX_ROWS * VOCAB], q_rows[MAX_ROWS * VOCAB];
    int emitted[MAX_ROWS];
    double counted[4][MAX_GAMMA_SHOWN + 1];
    for (int a = 0; a < 4; a++) {
        rows_with_alpha(alphas[a], p, q);
        repeat_rows(p, q, p_rows, q_rows);
        uint64_t rng = llama_seed_generator(SEED + a);
        for (int gamma = 1; gamma <= MAX_GAMMA_SHOWN; gamma++) {
            double total = 0;
            for (int k = 0; k < TRIALS; k++) total += one_call(p_rows, q_rows, gamma, &rng, emitted);
            counted[a][gamma] = total / TRIALS;
            if (gamma <= 2 || gamma == 4 || gamma == 8)
                printf("   %5.2f %5d %12.4f %12.4f %14.3f %14.3f\n", alphas[a], gamma,
                       expected_tokens_per_call(alphas[a], gamma), counted[a][gamma],
                       speculative_speedup(alphas[a], gamma, cost_ratios[0]),
                       speculative_speedup(alphas[a], gamma, cost_ratios[1]));
        }
    }
    /* one series after another, so that the plot draws each as one line */
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 4; a++) {
            for (int gamma = 1; gamma <= MAX_GAMMA_SHOWN; gamma++)
                lab_results_row_or_exit(out, "predicted,%g,%d,%g,%.6g,%.6g", alphas[a], gamma, cost_ratios[c],
                                expected_tokens_per_call(alphas[a], gamma),
                                speculative_speedup(alphas[a], gamma, cost_ratios[c]));
            for (int gamma = 1; gamma <= MAX_GAMMA_SHOWN; gamma++)
                lab_results_row_or_exit(out, "counted-montecarlo,%g,%d,%g,%.6g,%.6g", alphas[a], gamma, cost_ratios[c],
                                counted[a][gamma], counted[a][gamma] / (gamma * cost_ratios[c] + 1));
        }
    printf("   (counted: the mean of your verify_draft's output. Speedup: predicted, tokens per call over\n"
           "   gamma x c + 1 target steps.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 3. The toy Llama */

static int build(llama_transformer *t, int layers, int int8)
{
    llama_config c;
    if (llama_named_shape("tiny", &c, error, sizeof error) != 0) return -1;
    if (layers) c.n_layers = layers;
    if (llama_build_transformer_generated(t, &c, SEED, error, sizeof error) != 0) return -1;
    return int8 ? llama_quantize_transformer(t, llama_int8_group_size(&c, 64), error, sizeof error) : 0;
}

static void make_prompt(int *prompt, int vocab, uint64_t seed)
{
    uint64_t state = llama_seed_generator(seed);
    for (int i = 0; i < PROMPT; i++) prompt[i] = (int)(llama_random_u32(&state) % (uint32_t)vocab);
}

static int print_engine(lab_results *out, const llama_transformer *target, const llama_transformer *drafts[2], const char *names[2],
                        const char *series[2])
{
    int vocab = target->config.vocab_size, prompt[PROMPT], plain[GENERATED], fast[GENERATED];
    printf("3. The toy Llama: target \"tiny\" (%d layers, vocab %d, seeded FP32, %.0f KB of weights); drafts of the\n"
           "   same vocabulary: the target's first layer alone (%.0f KB) and the target in INT8 (%.0f KB).\n",
           target->config.n_layers, vocab, target->weights_bytes / 1e3, drafts[0]->weights_bytes / 1e3,
           drafts[1]->weights_bytes / 1e3);
    /* greedy: the special case that must change nothing */
    int same = 0, runs = 0;
    for (int d = 0; d < 2; d++)
        for (int gamma = 1; gamma <= ENGINE_GAMMA; gamma++) {
            speculative_stats stats;
            make_prompt(prompt, vocab, SEED + gamma);
            if (greedy_generate(target, prompt, PROMPT, GENERATED, plain, error, sizeof error) != 0 ||
                speculative_generate(target, drafts[d], prompt, PROMPT, gamma, 0.0f, SEED, GENERATED, fast, &stats, error,
                                     sizeof error) != 0) {
                printf("   the loop stopped: %s\n", error);
                return -1;
            }
            same += memcmp(plain, fast, sizeof plain) == 0, runs++;
        }
    printf("   Greedy (temperature 0), gamma 1 to %d, both drafts: %d of %d generations of %d tokens equal plain\n"
           "   greedy decoding of the target%s.\n", ENGINE_GAMMA, same, runs, GENERATED,
           same == runs ? "" : " — they must all: the verification changed a greedy token");
    /* sampled: tokens per target call */
    printf("   Sampled (temperature 1), %d generations of %d tokens per gamma:\n", GENERATIONS, GENERATED);
    printf("   %-22s %5s %9s %12s %12s %8s %10s\n", "draft", "gamma", "alpha", "tokens/call", "formula", "c", "speedup");
    double alpha_of[ENGINE_GAMMA + 1], per_call_of[ENGINE_GAMMA + 1], cost_of[ENGINE_GAMMA + 1];
    for (int d = 0; d < 2; d++) {
        for (int gamma = 1; gamma <= ENGINE_GAMMA; gamma++) {
            speculative_stats total = {0};
            for (int k = 0; k < GENERATIONS; k++) {
                speculative_stats stats;
                make_prompt(prompt, vocab, SEED * 1000 + k);
                if (speculative_generate(target, drafts[d], prompt, PROMPT, gamma, 1.0f, SEED + k, GENERATED, fast,
                                         &stats, error, sizeof error) != 0) {
                    printf("   the loop stopped: %s\n", error);
                    return -1;
                }
                total.target_calls += stats.target_calls, total.draft_steps += stats.draft_steps;
                total.emitted += stats.emitted;
                total.verified += stats.verified, total.accepted += stats.accepted;
                total.target_weight_bytes += stats.target_weight_bytes;
                total.draft_weight_bytes += stats.draft_weight_bytes;
            }
            double alpha = total.verified ? (double)total.accepted / total.verified : 0;
            double per_call = (double)total.emitted / total.target_calls;
            double cost_ratio = (total.draft_weight_bytes / total.draft_steps) /
                                (total.target_weight_bytes / total.target_calls);
            double speedup = per_call / (gamma * cost_ratio + 1);
            if (gamma <= 2 || gamma == 4 || gamma == 8)
                printf("   %-22s %5d %9.3f %12.3f %12.3f %8.3f %10.3f\n", names[d], gamma, alpha, per_call,
                       expected_tokens_per_call(alpha, gamma), cost_ratio, speedup);
            alpha_of[gamma] = alpha, per_call_of[gamma] = per_call, cost_of[gamma] = cost_ratio;
        }
        for (int gamma = 1; gamma <= ENGINE_GAMMA; gamma++)
            lab_results_row_or_exit(out, "%s,%.6g,%d,%.6g,%.6g,%.6g", series[d], alpha_of[gamma], gamma, cost_of[gamma],
                            per_call_of[gamma], per_call_of[gamma] / (gamma * cost_of[gamma] + 1));
        for (int gamma = 1; gamma <= ENGINE_GAMMA; gamma++)
            lab_results_row_or_exit(out, "predicted-%s,%.6g,%d,%.6g,%.6g,%.6g", series[d] + strlen("counted-"), alpha_of[gamma],
                            gamma, cost_of[gamma], expected_tokens_per_call(alpha_of[gamma], gamma),
                            speculative_speedup(alpha_of[gamma], gamma, cost_of[gamma]));
    }
    printf("   (alpha: the fraction of verified draft tokens kept. tokens/call: counted on the engine; formula:\n"
           "   yours at that alpha, which assumes every position is accepted with the same probability. c: the\n"
           "   draft's weight bytes per step over the target's (the engine's counters); speedup: predicted from\n"
           "   the counted tokens per call, tokens/call / (gamma c + 1), not a time measured on this CPU.)\n");
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 4. A GPU, predicted: what a draft step costs when launches are counted */

/* The kernels of one decode step in the book's engine, one per operator (day 24 counts them): the
 * embedding lookup, 15 per layer, and 4 after the last layer. */
static int kernels_per_step(int layers) { return 1 + 15 * layers + 4; }

/* Per-kernel costs (parameters of the model, not measurements of this book):
 *   eager: L = 5 us a launch, day 24's figure, the low end of the 5-20 us that Meta's Holistic
 *     Trace Analysis documentation gives for the CPU side of a launch;
 *   graph: F = 0.58 us a node, the least a kernel holds the GPU inside a graph: a chain of empty
 *     kernels replayed as a graph on an RTX 5070 Ti Laptop GPU, about 15 us a replay plus 0.58 us
 *     a node (github.com/ahrefs/ocannl/issues/488). NVIDIA's "Getting Started with CUDA Graphs"
 *     (developer.nvidia.com/blog/cuda-graphs/, a V100) agrees in size: kernels of 2.9 us ran at
 *     3.4 us each in a graph, 3.8 us launched one by one. */
#define EAGER_LAUNCH_S 5e-6
#define GRAPH_NODE_S 0.58e-6
enum { GPU_PROMPT = 128, GPU_GEN = 128, GPU_MAX_GAMMA = 32 };
#define GPU_ALPHA 0.8

/* one decode step at batch 1 on the H200, as perfmodel prices it */
static int gpu_step(const perfmodel_shape *m, perfmodel_dtype weights, speculative_step *step, double *bytes)
{
    perfmodel_hardware h;
    if (perfmodel_load_gpu("h200", &h, error, sizeof error) != 0) return -1;
    perfmodel_workload w = {.weights = weights, .kv = DTYPE_FP16, .batch = 1, .prompt = GPU_PROMPT, .gen = GPU_GEN};
    perfmodel_prediction e;
    perfmodel_estimate(m, &h, &w, &e);
    step->memory_s = e.decode_step_bytes / e.bandwidth, step->kernels = kernels_per_step(m->layers);
    *bytes = e.decode_step_bytes;
    return 0;
}

/* c with no floor, with a launch's floor and with a graph node's, and the best gamma at each */
static void print_draft(const char *name, speculative_step draft, double bytes, speculative_step target)
{
    const double per_kernel[3] = {0, EAGER_LAUNCH_S, GRAPH_NODE_S};
    printf("   %-17s %8.3f %7.2f %7d", name, bytes / 1e9, draft.memory_s * 1e3, draft.kernels);
    for (int k = 0; k < 3; k++) {
        double c = draft_cost_ratio(draft, target, per_kernel[k]);
        int gamma = best_draft_length(GPU_ALPHA, c, GPU_MAX_GAMMA);
        int floor = draft.kernels * per_kernel[k] > draft.memory_s;
        double speedup = gamma ? speculative_speedup(GPU_ALPHA, gamma, c) : 1.0;
        printf("  %7.4f%s %2d %5.2f", c, floor ? "*" : " ", gamma, speedup);
    }
    printf("\n");
}

static int print_gpu(void)
{
    perfmodel_shape target_shape, draft_shape, small_shape;
    llama_config small;
    if (perfmodel_load_model_shape("Llama-2-70B", &target_shape, error, sizeof error) != 0 ||
        perfmodel_load_model_shape("Llama-2-7B", &draft_shape, error, sizeof error) != 0 ||
        llama_named_shape("110M", &small, error, sizeof error) != 0)
        return -1;
    perfmodel_shape_from_config(&small, "stories110M", &small_shape);
    speculative_step target, draft, tiny;
    double target_bytes, draft_bytes, tiny_bytes;
    if (gpu_step(&target_shape, DTYPE_INT8, &target, &target_bytes) != 0 ||
        gpu_step(&draft_shape, DTYPE_FP16, &draft, &draft_bytes) != 0 ||
        gpu_step(&small_shape, DTYPE_FP16, &tiny, &tiny_bytes) != 0)
        return -1;
    printf("\n4. A GPU, predicted (lib/perfmodel, data/gpus.csv row h200, batch 1, context %d): the target,\n"
           "   Llama-2-70B in INT8, reads %.2f GB a decode step, %.2f ms, in %d kernels (%.2f ms of launches at\n"
           "   %.0f us, %.2f ms of graph nodes at %.2f us: memory-bound either way). Drafts in FP16, alpha %.1f\n"
           "   assumed:\n",
           GPU_PROMPT + GPU_GEN / 2, target_bytes / 1e9, target.memory_s * 1e3, target.kernels,
           target.kernels * EAGER_LAUNCH_S * 1e3, EAGER_LAUNCH_S * 1e6, target.kernels * GRAPH_NODE_S * 1e3,
           GRAPH_NODE_S * 1e6, GPU_ALPHA);
    printf("   %-17s %8s %7s %7s  %-17s %-17s %-17s\n", "draft", "GB/step", "ms", "kernels", "c bytes, best",
           "c eager, best", "c graph, best");
    print_draft("Llama-2-7B", draft, draft_bytes, target);
    print_draft("stories110M", tiny, tiny_bytes, target);
    double c = draft_cost_ratio(draft, target, EAGER_LAUNCH_S);
    printf("   Llama-2-7B at c = %.4f, alpha %.1f: gamma, tokens per call, speedup\n  ", c, GPU_ALPHA);
    for (int gamma = 1; gamma <= 8; gamma++)
        printf(" %d: %.2f %.2f%s", gamma, expected_tokens_per_call(GPU_ALPHA, gamma),
               speculative_speedup(GPU_ALPHA, gamma, c), gamma < 8 ? "," : "\n");
    printf("   (c: your draft_cost_ratio, by bytes alone, then with a floor of %.0f us a launch and of %.2f us a\n"
           "   graph node; * marks a floor: the draft's launches, not its bytes, set its step. best: your\n"
           "   best_draft_length up to gamma %d and the speedup it predicts. Every number here is predicted.)\n",
           EAGER_LAUNCH_S * 1e6, GRAPH_NODE_S * 1e6, GPU_MAX_GAMMA);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 28 — speculative decoding: draft, verify, and what it buys\n\n");
    print_one_position();
    lab_results out = lab_results_open_or_exit(argv[1], "series,alpha,gamma,cost_ratio,tokens_per_call,speedup");
    print_formula(&out);
    /* nothing to run on the engine until the verification emits tokens */
    float p[VOCAB], q[VOCAB];
    int tokens[MAX_ROWS], token = 0;
    rows_with_alpha(0.5, p, q);
    uint64_t rng = llama_seed_generator(SEED);
    float residual[VOCAB];
    int emitted = verify_draft(p, q, &token, 0, VOCAB, &rng, residual, tokens);
    if (emitted != 1) {
        lab_results_close_or_exit(&out);
        fflush(stdout);
        fprintf(stderr, "Nothing to run on the toy Llama yet: your verify_draft with gamma = 0 returned %d (it must emit "
                        "one token, drawn from target row 0). The verdict below says which check fails.\n", emitted);
        return 1;
    }
    llama_transformer target, layer_skip, int8;
    if (build(&target, 0, 0) != 0 || build(&layer_skip, 1, 0) != 0 || build(&int8, 0, 1) != 0) {
        fprintf(stderr, "the engine refused a model: %s\n", error);
        return 1;
    }
    const llama_transformer *drafts[2] = {&layer_skip, &int8};
    const char *names[2] = {"first layer alone", "the target in INT8"};
    const char *series[2] = {"counted-engine-layer-skip", "counted-engine-int8"};
    int status = print_engine(&out, &target, drafts, names, series);
    if (status == 0 && print_gpu() != 0) {
        printf("   the performance model refused: %s\n", error);
        status = -1;
    }
    lab_results_close_or_exit(&out);
    llama_free_transformer(&target), llama_free_transformer(&layer_skip), llama_free_transformer(&int8);
    return status ? 1 : 0;
}
