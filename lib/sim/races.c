/* races.c — the missing __syncthreads(): two threads of a block touching the same shared
 * word in one barrier interval, at least one of them writing, with nothing ordering them.
 *
 * On a GPU such a race gives a wrong answer only sometimes; here threads take turns, so it
 * would never show by chance. Instead every shared access is checked against a shadow
 * record of the word's last writer and readers in the current interval. Two lanes of one
 * warp are ordered by a warp collective or __syncwarp() between their accesses (the warp's
 * epoch has moved on); threads of different warps only by __syncthreads() (the interval
 * has moved on). Interval numbers are never reused, so the shadow needs no clearing. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct shadow_word {
    uint32_t write_interval, read_interval;
    uint16_t writer, first_reader, last_reader;
    uint16_t write_epoch, read_epoch;
    uint8_t many_readers, readers_in_several_warps;
    const void *write_site, *first_read_site, *last_read_site;
} shadow_word;

static shadow_word *shadow_of(worker *w)
{
    if (!w->shadow) {
        void *p = mmap(NULL, SHARED_ARENA_BYTES / 4 * sizeof(shadow_word), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) sim_fatal("cannot map the race detector's shadow memory: %s", strerror(errno));
        w->shadow = p;
    }
    return (shadow_word *)w->shadow;
}

/* Did a collective of `thread`'s warp complete since it recorded `epoch`? */
static int ordered_in_warp(worker *w, unsigned earlier, uint16_t epoch, unsigned later)
{
    return earlier / WARP_SIZE == later / WARP_SIZE && (uint16_t)w->warp_epoch[later / WARP_SIZE] != epoch;
}

static __attribute__((noreturn, noinline)) void report(worker *w, uintptr_t address, const char *what_this_did,
                                                     unsigned other, const char *what_other_did,
                                                     const void *this_site, const void *other_site)
{
    char name[160], here[600];
    sim_shared_name(w, address, name, sizeof name);
    snprintf(here, sizeof here, "%s", sim_source_line(this_site));
    const char *there = sim_source_line(other_site);
    const uint3 o = w->threads[other].idx;
    int same_warp = other / WARP_SIZE == w->running->linear / WARP_SIZE;
    sim_kernel_fail(cudaErrorLaunchFailure,
        "%s %s%s%s, which thread (%u,%u,%u) %s%s%s in the same barrier interval:\n"
        "     nothing orders the two accesses, so on a GPU the result depends on timing. A %s is missing\n"
        "     between them.", what_this_did, name, *here ? " at " : "", here, o.x, o.y, o.z, what_other_did,
        *there ? " at " : "", there, same_warp ? "__syncwarp() (or __syncthreads())" : "__syncthreads()");
}

void sim_race_check(worker *w, uintptr_t address, size_t bytes, int is_write, void *site)
{
    shadow_word *shadow = shadow_of(w);
    unsigned self = w->running->linear, warp = self / WARP_SIZE;
    uint16_t epoch = (uint16_t)w->warp_epoch[warp];
    uint32_t interval = w->interval;
    size_t first = (address - (uintptr_t)w->shared_arena) / 4, last = (address + bytes - 1 - (uintptr_t)w->shared_arena) / 4;
    for (size_t i = first; i <= last && i < SHARED_ARENA_BYTES / 4; i++) {
        shadow_word *s = &shadow[i];
        uintptr_t word = (uintptr_t)w->shared_arena + 4 * i;
        int written_now = s->write_interval == interval && s->writer != self &&
                          !ordered_in_warp(w, s->writer, s->write_epoch, self);
        if (written_now)
            report(w, word, is_write ? "wrote" : "read", s->writer, "wrote", site, s->write_site);
        if (is_write) {
            if (s->read_interval == interval) {
                /* Name a reader other than this thread, at the place where it read. */
                int last_is_other = s->last_reader != self;
                unsigned other = last_is_other ? s->last_reader : s->first_reader;
                const void *other_site = last_is_other ? s->last_read_site : s->first_read_site;
                int others_read = s->many_readers || s->first_reader != self;
                int ordered = !s->readers_in_several_warps && ordered_in_warp(w, other, s->read_epoch, self);
                if (others_read && !ordered) report(w, word, "wrote", other, "read", site, other_site);
            }
            s->writer = (uint16_t)self;
            s->write_interval = interval;
            s->write_epoch = epoch;
            s->write_site = site;
        } else if (s->read_interval != interval) {
            *s = (shadow_word){s->write_interval, interval, s->writer, (uint16_t)self, (uint16_t)self,
                               s->write_epoch, epoch, 0, 0, s->write_site, site, site};
        } else if (s->last_reader != self) {
            s->many_readers = 1;
            s->readers_in_several_warps |= s->first_reader / WARP_SIZE != warp;
            s->last_reader = (uint16_t)self;
            s->read_epoch = epoch;
            s->last_read_site = site;
        }
    }
}
