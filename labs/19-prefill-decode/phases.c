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
    // TODO: zero s->counters, time llama_prefill(s, 0, prompt, n, ...) with lab_seconds(), keep
    //       the counters in run.prefill; zero them again, time one llama_decode_batch of `next`
    //       for sequence 0, keep run.decode; copy its logits (vocab_size floats) into
    //       decode_logits before anything else calls the engine. If a call returns NULL, set
    //       run.error to the engine's error text and return.
    (void)s, (void)prompt, (void)n, (void)next, (void)decode_logits;
    phase_run run = {0};
    run.error = "run_prefill_then_decode is not written yet (phases.c)";
    return run;
}

/* ---------------------------------------------------------------------------------
 * 2. The counts */

double stored_weight_bytes(const stored_model *m, double values)
{
    // TODO: FP32: 4 bytes a value. INT8: 1 byte a value and a 4-byte scale per group_size values.
    (void)m, (void)values;
    return 0;
}

phase_counts step_counts(const stored_model *m, int first_position, int rows, int logit_rows)
{
    // TODO: day 13's GEMM for every matrix of every layer, M = rows: 2 x rows x outputs x inputs
    //       (Wq, Wk, Wv, Wo, W1, W2, W3: which are dim x dim, which kv_dim x dim?); the classifier
    //       (vocab x dim) for the logit rows only. Attention: row r sits at first_position + r and
    //       attends every position up to its own. Weights: each matrix once in the step, however
    //       many rows; the classifier only when logit_rows > 0; one embedding row per row.
    (void)m, (void)first_position, (void)rows, (void)logit_rows;
    phase_counts p = {0};
    return p;
}

phase_counts prefill_counts(const stored_model *m, int prompt, int step_rows)
{
    // TODO: the prompt in steps of step_rows rows (the last may be shorter), summed; only the
    //       last step computes logits, for one row.
    (void)m, (void)prompt, (void)step_rows;
    phase_counts p = {0};
    return p;
}

phase_counts decode_counts(const stored_model *m, int position)
{
    // TODO: one step of one row at `position`, with its logits.
    (void)m, (void)position;
    phase_counts p = {0};
    return p;
}

/* ---------------------------------------------------------------------------------
 * 3. Intensity */

double phase_intensity(const phase_counts *c)
{
    // TODO: every FLOP over every byte.
    (void)c;
    return 0;
}

double intensity_ratio_estimate(const stored_model *m, int prompt)
{
    // TODO: both phases read the same weights once, so their intensities stand as their matrix
    //       FLOPs: prompt rows through the layers plus one through the classifier, against one
    //       row through both.
    (void)m, (void)prompt;
    return 0;
}
