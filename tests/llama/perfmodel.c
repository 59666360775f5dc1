/* perfmodel.c — the performance model reproduces the book's hand-worked numbers from
 * data/models.csv and data/gpus.csv, agrees with the engine about every byte they both
 * count, answers the questions a reader asks of it (does it fit, what bounds it, when does
 * batching stop being free), and its probes and outputs are well formed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_probes.h"
#include "llama.h"
#include "perfmodel.h"

static char error[2048];

static perfmodel_shape model(const char *name)
{
    perfmodel_shape m;
    cr_assert(perfmodel_load_model_shape(name, &m, error, sizeof error) == 0, "%s", error);
    return m;
}

static perfmodel_hardware gpu(const char *name)
{
    perfmodel_hardware h;
    cr_assert(perfmodel_load_gpu(name, &h, error, sizeof error) == 0, "%s", error);
    return h;
}

static perfmodel_prediction run(const perfmodel_shape *m, const perfmodel_hardware *h, perfmodel_dtype weights, perfmodel_dtype kv, int batch, int prompt, int gen)
{
    perfmodel_workload w = {weights, kv, batch, prompt, gen};
    cr_assert(perfmodel_validate_workload(m, &w, error, sizeof error) == 0, "%s", error);
    perfmodel_prediction e;
    perfmodel_estimate(m, h, &w, &e);
    return e;
}

/* ----------------------------------------------------------------------------------
 * The book's numbers */

Test(perfmodel, llama2_7b_has_6738415616_parameters_and_every_row_adds_up, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-7B");
    cr_assert(perfmodel_shape_parameters(&m) == 6738415616LL, "Llama-2-7B: %lld parameters", (long long)perfmodel_shape_parameters(&m));
    const char *names[] = {"Llama-2-7B", "Llama-2-13B", "Llama-2-70B", "Llama-3-8B", "Llama-3-70B", "Mistral-7B", "Qwen2-7B",
                           "Mixtral-8x7B"};
    for (int i = 0; i < 8; i++) {
        m = model(names[i]);
        cr_assert(perfmodel_shape_parameters(&m) == m.listed_parameters, "%s: counted %lld, published %lld", names[i],
                  (long long)perfmodel_shape_parameters(&m), (long long)m.listed_parameters);
    }
    cr_assert(perfmodel_load_model_shape("llama-2-7b", &m, error, sizeof error) == 0, "names match without case: %s", error);
}

Test(perfmodel, a_4096_token_fp16_kv_cache_of_llama2_7b_is_2_gib, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware h = gpu("h100-sxm");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 4000, 96);
    cr_assert(e.kv_bytes_per_token == 2.0 * 32 * 32 * 128 * 2, "%g bytes a token", e.kv_bytes_per_token);
    cr_assert(e.kv_bytes_total == 2147483648.0, "4096 tokens: %.0f bytes, not 2 GiB", e.kv_bytes_total);
    /* and in the engine's formula */
    cr_assert(llama_kv_cache_bytes(m.layers, m.kv_heads, m.head_dim, 2, 4096, 1) == 2147483648LL);
}

Test(perfmodel, llama2_70b_fp16_on_h100_is_41_ms_a_token_and_does_not_fit, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-70B");
    perfmodel_hardware h = gpu("h100-sxm");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 128, 128);
    /* by hand: every weight but the (untied) embedding table is read once per token, in
     * FP16, plus one embedding row and the KV cache of the 193 positions attended at the
     * mean context 128 + 128/2 (and the one written), over 3.35 TB/s */
    double weights_read = 2.0 * (68976648192.0 - 32000.0 * 8192) + 2.0 * 8192;
    double kv = 193.0 * 2 * 80 * 8 * 128 * 2;
    cr_assert(e.decode_step_bytes == weights_read + kv, "decode step: %.0f bytes, by hand %.0f", e.decode_step_bytes, weights_read + kv);
    cr_assert(fabs(e.decode_step_time_s - (weights_read + kv) / 3350e9) < 1e-12);
    cr_assert(e.decode_step_time_s > 0.0405 && e.decode_step_time_s < 0.0420, "the 70B decode bound: %.2f ms, not about 41",
              e.decode_step_time_s * 1e3);
    cr_assert(!strcmp(e.decode_bound, "memory"));
    cr_assert(e.weights_bytes == 2.0 * 68976648192.0, "weights: %.0f bytes", e.weights_bytes);
    cr_assert(!e.fits && e.max_batch == 0, "138 GB of weights on one 80 GB card: fits=%d, max_batch=%lld", e.fits, (long long)e.max_batch);
    char lines[8][256];
    /* INT8 as the engine stores it: a byte a matrix weight and a 4-byte scale per 64 of them */
    perfmodel_targets interactive = {PERFMODEL_INTERACTIVE_TTFT_S, PERFMODEL_INTERACTIVE_TPOT_S};
    int count = perfmodel_suggest_next_steps(&m, &h, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 128, 128}, &e,
                                             &interactive, lines, 8);
    cr_assert(count > 0 && strstr(lines[0], "[out of memory]") && strstr(lines[0], "exceed the usable memory") &&
                  strstr(lines[0], "int8: 73.3") && strstr(lines[0], "2 devices"),
              "the first step should be to quantize or split: %s", count ? lines[0] : "(none)");
    /* int8 fits one H100 */
    e = run(&m, &h, DTYPE_INT8, DTYPE_FP16, 1, 128, 128);
    cr_assert(e.fits && e.max_batch >= 1, "70B in INT8 (%.1f GB) should fit 80 GB", e.weights_bytes * 1e-9);
}

/* ----------------------------------------------------------------------------------
 * The checklist against a service-level target */

/* the checklist rows the advice shows (its lines that start with a row's name), as a string of
 * one letter per row: O out of memory, P high TPOT at a small batch, K slower as the context
 * grows, F throughput flat in the batch, T high TTFT on long prompts */
static void advised_rows(const char *model_name, const char *gpu_name, perfmodel_workload w, double ttft_s,
                         double tpot_s, char rows[8], char headroom[256])
{
    perfmodel_shape m = model(model_name);
    perfmodel_hardware h = gpu(gpu_name);
    perfmodel_prediction e = run(&m, &h, w.weights, w.kv, w.batch, w.prompt, w.gen);
    perfmodel_targets targets = {ttft_s, tpot_s};
    char lines[8][256];
    int count = perfmodel_suggest_next_steps(&m, &h, &w, &e, &targets, lines, 8), n = 0;
    headroom[0] = 0;
    static const struct {
        const char *tag;
        char letter;
    } tags[] = {{"[out of memory]", 'O'},
                {"[high TPOT at a small batch]", 'P'},
                {"[slower as the context grows]", 'K'},
                {"[throughput flat in the batch]", 'F'},
                {"[high TTFT on long prompts]", 'T'}};
    for (int i = 0; i < count; i++) {
        cr_assert(strlen(lines[i]) < 255, "%s: an advice line fills its 256 bytes and may be cut: %s", model_name,
                  lines[i]);
        for (int t = 0; t < 5; t++)
            if (!strncmp(lines[i], tags[t].tag, strlen(tags[t].tag))) rows[n++] = tags[t].letter;
        if (strstr(lines[i], "meets the")) snprintf(headroom, 256, "%s", lines[i]);
    }
    rows[n] = 0;
}

static void expect_rows(const char *what, const char *model_name, const char *gpu_name, perfmodel_workload w,
                        double ttft_s, double tpot_s, const char *want)
{
    char rows[8], headroom[256];
    advised_rows(model_name, gpu_name, w, ttft_s, tpot_s, rows, headroom);
    cr_assert(!strcmp(rows, want),
              "%s (targets TTFT %.9g ms, TPOT %.9g ms): rows '%s', want '%s' (O out of memory, P high "
              "TPOT, K slower with context, F flat in batch, T high TTFT)",
              what, ttft_s * 1e3, tpot_s * 1e3, rows, want);
}

Test(perfmodel, a_latency_row_fires_only_when_its_target_is_missed, .timeout = 10)
{
    perfmodel_shape m13 = model("Llama-2-13B"), m7 = model("Llama-2-7B");
    perfmodel_hardware a100 = gpu("a100-80gb"), h100 = gpu("h100-sxm");
    /* 13B on an A100, batch 1: memory-bound decode, 243 sequences fit */
    perfmodel_workload chat = {DTYPE_FP16, DTYPE_FP16, 1, 128, 128};
    perfmodel_prediction e = run(&m13, &a100, DTYPE_FP16, DTYPE_FP16, 1, 128, 128);
    expect_rows("13B, A100, batch 1, TPOT exactly at its target", "Llama-2-13B", "a100-80gb", chat, 1, e.tpot_s, "");
    expect_rows("13B, A100, batch 1, TPOT just over its target", "Llama-2-13B", "a100-80gb", chat, 1,
                nextafter(e.tpot_s, 0), "P");
    /* a compute-bound prefill: 7B, 4096-token prompt on an H100 */
    perfmodel_workload long_prompt = {DTYPE_FP16, DTYPE_FP16, 1, 4000, 96};
    e = run(&m7, &h100, DTYPE_FP16, DTYPE_FP16, 1, 4000, 96);
    cr_assert(!strcmp(e.prefill_bound, "compute"));
    expect_rows("7B, H100, 4000-token prompt, TTFT exactly at its target", "Llama-2-7B", "h100-sxm", long_prompt,
                e.ttft_s, 1, "");
    expect_rows("7B, H100, 4000-token prompt, TTFT just over its target", "Llama-2-7B", "h100-sxm", long_prompt,
                nextafter(e.ttft_s, 0), 1, "T");
    /* the KV cache over 30 % of a step: 7B with a 16000-token context */
    perfmodel_workload long_context = {DTYPE_FP16, DTYPE_FP16, 1, 16000, 16};
    e = run(&m7, &h100, DTYPE_FP16, DTYPE_FP16, 1, 16000, 16);
    expect_rows("7B, H100, 16000-token context, both targets met", "Llama-2-7B", "h100-sxm", long_context, e.ttft_s,
                e.tpot_s, "");
    expect_rows("7B, H100, 16000-token context, TPOT missed", "Llama-2-7B", "h100-sxm", long_context, e.ttft_s,
                nextafter(e.tpot_s, 0), "PK");
    /* a prefill that is memory-bound misses its TTFT target without the compute row */
    expect_rows("13B, A100, batch 1: a 128-token prefill is memory-bound", "Llama-2-13B", "a100-80gb", chat, 1e-6, 1,
                "");
    /* rows without a latency target: out of memory, throughput flat in the batch */
    expect_rows("70B FP16 on one H100, loose targets", "Llama-2-70B", "h100-sxm", chat, 1e3, 1e3, "O");
    expect_rows("7B, H100, batch 600, loose targets", "Llama-2-7B", "h100-sxm",
                (perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 600, 16, 16}, 1e3, 1e3, "F");
    expect_rows("7B, H100, batch 600, tight targets", "Llama-2-7B", "h100-sxm",
                (perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 600, 16, 16}, 1e-6, 1e-6, "FT");
}

Test(perfmodel, headroom_is_the_largest_batch_that_meets_the_tpot_target, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-13B");
    perfmodel_hardware h = gpu("a100-80gb");
    struct { double target_s; int prompt; } cases[] = {{0.040, 128}, {0.0133, 128}, {0.020, 2000}, {1.0, 128}};
    for (int i = 0; i < 4; i++) {
        perfmodel_workload w = {DTYPE_FP16, DTYPE_FP16, 1, cases[i].prompt, 128};
        char rows[8], headroom[256];
        advised_rows("Llama-2-13B", "a100-80gb", w, 10, cases[i].target_s, rows, headroom);
        int most = -1;
        const char *at = strstr(headroom, "up to batch ");
        cr_assert(at && sscanf(at, "up to batch %d", &most) == 1, "TPOT target %.1f ms: no headroom line: '%s'",
                  cases[i].target_s * 1e3, headroom);
        perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, most, cases[i].prompt, 128);
        cr_assert(e.tpot_s <= cases[i].target_s && e.fits,
                  "batch %d: TPOT %.4f ms misses the %.1f ms target (or does not fit)", most, e.tpot_s * 1e3,
                  cases[i].target_s * 1e3);
        if (most < e.max_batch) {
            perfmodel_prediction next = run(&m, &h, DTYPE_FP16, DTYPE_FP16, most + 1, cases[i].prompt, 128);
            cr_assert(next.tpot_s > cases[i].target_s,
                      "batch %d meets the %.1f ms target too (TPOT %.4f ms): %d is not the largest",
                      most + 1, cases[i].target_s * 1e3, next.tpot_s * 1e3, most);
        }
    }
}

Test(perfmodel, ridge_and_prefill_flops_by_hand, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware h = gpu("H100 SXM");   /* by name as well as by key */
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 1, 1);
    cr_assert(fabs(e.ridge_flop_per_byte - 989.4e12 / 3350e9) < 1e-9, "ridge %g", e.ridge_flop_per_byte);
    /* one token: 2 FLOPs per weight of the 32 layers (4 x 4096^2 + 3 x 4096 x 11008 each),
     * the classifier (2 x 32000 x 4096), attention over one position (4 x 32 x 32 x 128) */
    double expected = 2.0 * 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008) + 2.0 * 32000 * 4096 + 4.0 * 32 * 32 * 128;
    cr_assert(e.prefill_flops == expected && expected == 13214679040.0, "prefill of 1 token: %.0f FLOPs, by hand %.0f",
              e.prefill_flops, expected);
    /* the rule of thumb, 2 x parameters FLOPs a generated token, holds within 3% at a short
     * context: it counts the embedding table, which is looked up, not multiplied */
    e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 16, 2);
    cr_assert(fabs(e.decode_step_flops / (2.0 * 6738415616.0) - 1) < 0.03, "%.4g FLOPs a token against 2 x params = %.4g",
              e.decode_step_flops, 2 * 6738415616.0);
    /* attention grows with the square of the prompt: 2 x L x H x d x P x (P + 1) */
    perfmodel_prediction long_prompt = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 4000, 1);
    double attention = long_prompt.prefill_flops - 4000 * 2.0 * 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008) - 2.0 * 32000 * 4096;
    cr_assert(fabs(attention - 2.0 * 32 * 32 * 128 * 4000.0 * 4001.0) < 1.0, "attention FLOPs %.0f", attention);
    cr_assert(!strcmp(long_prompt.prefill_bound, "compute") && !strcmp(e.decode_bound, "memory"),
              "prefill of 4000 tokens is compute-bound, decode at batch 1 memory-bound");
}

Test(perfmodel, batching_is_free_until_the_ridge, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware h = gpu("h100-sxm");
    perfmodel_prediction one = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 16, 16);
    perfmodel_prediction some = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 64, 16, 16);
    perfmodel_prediction many = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1000, 16, 16);
    cr_assert(!strcmp(some.decode_bound, "memory") && !strcmp(many.decode_bound, "compute"), "batch 64: %s, batch 1000: %s",
              some.decode_bound, many.decode_bound);
    cr_assert(some.tpot_s < 1.1 * one.tpot_s, "64 sequences should cost about one: %g vs %g ms", some.tpot_s * 1e3, one.tpot_s * 1e3);
    cr_assert(many.tokens_per_s > 10 * one.tokens_per_s, "throughput grows with the batch");
}

Test(perfmodel, max_batch_is_the_largest_that_fits, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware h = gpu("a100-80gb");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 4000, 96);
    /* 80 GiB less the runtime's tenth (77.3 GB), less 13.5 GB of weights, in 2 GiB sequences: 29.7,
     * and the activations may take one more away */
    cr_assert(e.max_batch >= 28 && e.max_batch <= 29, "max_batch %lld", (long long)e.max_batch);
    perfmodel_prediction at = run(&m, &h, DTYPE_FP16, DTYPE_FP16, (int)e.max_batch, 4000, 96);
    perfmodel_prediction over = run(&m, &h, DTYPE_FP16, DTYPE_FP16, (int)e.max_batch + 1, 4000, 96);
    cr_assert(at.fits && !over.fits, "batch %lld fits=%d, one more fits=%d", (long long)e.max_batch, at.fits, over.fits);
}

Test(perfmodel, one_memory_budget_binary_capacity_less_a_reserve, .timeout = 10)
{
    perfmodel_hardware h = gpu("h100-sxm");
    cr_assert(h.memory_bytes == 80.0 * (1 << 30), "an \"80 GB\" H100 holds 80 GiB of DRAM: memory_bytes %.0f",
              h.memory_bytes);
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 4000, 96);
    cr_assert(e.usable_bytes == h.memory_bytes * PERFMODEL_MEMORY_UTILIZATION, "usable %.0f bytes of %.0f",
              e.usable_bytes, h.memory_bytes);
    cr_assert(perfmodel_kv_room_bytes(&e) == e.usable_bytes - e.weights_bytes - e.activation_bytes,
              "the KV room is what the weights and activations leave of the usable bytes");
    /* a batch whose total lies between the usable bytes and the capacity does not fit */
    int batch = (int)((h.memory_bytes - e.weights_bytes) / (4096 * e.kv_bytes_per_token));
    perfmodel_prediction near = run(&m, &h, DTYPE_FP16, DTYPE_FP16, batch, 4000, 96);
    cr_assert(near.total_bytes > near.usable_bytes && near.total_bytes <= near.capacity_bytes && !near.fits,
              "batch %d needs %.1f GB of %.1f usable and %.1f in all: fits must be 0", batch, near.total_bytes * 1e-9,
              near.usable_bytes * 1e-9, near.capacity_bytes * 1e-9);
}

Test(perfmodel, mixture_of_experts_reads_only_the_experts_it_uses, .timeout = 10)
{
    perfmodel_shape m = model("Mixtral-8x7B");
    perfmodel_hardware h = gpu("h100-sxm");
    perfmodel_prediction one = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 16, 2), many = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 64, 16, 2);
    double expert = 3.0 * 4096 * 14336 * 2 * 32;   /* bytes of one expert in every layer */
    cr_assert(one.weights_bytes - one.decode_step_bytes > 5.9 * expert, "batch 1 reads 2 of 8 experts: %g GB of %g",
              one.decode_step_bytes * 1e-9, one.weights_bytes * 1e-9);
    cr_assert(many.decode_step_bytes > 0.97 * many.weights_bytes - 2.0 * 32000 * 4096, "batch 64 touches nearly all experts");
}

Test(perfmodel, every_parameter_is_read_once_a_step, .timeout = 10)
{
    /* Qwen2-7B has biases on Q, K and V, and an untied embedding table of which a step at
     * batch 1 reads one row: the weights a decode step reads are every parameter once, less
     * the rows of the table not looked up. A bias counted as a matrix and as a vector is read twice. */
    perfmodel_shape m = model("Qwen2-7B");
    perfmodel_hardware h = gpu("h100-sxm");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 16, 2);
    double kv = (e.decode_context + 1) * e.kv_bytes_per_token;
    double weights = 2.0 * ((double)perfmodel_shape_parameters(&m) - (152064.0 - 1) * 3584);
    cr_assert(fabs(e.decode_step_bytes - kv - weights) < 0.5, "a decode step reads %.0f bytes of weights; every parameter "
              "once in FP16 is %.0f (%+.0f)", e.decode_step_bytes - kv, weights, e.decode_step_bytes - kv - weights);
    /* a layer's matrices: Q and O of 3584 x 3584, K and V of 3584 x 512, the MLP's three 3584 x 18944 */
    double layer = 2 * 3584.0 * 3584 + 2 * 3584.0 * 512 + 3 * 3584.0 * 18944;
    cr_assert(perfmodel_active_layer_matrix_parameters(&m) == (int64_t)layer, "a layer's matrices: %lld, by hand %.0f",
              (long long)perfmodel_active_layer_matrix_parameters(&m), layer);
    cr_assert(perfmodel_shape_parameters(&m) == 7615616512LL, "Qwen2-7B: %lld parameters, the "
              "safetensors index says 7615616512", (long long)perfmodel_shape_parameters(&m));
}

Test(perfmodel, a_gpu_prefill_reads_the_weights_once_a_cpu_every_512_rows, .timeout = 10)
{
    /* A GPU multiplies a prompt's 2000 rows in one GEMM per matrix: every weight once, and
     * the 2000 rows of the untied embedding table looked up. The book's CPU engine takes at
     * most LLAMA_MAX_STEP_ROWS = 512 rows a step, so 4 steps, each reading the weights. */
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware gpu_h = gpu("h100-sxm");
    perfmodel_hardware cpu_h = {.is_cpu = 1, .bandwidth = 40e9, .fp32_flops = 200e9, .memory_bytes = 64.0 * (1 << 30)};
    perfmodel_prediction on_gpu = run(&m, &gpu_h, DTYPE_FP16, DTYPE_FP16, 1, 2000, 2);
    perfmodel_prediction on_cpu = run(&m, &cpu_h, DTYPE_FP16, DTYPE_FP16, 1, 2000, 2);
    double kv = 2.0 * 2000 * on_gpu.kv_bytes_per_token, rest = 6738415616.0 - 32000.0 * 4096;
    double once = 2.0 * (rest + 2000.0 * 4096), four_steps = 4 * 2.0 * (rest + 512.0 * 4096);
    cr_assert(LLAMA_MAX_STEP_ROWS == 512, "the engine's step is %d rows", LLAMA_MAX_STEP_ROWS);
    double gpu_weights = on_gpu.prefill_bytes - kv, cpu_weights = on_cpu.prefill_bytes - kv;
    cr_assert(fabs(gpu_weights - once) < 0.5, "GPU: a 2000-token prefill reads %.0f bytes of weights, want %.0f, "
              "every weight once (%.2f times)", gpu_weights, once, gpu_weights / once);
    cr_assert(fabs(cpu_weights - four_steps) < 0.5, "CPU: a 2000-token prefill reads %.0f bytes of weights, want %.0f, "
              "4 steps of at most 512 rows", cpu_weights, four_steps);
    cr_assert(on_gpu.prefill_flops == on_cpu.prefill_flops, "the FLOPs do not depend on the steps");
}

/* ----------------------------------------------------------------------------------
 * The model and the engine count the same bytes */

Test(perfmodel, agrees_with_the_engine_on_every_byte, .timeout = 10)
{
    const char *shapes[] = {"15M", "110M", "260K", "tiny"};
    for (int i = 0; i < 4; i++) {
        llama_config c;
        cr_assert(llama_named_shape(shapes[i], &c, error, sizeof error) == 0, "%s", error);
        perfmodel_shape m;
        perfmodel_shape_from_config(&c, shapes[i], &m);
        cr_assert(perfmodel_shape_parameters(&m) == llama_parameter_count(&c), "%s: parameters", shapes[i]);
        perfmodel_hardware h = {.is_cpu = 1, .bandwidth = 40e9, .fp32_flops = 200e9, .dequantizing_flops = 50e9, .memory_bytes = 16e9};
        int prompt = c.seq_len / 4, gen = c.seq_len / 4;
        const perfmodel_dtype types[] = {DTYPE_FP32, DTYPE_INT8, DTYPE_INT4};
        const llama_weight_format formats[] = {WEIGHTS_FP32, WEIGHTS_INT8, WEIGHTS_INT4};
        for (int format = 0; format < 3; format++) {   /* INT4: half a byte, a scale and a zero point per group */
            perfmodel_prediction e = run(&m, &h, types[format], DTYPE_FP32, 3, prompt, gen);
            int64_t engine = llama_weights_bytes_of(&c, formats[format], llama_int8_group_size(&c, 64));
            cr_assert(e.weights_bytes == (double)engine, "%s %s: model %.0f bytes, engine %lld", shapes[i],
                      perfmodel_dtype_name(types[format]), e.weights_bytes, (long long)engine);
            cr_assert(e.kv_bytes_per_token == (double)llama_kv_bytes_per_token(&c, 4), "%s: KV bytes per token", shapes[i]);
            cr_assert(e.peak_flops == 200e9 && e.conversion_rate == (format ? 25e9 : INFINITY),
                      "%s: INT8 on a CPU converts each weight (50 GFLOP/s of converting FMAs = 25 G weights/s)", shapes[i]);
            cr_assert(e.activation_bytes == (double)llama_activation_bytes_of(&c, 3, prompt + gen, 1), "%s: activations", shapes[i]);
        }
        if (!strcmp(shapes[i], "15M")) {   /* INT8 on this CPU: converting each weight takes longer than reading it */
            perfmodel_prediction e = run(&m, &h, DTYPE_INT8, DTYPE_FP32, 1, prompt, gen);
            cr_assert(!strcmp(e.decode_bound, "compute") && e.decode_step_time_s == llama_matrix_parameter_count(&c) / 25e9,
                      "15M INT8: %s-bound, %g s", e.decode_bound, e.decode_step_time_s);
        }
        if (c.shared_classifier) {   /* tied: a decode step reads every weight once, and the KV cache */
            perfmodel_prediction e = run(&m, &h, DTYPE_FP32, DTYPE_FP32, 1, prompt, gen);
            double kv = (prompt + gen / 2.0 + 1) * llama_kv_bytes_per_token(&c, 4);
            cr_assert(e.decode_step_bytes == 4.0 * llama_parameter_count(&c) + kv, "%s: decode bytes %.0f", shapes[i], e.decode_step_bytes);
        }
    }
}

Test(perfmodel, refuses_unknown_names_and_impossible_workloads, .timeout = 10)
{
    perfmodel_shape m;
    perfmodel_hardware h;
    cr_assert(perfmodel_load_model_shape("Llama-9-1T", &m, error, sizeof error) != 0);
    cr_assert(strstr(error, "unknown model 'Llama-9-1T'") && strstr(error, "Llama-2-7B") && strstr(error, "Mixtral-8x7B"),
              "the error should list the known models: %s", error);
    cr_assert(perfmodel_load_gpu("b200", &h, error, sizeof error) != 0);
    cr_assert(strstr(error, "unknown hardware 'b200'") && strstr(error, "h100-sxm") && strstr(error, "t4") && strstr(error, "cpu"),
              "the error should list the known GPUs: %s", error);
    llama_config c;
    cr_assert(llama_named_shape("15M", &c, error, sizeof error) == 0, "%s", error);
    perfmodel_shape_from_config(&c, "15M", &m);
    perfmodel_workload w = {DTYPE_FP32, DTYPE_FP32, 1, 200, 100};
    cr_assert(perfmodel_validate_workload(&m, &w, error, sizeof error) != 0 && strstr(error, "context of 256"), "%s", error);
    w = (perfmodel_workload){DTYPE_FP32, DTYPE_FP32, 0, 10, 10};
    cr_assert(perfmodel_validate_workload(&m, &w, error, sizeof error) != 0 && strstr(error, "at least 1"), "%s", error);
    perfmodel_dtype type;
    cr_assert(perfmodel_parse_dtype("bf16", &type) == 0 && type == DTYPE_BF16 && perfmodel_parse_dtype("fp12", &type) != 0);
}

Test(perfmodel, gpus_without_a_type_fall_back_and_say_so, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware h = gpu("a100-80gb");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP8, DTYPE_FP16, 1, 512, 64);
    cr_assert(e.peak_flops == 312e12 && strstr(e.compute_type, "no fp8"), "A100 has no FP8 tensor cores: %g, %s", e.peak_flops, e.compute_type);
    h = gpu("h100-sxm");
    e = run(&m, &h, DTYPE_FP8, DTYPE_FP16, 1, 512, 64);
    cr_assert(e.peak_flops == 1978.9e12, "H100 FP8: %g", e.peak_flops);
}

/* ----------------------------------------------------------------------------------
 * Output and probes */

Test(perfmodel, json_has_exactly_the_fields, .timeout = 10)
{
    perfmodel_shape m = model("Llama-2-70B");
    perfmodel_hardware h = gpu("h100-sxm");
    perfmodel_prediction e = run(&m, &h, DTYPE_FP16, DTYPE_FP16, 1, 128, 128);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    perfmodel_print_estimate_json(out, &e);
    fclose(out);
    const char *fields[] = {"weights_bytes", "kv_bytes_per_token", "kv_bytes_total", "fits", "max_batch", "prefill_flops",
                            "prefill_time_s", "decode_step_bytes", "decode_step_time_s", "ttft_s", "tpot_s", "tokens_per_s",
                            "prefill_bound", "decode_bound", "ridge_flop_per_byte"};
    int found = 0;
    for (char *p = strchr(text, '"'); p; p = strchr(p + 1, '"')) {
        char *end = strchr(p + 1, '"');
        cr_assert(end, "unbalanced quotes in %s", text);
        if (end[1] == ':') {   /* a key */
            int known = 0;
            for (int i = 0; i < 15; i++) known |= (size_t)(end - p - 1) == strlen(fields[i]) && !strncmp(p + 1, fields[i], strlen(fields[i]));
            cr_assert(known, "unexpected field %.*s in %s", (int)(end - p - 1), p + 1, text);
            found++;
        }
        p = end;
    }
    cr_assert(found == 15, "%d fields, expected 15: %s", found, text);
    cr_assert(text[0] == '{' && strstr(text, "\"fits\": false") && strstr(text, "\"decode_bound\": \"memory\"") &&
              strstr(text, "\"weights_bytes\": 137953296384,"), "%s", text);
    free(text);
}

Test(perfmodel, cpu_probes_measure_plausible_rates, .timeout = 30)
{
    /* An emulator (make test-arm64 sets LAB_EMULATED) runs one instruction after another: it has
     * no pipelines for the chains to fill, and its rates say nothing of a machine's. */
    if (getenv("LAB_EMULATED")) cr_skip_test("the probes time a machine's pipelines; under an emulator there are none");
    for (int kernel = STREAM_READ; kernel <= STREAM_TRIAD; kernel++) {
        double bandwidth = perfmodel_stream_bandwidth(kernel, 16u << 20, 3);
        cr_assert(bandwidth > 1e9 && bandwidth < 5e12, "%s: %g bytes/s", perfmodel_stream_kernel_name(kernel), bandwidth);
    }
    cr_assert(perfmodel_stream_bytes_per_element(STREAM_TRIAD) == 12 && perfmodel_stream_bytes_per_element(STREAM_READ) == 4);
    /* one chain waits for each FMA's result; the peak's keep the pipelines full: at least twice
     * as fast on any core with pipelined FMAs, and no faster than lanes x 2 FLOPs x 4 FMA
     * units x 6 GHz allows. Each probe is the best of 3 runs of 20 ms; a machine busy with
     * other work can still preempt all three, so the comparison gets up to 5 tries: a probe
     * that is really wrong fails every one. */
    double one = 0, many = 0, dequantizing = 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        one = perfmodel_fma_flops(1, 0.02, 3), many = perfmodel_fma_flops(perfmodel_peak_chains(), 0.02, 3);
        dequantizing = perfmodel_dequantizing_fma_flops(0.02, 3);
        if (many > 2 * one && dequantizing < 1.2 * many) break;
    }
    cr_assert(many > 2 * one, "%d chains %g FLOP/s, 1 chain %g", perfmodel_peak_chains(), many, one);
    cr_assert(one > 1e8 && many < perfmodel_simd_float_lanes() * 2.0 * 4 * 6e9, "implausible: %g and %g FLOP/s", one, many);
    cr_assert(dequantizing > 1e8 && dequantizing < 1.2 * many, "converting int8 weights cannot beat plain FMAs: %g vs %g",
              dequantizing, many);
    perfmodel_hardware h;
    perfmodel_measure_cpu(&h, 4u << 20);
    cr_assert(h.is_cpu && h.bandwidth > 1e9 && h.fp32_flops > 1e9 && h.memory_bytes > 1e8 && h.bandwidth_working_set == 8u << 20,
              "measure_cpu: %g B/s, %g FLOP/s, %g bytes", h.bandwidth, h.fp32_flops, h.memory_bytes);
}
