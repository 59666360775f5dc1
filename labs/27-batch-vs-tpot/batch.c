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
    // TODO: every token of the batch goes through every matrix (flops_per_token) and attends
    //       `context` positions (attention_flops_per_position each).
    (void)m, (void)batch, (void)context;
    return 0;
}

double step_bytes(const decode_model *m, int batch, double context)
{
    // TODO: which of lab.h's pieces is read once for the whole batch, and which once per
    //       sequence? Each sequence reads its `context` cached positions and writes one more.
    (void)m, (void)batch, (void)context;
    return 0;
}

double predicted_tpot(const decode_model *m, const machine *hw, int batch, double context)
{
    // TODO: the time the FLOPs need at the peak, the time the bytes need at the bandwidth; the
    //       roofline assumes the two overlap (day 14).
    (void)m, (void)hw, (void)batch, (void)context;
    return 0;
}

double predicted_tokens_per_s(const decode_model *m, const machine *hw, int batch, double context)
{
    // TODO: how many tokens does one step give, and how long does it take?
    (void)m, (void)hw, (void)batch, (void)context;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 2. The knee */

double knee_batch(const decode_model *m, const machine *hw, double context)
{
    // TODO: write the compute time and the memory time of a step of B sequences, set them
    //       equal and solve for B. What does the answer mean when its denominator is not
    //       positive? Return INFINITY then.
    (void)m, (void)hw, (void)context;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 3. Batched decode, timed */

decode_run decode_steps(llama_session *s, int batch, int steps, int *tokens)
{
    // TODO: `steps` greedy decode steps of sequences 0 .. batch-1 together (lab.h), and the time
    //       per step by this thread's CPU time (lab_thread_seconds: a wall clock counts the time
    //       other programs hold the core, and is refused); the engine's refusal as its error
    //       text, still valid after you return. Idea: one forward step for the whole batch, so
    //       every weight is read once for all of it.
    (void)s, (void)batch, (void)steps, (void)tokens;
    decode_run run = {0};
    run.error = "decode_steps is not written yet (batch.c)";
    return run;
}
