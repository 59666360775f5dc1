/* estimate.c — the arithmetic of the performance model (perfmodel.h says what it counts):
 * bytes of weights in each format, the memory budget and the largest batch that fits,
 * then FLOPs and bytes of prefill and of a decode step, and their roofline times. */
#include "perfmodel.h"

#include <math.h>
#include <stdio.h>

/* ----------------------------------------------------------------------------------
 * Bytes of weights */

static int quantized(perfmodel_dtype type) { return type == DTYPE_INT8 || type == DTYPE_INT4; }

static int quant_group(const perfmodel_shape *m)
{
    /* the engine halves its group until it divides every row (lib/llama/config.c); do the same */
    int group = QUANT_GROUP;
    while (group > 1 && (m->hidden % group != 0 || m->intermediate % group != 0)) group /= 2;
    return group;
}

/* bytes of `matrix` matrix parameters stored as `type`: a quantized group also keeps its
 * 4-byte scale, and INT4's a 1-byte zero point (lib/llama/quantize.c, day 25's format) */
static double matrix_bytes(const perfmodel_shape *m, double matrix, perfmodel_dtype type)
{
    if (!quantized(type)) return matrix * perfmodel_dtype_bytes(type);
    double per_group = type == DTYPE_INT4 ? 5.0 : 4.0;
    return matrix * perfmodel_dtype_bytes(type) + per_group * floor(matrix / quant_group(m));
}

static double vector_bytes(const perfmodel_shape *m, perfmodel_dtype type)
{
    return (double)perfmodel_vector_parameters(m) * (quantized(type) ? 4.0 : perfmodel_dtype_bytes(type));
}

/* Matrix weights a forward step over `tokens` token rows reads: every layer's attention
 * and the experts its tokens are routed to (uniform routing: of E experts, k per token,
 * the expected number touched by n tokens is E (1 - (1 - k/E)^n)), the classifier, and
 * the embedding rows looked up (already counted when the classifier is the embedding). */
static double step_matrix_parameters(const perfmodel_shape *m, double tokens)
{
    double expert = 3.0 * m->hidden * (double)m->intermediate;
    double experts_touched = m->experts == 1 ? 1.0 : m->experts * (1.0 - pow(1.0 - (double)m->experts_per_token / m->experts, tokens));
    double attention = (double)perfmodel_active_layer_matrix_parameters(m) - m->experts_per_token * expert;
    double layer_matrices = attention + experts_touched * expert;
    double table = (double)m->vocab * m->hidden;
    double lookups = m->tied_embeddings ? 0.0 : fmin(tokens, m->vocab) * m->hidden;
    return m->layers * layer_matrices + table + lookups;
}

/* ... and their bytes, with the norm vectors */
static double step_weight_bytes(const perfmodel_shape *m, perfmodel_dtype type, double tokens)
{
    return matrix_bytes(m, step_matrix_parameters(m, tokens), type) + vector_bytes(m, type);
}

/* ----------------------------------------------------------------------------------
 * The memory budget */

static llama_config engine_config(const perfmodel_shape *m, int context)
{
    return (llama_config){.dim = m->heads * m->head_dim, .hidden_dim = m->intermediate, .n_layers = m->layers,
                         .n_heads = m->heads, .n_kv_heads = m->kv_heads, .vocab_size = m->vocab, .seq_len = context,
                         .shared_classifier = m->tied_embeddings};
}

static double budget(const perfmodel_shape *m, const perfmodel_workload *w, const perfmodel_prediction *e, int64_t batch)
{
    int context = w->prompt + w->gen;
    llama_config config = engine_config(m, context);
    int batch_for_buffers = batch > (1 << 30) ? (1 << 30) : (int)batch;
    return e->weights_bytes + (double)batch * context * e->kv_bytes_per_token +
           (double)llama_activation_bytes_of(&config, batch_for_buffers, context, 1);
}

static int64_t largest_batch(const perfmodel_shape *m, const perfmodel_workload *w, const perfmodel_prediction *e)
{
    if (budget(m, w, e, 1) > e->usable_bytes) return 0;
    int64_t fits = 1, too_many = 2;
    while (budget(m, w, e, too_many) <= e->usable_bytes && too_many < ((int64_t)1 << 40)) fits = too_many, too_many *= 2;
    while (too_many - fits > 1) {   /* the budget grows with the batch: bisect */
        int64_t middle = fits + (too_many - fits) / 2;
        if (budget(m, w, e, middle) <= e->usable_bytes) fits = middle;
        else too_many = middle;
    }
    return fits;
}

double perfmodel_kv_room_bytes(const perfmodel_prediction *e)
{
    return e->usable_bytes - e->weights_bytes - e->activation_bytes;
}

/* ----------------------------------------------------------------------------------
 * Compute rates */

static double compute_rate(const perfmodel_hardware *h, perfmodel_dtype weights, const char **name)
{
    if (h->is_cpu) {
        *name = "fp32 FMA (measured; the engine computes in FP32)";
        return h->fp32_flops;
    }
    switch (weights) {
    case DTYPE_FP32: *name = "fp32 (CUDA cores)"; return h->fp32_flops;
    case DTYPE_BF16:
        if (!isnan(h->bf16_tensor_flops)) { *name = "bf16 tensor"; return h->bf16_tensor_flops; }
        *name = "fp16 tensor (this GPU has no bf16 tensor cores)";
        return h->fp16_tensor_flops;
    case DTYPE_FP8:
        if (!isnan(h->fp8_tensor_flops)) { *name = "fp8 tensor"; return h->fp8_tensor_flops; }
        *name = "fp16 tensor (no fp8 tensor cores: weights dequantized to fp16)";
        return h->fp16_tensor_flops;
    case DTYPE_INT8: case DTYPE_INT4:
        *name = "fp16 tensor (weight-only: dequantized to fp16)";
        return h->fp16_tensor_flops;
    default: *name = "fp16 tensor"; return h->fp16_tensor_flops;
    }
}

/* Weights a second a CPU converts from int8 to float: the probe's FLOP/s over the 2 FLOPs
 * of the FMA each converted weight feeds. Infinite where nothing is converted (float
 * weights) or the conversion is not modelled (GPUs: it hides behind the tensor cores). */
static double conversion_rate(const perfmodel_hardware *h, perfmodel_dtype weights)
{
    return h->is_cpu && quantized(weights) && !isnan(h->dequantizing_flops) ? h->dequantizing_flops / 2 : INFINITY;
}

/* ----------------------------------------------------------------------------------
 * The estimate */

int perfmodel_validate_workload(const perfmodel_shape *m, const perfmodel_workload *w, char *error, size_t error_size)
{
    if (w->batch < 1 || w->prompt < 1 || w->gen < 1) {
        snprintf(error, error_size, "batch, prompt and gen must each be at least 1 (got %d, %d, %d)", w->batch, w->prompt, w->gen);
        return -1;
    }
    int64_t context = (int64_t)w->prompt + w->gen;
    if (context > (1 << 24)) {
        snprintf(error, error_size, "a context of %lld tokens is beyond what the model counts (16M)", (long long)context);
        return -1;
    }
    if (m->max_context > 0 && context > m->max_context) {
        snprintf(error, error_size, "prompt %d + gen %d = %lld tokens does not fit the model's context of %d tokens (seq_len)",
                 w->prompt, w->gen, (long long)context, m->max_context);
        return -1;
    }
    return 0;
}

/* The roofline's bound: the larger of the compute time (FMAs at the peak, or converting
 * each quantized weight once, whichever is longer) and the memory time. */
static double roofline_time(double flops, double converted_weights, double bytes, const perfmodel_prediction *e, const char **bound)
{
    double compute = fmax(flops / e->peak_flops, converted_weights / e->conversion_rate), memory = bytes / e->bandwidth;
    *bound = compute > memory ? "compute" : "memory";
    return fmax(compute, memory);
}

void perfmodel_estimate(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w, perfmodel_prediction *e)
{
    *e = (perfmodel_prediction){0};
    double batch = w->batch, prompt = w->prompt, gen = w->gen;
    double attention_width = (double)m->layers * m->heads * m->head_dim;   /* summed over layers */
    double classifier = (double)m->vocab * m->hidden;

    /* memory */
    e->weights_bytes = matrix_bytes(m, (double)(perfmodel_shape_parameters(m) - perfmodel_vector_parameters(m)), w->weights) + vector_bytes(m, w->weights);
    e->kv_bytes_per_token = (double)llama_kv_cache_bytes(m->layers, m->kv_heads, m->head_dim, 1, 1, 1) * perfmodel_dtype_bytes(w->kv);
    e->kv_bytes_total = batch * (prompt + gen) * e->kv_bytes_per_token;
    llama_config config = engine_config(m, w->prompt + w->gen);
    e->activation_bytes = (double)llama_activation_bytes_of(&config, w->batch, w->prompt + w->gen, 1);
    e->total_bytes = e->weights_bytes + e->kv_bytes_total + e->activation_bytes;
    e->capacity_bytes = h->memory_bytes;
    e->usable_bytes = h->memory_bytes * PERFMODEL_MEMORY_UTILIZATION;
    e->fits = e->total_bytes <= e->usable_bytes;
    e->max_batch = largest_batch(m, w, e);

    /* the roofline */
    e->peak_flops = compute_rate(h, w->weights, &e->compute_type);
    e->conversion_rate = conversion_rate(h, w->weights);
    e->bandwidth = h->bandwidth;
    e->ridge_flop_per_byte = e->peak_flops / e->bandwidth;

    /* prefill: every prompt token through every layer; attention of token t over t+1
     * positions (QK and AV: 4 FLOPs per head dimension per position); logits for the last
     * token of each prompt. A GPU multiplies all the rows in one GEMM per matrix, reading each
     * weight once; the book's CPU engine takes steps of LLAMA_MAX_STEP_ROWS rows, each reading
     * the weights again: a limit of that engine, kept for the CPU only. */
    double rows = batch * prompt, steps = h->is_cpu ? ceil(rows / LLAMA_MAX_STEP_ROWS) : 1.0;
    e->prefill_flops = batch * (prompt * 2.0 * m->layers * (double)perfmodel_active_layer_matrix_parameters(m) + 2.0 * classifier +
                                2.0 * attention_width * prompt * (prompt + 1.0));
    double step_rows = h->is_cpu ? fmin(rows, LLAMA_MAX_STEP_ROWS) : rows;
    e->prefill_bytes = steps * step_weight_bytes(m, w->weights, step_rows) + 2.0 * rows * e->kv_bytes_per_token;
    e->prefill_time_s = roofline_time(e->prefill_flops, steps * step_matrix_parameters(m, step_rows), e->prefill_bytes, e,
                                      &e->prefill_bound);

    /* decode: step i of the gen - 1 steps attends prompt + i positions; the mean step
     * attends prompt + gen / 2 (with gen = 1 there is no step: the next one is shown) */
    e->decode_context = w->gen > 1 ? prompt + gen / 2.0 : prompt + 1.0;
    e->decode_step_flops = batch * (2.0 * m->layers * (double)perfmodel_active_layer_matrix_parameters(m) + 2.0 * classifier +
                                    4.0 * attention_width * e->decode_context);
    e->decode_step_bytes = step_weight_bytes(m, w->weights, batch) +
                           batch * (e->decode_context + 1.0) * e->kv_bytes_per_token;   /* read all, write one */
    e->decode_step_time_s = roofline_time(e->decode_step_flops, step_matrix_parameters(m, batch), e->decode_step_bytes, e,
                                          &e->decode_bound);

    /* what a user sees */
    e->ttft_s = e->prefill_time_s;
    e->tpot_s = e->decode_step_time_s;
    e->total_time_s = e->ttft_s + (gen - 1.0) * e->tpot_s;
    e->tokens_per_s = batch * gen / e->total_time_s;
}
