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
    // TODO: task: the least time this step can take on `model` (lab.h). Contract: the step's work
    //       is the `sequences` entries of `work`; an empty step takes 0. Idea: day 14's roofline for
    //       one step: what does it read once however many requests it serves, what does each request
    //       add to the bytes and to the FLOPs, and what does overlapping the two make of their times?
    (void)model, (void)work, (void)sequences;
    return 0;
}

int continuous_next_batch(scheduler *s, batch_entry *batch)
{
    // TODO: task: the batch of the next step, and its size (lab.h). Contract: the header's rules; a
    //       request with all its tokens runs no more and frees its reservation; every running request
    //       is in the batch once, as a prefill while it has no token yet. Idea: the chapter's loop at
    //       one step boundary: what has to happen before a waiting request can take a place?
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
