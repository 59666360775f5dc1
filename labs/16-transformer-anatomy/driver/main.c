/* main.c — Day 16 driver: the parameters and the per-token FLOPs of the models of
 * data/models.csv, from your counters, set beside the published counts, the toy Llama's own
 * tensors and the performance model (lib/perfmodel). Do not edit.
 *
 *   build/16-transformer-anatomy/labs-sim/lab RESULTS.csv     (make check DAY=16 runs it)
 *
 * Prints, in order:
 *   1. every dense model of data/models.csv: its parameters part by part (your counters), the
 *      total beside the published count (the `parameters` column) and lib/perfmodel's;
 *   2. seeded models of lib/llama: the elements of their tensors, counted one by one, beside
 *      your counts for their shapes;
 *   3. one token of Llama-2-7B at several context lengths: FLOPs by component, against the
 *      rule of thumb of 2 FLOPs per parameter;
 *   4. for each model, the context at which attention's FLOPs equal all the others', from your
 *      counts and from your derivation (attention_equals_the_rest_at), and a 2048-token prefill
 *      summed token by token beside lib/perfmodel's prefill FLOPs.
 * Writes one row per model and context length (1 .. 131072, two per octave) for the four
 * models whose counts are checked against their published totals:
 *   model,context,qkv_gflop,attention_gflop,o_proj_gflop,mlp_gflop,classifier_gflop,total_gflop,
 *   rule_gflop,attention_share_percent
 * (GFLOP per token; rule: 2 x the parameters; share: attention's FLOPs over the total). */
#include "lab.h"
#include "perfmodel.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PREFILL_TOKENS = 2048, LONGEST_CONTEXT = 131072 };
static const char *const plotted_models[] = {"Llama-2-7B", "Llama-2-13B", "Llama-2-70B", "Llama-3-8B"};
static const int64_t table_contexts[] = {1, 512, 2048, 4096, 32768, 131072};

static decoder_shape shape_of_row(const lab_table *models, int row)
{
    decoder_shape s = {(int)lab_table_number_or_exit(models, row, "layers"), (int)lab_table_number_or_exit(models, row, "hidden_size"),
                       (int)lab_table_number_or_exit(models, row, "attention_heads"), (int)lab_table_number_or_exit(models, row, "kv_heads"),
                       (int)lab_table_number_or_exit(models, row, "head_dim"),
                       (int)lab_table_number_or_exit(models, row, "intermediate_size"),
                       (int)lab_table_number_or_exit(models, row, "vocab_size"), (int)lab_table_number_or_exit(models, row, "qkv_bias"),
                       (int)lab_table_number_or_exit(models, row, "tied_embeddings")};
    return s;
}

static int is_dense(const lab_table *models, int row) { return lab_table_number_or_exit(models, row, "experts") <= 1; }

/* lib/perfmodel's count for a row, from its own reading of the table */
static int64_t library_parameters(const char *name)
{
    char error[512];
    perfmodel_shape m;
    return perfmodel_load_model_shape(name, &m, error, sizeof error) == 0 ? perfmodel_shape_parameters(&m) : -1;
}

/* ---------------------------------------------------------------------------------
 * 1. Parameters of the models of data/models.csv */

static void print_parameters(const lab_table *models)
{
    printf("1. Parameters of the dense models of data/models.csv, from your counters (per layer: attention\n"
           "   Wq Wk Wv Wo and biases, MLP W1 W2 W3, two norms), beside the published count and lib/perfmodel's:\n");
    printf("   %-12s %6s %13s %13s %14s %15s %15s %14s %s\n", "model", "layers", "attention", "MLP", "embeddings",
           "your total", "published", "lib/perfmodel", "");
    for (int row = 0; row < models->rows; row++) {
        const char *name = lab_table_text_or_exit(models, row, "name");
        if (!is_dense(models, row)) {
            printf("   %-12s a mixture of experts (%g MLPs a layer): beyond today's dense counter; lib/perfmodel counts "
                   "%lld\n", name, lab_table_number_or_exit(models, row, "experts"), (long long)library_parameters(name));
            continue;
        }
        decoder_shape s = shape_of_row(models, row);
        int64_t yours = model_parameters(&s), published = (int64_t)lab_table_number_or_exit(models, row, "parameters");
        printf("   %-12s %6d %13lld %13lld %14lld %15lld %15lld %14lld %s\n", name, s.layers,
               (long long)attention_parameters(&s), (long long)mlp_parameters(&s), (long long)embedding_parameters(&s),
               (long long)yours, (long long)published, (long long)library_parameters(name),
               yours == published ? "exact" : "DIFFERS");
    }
    printf("   (attention and MLP: one layer. Llama-2-70B and Llama-3-8B have 8 K/V heads for 64 and 32 query\n"
           "   heads: their Wk and Wv are 8 and 4 times smaller than Wq. Qwen2-7B adds Q, K, V biases.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 2. The engine's tensors */

static void print_engine(void)
{
    printf("2. Seeded models of the toy Llama (lib/llama), their tensors' elements counted one by one:\n");
    printf("   %-9s %-7s %9s %9s %11s %11s %11s %11s %s\n", "shape", "tied", "attention", "MLP", "embeddings",
           "tensors", "your total", "lib/llama", "");
    const char *const shapes[] = {"tiny", "tiny-mha", "260K", "260K", "15M"};
    const int tied[] = {-1, -1, -1, 0, -1};
    for (int i = 0; i < 5; i++) {
        engine_count c = count_engine_tensors(shapes[i], tied[i], 16);
        if (c.error) {
            printf("   %-9s the engine refused it: %s\n", shapes[i], c.error);
            continue;
        }
        int64_t yours = model_parameters(&c.shape);
        printf("   %-9s %-7s %9lld %9lld %11lld %11lld %11lld %11lld %s\n", shapes[i],
               c.shape.tied_embeddings ? "tied" : "untied", (long long)c.attention, (long long)c.mlp,
               (long long)c.embeddings, (long long)c.total, (long long)yours, (long long)c.library_count,
               yours == c.total ? "exact" : "DIFFERS");
    }
    printf("   (attention and MLP: layer 0's tensors. A tied classifier is the embedding's own storage: counted once.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 3. One token's FLOPs, by component */

static void print_token_flops(const decoder_shape *s, const char *name)
{
    printf("3. One token of %s, GFLOP by component (your forward_flops_per_token), against the rule\n"
           "   of thumb, 2 x %lld parameters = %.3f GFLOP:\n", name, (long long)model_parameters(s),
           two_flops_per_parameter(s) / 1e9);
    printf("   %8s %8s %10s %8s %8s %11s %9s %10s %11s\n", "context", "QKV", "attention", "O-proj", "MLP", "classifier",
           "total", "attention", "rule error");
    for (size_t i = 0; i < sizeof table_contexts / sizeof table_contexts[0]; i++) {
        token_flops f = forward_flops_per_token(s, table_contexts[i]);
        double total = token_flops_total(f);
        printf("   %8lld %8.3f %10.3f %8.3f %8.3f %11.3f %9.3f %9.1f%% %+10.1f%%\n", (long long)table_contexts[i],
               f.qkv / 1e9, f.attention / 1e9, f.o_proj / 1e9, f.mlp / 1e9, f.classifier / 1e9, total / 1e9,
               100 * f.attention / total, 100 * (two_flops_per_parameter(s) - total) / total);
    }
    printf("   (rule error: how far 2 x parameters is from the count; + over, - under. Short contexts: the\n"
           "   embedding is looked up, not multiplied, so the rule counts %.0f MFLOP too many; long contexts:\n"
           "   attention grows with every position and the rule, which has no context in it, falls behind.)\n\n",
           (two_flops_per_parameter(s) - 2.0 * (double)multiplied_parameters(s)) / 1e6);
}

/* ---------------------------------------------------------------------------------
 * 4. Where attention catches up, and a prefill against lib/perfmodel */

static double library_prefill_flops(const char *name, int prompt)
{
    char error[512];
    perfmodel_shape m;
    perfmodel_hardware h;
    if (perfmodel_load_model_shape(name, &m, error, sizeof error) != 0 ||
        perfmodel_load_gpu("h100-sxm", &h, error, sizeof error) != 0)
        return NAN;
    perfmodel_workload w = {DTYPE_FP16, DTYPE_FP16, 1, prompt, 1};
    perfmodel_prediction e;
    perfmodel_estimate(&m, &h, &w, &e);
    return e.prefill_flops;
}

/* A causal prefill of `prompt` tokens: token p attends to p + 1 positions; only the last
 * token's logits are computed (they choose the first generated token). */
static double prefill_flops(const decoder_shape *s, int prompt)
{
    double flops = 0;
    for (int p = 0; p < prompt; p++) {
        token_flops f = forward_flops_per_token(s, p + 1);
        flops += token_flops_total(f) - (p + 1 < prompt ? f.classifier : 0);
    }
    return flops;
}

static void print_crossovers(const lab_table *models)
{
    printf("4. For each model: attention's FLOPs per position of context (all layers), the context at which\n"
           "   they equal every other product's, from your counts and as you derived it\n"
           "   (attention_equals_the_rest_at), and a %d-token prefill (causal, logits for the last token)\n"
           "   summed token by token from your counts, beside lib/perfmodel's prefill FLOPs:\n", PREFILL_TOKENS);
    printf("   %-12s %17s %16s %15s %15s %18s %18s %s\n", "model", "per position", "other products", "equal at",
           "you derived", "prefill, yours", "lib/perfmodel", "");
    for (int row = 0; row < models->rows; row++) {
        if (!is_dense(models, row)) continue;
        const char *name = lab_table_text_or_exit(models, row, "name");
        decoder_shape s = shape_of_row(models, row);
        double per_position = forward_flops_per_token(&s, 1).attention;
        double others = token_flops_total(forward_flops_per_token(&s, 0));
        double equal_at = per_position > 0 ? others / per_position : NAN;   /* NaN: no attention counted yet */
        double derived = attention_equals_the_rest_at(&s);
        double yours = prefill_flops(&s, PREFILL_TOKENS), library = library_prefill_flops(name, PREFILL_TOKENS);
        printf("   %-12s %12.4f MFLOP %12.2f GFLOP %8.1f tokens %8.1f tokens %18.6g %18.6g %s\n", name,
               per_position / 1e6, others / 1e9, equal_at, derived, yours, library,
               yours == library ? "equal" : "DIFFERS");
    }
    printf("   (Grouped-query attention changes none of the first column: every query head still scores every\n"
           "   position. It shrinks Wk, Wv and the KV cache, not attention's arithmetic. Neither count has FLOPs\n"
           "   for Qwen2-7B's Q/K/V biases: a bias is added, not multiplied.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * The plot: FLOPs per token by component against the context */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 16 — the anatomy of a decoder: parameters and FLOPs, part by part\n\n");
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    int llama2_7b = lab_table_find(models, "name", "Llama-2-7B");
    if (llama2_7b < 0) {
        fprintf(stderr, "data/models.csv has no row named Llama-2-7B\n");
        return 1;
    }
    print_parameters(models);
    print_engine();
    decoder_shape llama = shape_of_row(models, llama2_7b);
    print_token_flops(&llama, "Llama-2-7B");
    print_crossovers(models);

    /* a plot of counts that are still zero (or NaN) would only show an empty frame */
    token_flops one = forward_flops_per_token(&llama, 1);
    if (!(one.attention > 0 && token_flops_total(one) > one.attention)) {
        fflush(stdout);
        fprintf(stderr, "Your forward_flops_per_token gives Llama-2-7B %g attention FLOPs and %g in all for one position, "
                        "so there is nothing to plot yet: the verdict below says which check fails.\n",
                one.attention, token_flops_total(one));
        lab_table_free(models);
        return 1;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "model,context,qkv_gflop,attention_gflop,o_proj_gflop,mlp_gflop,"
                                            "classifier_gflop,total_gflop,rule_gflop,attention_share_percent");
    for (size_t m = 0; m < sizeof plotted_models / sizeof plotted_models[0]; m++) {
        int row = lab_table_find(models, "name", plotted_models[m]);
        if (row < 0) {
            fprintf(stderr, "data/models.csv has no row named %s\n", plotted_models[m]);
            return 1;
        }
        decoder_shape s = shape_of_row(models, row);
        int64_t previous = 0;
        for (int step = 0; step <= 34; step++) {   /* 2^(step/2): 1 .. 131072 */
            int64_t context = llround(pow(2.0, step / 2.0));
            if (context == previous) continue;
            previous = context;
            token_flops f = forward_flops_per_token(&s, context);
            double total = token_flops_total(f);
            lab_results_row_or_exit(&out, "%s,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g", plotted_models[m], (long long)context,
                            f.qkv / 1e9, f.attention / 1e9, f.o_proj / 1e9, f.mlp / 1e9, f.classifier / 1e9,
                            total / 1e9, two_flops_per_parameter(&s) / 1e9, 100 * f.attention / total);
        }
    }
    lab_results_close_or_exit(&out);
    printf("Wrote one token's FLOPs by component for %s, %s, %s and %s, context 1 .. %d.\n", plotted_models[0],
           plotted_models[1], plotted_models[2], plotted_models[3], LONGEST_CONTEXT);
    lab_table_free(models);
    return 0;
}
