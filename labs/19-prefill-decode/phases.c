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
    // TODO task: prefill `prompt` into sequence 0, then decode `next` after it, and keep what
    //      each phase alone counted and how long its engine call took.
    // contract: run.prefill and run.decode hold one phase's counters each, whatever the session
    //      counted before this call; the times are wall-clock (lab_seconds); decode_logits gets
    //      the decode step's vocab_size logits. An engine call that refuses (NULL) ends the run
    //      with run.error pointing at the engine's text, still readable after you return.
    // idea: the session's counters only ever add up; a phase alone is counted from zero.
    (void)s, (void)prompt, (void)n, (void)next, (void)decode_logits;
    phase_run run = {0};
    run.error = "run_prefill_then_decode is not written yet (phases.c)";
    return run;
}

/* ---------------------------------------------------------------------------------
 * 2. The counts */

double stored_weight_bytes(const stored_model *m, double values)
{
    // TODO task: the bytes `values` weights take as the model stores them (lab.h's formats).
    // contract: values >= 0 (0 values are 0 bytes); FP32, or INT8 in groups of group_size.
    // idea: a quantized weight is not one byte: its share of its group's scale comes with it.
    (void)m, (void)values;
    return 0;
}

phase_counts step_counts(const stored_model *m, int first_position, int rows, int logit_rows)
{
    // TODO task: what one forward step of `rows` tokens computes and moves, from the shape alone.
    // contract: lab.h's conventions, which are the engine's (the tests want its counters
    //      exactly): any rows >= 1, logit_rows from 0 to rows, grouped-query or multi-head, tied
    //      or untied classifier, FP32 or INT8. Count in double.
    // idea: a GEMM's FLOPs grow with its rows and its weight bytes do not; attention's work
    //      grows with the positions each row attends.
    (void)m, (void)first_position, (void)rows, (void)logit_rows;
    phase_counts p = {0};
    return p;
}

phase_counts prefill_counts(const stored_model *m, int prompt, int step_rows)
{
    // TODO task: a whole prefill as the engine runs it, in steps of at most step_rows rows.
    // contract: prompt >= 1, step_rows >= 1; the sum of its steps; only the prompt's last token
    //      gets logits.
    // idea: every step reads every weight again: cutting a prompt into chunks costs bytes.
    (void)m, (void)prompt, (void)step_rows;
    phase_counts p = {0};
    return p;
}

phase_counts decode_counts(const stored_model *m, int position)
{
    // TODO task: one decode step, the token at `position` (the sequence holds `position` tokens).
    // idea: decode is a step of one row, with logits.
    (void)m, (void)position;
    phase_counts p = {0};
    return p;
}

/* ---------------------------------------------------------------------------------
 * 3. Intensity */

double phase_intensity(const phase_counts *c)
{
    // TODO task: a phase's arithmetic intensity, the roofline's x axis.
    // contract: FLOP per byte, every FLOP and every byte the counts hold.
    (void)c;
    return 0;
}

double intensity_ratio_estimate(const stored_model *m, int prompt)
{
    // TODO task: the chapter's estimate of prefill's intensity over decode's, from the shape.
    // contract: prompt >= 1 and short enough for one step; attention, the KV cache and the
    //      embedding rows left out.
    // idea: both phases read the same weights once, so their intensities stand as their FLOPs.
    (void)m, (void)prompt;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 4. The crossing, predicted */

int kv_reads_pass_weights_at(double weight_bytes, double kv_bytes_per_position)
{
    // TODO task: predict the prompt at which a prefill reads more bytes of KV cache than of weights.
    // contract: lab.h: the smallest such prompt, the prefill run as one step; "more" is strictly
    //      more; -1 when an argument is not positive. The tests hold your answer against the
    //      engine's counters at that prompt and at the one before it.
    // idea: each row re-reads every earlier position, so the KV bytes grow with the square of
    //      the prompt while the weights are read once.
    (void)weight_bytes, (void)kv_bytes_per_position;
    return 0;
}
