/* phases.c — Day 19: prefill and decode, the two phases of a request, run on the toy Llama
 * with instrumentation, and counted from the model's shape.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. run_prefill_then_decode: the prefill and one decode step on the engine, each phase's
 *      counters (llama_session.counters) and wall-clock time kept apart, the decode step's logits.
 *   2. stored_weight_bytes, step_counts, prefill_counts, decode_counts: what each phase
 *      computes and moves, from the shape alone — day 13's GEMM (M = prompt rows) and GEMV
 *      (M = 1) counts, summed over a whole model.
 *   3. phase_intensity and intensity_ratio_estimate: FLOPs per byte of each phase, and the
 *      factor by which prefill's exceeds decode's.
 *   4. kv_reads_pass_weights_at: your prediction of the prompt at which a prefill reads more
 *      bytes of KV cache than of weights, before the engine's counters show it.
 *
 * Rules: plain C; the engine only through llama.h's functions. Count in double: a 15M model's
 * prefill is billions of FLOPs. The tests compare your counts with the engine's own counters
 * exactly, for grouped-query and multi-head shapes, tied and untied classifiers, FP32 and INT8.
 *
 * Check:  make check DAY=19        Stuck?  make hint DAY=19
 */
#include "lab.h"

#include <string.h>

/* ---------------------------------------------------------------------------------
 * 1. The two phases, instrumented */

phase_run run_prefill_then_decode(llama_session *s, const int *prompt, int n, int next, float *decode_logits)
{
    static char error[512];
    phase_run run = {0};
    int vocab = s->transformer->config.vocab_size, sequence = 0;

    memset(&s->counters, 0, sizeof s->counters);   /* each phase counted from zero */
    double start = lab_seconds();
    const float *logits = llama_prefill(s, sequence, prompt, n, error, sizeof error);
    run.prefill_seconds = lab_seconds() - start;
    if (!logits) return run.error = error, run;
    run.prefill = s->counters;

    memset(&s->counters, 0, sizeof s->counters);
    start = lab_seconds();
    logits = llama_decode_batch(s, &sequence, &next, 1, error, sizeof error);
    run.decode_seconds = lab_seconds() - start;
    if (!logits) return run.error = error, run;
    run.decode = s->counters;
    memcpy(decode_logits, logits, (size_t)vocab * sizeof(float));   /* valid only until the next call */
    return run;
}

/* ---------------------------------------------------------------------------------
 * 2. The counts */

double stored_weight_bytes(const stored_model *m, double values)
{
    return m->format == WEIGHTS_INT8 ? values + 4.0 * values / m->group_size : 4.0 * values;
}

/* the weight values of one layer's seven matrices */
static double layer_matrix_values(const llama_config *c)
{
    double dim = c->dim, kv_dim = llama_kv_dim_of(c), hidden = c->hidden_dim;
    return dim * dim + 2 * kv_dim * dim + dim * dim + 3 * hidden * dim;   /* Wq, Wk + Wv, Wo, W1 W2 W3 */
}

phase_counts step_counts(const stored_model *m, int first_position, int rows, int logit_rows)
{
    const llama_config *c = &m->config;
    double layers = c->n_layers, classifier = (double)c->vocab_size * c->dim;
    double kv_dim = llama_kv_dim_of(c), head_dim = llama_head_dim_of(c);
    /* positions attended by all rows: row r sits at first_position + r and attends that many + 1 */
    double attended = (double)rows * first_position + (double)rows * (rows + 1) / 2;
    phase_counts p;
    p.steps = 1;
    p.rows = rows;
    /* day 13's GEMM: 2 M N K with M = rows for the layers, M = logit_rows for the classifier */
    p.matmul_flops = 2.0 * rows * layers * layer_matrix_values(c) + 2.0 * logit_rows * classifier;
    p.attention_flops = 4.0 * head_dim * c->n_heads * attended * layers;
    /* every matrix once, whatever M is; the classifier only when it is used */
    p.weight_bytes = stored_weight_bytes(m, layers * layer_matrix_values(c) + (logit_rows > 0 ? classifier : 0)) +
                     stored_weight_bytes(m, (double)rows * c->dim);
    p.kv_write_bytes = 2.0 * kv_dim * 4 * rows * layers;
    p.kv_read_bytes = 2.0 * kv_dim * 4 * attended * layers;
    return p;
}

static void add_counts(phase_counts *sum, const phase_counts *step)
{
    sum->steps += step->steps;
    sum->rows += step->rows;
    sum->matmul_flops += step->matmul_flops;
    sum->attention_flops += step->attention_flops;
    sum->weight_bytes += step->weight_bytes;
    sum->kv_write_bytes += step->kv_write_bytes;
    sum->kv_read_bytes += step->kv_read_bytes;
}

phase_counts prefill_counts(const stored_model *m, int prompt, int step_rows)
{
    phase_counts sum = {0};
    for (int first = 0; first < prompt; first += step_rows) {
        int rows = prompt - first < step_rows ? prompt - first : step_rows;
        int last = first + rows == prompt;
        phase_counts step = step_counts(m, first, rows, last ? 1 : 0);
        add_counts(&sum, &step);
    }
    return sum;
}

phase_counts decode_counts(const stored_model *m, int position)
{
    return step_counts(m, position, 1, 1);
}

/* ---------------------------------------------------------------------------------
 * 3. Intensity */

double phase_intensity(const phase_counts *c)
{
    return (c->matmul_flops + c->attention_flops) / (c->weight_bytes + c->kv_write_bytes + c->kv_read_bytes);
}

double intensity_ratio_estimate(const stored_model *m, int prompt)
{
    const llama_config *c = &m->config;
    double layers = c->n_layers * layer_matrix_values(c), classifier = (double)c->vocab_size * c->dim;
    return ((double)prompt * layers + classifier) / (layers + classifier);
}

/* ---------------------------------------------------------------------------------
 * 4. The crossing, predicted */

int kv_reads_pass_weights_at(double weight_bytes, double kv_bytes_per_position)
{
    if (!(weight_bytes > 0) || !(kv_bytes_per_position > 0)) return -1;
    /* n rows read 1 + 2 + ... + n positions: the first n where that passes the weights */
    int n = 1;
    while (kv_bytes_per_position * n * (n + 1) / 2 <= weight_bytes) n++;
    return n;
}
