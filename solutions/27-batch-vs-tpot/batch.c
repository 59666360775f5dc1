/* batch.c — Day 27: why TPOT stays flat as the batch grows, and where it stops being flat.
 *
 * What you write today, in the order of lab.h (whose comment at the top fixes every count):
 *   1. step_flops, step_bytes, predicted_tpot, predicted_tokens_per_s: one decode step of a
 *      batch on the roofline — what grows with the batch and what is read once for all of it.
 *   2. knee_batch: the batch at which the compute time catches up with the memory time, in
 *      closed form, the KV cache's traffic included (and INFINITY when it never does).
 *   3. decode_steps: batched decode on the book's toy Llama, timed by this thread's CPU time.
 *
 * Rules: plain C; the engine only through llama.h's functions. The tests compare your
 * predictions with lib/perfmodel's for Llama-2-7B, Llama-2-70B and Llama-3-8B on an H100 and
 * an A100, your knee with the closed form and with perfmodel's verdict on either side of it,
 * and your batched decode with the engine's counters and with each sequence decoded alone.
 *
 * Check:  make check DAY=27        Stuck?  make hint DAY=27
 */
#include "lab.h"

#include <math.h>

/* ---------------------------------------------------------------------------------
 * 1. The predicted step */

double step_flops(const decode_model *m, int batch, double context)
{
    /* every token of the batch goes through every matrix and attends its own context */
    return batch * (m->flops_per_token + m->attention_flops_per_position * context);
}

double step_bytes(const decode_model *m, int batch, double context)
{
    /* the weights once for the whole batch; per sequence its embedding row, its cache read
     * (context positions) and its new position written */
    return m->weight_bytes + batch * (m->token_bytes + (context + 1.0) * m->kv_bytes_per_position);
}

double predicted_tpot(const decode_model *m, const machine *hw, int batch, double context)
{
    double compute = step_flops(m, batch, context) / hw->peak_flop_per_s;
    double memory = step_bytes(m, batch, context) / hw->bandwidth_byte_per_s;
    return fmax(compute, memory);
}

double predicted_tokens_per_s(const decode_model *m, const machine *hw, int batch, double context)
{
    return batch / predicted_tpot(m, hw, batch, context);   /* one token per sequence per step */
}

/* ---------------------------------------------------------------------------------
 * 2. The knee */

double knee_batch(const decode_model *m, const machine *hw, double context)
{
    /* compute B f / P = memory (W + B k) / BW, with f and k one sequence's FLOPs and bytes:
     * B = (W / BW) / (f / P - k / BW). Each sequence must add more compute time than memory
     * time, or the compute never catches up. */
    double f = m->flops_per_token + m->attention_flops_per_position * context;
    double k = m->token_bytes + (context + 1.0) * m->kv_bytes_per_position;
    double gain = f / hw->peak_flop_per_s - k / hw->bandwidth_byte_per_s;
    if (!(gain > 0)) return INFINITY;
    return (m->weight_bytes / hw->bandwidth_byte_per_s) / gain;
}

/* ---------------------------------------------------------------------------------
 * 3. Batched decode, timed */

decode_run decode_steps(llama_session *s, int batch, int steps, int *tokens)
{
    static char error[512];
    decode_run run = {0};
    int vocab = s->transformer->config.vocab_size;
    int sequences[batch];
    for (int i = 0; i < batch; i++) sequences[i] = i;
    double start = lab_thread_seconds();
    for (int step = 0; step < steps; step++) {
        /* one forward step for the whole batch: every weight read once for all of it */
        const float *logits = llama_decode_batch(s, sequences, tokens, batch, error, sizeof error);
        if (!logits) return run.error = error, run;
        for (int i = 0; i < batch; i++) tokens[i] = llama_argmax(logits + (size_t)i * vocab, vocab);
    }
    run.seconds_per_step = (lab_thread_seconds() - start) / steps;
    return run;
}
