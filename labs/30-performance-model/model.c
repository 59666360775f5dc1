/* model.c — Day 30: the core of the engineer's performance model, and the checklist.
 *
 * What you write today (lab.h says what each function counts, in lib/perfmodel's conventions):
 *   1. The memory budget: the weights' bytes, the KV cache's bytes per token and in all, whether
 *      they fit, and the largest batch that does.
 *   2. The two phases counted: the FLOPs and bytes of the prefill and of one decode step.
 *   3. The roofline bound of each, which resource binds it, and predict(), the whole plan.
 *   4. The troubleshooting checklist as a decision table, and the symptoms a plan predicts.
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
    // TODO: every parameter once (perfmodel_shape_parameters), at the bytes of one element of
    //       `type` (perfmodel_dtype_bytes).
    (void)m, (void)type;
    return 0;
}

double kv_bytes_per_token(const perfmodel_shape *m, perfmodel_dtype type)
{
    // TODO: one token leaves a key and a value in every layer, for every KV head (kv_heads,
    //       not heads: grouped-query attention shares them), head_dim values each.
    (void)m, (void)type;
    return 0;
}

memory_plan plan_memory(const perfmodel_shape *m, const perfmodel_workload *w, double usable_bytes)
{
    // TODO: the weights and KV bytes per token from the two functions above; the KV cache of
    //       every sequence's whole context (prompt + gen tokens); fits when weights + KV cache
    //       <= usable_bytes. max_batch: how many whole sequences of that context fit in what the
    //       weights leave (round down; 0 when the weights alone are too big).
    (void)m, (void)w, (void)usable_bytes;
    memory_plan p = {0};
    return p;
}

/* ---------------------------------------------------------------------------------
 * 2. The two phases, counted */

double mean_decode_context(int prompt, int gen)
{
    // TODO: the gen - 1 steps attend prompt + 1, prompt + 2, ... positions: their mean. And
    //       gen = 1 (no step at all) shows the next one.
    (void)prompt, (void)gen;
    return 0;
}

phase_cost prefill_cost(const perfmodel_shape *m, const perfmodel_workload *w)
{
    // TODO: per sequence, prompt rows through every layer's matrices (2 FLOPs a weight a row;
    //       perfmodel_active_layer_matrix_parameters is one layer's), the classifier (vocab x
    //       hidden) for the last token only, and attention: token t attends t + 1 positions.
    //       Bytes: every weight once for the whole step, but of an untied embedding table only
    //       the rows looked up (one per token); and each token's KV, written and read back.
    (void)m, (void)w;
    phase_cost c = {0, 0};
    return c;
}

phase_cost decode_step_cost(const perfmodel_shape *m, const perfmodel_workload *w)
{
    // TODO: one row per sequence at the mean context. The weights are read once for all
    //       the sequences (that is what makes batching nearly free); each sequence reads its
    //       own KV cache, the positions it attends, and writes one token more.
    (void)m, (void)w;
    phase_cost c = {0, 0};
    return c;
}

/* ---------------------------------------------------------------------------------
 * 3. The roofline */

bound roofline_bound(phase_cost cost, double peak_flop_per_s, double bandwidth_byte_per_s)
{
    // TODO: the time the FLOPs need at the peak, the time the bytes need at the bandwidth;
    //       a kernel overlaps the two, so the least time is ...? Which one binds?
    (void)cost, (void)peak_flop_per_s, (void)bandwidth_byte_per_s;
    bound b = {0, 0, 0, 0};
    return b;
}

plan predict(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w)
{
    // TODO: the budget against the memory the book's budget leaves usable, both phases counted, each bounded on the
    //       roofline of peak_flops_for(h, w->weights) and h->bandwidth.
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

unsigned predicted_symptoms(const plan *p, const perfmodel_workload *w)
{
    // TODO: lab.h lists the five rows a prediction can show (two never show), and when. The KV bytes a decode
    //       step reads and writes: batch x (decode_context + 1) x KV bytes per token.
    (void)p, (void)w;
    return 0;
}
