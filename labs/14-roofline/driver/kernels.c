/* kernels.c — Day 14 driver: the FLOPs and bytes of the week's kernels, each from the formula
 * the chapter derives, and for the ones run.cu runs also as the simulator counted them.
 * Do not edit.
 *
 * Llama-2-7B's two phases come from its row of data/models.csv: every linear map of every
 * layer (q, k, v, o; gate, up, down) and the output head, as GEMMs over `tokens` columns in
 * FP16 (2 bytes a number). Each matrix is read once and each activation read and written once:
 * the ideal of a kernel that keeps its tiles on chip. Attention's own products are left out. */
#include "lab.h"

#include <math.h>
#include <stdio.h>

#include "table.h"

/* FLOPs and bytes of Y (m x tokens) = W (m x k) X (k x tokens), every number FP16. */
static void add_gemm(double m, double k, double tokens, double *flops, double *bytes)
{
    *flops += 2 * m * k * tokens;
    *bytes += 2 * (m * k + k * tokens + m * tokens);
}

static void llama_linear_maps(double tokens, double *flops, double *bytes)
{
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    int row = lab_table_find(models, "name", "Llama-2-7B");
    if (row < 0) {
        fprintf(stderr, "data/models.csv has no Llama-2-7B row\n");
        *flops = *bytes = NAN;
        lab_table_free(models);
        return;
    }
    double layers = lab_table_number_or_exit(models, row, "layers"), hidden = lab_table_number_or_exit(models, row, "hidden_size");
    double heads = lab_table_number_or_exit(models, row, "attention_heads"), kv_heads = lab_table_number_or_exit(models, row, "kv_heads");
    double head_dim = lab_table_number_or_exit(models, row, "head_dim");
    double intermediate = lab_table_number_or_exit(models, row, "intermediate_size");
    double vocab = lab_table_number_or_exit(models, row, "vocab_size");
    *flops = *bytes = 0;
    for (int layer = 0; layer < (int)layers; layer++) {
        add_gemm(heads * head_dim, hidden, tokens, flops, bytes);      /* q */
        add_gemm(kv_heads * head_dim, hidden, tokens, flops, bytes);   /* k */
        add_gemm(kv_heads * head_dim, hidden, tokens, flops, bytes);   /* v */
        add_gemm(hidden, heads * head_dim, tokens, flops, bytes);      /* o */
        add_gemm(intermediate, hidden, tokens, flops, bytes);          /* gate */
        add_gemm(intermediate, hidden, tokens, flops, bytes);          /* up */
        add_gemm(hidden, intermediate, tokens, flops, bytes);          /* down */
    }
    add_gemm(vocab, hidden, tokens, flops, bytes);                      /* the output head */
    lab_table_free(models);
}

const char *week_kernels(week_kernel kernels[WEEK_KERNELS])
{
    const double triad_n = TRIAD_N, scale_n = SCALE_N, transposed = (double)TRANSPOSE_N * TRANSPOSE_N;
    const double n = MATMUL_N, tile = MATMUL_TILE;
    /* A warp's 32 loads SCALE_STRIDE floats apart touch 32 x 4 x stride bytes, in whole 32-byte
     * sectors: 4 x stride bytes an element up to stride 8, then one whole sector each. */
    const double scale_read_bytes = fmin(4.0 * SCALE_STRIDE, 32.0);
    week_kernel formulas[WEEK_KERNELS] = {
        {"triad", 10, PRECISION_FP32, 2 * triad_n, 12 * triad_n, -1, "2^16 floats"},
        {"strided scale", 9, PRECISION_FP32, scale_n, (scale_read_bytes + 4) * scale_n, -1,
         "2^16 floats read 4 apart"},
        {"naive transpose", 11, PRECISION_FP32, transposed, (4 + 32) * transposed, -1, "256 x 256, x alpha"},
        {"tiled transpose", 11, PRECISION_FP32, transposed, 8 * transposed, -1, "256 x 256, 32 x 33 tile, x alpha"},
        {"tiled matmul", 12, PRECISION_FP32, 2 * n * n * n, 4 * (2 * n * n * n / tile + n * n), -1,
         "128 x 128, 16 x 16 tiles"},
        {"Llama-2-7B decode", 13, PRECISION_FP16, 0, 0, -1, "1 token, FP16"},
        {"Llama-2-7B prefill", 13, PRECISION_FP16, 0, 0, -1, "512 tokens, FP16"},
    };
    llama_linear_maps(1, &formulas[KERNEL_LLAMA_DECODE].flops, &formulas[KERNEL_LLAMA_DECODE].formula_bytes);
    llama_linear_maps(PREFILL_TOKENS, &formulas[KERNEL_LLAMA_PREFILL].flops,
                      &formulas[KERNEL_LLAMA_PREFILL].formula_bytes);
    const char *error = NULL;
    for (int k = 0; k < WEEK_KERNELS; k++) {
        kernels[k] = formulas[k];
        if (k <= KERNEL_MATMUL_TILED && !error) error = run_week_kernel(k, &kernels[k].counted_bytes);
    }
    return error;
}

double kernel_bytes(const week_kernel *kernel)
{
    return kernel->counted_bytes >= 0 ? kernel->counted_bytes : kernel->formula_bytes;
}
