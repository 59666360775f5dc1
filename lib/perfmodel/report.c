/* report.c — an estimate printed two ways: `name: value unit` lines for people (and
 * scripts that grep), and one JSON object with a fixed set of fields for programs. */
#include "perfmodel.h"

#include <math.h>

void perfmodel_print_estimate_text(FILE *out, const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w, const perfmodel_prediction *e,
                                   const perfmodel_targets *targets)
{
    fprintf(out, "model: %s (%d layers, hidden %d, %d heads, %d kv heads, head_dim %d, intermediate %d, vocab %d%s%s)\n",
            m->name, m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim, m->intermediate, m->vocab,
            m->experts > 1 ? ", mixture of experts" : "", m->tied_embeddings ? ", tied classifier" : "");
    if (h->is_cpu)
        fprintf(out, "hardware: %s, bandwidth measured over %.0f MB\n", h->name, h->bandwidth_working_set * 1e-6);
    else
        fprintf(out, "hardware: %s\n", h->name);
    fprintf(out, "workload: weights %s, kv %s, batch %d, prompt %d tokens, gen %d tokens\n", perfmodel_dtype_name(w->weights),
            perfmodel_dtype_name(w->kv), w->batch, w->prompt, w->gen);
    fprintf(out, "parameters: %lld\n", (long long)perfmodel_shape_parameters(m));
    fprintf(out, "weights_bytes: %.0f bytes\n", e->weights_bytes);
    fprintf(out, "kv_bytes_per_token: %.0f bytes\n", e->kv_bytes_per_token);
    fprintf(out, "kv_bytes_total: %.0f bytes\n", e->kv_bytes_total);
    fprintf(out, "activation_bytes: %.0f bytes\n", e->activation_bytes);
    fprintf(out, "memory_needed: %.2f GB\n", e->total_bytes * 1e-9);
    fprintf(out, "memory_capacity: %.2f GB\n", e->capacity_bytes * 1e-9);
    fprintf(out, "memory_usable: %.2f GB (%.0f %% of the capacity: the rest is the runtime's reserve)\n",
            e->usable_bytes * 1e-9, 100 * PERFMODEL_MEMORY_UTILIZATION);
    fprintf(out, "fits: %s\n", e->fits ? "yes" : "no");
    fprintf(out, "max_batch: %lld sequences\n", (long long)e->max_batch);
    fprintf(out, "peak: %.4g TFLOP/s (%s)\n", e->peak_flops * 1e-12, e->compute_type);
    if (!isinf(e->conversion_rate)) fprintf(out, "int8_conversion: %.4g Gweights/s\n", e->conversion_rate * 1e-9);
    fprintf(out, "bandwidth: %.4g GB/s\n", e->bandwidth * 1e-9);
    fprintf(out, "ridge: %.4g FLOP/byte\n", e->ridge_flop_per_byte);
    fprintf(out, "prefill_flops: %.4g FLOP\n", e->prefill_flops);
    fprintf(out, "prefill_bytes: %.4g bytes\n", e->prefill_bytes);
    fprintf(out, "prefill_time: %.4g ms\n", e->prefill_time_s * 1e3);
    fprintf(out, "prefill_bound: %s\n", e->prefill_bound);
    fprintf(out, "decode_context: %.1f tokens\n", e->decode_context);
    fprintf(out, "decode_step_flops: %.4g FLOP\n", e->decode_step_flops);
    fprintf(out, "decode_step_bytes: %.4g bytes\n", e->decode_step_bytes);
    fprintf(out, "decode_step_time: %.4g ms\n", e->decode_step_time_s * 1e3);
    fprintf(out, "decode_bound: %s\n", e->decode_bound);
    fprintf(out, "ttft: %.4g ms\n", e->ttft_s * 1e3);
    fprintf(out, "tpot: %.4g ms\n", e->tpot_s * 1e3);
    fprintf(out, "tokens_per_s: %.4g tokens/s\n", e->tokens_per_s);
    fprintf(out, "target_ttft: %.4g ms\n", targets->ttft_s * 1e3);
    fprintf(out, "target_tpot: %.4g ms\n", targets->tpot_s * 1e3);
    char lines[8][256];
    int count = perfmodel_suggest_next_steps(m, h, w, e, targets, lines, 8);
    for (int i = 0; i < count; i++) fprintf(out, "next_step: %s\n", lines[i]);
}

void perfmodel_print_estimate_json(FILE *out, const perfmodel_prediction *e)
{
    fprintf(out,
            "{\"weights_bytes\": %.0f, \"kv_bytes_per_token\": %.0f, \"kv_bytes_total\": %.0f, \"fits\": %s, "
            "\"max_batch\": %lld, \"prefill_flops\": %.17g, \"prefill_time_s\": %.17g, \"decode_step_bytes\": %.17g, "
            "\"decode_step_time_s\": %.17g, \"ttft_s\": %.17g, \"tpot_s\": %.17g, \"tokens_per_s\": %.17g, "
            "\"prefill_bound\": \"%s\", \"decode_bound\": \"%s\", \"ridge_flop_per_byte\": %.17g}\n",
            e->weights_bytes, e->kv_bytes_per_token, e->kv_bytes_total, e->fits ? "true" : "false", (long long)e->max_batch,
            e->prefill_flops, e->prefill_time_s, e->decode_step_bytes, e->decode_step_time_s, e->ttft_s, e->tpot_s,
            e->tokens_per_s, e->prefill_bound, e->decode_bound, e->ridge_flop_per_byte);
}
