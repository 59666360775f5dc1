/* model.c — Day 30: the core of the engineer's performance model, and the checklist.
 *
 * What you write today (lab.h says what each function counts, in lib/perfmodel's conventions):
 *   1. The memory budget: the weights' bytes, the KV cache's bytes per token and in all, whether
 *      they fit, and the largest batch that does.
 *   2. The two phases counted: the FLOPs and bytes of the prefill and of one decode step.
 *   3. The roofline bound of each, which resource binds it, and predict(), the whole plan.
 *   4. The troubleshooting checklist as a decision table, and the symptoms a plan predicts
 *      against a latency target.
 *   5. The largest batch a TPOT target allows, derived in closed form (the chapter's two lines).
 *
 * Rules: plain C. From lib/perfmodel you may call perfmodel_dtype_bytes,
 * perfmodel_shape_parameters and perfmodel_active_layer_matrix_parameters (the counting of
 * parameters, done on day 16) — not perfmodel_estimate, whose answers the checks compare yours with.
 *
 * Check:  make check DAY=30        Stuck?  make hint DAY=30
 */
#include "lab.h"

/* ---------------------------------------------------------------------------------
 * 1. The memory budget */

double weights_bytes(const perfmodel_shape *m, perfmodel_dtype type)
{
    return (double)perfmodel_shape_parameters(m) * perfmodel_dtype_bytes(type);
}

double kv_bytes_per_token(const perfmodel_shape *m, perfmodel_dtype type)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * perfmodel_dtype_bytes(type);
}

memory_plan plan_memory(const perfmodel_shape *m, const perfmodel_workload *w, double usable_bytes)
{
    memory_plan p = {0};
    double context = (double)w->prompt + w->gen;
    p.weights_bytes = weights_bytes(m, w->weights);
    p.kv_bytes_per_token = kv_bytes_per_token(m, w->kv);
    p.kv_bytes_total = w->batch * context * p.kv_bytes_per_token;
    p.needed_bytes = p.weights_bytes + p.kv_bytes_total;
    p.fits = p.needed_bytes <= usable_bytes;
    /* what is left beside the weights, in whole sequences of the full context */
    p.max_batch = p.weights_bytes > usable_bytes ? 0
                : (int64_t)floor((usable_bytes - p.weights_bytes) / (context * p.kv_bytes_per_token));
    return p;
}

/* ---------------------------------------------------------------------------------
 * 2. The two phases, counted */

double mean_decode_context(int prompt, int gen)
{
    return gen > 1 ? prompt + gen / 2.0 : prompt + 1.0;
}

/* the bytes of the weights a forward step of `rows` rows reads: all of them but the
 * embedding table, of which only the rows looked up (a tied table is the classifier: all) */
static double step_weight_bytes(const perfmodel_shape *m, perfmodel_dtype type, double rows)
{
    double table = (double)m->vocab * m->hidden;
    double read = (double)perfmodel_shape_parameters(m) - (m->tied_embeddings ? 0.0 : table - rows * m->hidden);
    return read * perfmodel_dtype_bytes(type);
}

/* the attention width summed over layers: every query head's head_dim in every layer */
static double attention_width(const perfmodel_shape *m) { return (double)m->layers * m->heads * m->head_dim; }

phase_cost prefill_cost(const perfmodel_shape *m, const perfmodel_workload *w)
{
    double batch = w->batch, prompt = w->prompt, rows = batch * prompt;
    double layer_matrices = (double)perfmodel_active_layer_matrix_parameters(m) * m->layers;
    double classifier = (double)m->vocab * m->hidden;
    phase_cost c;
    /* token t attends t + 1 positions: 1 + 2 + ... + prompt = prompt (prompt + 1) / 2, at 4 FLOPs */
    c.flops = batch * (prompt * 2.0 * layer_matrices + 2.0 * classifier + 2.0 * attention_width(m) * prompt * (prompt + 1.0));
    c.bytes = step_weight_bytes(m, w->weights, rows) + 2.0 * rows * kv_bytes_per_token(m, w->kv);
    return c;
}

phase_cost decode_step_cost(const perfmodel_shape *m, const perfmodel_workload *w)
{
    double batch = w->batch, context = mean_decode_context(w->prompt, w->gen);
    double layer_matrices = (double)perfmodel_active_layer_matrix_parameters(m) * m->layers;
    double classifier = (double)m->vocab * m->hidden;
    phase_cost c;
    c.flops = batch * (2.0 * layer_matrices + 2.0 * classifier + 4.0 * attention_width(m) * context);
    /* the weights once for the whole batch; the KV cache once per sequence: read all, write one */
    c.bytes = step_weight_bytes(m, w->weights, batch) + batch * (context + 1.0) * kv_bytes_per_token(m, w->kv);
    return c;
}

/* ---------------------------------------------------------------------------------
 * 3. The roofline */

bound roofline_bound(phase_cost cost, double peak_flop_per_s, double bandwidth_byte_per_s)
{
    bound b;
    b.compute_seconds = cost.flops / peak_flop_per_s;
    b.memory_seconds = cost.bytes / bandwidth_byte_per_s;
    b.memory_bound = b.memory_seconds > b.compute_seconds;
    b.seconds = b.memory_bound ? b.memory_seconds : b.compute_seconds;
    return b;
}

plan predict(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w)
{
    plan p;
    double peak = peak_flops_for(h, w->weights);
    p.memory = plan_memory(m, w, h->memory_bytes * PERFMODEL_MEMORY_UTILIZATION);
    p.decode_context = mean_decode_context(w->prompt, w->gen);
    p.prefill = prefill_cost(m, w);
    p.decode = decode_step_cost(m, w);
    p.ttft = roofline_bound(p.prefill, peak, h->bandwidth);
    p.tpot = roofline_bound(p.decode, peak, h->bandwidth);
    return p;
}

/* ---------------------------------------------------------------------------------
 * 4. The checklist */

checklist_row checklist(symptom s)
{
    static const checklist_row rows[SYMPTOMS] = {
        [SYMPTOM_HIGH_TTFT_LONG_PROMPTS] = {CAUSE_PREFILL_COMPUTE, FIX_PREFIX_CACHING | FIX_TENSOR_PARALLEL},
        [SYMPTOM_HIGH_TPOT_SMALL_BATCH] = {CAUSE_WEIGHT_BANDWIDTH, FIX_LARGER_BATCH | FIX_CONTINUOUS_BATCHING | FIX_QUANTIZE_WEIGHTS},
        [SYMPTOM_SLOWER_AS_CONTEXT_GROWS] = {CAUSE_KV_BANDWIDTH, FIX_FEWER_KV_HEADS | FIX_PAGED_KV | FIX_QUANTIZE_KV},
        [SYMPTOM_JITTERY_UTILISATION] = {CAUSE_LAUNCH_OVERHEAD, FIX_CUDA_GRAPHS | FIX_KERNEL_FUSION},
        [SYMPTOM_OUT_OF_MEMORY] = {CAUSE_KV_MEMORY, FIX_PAGED_KV | FIX_SMALLER_BATCH | FIX_QUANTIZE_KV},
        [SYMPTOM_THROUGHPUT_FLAT_IN_BATCH] = {CAUSE_NOTHING_LEFT_TO_SHARE, FIX_TENSOR_PARALLEL},
        [SYMPTOM_TPOT_SPIKES_DURING_PREFILL] = {CAUSE_PREFILL_STALLS_DECODE, FIX_CHUNKED_PREFILL},
    };
    return rows[s];
}

unsigned predicted_symptoms(const plan *p, const perfmodel_workload *w, const perfmodel_targets *targets)
{
    unsigned shown = 0;
    double kv_read = w->batch * (p->decode_context + 1.0) * p->memory.kv_bytes_per_token;
    int tpot_missed = p->tpot.seconds > targets->tpot_s, ttft_missed = p->ttft.seconds > targets->ttft_s;
    if (!p->memory.fits) shown |= 1u << SYMPTOM_OUT_OF_MEMORY;
    if (tpot_missed && p->tpot.memory_bound && p->memory.max_batch > w->batch)
        shown |= 1u << SYMPTOM_HIGH_TPOT_SMALL_BATCH;
    if (tpot_missed && p->tpot.memory_bound && kv_read > 0.3 * p->decode.bytes)
        shown |= 1u << SYMPTOM_SLOWER_AS_CONTEXT_GROWS;
    if (!p->tpot.memory_bound) shown |= 1u << SYMPTOM_THROUGHPUT_FLAT_IN_BATCH;
    if (ttft_missed && !p->ttft.memory_bound) shown |= 1u << SYMPTOM_HIGH_TTFT_LONG_PROMPTS;
    return shown;
}

/* ---------------------------------------------------------------------------------
 * 5. The batch a TPOT target allows */

int64_t largest_batch_within_tpot(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w,
                                  double tpot_target_s)
{
    /* a step of B sequences is linear in B: shared bytes + B x each one's bytes, B x each one's FLOPs */
    perfmodel_workload one = *w, two = *w;
    one.batch = 1, two.batch = 2;
    phase_cost c1 = decode_step_cost(m, &one), c2 = decode_step_cost(m, &two);
    double flops_each = c2.flops - c1.flops, bytes_each = c2.bytes - c1.bytes, shared = c1.bytes - bytes_each;
    /* both lines of the roofline under the target: B f / peak <= T and (W + B k) / bandwidth <= T */
    double by_compute = floor(tpot_target_s * peak_flops_for(h, w->weights) / flops_each);
    double by_memory = floor((tpot_target_s * h->bandwidth - shared) / bytes_each);
    double fits = (double)plan_memory(m, &one, h->memory_bytes * PERFMODEL_MEMORY_UTILIZATION).max_batch;
    double most = fmin(fmin(by_compute, by_memory), fits);
    return most < 1 ? 0 : (int64_t)most;
}
