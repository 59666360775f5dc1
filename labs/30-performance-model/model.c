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
    // TODO: the bytes the weights occupy, stored as `type`. Idea: size = count x width; the
    //       chapter's first number, 2 bytes a parameter in FP16.
    (void)m, (void)type;
    return 0;
}

double kv_bytes_per_token(const perfmodel_shape *m, perfmodel_dtype type)
{
    // TODO: the bytes of KV cache one token of one sequence leaves, stored as `type`. Idea: what
    //       attention keeps of a token, in every layer — and grouped-query attention keeps less
    //       than one entry per query head.
    (void)m, (void)type;
    return 0;
}

memory_plan plan_memory(const perfmodel_shape *m, const perfmodel_workload *w, double usable_bytes)
{
    // TODO: the budget of lab.h's memory_plan for this workload against `usable_bytes`: what
    //       the weights and the batch's KV cache need, whether they fit, and the largest batch
    //       of whole sequences that would. Idea: the weights are paid once, the KV cache per
    //       sequence; a batch that does not fit at all is 0, never negative.
    (void)m, (void)w, (void)usable_bytes;
    memory_plan p = {0};
    return p;
}

/* ---------------------------------------------------------------------------------
 * 2. The two phases, counted */

double mean_decode_context(int prompt, int gen)
{
    // TODO: the context a decode step attends, averaged over the generation's steps (lab.h
    //       says which steps, and what gen = 1 shows). Idea: one representative step stands
    //       for all of them because a step's cost is linear in its context.
    (void)prompt, (void)gen;
    return 0;
}

phase_cost prefill_cost(const perfmodel_shape *m, const perfmodel_workload *w)
{
    // TODO: the FLOPs and bytes of prefilling every prompt of the batch in one forward step
    //       (lab.h: what counts). Idea: every prompt row multiplies every matrix, but the weights
    //       cross the memory bus once for all of them — so a prefill is compute-heavy; attention
    //       grows with the square of the prompt; an untied embedding table is only looked up.
    (void)m, (void)w;
    phase_cost c = {0, 0};
    return c;
}

phase_cost decode_step_cost(const perfmodel_shape *m, const perfmodel_workload *w)
{
    // TODO: the FLOPs and bytes of one decode step of the batch, at the mean context. Idea:
    //       what the sequences share (the weights) and what each brings of its own (its KV
    //       cache, read and extended): the first makes batching nearly free, the second does not.
    (void)m, (void)w;
    phase_cost c = {0, 0};
    return c;
}

/* ---------------------------------------------------------------------------------
 * 3. The roofline */

bound roofline_bound(phase_cost cost, double peak_flop_per_s, double bandwidth_byte_per_s)
{
    // TODO: the least time a phase can take on a machine of this peak and bandwidth, and which
    //       of the two binds. Idea: the roofline — compute and memory traffic overlap.
    (void)cost, (void)peak_flop_per_s, (void)bandwidth_byte_per_s;
    bound b = {0, 0, 0, 0};
    return b;
}

plan predict(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w)
{
    // TODO: the whole plan of lab.h: the budget against the memory the book's one budget
    //       leaves usable (lib/perfmodel's constant), both phases counted and each bounded on
    //       this machine's roofline for these weights. Idea: TTFT is the prefill's bound, TPOT
    //       a decode step's.
    (void)m, (void)h, (void)w;
    plan p = {0};
    return p;
}

/* ---------------------------------------------------------------------------------
 * 4. The checklist */

checklist_row checklist(symptom s)
{
    // TODO: the chapter's table: for each symptom, its likely cause and the fixes to try
    //       (FIX_... or'ed together). A static table indexed by the symptom reads best.
    (void)s;
    checklist_row row = {CAUSES, 0};
    return row;
}

unsigned predicted_symptoms(const plan *p, const perfmodel_workload *w, const perfmodel_targets *targets)
{
    // TODO: the rows of lab.h a prediction shows against a service-level target (two never show).
    //       Contract: a row about a latency shows only when the plan misses that latency's target,
    //       and its cause must hold too; a target met exactly is met. Idea: a slow-looking phase is
    //       a symptom only if a user would notice it — the target says when they do.
    (void)p, (void)w, (void)targets;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * 5. The batch a TPOT target allows */

int64_t largest_batch_within_tpot(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w,
                                  double tpot_target_s)
{
    // TODO: the largest batch whose TPOT bound meets the target and whose budget fits (lab.h).
    //       Derive it: write a decode step of B sequences as what the batch shares plus B times
    //       what each sequence brings, put each line of the roofline under the target, solve each
    //       for B. Idea: the answer is the smallest of three limits — compute, memory traffic,
    //       memory capacity — and a batch is a whole number of sequences.
    (void)m, (void)h, (void)w, (void)tpot_target_s;
    return 0;
}
