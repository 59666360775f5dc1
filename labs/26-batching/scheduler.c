/* scheduler.c — Day 26: iteration-level (continuous) batching, as Orca schedules an engine, and the
 * roofline cost of one of its steps.
 *
 * What you write today, in the order of lab.h:
 *   1. step_seconds: the least time one engine step can take. A step reads every weight once,
 *      whatever the batch; it reads or writes each request's KV entries; it does the FLOPs of
 *      every new token. It overlaps the bytes with the FLOPs: the roofline.
 *   2. continuous_next_batch: called before every step. Retire the requests that have all their
 *      tokens (and give back their KV reservation), admit waiting requests oldest first while
 *      they fit (the KV budget and max_batch), and run every running request one step: a prefill
 *      for the ones just admitted, a decode for the rest.
 *   3. static_idle_share: what static batching wastes, predicted from a batch's output lengths:
 *      the share of its request-slots that make no token while it waits for its longest request.
 *
 * Rules: plain C; no memory of your own beyond locals (the running list and the reservation
 * live in the scheduler). First come, first served: never admit a request ahead of an older one
 * that is still waiting, or a long request can wait for ever. A request reserves its prompt and
 * all its output tokens when it is admitted (there is no preemption): the reservations of the
 * running requests may never exceed kv_budget_tokens. Static batching, to compare with, is in
 * driver/sim.c (static_next_batch).
 *
 * Check:  make check DAY=26        Stuck?  make hint DAY=26
 */
#include "lab.h"

double step_seconds(const cost_model *model, const sequence_work *work, int sequences)
{
    // TODO: bytes = the weights once + every request's kv_tokens x kv_bytes_per_token;
    //       FLOPs = every request's new_tokens x flops_per_token. The step overlaps the two:
    //       which of their times is the least it can take? An empty step takes 0.
    (void)model, (void)work, (void)sequences;
    return 0;
}

int continuous_next_batch(scheduler *s, batch_entry *batch)
{
    // TODO: 1. retire: drop from s->running every request whose s->generated[id] has reached
    //          its output_tokens, and take its prompt + output tokens off kv_reserved_tokens.
    //       2. admit: while the oldest waiting request (s->waiting[s->waiting_head]) fits both
    //          max_batch and kv_budget_tokens, move it to running and reserve for it; stop at
    //          the first that does not fit.
    //       3. run: one batch entry for every running request, prefill when it has no token yet.
    (void)s, (void)batch;
    return 0;
}

double static_idle_share(const int *output_tokens, int count)
{
    // TODO: task: the share of a static batch's request-slots that make no token (lab.h), from
    //       the output lengths alone, before the simulator counts it. Contract: -1 for no request
    //       or a length below 1; each length may be as large as an int holds. Idea: the chapter's
    //       four requests of exercise 4, for any batch: how many steps does the batch last, how
    //       many slots do those steps hold, and how many of them make a token?
    (void)output_tokens, (void)count;
    return 0;
}
