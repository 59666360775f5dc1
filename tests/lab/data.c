/* data.c — checks of the book's data tables: every row the chapters need is there, each
 * row is consistent with itself (FP32 peak = cores × 2 × clock; parameter count = the sum
 * of the model's tensors), and every row names its source. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "table.h"

static lab_table *load(const char *name)
{
    char error[512];
    lab_table *t = lab_table_read(lab_data_path(name), error, sizeof error);
    cr_assert_not_null(t, "%s", error);
    return t;
}

Test(gpus, has_the_rows_the_book_uses, .timeout = 5)
{
    lab_table *t = load("gpus.csv");
    const char *keys[] = {"h100-sxm", "h100-pcie", "h200", "a100-80gb", "a100-40gb", "l4", "l40s", "rtx-4090", "v100", "t4"};
    for (int i = 0; i < 10; i++) cr_assert(lab_table_find(t, "key", keys[i]) >= 0, "gpus.csv has no row %s", keys[i]);
    lab_table_free(t);
}

Test(gpus, fp32_peak_is_cores_times_two_times_clock, .timeout = 5)
{
    lab_table *t = load("gpus.csv");
    for (int r = 0; r < t->rows; r++) {
        double computed = lab_table_number_or_exit(t, r, "fp32_cores") * 2 * lab_table_number_or_exit(t, r, "boost_clock_mhz") * 1e6 / 1e12;
        double listed = lab_table_number_or_exit(t, r, "fp32_tflops");
        cr_assert(fabs(computed - listed) <= 0.01 * listed, "%s: %g TFLOP/s listed, cores x 2 x clock = %g",
                  lab_table_text_or_exit(t, r, "name"), listed, computed);
        cr_assert(lab_table_number_or_exit(t, r, "sms") * 64 <= lab_table_number_or_exit(t, r, "fp32_cores") + 1e-9,
                  "%s: fewer than 64 FP32 cores per SM", lab_table_text_or_exit(t, r, "name"));
    }
    lab_table_free(t);
}

Test(gpus, tensor_rates_are_dense_and_above_fp32, .timeout = 5)
{
    lab_table *t = load("gpus.csv");
    for (int r = 0; r < t->rows; r++) {
        const char *name = lab_table_text_or_exit(t, r, "name");
        double fp32 = lab_table_number_or_exit(t, r, "fp32_tflops"), fp16 = lab_table_number_or_exit(t, r, "fp16_tensor_tflops");
        cr_assert(fp16 > fp32, "%s: FP16 Tensor %g is not above FP32 %g", name, fp16, fp32);
        cr_assert(strlen(lab_table_text_or_exit(t, r, "source")) > 20, "%s: no source", name);
        double fp8 = lab_table_number_or_exit(t, r, "fp8_tensor_tflops"), bf16 = lab_table_number_or_exit(t, r, "bf16_tensor_tflops");
        /* 2 %, not exact: the L40S datasheet itself lists 362.05 (BF16) and 733 (FP8). */
        if (!isnan(fp8)) cr_assert(fabs(fp8 - 2 * bf16) <= 0.02 * fp8, "%s: FP8 should be twice BF16 (dense)", name);
    }
    int h100 = lab_table_find(t, "key", "h100-sxm");
    cr_assert_float_eq(lab_table_number_or_exit(t, h100, "fp16_tensor_tflops"), 989.4, 1e-9, "H100 SXM dense FP16 is 989.4");
    cr_assert_float_eq(lab_table_number_or_exit(t, h100, "memory_bandwidth_gb_per_s"), 3350, 1e-9);
    lab_table_free(t);
}

/* Parameters of a Llama-style decoder from its shape: embeddings and classifier, and per
 * layer the Q/K/V/O projections (plus Q/K/V biases where the model has them), the gated
 * MLP of every expert and the router, and two RMSNorm weight vectors; one final norm. */
static double count_parameters(const lab_table *t, int r)
{
    double layers = lab_table_number_or_exit(t, r, "layers"), hidden = lab_table_number_or_exit(t, r, "hidden_size");
    double heads = lab_table_number_or_exit(t, r, "attention_heads"), kv_heads = lab_table_number_or_exit(t, r, "kv_heads");
    double head_dim = lab_table_number_or_exit(t, r, "head_dim"), ffn = lab_table_number_or_exit(t, r, "intermediate_size");
    double vocab = lab_table_number_or_exit(t, r, "vocab_size"), experts = lab_table_number_or_exit(t, r, "experts");
    double q = hidden * heads * head_dim, kv = 2 * hidden * kv_heads * head_dim, o = heads * head_dim * hidden;
    double bias = lab_table_number_or_exit(t, r, "qkv_bias") ? heads * head_dim + 2 * kv_heads * head_dim : 0;
    double mlp = experts * 3 * hidden * ffn, router = experts > 1 ? hidden * experts : 0;
    double per_layer = q + kv + o + bias + mlp + router + 2 * hidden;
    double embeddings = vocab * hidden * (lab_table_number_or_exit(t, r, "tied_embeddings") ? 1 : 2);
    return layers * per_layer + embeddings + hidden;
}

Test(models, parameter_counts_match_the_shapes, .timeout = 5)
{
    lab_table *t = load("models.csv");
    const char *names[] = {"Llama-2-7B", "Llama-2-13B", "Llama-2-70B", "Llama-3-8B", "Llama-3-70B",
                           "Mistral-7B", "Qwen2-7B", "Mixtral-8x7B"};
    for (int i = 0; i < 8; i++) cr_assert(lab_table_find(t, "name", names[i]) >= 0, "models.csv has no row %s", names[i]);
    for (int r = 0; r < t->rows; r++) {
        double listed = lab_table_number_or_exit(t, r, "parameters"), computed = count_parameters(t, r);
        cr_assert(listed == computed, "%s: %.0f parameters listed, the shape gives %.0f", lab_table_text_or_exit(t, r, "name"),
                  listed, computed);
        cr_assert(lab_table_number_or_exit(t, r, "hidden_size") == lab_table_number_or_exit(t, r, "attention_heads") * lab_table_number_or_exit(t, r, "head_dim"),
                  "%s: hidden size is not heads x head_dim", lab_table_text_or_exit(t, r, "name"));
    }
    cr_assert(lab_table_number_or_exit(t, lab_table_find(t, "name", "Llama-2-7B"), "parameters") == 6738415616.0);
    lab_table_free(t);
}

Test(gpus, occupancy_columns_follow_the_compute_capability, .timeout = 5)
{
    lab_table *t = load("gpus.csv");
    for (int r = 0; r < t->rows; r++) {
        const char *name = lab_table_text_or_exit(t, r, "name");
        double capability = lab_table_number_or_exit(t, r, "compute_capability");
        cr_assert(lab_table_number_or_exit(t, r, "sm_subpartitions") == 4, "%s: 4 warp schedulers per SM since Volta", name);
        cr_assert(lab_table_number_or_exit(t, r, "register_allocation_unit") == 256, "%s: registers are allocated 256 at a time", name);
        cr_assert(lab_table_number_or_exit(t, r, "max_registers_per_thread") == 255, "%s: at most 255 registers a thread", name);
        double unit = lab_table_number_or_exit(t, r, "shared_memory_allocation_unit_bytes");
        cr_assert(unit == (capability >= 8.0 ? 128 : 256), "%s: shared memory allocation unit %g", name, unit);
        double reserved = lab_table_number_or_exit(t, r, "shared_memory_reserved_per_block_bytes");
        double per_sm = lab_table_number_or_exit(t, r, "shared_memory_per_sm_kib"), per_block = lab_table_number_or_exit(t, r, "shared_memory_per_block_kib");
        cr_assert(reserved == (capability >= 8.0 ? 1024 : 0), "%s: %g bytes reserved per block", name, reserved);
        cr_assert(capability < 8.0 || (per_sm - per_block) * 1024 == reserved,
                  "%s: the per-block limit is the SM's shared memory less the reservation", name);
        cr_assert(lab_table_number_or_exit(t, r, "max_threads_per_sm") == 32 * lab_table_number_or_exit(t, r, "max_warps_per_sm"),
                  "%s: threads per SM = 32 x warps per SM", name);
    }
    lab_table_free(t);
}
