/* main.c — Day 13 driver: the arithmetic intensity of a Transformer layer's operators, from
 * your cost functions and the shapes of data/models.csv, set against the ridge points of
 * data/gpus.csv. Do not edit.
 *
 *   build/13-arithmetic-intensity/labs-sim/lab RESULTS.csv     (make check DAY=13 runs it)
 *
 * Prints, in order:
 *   1. the bytes of one element of each type;
 *   2. one Llama-2-7B layer (data/models.csv) in FP16, operator by operator: FLOPs, bytes and
 *      intensity for one decode step (M = 1 token, 2048 in the context) and for a prefill of
 *      M = 2048 tokens;
 *   3. each GPU's FP16 ridge point (fp16_tensor_tflops / memory_bandwidth_gb_per_s of
 *      data/gpus.csv) and the least M at which the layer's GEMMs reach it: predicted by your
 *      least_m_reaching_ridge, and found by trying M = 1, 2, ... with your gemm_cost;
 *   4. counted on the simulator: the bytes a vector add and a naive GEMM request, beside the
 *      compulsory bytes your functions give;
 *   5. one whole decode step of Llama-2-7B (every layer and the output head) for a batch of
 *      1 to 64 sequences of CONTEXT tokens each: the weights' bytes, read once for the batch,
 *      and the KV cache's, read once per sequence, and the least time on an H100 SXM.
 * Writes one row per M from 1 to 16384 (about four per octave):
 *   m,attention_projection_flop_per_byte,mlp_projection_flop_per_byte,lowest_ridge_flop_per_byte,<a column per GPU>
 * the intensity of the FP16 GEMMs of Llama-2-7B with M rows — the attention projections
 * (N = K = hidden_size) and the MLP's (N = intermediate_size, K = hidden_size, or the other
 * way round: the same intensity) — the lowest ridge point of the table, and, in each GPU
 * column (named after the GPU and its ridge point), that GPU's ridge point. The last three
 * kinds are the same on every row. */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DECODE_TOKENS = 1, PREFILL_TOKENS = 2048, CONTEXT = 2048, LARGEST_M = 16384 };

typedef struct model_shape {
    int layers, hidden, intermediate, heads, kv_heads, head_dim, vocab;
} model_shape;

static model_shape load_llama2_7b(void)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    int row = lab_table_find(models, "name", "Llama-2-7B");
    if (row < 0) {
        fprintf(stderr, "data/models.csv has no row named Llama-2-7B\n");
        exit(EXIT_FAILURE);
    }
    model_shape shape = {(int)lab_table_number_or_exit(models, row, "layers"),
                         (int)lab_table_number_or_exit(models, row, "hidden_size"),
                         (int)lab_table_number_or_exit(models, row, "intermediate_size"),
                         (int)lab_table_number_or_exit(models, row, "attention_heads"),
                         (int)lab_table_number_or_exit(models, row, "kv_heads"),
                         (int)lab_table_number_or_exit(models, row, "head_dim"),
                         (int)lab_table_number_or_exit(models, row, "vocab_size")};
    lab_table_free(models);
    return shape;
}

/* ---------------------------------------------------------------------------------
 * 1. Element sizes */

static void print_element_sizes(void)
{
    printf("1. Bytes of one element (your dtype_bytes):");
    for (int t = 0; t < DTYPE_COUNT; t++) printf("  %s %g", dtype_name((dtype)t), dtype_bytes((dtype)t));
    printf("\n\n");
}

/* ---------------------------------------------------------------------------------
 * 2. One layer of Llama-2-7B, decode and prefill */

typedef struct layer_operator {
    const char *name;
    op_cost decode, prefill;
} layer_operator;

/* The operators of one decoder layer for `tokens` new tokens with CONTEXT tokens attended. */
static op_cost operator_cost(int which, const model_shape *s, long long tokens, const char **name)
{
    const dtype t = DTYPE_FP16;
    long long hidden = s->hidden, inter = s->intermediate;
    switch (which) {
    case 0: *name = "RMSNorm (before attention)"; return rmsnorm_cost(tokens, hidden, t);
    case 1: *name = "Q projection (K, V, O alike)"; return gemm_cost(tokens, hidden, hidden, t);
    case 2: *name = "scores S = Q K^T"; return attention_scores_cost(tokens, CONTEXT, s->heads, s->kv_heads, s->head_dim, t);
    case 3: *name = "softmax of S"; return softmax_cost((long long)s->heads * tokens, CONTEXT, t);
    case 4: *name = "values O = P V"; return attention_values_cost(tokens, CONTEXT, s->heads, s->kv_heads, s->head_dim, t);
    case 5: *name = "residual add"; return elementwise_cost(tokens * hidden, 2, 1, t);
    case 6: *name = "gate projection (up alike)"; return gemm_cost(tokens, inter, hidden, t);
    case 7: *name = "SiLU(gate) x up"; return elementwise_cost(tokens * inter, 2, 4, t);
    case 8: *name = "down projection"; return gemm_cost(tokens, hidden, inter, t);
    default: *name = NULL; return (op_cost){0, 0};
    }
}

/* Below the ridge point, the bytes take longer than the FLOPs. */
static const char *bound(op_cost cost, double ridge)
{
    double intensity = arithmetic_intensity(cost);
    return intensity < ridge ? "memory" : intensity >= ridge ? "compute" : "?";   /* "?": NaN, nothing counted */
}

static void print_layer(const model_shape *s, double h100_ridge)
{
    printf("2. One Llama-2-7B layer in FP16 (data/models.csv: hidden %d, intermediate %d, %d heads of %d, "
           "%d KV heads),\n   decode: M = %d token attending to %d; prefill: M = %d tokens attending to %d "
           "(no causal mask).\n   Intensity against the H100 SXM's FP16 ridge point, %.0f FLOP/B: below it an "
           "operator is memory-bound.\n", s->hidden, s->intermediate, s->heads, s->head_dim, s->kv_heads,
           DECODE_TOKENS, CONTEXT, PREFILL_TOKENS, CONTEXT, h100_ridge);
    printf("   %-28s %11s %11s %8s %-7s %11s %11s %8s %-7s\n", "operator", "decode FLOP", "bytes", "FLOP/B", "bound",
           "prefill", "bytes", "FLOP/B", "bound");
    const char *name;
    op_cost decode_total = {0, 0}, prefill_total = {0, 0};
    for (int which = 0; operator_cost(which, s, 1, &name), name; which++) {
        op_cost decode = operator_cost(which, s, DECODE_TOKENS, &name);
        op_cost prefill = operator_cost(which, s, PREFILL_TOKENS, &name);
        /* the layer's totals: Q, K, V, O are four alike, gate and up two */
        int copies = which == 1 ? 4 : which == 6 ? 2 : 1;
        decode_total.flops += copies * decode.flops, decode_total.bytes += copies * decode.bytes;
        prefill_total.flops += copies * prefill.flops, prefill_total.bytes += copies * prefill.bytes;
        printf("   %-28s %11.4g %11.4g %8.4g %-7s %11.4g %11.4g %8.4g %-7s\n", name, decode.flops, decode.bytes,
               arithmetic_intensity(decode), bound(decode, h100_ridge), prefill.flops, prefill.bytes,
               arithmetic_intensity(prefill), bound(prefill, h100_ridge));
    }
    printf("   %-28s %11.4g %11.4g %8.4g %-7s %11.4g %11.4g %8.4g %-7s\n", "the whole layer", decode_total.flops,
           decode_total.bytes, arithmetic_intensity(decode_total), bound(decode_total, h100_ridge), prefill_total.flops,
           prefill_total.bytes, arithmetic_intensity(prefill_total), bound(prefill_total, h100_ridge));
    printf("   (bound: what limits the operator on an H100 SXM, predicted. The layer's bytes add up each\n"
           "   operator's inputs and outputs; a fused kernel would keep some of them on the chip.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 3. Ridge points, and the M that reaches each */

/* The least M whose GEMM (M x n x k, FP16) reaches `ridge`, found by trying each M with your
 * gemm_cost; 0 if none up to LARGEST_M. */
static long long m_searched(double ridge, long long n, long long k)
{
    for (long long m = 1; m <= LARGEST_M; m++)
        if (arithmetic_intensity(gemm_cost(m, n, k, DTYPE_FP16)) >= ridge) return m;
    return 0;
}

static void print_ridges(const lab_table *gpus, const model_shape *s)
{
    printf("3. FP16 ridge points (data/gpus.csv: fp16_tensor_tflops / memory_bandwidth_gb_per_s), and the least\n"
           "   number of tokens M whose FP16 GEMM reaches it, for Llama-2-7B's projections: predicted by your\n"
           "   least_m_reaching_ridge, then searched, M = 1, 2, ..., with your gemm_cost:\n");
    printf("   %-18s %8s %7s %12s %16s %9s %16s %9s\n", "GPU", "TFLOP/s", "GB/s", "ridge FLOP/B", "M: attn, N=K=h",
           "searched", "M: MLP, N=i,K=h", "searched");
    int disagreements = 0;
    for (int row = 0; row < gpus->rows; row++) {
        double tflops = lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops");
        double bandwidth = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
        double ridge = fp16_ridge_flop_per_byte(tflops, bandwidth);
        long long attention[2] = {least_m_reaching_ridge(ridge, s->hidden, s->hidden, DTYPE_FP16),
                                  m_searched(ridge, s->hidden, s->hidden)};
        long long mlp[2] = {least_m_reaching_ridge(ridge, s->intermediate, s->hidden, DTYPE_FP16),
                            m_searched(ridge, s->intermediate, s->hidden)};
        disagreements += (attention[0] != attention[1]) + (mlp[0] != mlp[1]);
        printf("   %-18s %8.1f %7.0f %12.1f %16lld %9lld %16lld %9lld\n",
               lab_table_text_or_exit(gpus, row, "name"), tflops, bandwidth, ridge, attention[0], attention[1], mlp[0],
               mlp[1]);
    }
    printf("   (0: no M up to %d reaches the ridge. ", LARGEST_M);
    if (disagreements) printf("%d predictions differ from the search: make check says which is wrong.)\n\n",
                              disagreements);
    else printf("Every prediction is what the search finds.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 4. What the simulator counts, beside the compulsory bytes */

static void print_counted(void)
{
    printf("4. Counted on the simulator: bytes requested from global memory (32 x sectors), beside the\n"
           "   compulsory bytes of your cost functions (FP32):\n");
    printf("   %-28s %14s %14s %8s %14s %14s\n", "kernel", "counted bytes", "compulsory", "ratio", "FLOP/B counted",
           "FLOP/B model");
    enum { VECTOR = 1 << 16 };
    const int gemm_sizes[] = {32, 64, 128};
    int matches = -1;   /* whether the vector add's count equals your elementwise_cost; -1: not counted */
    for (int run = 0; run < 4; run++) {
        int n = run == 0 ? VECTOR : gemm_sizes[run - 1];
        counted_traffic traffic = run == 0 ? count_vector_add(n) : count_naive_gemm(n, n, n);
        op_cost model = run == 0 ? elementwise_cost(n, 2, 1, DTYPE_FP32) : gemm_cost(n, n, n, DTYPE_FP32);
        char name[40];
        if (run == 0) snprintf(name, sizeof name, "vector add, n = %d", n);
        else snprintf(name, sizeof name, "naive GEMM, %d x %d x %d", n, n, n);
        if (traffic.error) {
            printf("   %-28s the run ended with the CUDA error \"%s\"\n", name, traffic.error);
        } else if (!traffic.counted) {
            printf("   %-28s ran; not counted on a real GPU (the chapter shows the ncu command)\n", name);
        } else {
            double counted = traffic.load_bytes + traffic.store_bytes;
            if (run == 0) matches = counted == model.bytes;
            printf("   %-28s %14.0f %14.0f %8.2f %14.3f %14.3f\n", name, counted, model.bytes, counted / model.bytes,
                   model.flops / counted, arithmetic_intensity(model));
        }
    }
    if (matches == 1) printf("   (The vector add moves exactly its compulsory bytes.");
    else if (matches == 0) printf("   (The vector add should move exactly its compulsory bytes: your elementwise_cost differs.");
    else printf("   (");
    printf(" The naive GEMM requests each\n   element of A and B once per output it feeds: its counted intensity "
           "stays flat while the\n   operator's grows with n. Caches and shared-memory tiles (day 12) close that "
           "gap.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * 5. A decode step for a batch: the weights are shared, the KV cache is not */

static void add_cost(op_cost *total, op_cost part, double copies)
{
    total->flops += copies * part.flops, total->bytes += copies * part.bytes;
}

/* One decode step for `batch` sequences, each with CONTEXT tokens in its KV cache: every
 * layer's operators with M = batch rows, except attention, which each sequence does alone
 * against its own cache; then the last norm and the output head. (The embedding lookup reads
 * `batch` rows of the table: not counted.) */
static op_cost decode_step(const model_shape *s, long long batch, op_cost *kv_cache)
{
    const dtype t = DTYPE_FP16;
    long long hidden = s->hidden, inter = s->intermediate, q_width = (long long)s->heads * s->head_dim;
    long long kv_width = (long long)s->kv_heads * s->head_dim;
    op_cost step = {0, 0}, attention = {0, 0};
    add_cost(&attention, attention_scores_cost(1, CONTEXT, s->heads, s->kv_heads, s->head_dim, t), 1);
    add_cost(&attention, softmax_cost(s->heads, CONTEXT, t), 1);
    add_cost(&attention, attention_values_cost(1, CONTEXT, s->heads, s->kv_heads, s->head_dim, t), 1);
    *kv_cache = (op_cost){0, 0};
    add_cost(kv_cache, attention, (double)batch * s->layers);
    for (int layer = 0; layer < s->layers; layer++) {
        add_cost(&step, rmsnorm_cost(batch, hidden, t), 2);
        add_cost(&step, gemm_cost(batch, q_width, hidden, t), 1);    /* Q */
        add_cost(&step, gemm_cost(batch, kv_width, hidden, t), 2);   /* K, V */
        add_cost(&step, gemm_cost(batch, hidden, q_width, t), 1);    /* O */
        add_cost(&step, elementwise_cost(batch * hidden, 2, 1, t), 2);
        add_cost(&step, gemm_cost(batch, inter, hidden, t), 2);      /* gate, up */
        add_cost(&step, elementwise_cost(batch * inter, 2, 4, t), 1);
        add_cost(&step, gemm_cost(batch, hidden, inter, t), 1);      /* down */
    }
    add_cost(&step, rmsnorm_cost(batch, hidden, t), 1);
    add_cost(&step, gemm_cost(batch, s->vocab, hidden, t), 1);       /* the output head */
    add_cost(&step, *kv_cache, 1);
    return step;
}

static void print_batching(const model_shape *s, double h100_tflops, double h100_gb_per_s)
{
    printf("5. One decode step of Llama-2-7B in FP16 (%d layers and the output head), each sequence with %d\n"
           "   tokens in its KV cache, from your cost functions; least time on an H100 SXM (%.1f TFLOP/s,\n"
           "   %.0f GB/s), predicted: max(FLOPs / peak, bytes / bandwidth).\n", s->layers, CONTEXT, h100_tflops,
           h100_gb_per_s);
    printf("   %5s %12s %14s %14s %10s %10s %11s %10s\n", "batch", "FLOPs", "bytes: shared", "KV caches",
           "FLOP/B", "ms", "x batch 1", "tokens/s");
    const long long batches[] = {1, 2, 8, 32, 64};
    double first_seconds = 0;
    for (int i = 0; i < 5; i++) {
        op_cost kv_cache, step = decode_step(s, batches[i], &kv_cache);
        double seconds = fmax(step.flops / (h100_tflops * 1e12), step.bytes / (h100_gb_per_s * 1e9));
        if (i == 0) first_seconds = seconds;
        printf("   %5lld %12.4g %14.4g %14.4g %10.4g %10.3f %11.2f %10.0f\n", batches[i], step.flops,
               step.bytes - kv_cache.bytes, kv_cache.bytes, arithmetic_intensity(step), seconds * 1e3,
               seconds / first_seconds, (double)batches[i] / seconds);
    }
    printf("   (shared: the weights, read once for the whole batch, and the activations; KV caches: each\n"
           "   sequence's K and V (and its small S and P) in every layer, which that sequence reads alone.\n"
           "   A batch shares the weights' bytes, not the cache's: batching is cheap, not free.)\n\n");
}

/* ---------------------------------------------------------------------------------
 * The plot: intensity against M */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 13 — arithmetic intensity: FLOPs per byte, operator by operator\n\n");
    model_shape shape = load_llama2_7b();
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int h100 = lab_table_find(gpus, "key", "h100-sxm");
    if (h100 < 0) {
        fprintf(stderr, "data/gpus.csv has no row with key h100-sxm\n");
        return 1;
    }
    double h100_ridge = fp16_ridge_flop_per_byte(lab_table_number_or_exit(gpus, h100, "fp16_tensor_tflops"),
                                                 lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s"));
    print_element_sizes();
    print_layer(&shape, h100_ridge);
    print_ridges(gpus, &shape);
    print_counted();
    print_batching(&shape, lab_table_number_or_exit(gpus, h100, "fp16_tensor_tflops"),
                   lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s"));

    /* the header: one ridge column per GPU, named after it and its ridge point */
    char header[2048] = "m,attention_projection_flop_per_byte,mlp_projection_flop_per_byte,lowest_ridge_flop_per_byte";
    double *ridges = malloc(sizeof(double) * (size_t)gpus->rows), lowest_ridge = INFINITY;
    for (int row = 0; row < gpus->rows; row++) {
        ridges[row] = fp16_ridge_flop_per_byte(lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops"),
                                               lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s"));
        lowest_ridge = fmin(lowest_ridge, ridges[row]);
        size_t used = strlen(header);
        snprintf(header + used, sizeof header - used, ",%s ridge %.0f FLOP/B", lab_table_text_or_exit(gpus, row, "name"),
                 ridges[row]);
    }
    lab_results out = lab_results_open_or_exit(argv[1], header);
    long long previous = 0;
    for (int step = 0; step <= 56; step++) {                  /* M = 2^(step/4): 1 .. 16384 */
        long long m = llround(pow(2.0, step / 4.0));
        if (m == previous) continue;
        previous = m;
        char row[2048];
        int used = snprintf(row, sizeof row, "%lld,%.6g,%.6g,%.6g", m,
                            arithmetic_intensity(gemm_cost(m, shape.hidden, shape.hidden, DTYPE_FP16)),
                            arithmetic_intensity(gemm_cost(m, shape.intermediate, shape.hidden, DTYPE_FP16)),
                            lowest_ridge);
        for (int g = 0; g < gpus->rows; g++) used += snprintf(row + used, sizeof row - (size_t)used, ",%.6g", ridges[g]);
        lab_results_row_or_exit(&out, "%s", row);
    }
    lab_results_close_or_exit(&out);
    printf("Wrote the FP16 GEMM intensity of Llama-2-7B's projections for M = 1 .. %d, and each GPU's ridge point.\n",
           LARGEST_M);
    free(ridges);
    lab_table_free(gpus);
    return 0;
}
