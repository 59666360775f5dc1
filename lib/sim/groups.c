/* groups.c — coalesced_threads() of cooperative groups: which lanes of a warp arrive at one place
 * together.
 *
 * On a GPU, coalesced_threads() names the lanes that are converged where it is called: inside
 * `if (x[i] > 0)`, the lanes that took the branch. Here a lane that calls it waits, as at a warp
 * collective, until no other lane of its warp can go on: every other lane has returned, waits at a
 * barrier, at a collective that cannot complete yet, or at coalesced_threads(). Then the lanes waiting
 * at one place (a file and line, as for barriers: the compiler may copy or merge calls, so a code
 * address is no name) form a group and go on. Warp collectives that can complete are resolved first,
 * and when lanes wait at several places, only the earliest in the source goes on (the lowest line;
 * across files, by name) before the warp runs again: so lanes still inside a branch, or held by a
 * shuffle of their own, reach a later call before it forms its group, as they reconverge with it on a
 * GPU. (CUDA promises no more than some converged lanes; a place earlier in the source that a program
 * reaches later, in a function defined above its caller, can be released before lanes on their way
 * to it arrive, and lanes that reach one line from two branches form one group here, where a GPU
 * would form one per branch.) Forming a group orders no memory accesses: coalesced_threads() is not a
 * barrier (group.sync() is). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned sim_coalesced_threads(const char *file, int line)
{
    worker *w = sim_current_worker;
    if (!w || !w->running) sim_crash("%s:%d: coalesced_threads() called outside a kernel", file, line);
    cuda_thread *self = w->running;
    self->collective = (collective_call){COLLECTIVE_COALESCE, 0, 0, 0, WARP_SIZE, file, line, 0};
    self->state = AT_COLLECTIVE;
    w->collectives_waiting++;
    sim_block_running_thread(w, self);
    return (unsigned)self->collective.result;
}

/* Orders places as they come in the source: by file name, then by line. */
static int compare_places(const collective_call *a, const collective_call *b)
{
    int files = a->file == b->file ? 0 : strcmp(a->file, b->file);
    return files ? files : a->line - b->line;
}

int sim_resolve_coalesced(worker *w, int first, int lanes)
{
    const collective_call *earliest = NULL;
    for (int lane = 0; lane < lanes; lane++) {
        const cuda_thread *t = &w->threads[first + lane];
        if (t->state == AT_COLLECTIVE && t->collective.kind == COLLECTIVE_COALESCE &&
            (!earliest || compare_places(&t->collective, earliest) < 0))
            earliest = &t->collective;
    }
    if (!earliest) return 0;
    unsigned group = 0;
    for (int lane = 0; lane < lanes; lane++) {
        const cuda_thread *t = &w->threads[first + lane];
        if (t->state == AT_COLLECTIVE && t->collective.kind == COLLECTIVE_COALESCE &&
            compare_places(&t->collective, earliest) == 0)
            group |= 1u << lane;
    }
    for (int lane = 0; lane < lanes; lane++)
        if (group & (1u << lane)) {
            cuda_thread *t = &w->threads[first + lane];
            t->collective.result = group;
            t->state = RELEASED;
            w->collectives_waiting--;
        }
    return 1;
}
