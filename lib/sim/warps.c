/* warps.c — warp collectives: shuffles, votes and __syncwarp, exchanged among the lanes
 * exactly as a GPU exchanges them.
 *
 * A lane that calls a collective deposits its value and waits. The scheduler runs the
 * other lanes of the warp; once every lane named in the mask has arrived at a collective
 * of the same kind with the same mask, each lane's result is computed from the deposits
 * and the lanes go on together. A collective that can never complete — a lane named in
 * the mask has returned, waits at __syncthreads(), or calls a different collective — is
 * reported as the bug it is instead of hanging, which is what a GPU would do. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

static const char *collective_name(sim_collective_kind kind)
{
    static const char *names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                                  "__ballot_sync", "__any_sync", "__all_sync", "__syncwarp", "coalesced_threads()"};
    return names[kind];
}

unsigned long long sim_warp_collective(sim_collective_kind kind, unsigned mask, unsigned long long value, int argument,
                                       int width, const char *file, int line)
{
    worker *w = sim_current_worker;
    if (!w || !w->running) sim_crash("%s:%d: %s called outside a kernel", file, line, collective_name(kind));
    cuda_thread *self = w->running;
    unsigned lane = self->linear % WARP_SIZE;
    if (!(mask & (1u << lane)))
        sim_kernel_fail(cudaErrorLaunchFailure, "%s:%d: lane %u calls %s with mask 0x%08x, which does not name it;\n"
                        "     a lane must be in the mask of every collective it calls", file, line, lane,
                        collective_name(kind), mask);
    if (width < 1 || width > WARP_SIZE || (width & (width - 1)))
        sim_kernel_fail(cudaErrorLaunchFailure, "%s:%d: %s with width %d: the width must be a power of two from 1 to 32",
                        file, line, collective_name(kind), width);
    self->collective = (collective_call){kind, mask, value, argument, width, file, line, 0};
    self->state = AT_COLLECTIVE;
    w->collectives_waiting++;
    sim_block_running_thread(w, self);
    return self->collective.result;
}

unsigned sim_activemask(void)
{
    worker *w = sim_current_worker;
    if (!w || !w->running) return 0;
    unsigned first = w->running->linear / WARP_SIZE * WARP_SIZE, mask = 0;
    for (unsigned lane = 0; lane < WARP_SIZE && first + lane < (unsigned)w->thread_count; lane++)
        if (w->threads[first + lane].state != DONE) mask |= 1u << lane;
    return mask;
}

/* The lane whose value `lane` receives, or -1 for "its own". */
static int source_lane(const collective_call *c, int lane)
{
    int segment = lane & ~(c->width - 1), position = lane & (c->width - 1);
    switch (c->kind) {
    case COLLECTIVE_SHFL: return segment + (c->argument & (c->width - 1));
    case COLLECTIVE_SHFL_UP: return position >= c->argument ? lane - c->argument : lane;
    case COLLECTIVE_SHFL_DOWN: return position + c->argument < c->width ? lane + c->argument : lane;
    case COLLECTIVE_SHFL_XOR: {
        int target = lane ^ c->argument;
        /* A lane may read from an earlier segment, never a later one. */
        return (target & ~(c->width - 1)) > segment ? lane : target;
    }
    default: return lane;
    }
}

static void fail_pending(worker *w, cuda_thread *waiting, cuda_thread *other, const char *why)
{
    w->running = waiting;
    sim_kernel_fail(cudaErrorLaunchFailure,
        "%s:%d: lane %u waits at %s with mask 0x%08x, but lane %u %s.\n"
        "     Every lane named in a collective's mask must reach a collective of the same kind with the same mask.",
        waiting->collective.file, waiting->collective.line, waiting->linear % WARP_SIZE,
        collective_name(waiting->collective.kind), waiting->collective.mask, other->linear % WARP_SIZE, why);
}

int sim_resolve_collectives(worker *w, int first, int lanes)
{
    int progress = 0;
    for (int lane = 0; lane < lanes; lane++) {
        cuda_thread *t = &w->threads[first + lane];
        if (t->state != AT_COLLECTIVE || t->collective.kind == COLLECTIVE_COALESCE) continue;
        const collective_call *c = &t->collective;
        int complete = 1;
        for (int other = 0; other < WARP_SIZE && complete; other++) {
            if (!(c->mask & (1u << other))) continue;
            if (other >= lanes) {
                w->running = t;
                sim_kernel_fail(cudaErrorLaunchFailure,
                    "%s:%d: %s with mask 0x%08x names lane %d, but this warp has only %d threads (the block's "
                    "size is not a multiple of 32):\n     use __activemask() or a mask of the lanes that exist",
                    c->file, c->line, collective_name(c->kind), c->mask, other, lanes);
            }
            cuda_thread *u = &w->threads[first + other];
            char why[200];
            if (u->state == DONE) fail_pending(w, t, u, "has already returned");
            if (u->state == AT_BARRIER || u->state == AT_TILE_BARRIER) {
                snprintf(why, sizeof why, "waits at %s in %s:%d: neither can go on",
                         u->state == AT_BARRIER ? "__syncthreads()" : "a tile's sync()", u->barrier_file,
                         u->barrier_line);
                fail_pending(w, t, u, why);
            }
            /* Still on its way: not yet started (cannot happen after a full pass), or at coalesced_threads(),
             * released once nothing else in the warp can go on. */
            if (u->state != AT_COLLECTIVE || u->collective.kind == COLLECTIVE_COALESCE) {
                complete = 0;
                break;
            }
            if (u->collective.kind != c->kind || u->collective.mask != c->mask) {
                snprintf(why, sizeof why, "calls %s with mask 0x%08x at %s:%d", collective_name(u->collective.kind),
                         u->collective.mask, u->collective.file, u->collective.line);
                fail_pending(w, t, u, why);
            }
        }
        if (!complete) continue;
        /* Everyone named has arrived: compute every lane's result from the deposits. */
        unsigned votes = 0;
        for (int other = 0; other < lanes; other++)
            if ((c->mask & (1u << other)) && w->threads[first + other].collective.value) votes |= 1u << other;
        for (int member = 0; member < lanes; member++) {
            if (!(c->mask & (1u << member))) continue;
            cuda_thread *m = &w->threads[first + member];
            switch (c->kind) {
            case COLLECTIVE_BALLOT: m->collective.result = votes; break;
            case COLLECTIVE_ANY: m->collective.result = votes != 0; break;
            case COLLECTIVE_ALL: m->collective.result = votes == c->mask; break;
            case COLLECTIVE_SYNCWARP: m->collective.result = 0; break;
            default: {
                int source = source_lane(&m->collective, member);
                if (!(c->mask & (1u << source))) {
                    w->running = m;
                    sim_kernel_fail(cudaErrorLaunchFailure,
                        "%s:%d: lane %d reads lane %d with %s, but lane %d is not in the mask 0x%08x: "
                        "on a GPU the value is undefined", m->collective.file, m->collective.line, member, source,
                        collective_name(c->kind), source, c->mask);
                }
                m->collective.result = w->threads[first + source].collective.value;
            }
            }
        }
        for (int member = 0; member < lanes; member++)
            if (c->mask & (1u << member)) w->threads[first + member].state = RELEASED, w->collectives_waiting--;
        w->warp_epoch[first / WARP_SIZE]++;
        progress = 1;
    }
    return progress || sim_resolve_coalesced(w, first, lanes);
}

void sim_check_collectives_at_barrier(worker *w)
{
    for (int i = 0; i < w->thread_count; i++)
        if (w->threads[i].state == AT_COLLECTIVE) {
            w->running = &w->threads[i];
            sim_kernel_fail(cudaErrorLaunchFailure, "%s:%d: %s never completed: the lanes it names never all arrived",
                            w->threads[i].collective.file, w->threads[i].collective.line,
                            collective_name(w->threads[i].collective.kind));
        }
}
