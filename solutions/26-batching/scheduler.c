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
    if (sequences == 0) return 0;
    double flops = 0, bytes = model->weights_bytes;   /* the weights: once per step, for the whole batch */
    for (int i = 0; i < sequences; i++) {
        flops += work[i].new_tokens * model->flops_per_token;
        bytes += work[i].kv_tokens * model->kv_bytes_per_token;
    }
    double compute_s = flops / model->peak_flop_per_s, memory_s = bytes / model->bandwidth_byte_per_s;
    return compute_s > memory_s ? compute_s : memory_s;
}

static long reservation(const request *r) { return (long)r->prompt_tokens + r->output_tokens; }

int continuous_next_batch(scheduler *s, batch_entry *batch)
{
    /* retire: a finished request leaves at once, and its KV slots are free for the next one */
    int kept = 0;
    for (int i = 0; i < s->running_count; i++) {
        int id = s->running[i];
        if (s->generated[id] < s->requests[id].output_tokens)
            s->running[kept++] = id;
        else
            s->kv_reserved_tokens -= reservation(&s->requests[id]);
    }
    s->running_count = kept;

    /* admit: oldest first, while the oldest fits; at every step, not only when the batch is empty */
    while (s->waiting_head < s->waiting_tail && s->running_count < s->max_batch) {
        int id = s->waiting[s->waiting_head];
        long need = reservation(&s->requests[id]);
        if (s->kv_reserved_tokens + need > s->kv_budget_tokens) break;   /* wait; never skip it */
        s->running[s->running_count++] = id;
        s->kv_reserved_tokens += need;
        s->waiting_head++;
    }

    /* run: every running request advances one token this step */
    for (int i = 0; i < s->running_count; i++) {
        int id = s->running[i];
        batch[i] = (batch_entry){id, s->generated[id] == 0};
    }
    return s->running_count;
}

double static_idle_share(const int *output_tokens, int count)
{
    if (count < 1) return -1;
    long long tokens = 0;   /* a sum of lengths each up to INT_MAX */
    int longest = 0;
    for (int i = 0; i < count; i++) {
        if (output_tokens[i] < 1) return -1;
        tokens += output_tokens[i];
        if (output_tokens[i] > longest) longest = output_tokens[i];
    }
    /* the batch lasts as many steps as its longest request, each step holding every slot */
    return 1.0 - (double)tokens / ((double)count * longest);
}
