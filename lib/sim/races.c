/* races.c — the missing __syncthreads(): two threads of a block touching the same bytes of
 * shared memory in one barrier interval, at least one of them writing, with nothing ordering
 * them.
 *
 * On a GPU such a race gives a wrong answer only sometimes; here threads take turns, so it
 * would never show by chance. Instead every shared access is checked against a shadow
 * record of the last writer and readers, in the current interval, of the bytes it touches.
 * Two lanes of one warp are ordered by a warp collective or __syncwarp() between their
 * accesses (the warp's epoch has moved on); threads of different warps by __syncthreads()
 * (the interval has moved on), or by the sync() of a cooperative groups tile of several warps
 * that holds both (tiles.c notes, per warp and tile size, the epoch each such barrier left the
 * warp at; only the slow path, check_record, reads it). Interval numbers are never reused, so
 * the shadow needs no clearing.
 *
 * Accesses are checked at their real width. A 4-byte word has one record while every access
 * to it covers the whole word (floats, ints, and the words of a float2 or a double); the
 * first access to part of a word in an interval splits it: its record is copied into one
 * record per byte, which then hold the word's accesses until the interval ends. So threads
 * writing neighbouring chars or halves of one word do not race, and the common whole-word
 * access costs one record, as before.
 *
 * A write after another thread's write that stores the same bytes (every lane of a warp writing the
 * warp's sum to one word after cg::reduce, as llm.c's layernorm does) changes nothing whatever the
 * order, and compute-sanitizer's racecheck reports it as a warning, not an error: so does this file,
 * once for each line that writes, and the launch goes on. The hooks see the address before the
 * store, not the value, so such a write is a suspect until the store has happened: the old bytes are
 * kept, the thread's step budget is set to 1 so that its next basic block comes back here
 * (sim_out_of_steps), and the bytes are compared then, or at the thread's next shared access, or
 * when it stops at a barrier or collective or ends, whichever comes first.
 *
 * A race with a thread that waits at a barrier this one has not passed may be a symptom:
 * if this thread never reaches that barrier (it sits in a branch, or this thread returns
 * first), the missing arrival is the mistake. Such a race is kept, the block runs on to
 * the end of the interval, and threads.c reports the barrier, or else the race. */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct access_record {
    const void *write_site, *first_read_site, *last_read_site;
    uint32_t write_interval, read_interval;
    uint32_t split_interval;   /* a word's record only: the interval in which its bytes have records */
    uint16_t writer, first_reader, last_reader;
    uint16_t write_epoch, read_epoch;
    uint8_t many_readers;
    uint8_t readers_spread;    /* the bits in which the readers' warps differ from the first reader's */
} access_record;

enum { WORDS = SHARED_ARENA_BYTES / 4 };

static void *map_shadow(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) sim_fatal("cannot map the race detector's shadow memory: %s", strerror(errno));
    return p;
}

/* Did a barrier holding every warp concerned pass since `warp` recorded `epoch` (its latest access)?
 * `apart`: the bits in which the warps concerned differ. Within one warp (apart 0), any collective of the
 * warp; else the sync() of the smallest tile of several warps that holds them all, or of a larger one
 * (tiles.c), in this interval. */
static int ordered(const worker *w, unsigned warp, uint16_t epoch, unsigned apart)
{
    if (apart == 0) return (uint16_t)w->warp_epoch[warp] != epoch;
    unsigned level = 32 - (unsigned)__builtin_clz(apart);   /* a tile of 2^level warps */
    return level <= MAX_TILE_LEVEL && w->tile_interval[level][warp] == w->interval &&
           (int16_t)(w->tile_epoch[level][warp] - epoch) > 0;
}

void sim_race_fail(worker *w)
{
    pending_race race = w->race;
    w->race.pending = 0;
    w->running = &w->threads[race.thread];
    int same_warp = race.other / WARP_SIZE == race.thread / WARP_SIZE;
    sim_kernel_fail(cudaErrorLaunchFailure,
        "%s in the same barrier interval:\n"
        "     nothing orders the two accesses, so on a GPU the result depends on timing. A %s is missing\n"
        "     between them%s.", race.accesses, same_warp ? "__syncwarp() (or __syncthreads())" : "__syncthreads()",
        same_warp ? "" : " (or the sync() of a cooperative groups tile that holds both threads)");
}

/* The running thread's access at `address` races with `other`'s. */
static __attribute__((cold, noinline)) void report(worker *w, uintptr_t address, const char *what_this_did,
                                                 unsigned other, const char *what_other_did,
                                                 const void *this_site, const void *other_site)
{
    if (w->race.pending) {   /* the interval's first race waits for its end (see the top) */
        /* ...unless threads keep racing: a thread spinning on a flag that a waiting thread set. */
        if (++w->race.later_races == 1000000) sim_race_fail(w);
        return;
    }
    char name[160], here[600];
    sim_shared_name(w, address, name, sizeof name);
    snprintf(here, sizeof here, "%s", sim_source_line(this_site));
    const char *there = sim_source_line(other_site);
    const uint3 o = w->threads[other].idx;
    snprintf(w->race.accesses, sizeof w->race.accesses, "%s %s%s%s, which thread (%u,%u,%u) %s%s%s", what_this_did,
             name, *here ? " at " : "", here, o.x, o.y, o.z, what_other_did, *there ? " at " : "", there);
    w->race.pending = 1;
    w->race.later_races = 0;
    w->race.thread = w->running->linear;
    w->race.other = other;
    if (w->threads[other].state != AT_BARRIER) sim_race_fail(w);
}

/* The running thread is about to write bytes another thread wrote in the interval (see the top). */
static __attribute__((cold, noinline)) void suspect(worker *w, uintptr_t access, size_t bytes, uintptr_t address,
                                                  unsigned other, const void *this_site, const void *other_site)
{
    if (w->suspect.pending) return;   /* an earlier record of this access holds it */
    suspect_write *s = &w->suspect;
    s->pending = 1;
    s->address = access, s->record_address = address;
    s->bytes = bytes < sizeof s->before ? bytes : sizeof s->before;
    memcpy(s->before, (const void *)access, s->bytes);
    s->other = other, s->site = this_site, s->other_site = other_site;
    s->steps_left = sim_steps_left;
    sim_steps_left = 1;
}

/* Each line whose identical writes were reported, so that each is reported once. */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *warned_sites[64];
static int warned_count;

static int first_warning_for(const void *site)
{
    int first = 1;
    pthread_mutex_lock(&warned_lock);
    for (int i = 0; i < warned_count && first; i++) first = warned_sites[i] != site;
    if (first && warned_count < 64) warned_sites[warned_count++] = site;
    else if (first) first = 0;   /* enough said */
    pthread_mutex_unlock(&warned_lock);
    return first;
}

void sim_race_settle_write(worker *w)
{
    suspect_write s = w->suspect;
    w->suspect.pending = 0;
    sim_steps_left = s.steps_left;
    if (memcmp(s.before, (const void *)s.address, s.bytes) != 0) {
        report(w, s.record_address, "wrote", s.other, "wrote", s.site, s.other_site);
        return;
    }
    if (!first_warning_for(s.site)) return;
    char name[160], here[600];
    sim_shared_name(w, s.record_address, name, sizeof name);
    snprintf(here, sizeof here, "%s", sim_source_line(s.site));
    const char *there = sim_source_line(s.other_site);
    const sim_launch_request *r = w->launch;
    const uint3 t = w->running->idx, o = w->threads[s.other].idx;
    sim_report("sim: warning: kernel %s (launched at %s:%d), block (%u,%u,%u), thread (%u,%u,%u):\n"
               "     wrote %s%s%s, which thread (%u,%u,%u) wrote%s%s\n"
               "     in the same barrier interval, with the same value. Nothing orders the two writes, but as they\n"
               "     store the same bytes the result does not depend on timing (compute-sanitizer's racecheck warns\n"
               "     of this too). Said once for this line; the launch goes on.\n", r->kernel_name, r->file, r->line,
               sim_builtins.block_idx.x, sim_builtins.block_idx.y, sim_builtins.block_idx.z, t.x, t.y, t.z, name,
               *here ? " at " : "", here,
               o.x, o.y, o.z, *there ? " at " : "", there);
}

/* Enters one access in the record of the bytes it touches (once checked: check_record). */
static inline __attribute__((always_inline)) void enter(worker *w, access_record *s, int is_write, void *site)
{
    unsigned self = w->running->linear, warp = self / WARP_SIZE;
    uint16_t epoch = (uint16_t)w->warp_epoch[warp];
    uint32_t interval = w->interval;
    if (is_write) {
        s->writer = (uint16_t)self;
        s->write_interval = interval;
        s->write_epoch = epoch;
        s->write_site = site;
    } else if (s->read_interval != interval) {
        s->read_interval = interval;
        s->first_reader = s->last_reader = (uint16_t)self;
        s->read_epoch = epoch;
        s->many_readers = s->readers_spread = 0;
        s->first_read_site = s->last_read_site = site;
    } else if (s->last_reader != self) {
        s->many_readers = 1;
        s->readers_spread |= (uint8_t)((s->first_reader / WARP_SIZE) ^ warp);
        s->last_reader = (uint16_t)self;
        s->read_epoch = epoch;
        s->last_read_site = site;
    }
}

/* Checks one access against the record of the bytes at `address`, and enters it there. */
static __attribute__((noinline)) void check_record(worker *w, access_record *s, uintptr_t address,
                                                   uintptr_t access, size_t bytes, int is_write, void *site)
{
    unsigned self = w->running->linear;
    uint32_t interval = w->interval;
    unsigned warp = self / WARP_SIZE;
    int written_now = s->write_interval == interval && s->writer != self &&
                      !ordered(w, s->writer / WARP_SIZE, s->write_epoch, (s->writer / WARP_SIZE) ^ warp);
    if (written_now && is_write) suspect(w, access, bytes, address, s->writer, site, s->write_site);
    else if (written_now) report(w, address, "read", s->writer, "wrote", site, s->write_site);
    if (is_write && s->read_interval == interval) {
        /* Name a reader other than this thread, at the place where it read. */
        int last_is_other = s->last_reader != self;
        unsigned other = last_is_other ? s->last_reader : s->first_reader;
        const void *other_site = last_is_other ? s->last_read_site : s->first_read_site;
        int others_read = s->many_readers || s->first_reader != self;
        /* read_epoch is the last reader's: the last read of all, as threads take turns */
        unsigned apart = s->readers_spread | ((s->first_reader / WARP_SIZE) ^ warp);
        if (others_read && !ordered(w, s->last_reader / WARP_SIZE, s->read_epoch, apart))
            report(w, address, "wrote", other, "read", site, other_site);
    }
    enter(w, s, is_write, site);
}

/* The bytes [first, end) of word `i`, through the word's byte records. */
static __attribute__((noinline)) void check_bytes(worker *w, size_t i, unsigned first, unsigned end,
                                                uintptr_t access, size_t bytes, int is_write, void *site)
{
    access_record *word = &w->shadow[i], *byte = &w->shadow_bytes[4 * i];
    if (word->split_interval != w->interval) {
        for (int b = 0; b < 4; b++) byte[b] = *word;
        word->split_interval = w->interval;
    }
    for (unsigned b = first; b < end; b++)
        check_record(w, &byte[b], (uintptr_t)w->shared_arena + 4 * i + b, access, bytes, is_write, site);
}

/* Accesses other than a whole word in a word of one record, and the first access of all. */
static __attribute__((noinline)) void check_unusual(worker *w, uintptr_t address, size_t bytes, int is_write,
                                                    void *site)
{
    if (!w->shadow) {
        w->shadow = map_shadow(WORDS * sizeof(access_record));
        w->shadow_bytes = map_shadow(4 * WORDS * sizeof(access_record));
    }
    size_t offset = address - (uintptr_t)w->shared_arena, end = offset + bytes;
    if (end > SHARED_ARENA_BYTES) end = SHARED_ARENA_BYTES;
    for (size_t i = offset / 4; 4 * i < end; i++) {
        unsigned first = offset > 4 * i ? (unsigned)(offset - 4 * i) : 0;
        unsigned last = end < 4 * i + 4 ? (unsigned)(end - 4 * i) : 4;
        if (first == 0 && last == 4 && w->shadow[i].split_interval != w->interval)
            check_record(w, &w->shadow[i], (uintptr_t)w->shared_arena + 4 * i, address, bytes, is_write, site);
        else
            check_bytes(w, i, first, last, address, bytes, is_write, site);
    }
}

/* The common case, a whole word of one record, with nothing to report: entered here, at once.
 * Whatever might be a race (another thread wrote the word in this interval, or this thread writes
 * it after others read it) goes to check_record, which decides. */
void sim_race_check(worker *w, uintptr_t address, size_t bytes, int is_write, void *site)
{
    sim_race_settle(w);   /* a suspect write before this access, in the same basic block */
    size_t offset = address - (uintptr_t)w->shared_arena;
    uint32_t interval = w->interval;
    if (__builtin_expect(bytes != 4 || offset % 4 != 0 || w->shadow == NULL, 0))
        return check_unusual(w, address, bytes, is_write, site);
    access_record *s = &w->shadow[offset / 4];
    if (__builtin_expect(s->split_interval == interval, 0)) return check_unusual(w, address, bytes, is_write, site);
    unsigned self = w->running->linear;
    if ((s->write_interval == interval && s->writer != self) ||
        (is_write && s->read_interval == interval && (s->many_readers || s->first_reader != self)))
        return check_record(w, s, address, address, bytes, is_write, site);
    enter(w, s, is_write, site);
}
