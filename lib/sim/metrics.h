/* metrics.h — the counting state of metrics.c, and the quick path every counted access and
 * basic block takes first (inlined into access.c's hooks, so that counting costs little more
 * than checking).
 *
 * The lanes of a warp run one after another, and mostly do the same thing: the trace is the
 * list of sites (code addresses) the first lanes of the warp's stretch passed, in order, each
 * with its request. A lane that has done exactly what the trace says so far is at the same
 * occurrence of every site as the trace, so its next access belongs to the next step's request
 * when it is at the same site. Such a lane only moves its cursor on; the lanes that passed each
 * step are counted when the warp yields. Everything else (a lane that goes further than the
 * trace, leaves it, or brings a unit its request has not just had) goes to metrics.c. */
#ifndef SIM_METRICS_STATE_H
#define SIM_METRICS_STATE_H

#include "internal.h"

typedef enum { GLOBAL_LOAD, GLOBAL_STORE, SHARED_LOAD, SHARED_STORE, BLOCK_POINT } request_kind;
enum { NO_UNIT, ONE_UNIT, RISING, FALLING, MIXED };   /* the order of a request's units so far */
#define NO_UNIT_YET UINT64_MAX                          /* a request's last unit before its first */

typedef struct request {
    uint64_t last_unit;            /* the last sector or word added */
    uint64_t bytes;
    uint8_t kind, order, in_window;   /* in_window: every unit so far within 64 of window_start */
    uint16_t ways;                 /* shared: the most distinct words in one bank (recounted if MIXED) */
    uint32_t other_kind;           /* 1 + the index of the request of another kind at the same site and n, or 0 */
    uint32_t lanes;                /* the lanes that passed (accessed, for a memory request) */
    uint32_t units;                /* units noted: distinct, unless MIXED outside the window (then sorted) */
    uint32_t first_sorted, sorted_count;   /* where a MIXED request's units are gathered */
    uint64_t window_start, window;     /* a bit per unit of window_start .. window_start + 63 */
    uint16_t bank_words[32];       /* shared: distinct words per bank */
} request;

typedef struct site_slot {
    const void *site;
    uint32_t trace_occurrences;        /* steps of the trace at this site */
    uint32_t occurrences[WARP_SIZE];   /* per lane that left the trace: its accesses at this site so far */
    uint32_t *requests;                /* by occurrence: the index of its request */
    size_t request_count, request_capacity;
} site_slot;

typedef struct trace_step { const void *site; uint32_t request; uint16_t slot; uint8_t kind, bytes; } trace_step;
typedef struct unit_note { uint32_t request; uint64_t unit; } unit_note;
enum { LEFT_THE_TRACE = UINT32_MAX, SITE_SLOTS = 4096 };

typedef struct metrics_state {
    trace_step *trace;
    size_t trace_count, trace_capacity;
    request *requests;                 /* the stretch's requests */
    size_t request_count, request_capacity;
    uint32_t cursor[WARP_SIZE];        /* per lane: its next step in the trace, or LEFT_THE_TRACE */
    uint32_t followed[WARP_SIZE];      /* per lane that left the trace: the steps it followed */
    uint32_t lanes_left;               /* a bit per lane that left the trace */
    unit_note *notes;                  /* every unit added, for the requests that end up MIXED */
    size_t note_count, note_capacity;
    uint64_t *sorted;
    size_t sorted_capacity;
    int used_count;
    uint32_t used_slots[SITE_SLOTS];
    site_slot sites[SITE_SLOTS];       /* open addressing on the site's address */
    sim_launch_metrics counts;         /* what this worker has counted of the launch */
} metrics_state;

/* metrics.c: the units [first, last] of an access of `bytes` at `site` (0 bytes: a basic block). */
void sim_metrics_add(metrics_state *m, request_kind kind, const void *site, unsigned bytes, unsigned lane, uint64_t first,
                     uint64_t last);

/* The running lane takes the trace's next step, with a unit its request has just had (or none). */
static inline __attribute__((always_inline)) int sim_metrics_follow(metrics_state *m, request_kind kind, const void *site,
                                                                    unsigned bytes, unsigned lane, uint64_t first,
                                                                    uint64_t last)
{
    uint32_t p = m->cursor[lane];
    if (__builtin_expect(p >= m->trace_count, 0)) return 0;
    const trace_step *step = &m->trace[p];
    if (__builtin_expect(step->site != site || step->kind != kind || step->bytes != bytes, 0)) return 0;
    if (kind != BLOCK_POINT && (first != last || m->requests[step->request].last_unit != first)) return 0;
    m->cursor[lane] = p + 1;
    return 1;
}

static inline __attribute__((always_inline)) void sim_metrics_global(worker *w, uintptr_t address, size_t bytes,
                                                                     int is_write, void *site)
{
    metrics_state *m = w->metrics;
    if (!m || !w->running) return;
    request_kind kind = is_write ? GLOBAL_STORE : GLOBAL_LOAD;
    unsigned lane = w->running_lane;
    uint64_t first = address >> 5, last = (address + bytes - 1) >> 5;
    if (!sim_metrics_follow(m, kind, site, (unsigned)bytes, lane, first, last))
        sim_metrics_add(m, kind, site, (unsigned)bytes, lane, first, last);
}

static inline __attribute__((always_inline)) void sim_metrics_shared(worker *w, uintptr_t address, size_t bytes,
                                                                     int is_write, void *site)
{
    metrics_state *m = w->metrics;
    if (!m) return;
    request_kind kind = is_write ? SHARED_STORE : SHARED_LOAD;
    unsigned lane = w->running_lane;
    uintptr_t offset = address - (uintptr_t)w->shared_arena;
    uint64_t first = offset >> 2, last = (offset + bytes - 1) >> 2;
    if (!sim_metrics_follow(m, kind, site, (unsigned)bytes, lane, first, last))
        sim_metrics_add(m, kind, site, (unsigned)bytes, lane, first, last);
}

/* Basic block number `guard` (never 0): its site is a number below any code address. */
static inline __attribute__((always_inline)) void sim_metrics_block_point(worker *w, uint32_t guard)
{
    metrics_state *m = w->metrics;
    const void *site = (const void *)(uintptr_t)(guard * 4u + 4u);
    unsigned lane = w->running_lane;
    if (!sim_metrics_follow(m, BLOCK_POINT, site, 0, lane, 0, 0)) sim_metrics_add(m, BLOCK_POINT, site, 0, lane, 0, 0);
}

#endif
