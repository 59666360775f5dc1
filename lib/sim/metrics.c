/* metrics.c — counting, per launch, what Nsight Compute would measure on a GPU.
 *
 * A warp-level request is what the lanes of one warp do together: the n-th execution of
 * one memory instruction (its code address, the "site") by each lane. The lanes of a warp
 * run one after another between two points where they wait (a collective, a barrier, the
 * end), so during that stretch each access finds its request by (site, n) and adds its
 * units to it: 32-byte sectors for global memory, 4-byte words for shared memory. When the
 * warp yields, each request's distinct units are what it costs; for shared memory, the most
 * distinct words that fall in one of the 32 banks is how many wavefronts (passes) it needs.
 * Basic blocks are requests too: one is a warp-level step, and how many lanes passed
 * through it is how many were active in it.
 *
 * Most lanes do what the lane before them did: metrics.h follows them along the trace of the
 * stretch with one compare per access, inside the access hooks. This file does the rest: it
 * extends the trace, finds the requests of a lane that leaves it by site and occurrence, and
 * adds the units a request has not just had. Lanes mostly touch units near one another, or in
 * order (lane after lane, rising or falling addresses), so a request tells a new unit from a
 * repeat as it comes; only a request whose units are scattered out of order has them sorted
 * when the warp yields. The counts are exact either way. */
#include "metrics.h"
#include "device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int asked_by_program;         /* sim_metrics_enable(1) */
int sim_metrics_counting;
static sim_launch_metrics current;   /* the launch's figures: each worker's counts, added when it ends */
static pthread_mutex_t adding = PTHREAD_MUTEX_INITIALIZER;
static sim_launch_metrics *history;
static size_t history_count, history_capacity;
static double next_flops;

/* SIM_REPORT=1 in the environment: count and print every launch, whatever the program asks. */
static int report_requested(void)
{
    static int requested = -1;
    if (requested < 0) {
        const char *report = getenv("SIM_REPORT");
        requested = report && *report && *report != '0';
    }
    return requested;
}

int sim_metrics_enabled(void) { return asked_by_program || report_requested(); }

void sim_metrics_enable(int on) { asked_by_program = on != 0; }
void sim_declare_flops(double flops) { next_flops = flops; }

/* ---------------------------------------------------------------------------------
 * Taking notes */

/* Room for one more element of a growing array, or the launch fails. */
static inline void make_room(void **array, size_t *capacity, size_t count, size_t element_bytes, size_t first)
{
    if (__builtin_expect(count == *capacity, 0) && sim_grow(array, capacity, count, element_bytes, first))
        sim_kernel_fail(cudaErrorMemoryAllocation, "out of memory counting metrics");
}

static request *new_request(metrics_state *m, request_kind kind, uint32_t *index)
{
    make_room((void **)&m->requests, &m->request_capacity, m->request_count, sizeof *m->requests, 256);
    *index = (uint32_t)m->request_count;
    request *r = &m->requests[m->request_count++];
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)kind;
    r->last_unit = NO_UNIT_YET;
    r->in_window = 1;
    return r;
}

/* The slow way to a request: the lane's n-th access at `site` joins the n-th request there
 * (of its kind: one site may reach both spaces). A lane that has followed the trace to its
 * end extends it; one that leaves the trace counts its occurrences from then on. */
static request *find_request_slowly(metrics_state *m, request_kind kind, const void *site, unsigned bytes, unsigned lane,
                                    uint32_t *index)
{
    uint32_t p = m->cursor[lane];
    int extending = p == m->trace_count;
    if (p != LEFT_THE_TRACE && !extending) {   /* it leaves here: count what it did until now */
        for (uint32_t k = 0; k < p; k++) m->sites[m->trace[k].slot].occurrences[lane]++;
        m->followed[lane] = p;
        m->cursor[lane] = LEFT_THE_TRACE;
        m->lanes_left |= 1u << lane;
    }
    size_t slot = ((uintptr_t)site >> 2) * 0x9E3779B97F4A7C15ull >> 52;   /* 12 bits */
    while (m->sites[slot].site != site && m->sites[slot].site) slot = (slot + 1) & (SITE_SLOTS - 1);
    site_slot *s = &m->sites[slot];
    if (!s->site) {
        if (m->used_count == SITE_SLOTS - 1) sim_kernel_fail(cudaErrorLaunchFailure, "too many distinct code sites to count");
        s->site = site;
        m->used_slots[m->used_count++] = (uint32_t)slot;
    }
    uint32_t occurrence = extending ? s->trace_occurrences++ : s->occurrences[lane]++;
    uint32_t i;
    if (occurrence < s->request_count) {
        i = s->requests[occurrence];
        while (m->requests[i].kind != kind && m->requests[i].other_kind) i = m->requests[i].other_kind - 1;
        if (m->requests[i].kind != kind) {
            uint32_t j;
            new_request(m, kind, &j);
            m->requests[i].other_kind = j + 1;
            i = j;
        }
    } else {
        make_room((void **)&s->requests, &s->request_capacity, s->request_count, sizeof *s->requests, 16);
        new_request(m, kind, &i);
        s->requests[s->request_count++] = i;
    }
    if (extending) {
        make_room((void **)&m->trace, &m->trace_capacity, m->trace_count, sizeof *m->trace, 1024);
        m->trace[m->trace_count++] = (trace_step){site, i, (uint16_t)slot, (uint8_t)kind, (uint8_t)bytes};
        m->cursor[lane] = p + 1;
    } else {
        m->requests[i].lanes++;
        m->requests[i].bytes += bytes;
    }
    *index = i;
    return &m->requests[i];
}

/* A unit other than the request's last one. While every unit falls within 64 of the first
 * (32 lanes reading neighbouring words or sectors, in any order), a bit per unit tells a repeat;
 * past that window, units that keep rising (or falling) are each new. Every unit noted is kept,
 * for a request whose units leave the window and come out of order: those are sorted when the
 * warp yields. */
static void add_unit(metrics_state *m, request *r, uint32_t index, uint64_t unit, int shared)
{
    uint8_t order = r->order == NO_UNIT ? ONE_UNIT : unit > r->last_unit ? RISING : FALLING;
    if (r->order == NO_UNIT) r->window_start = unit - 31;
    r->last_unit = unit;
    int known_distinct;
    uint64_t offset = unit - r->window_start;
    if (r->in_window && offset < 64) {
        if (r->window >> offset & 1) {
            r->order = MIXED;   /* a repeat: neither rising nor falling */
            return;
        }
        r->window |= 1ull << offset;
        known_distinct = 1;
    } else {
        r->in_window = 0;
        known_distinct = r->order == ONE_UNIT || r->order == order;
    }
    if (r->order == NO_UNIT || r->order == ONE_UNIT) r->order = order;
    else if (r->order != order) r->order = MIXED;
    r->units++;
    if (shared && known_distinct && ++r->bank_words[unit % 32] > r->ways) r->ways = r->bank_words[unit % 32];
    make_room((void **)&m->notes, &m->note_capacity, m->note_count, sizeof *m->notes, 4096);
    m->notes[m->note_count++] = (unit_note){index, unit};
}

/* The units [first, last] of one access (none for a basic block) join its request. */
void sim_metrics_add(metrics_state *m, request_kind kind, const void *site, unsigned bytes, unsigned lane, uint64_t first,
                     uint64_t last)
{
    uint32_t index, p = m->cursor[lane];
    request *r;
    if (p < m->trace_count && m->trace[p].site == site && m->trace[p].kind == kind && m->trace[p].bytes == bytes) {
        m->cursor[lane] = p + 1;   /* it follows the trace, with a new unit */
        index = m->trace[p].request;
        r = &m->requests[index];
    } else {
        r = find_request_slowly(m, kind, site, bytes, lane, &index);
    }
    if (kind == BLOCK_POINT) return;
    for (uint64_t unit = first; unit <= last; unit++)
        if (unit != r->last_unit) add_unit(m, r, index, unit, kind == SHARED_LOAD || kind == SHARED_STORE);
}

void sim_metrics_barrier(worker *w)
{
    if (w->metrics) w->metrics->counts.barriers++;
}

void sim_metrics_atomic(void)
{
    if (sim_current_worker && sim_current_worker->metrics) sim_current_worker->metrics->counts.atomics++;
}

/* ---------------------------------------------------------------------------------
 * Counting the requests when a warp yields */

static int by_unit(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A request whose units left the window and came out of order may have noted one twice. */
static int needs_sorting(const request *r) { return r->order == MIXED && !r->in_window; }

/* Those requests' units, gathered and sorted, give the distinct count (and, for shared memory,
 * the words per bank). */
static void count_mixed_requests(metrics_state *m)
{
    size_t total = 0;
    for (size_t i = 0; i < m->request_count; i++)
        if (needs_sorting(&m->requests[i])) m->requests[i].first_sorted = (uint32_t)total, total += m->requests[i].units;
    if (total == 0) return;
    while (total > m->sorted_capacity) {
        if (sim_grow((void **)&m->sorted, &m->sorted_capacity, m->sorted_capacity, sizeof *m->sorted, total))
            sim_kernel_fail(cudaErrorMemoryAllocation, "out of memory counting metrics");
    }
    for (size_t k = 0; k < m->note_count; k++) {
        request *r = &m->requests[m->notes[k].request];
        if (needs_sorting(r)) m->sorted[r->first_sorted + r->sorted_count++] = m->notes[k].unit;
    }
    for (size_t i = 0; i < m->request_count; i++) {
        request *r = &m->requests[i];
        if (!needs_sorting(r)) continue;
        uint64_t *units = &m->sorted[r->first_sorted];
        qsort(units, r->units, sizeof *units, by_unit);
        uint32_t distinct = 0;
        memset(r->bank_words, 0, sizeof r->bank_words);
        r->ways = 0;
        for (uint32_t k = 0; k < r->units; k++) {
            if (k > 0 && units[k] == units[k - 1]) continue;
            distinct++;
            if (++r->bank_words[units[k] % 32] > r->ways) r->ways = r->bank_words[units[k] % 32];
        }
        r->units = distinct;
    }
}

/* Each lane that followed the trace passed its first steps: as many as it followed. */
static void count_followers(metrics_state *m)
{
    uint32_t length[WARP_SIZE];   /* of the lanes that followed any steps, longest first */
    int lanes = 0;
    for (int lane = 0; lane < WARP_SIZE; lane++) {
        uint32_t steps = m->cursor[lane] == LEFT_THE_TRACE ? m->followed[lane] : m->cursor[lane];
        if (!steps) continue;
        int k = lanes++;
        for (; k > 0 && length[k - 1] < steps; k--) length[k] = length[k - 1];
        length[k] = steps;
    }
    for (uint32_t k = 0; k < m->trace_count; k++) {
        while (lanes > 0 && length[lanes - 1] <= k) lanes--;
        request *r = &m->requests[m->trace[k].request];
        r->lanes += (uint32_t)lanes;
        r->bytes += (uint64_t)lanes * m->trace[k].bytes;
    }
}

/* Occurrences count from zero again after each yield: the next stretch makes new requests. */
static void forget_requests(metrics_state *m)
{
    for (int i = 0; i < m->used_count; i++) {
        site_slot *s = &m->sites[m->used_slots[i]];
        s->site = NULL;
        s->request_count = 0;
        s->trace_occurrences = 0;
        if (m->lanes_left) memset(s->occurrences, 0, sizeof s->occurrences);
    }
    m->lanes_left = 0;
    m->trace_count = 0;
    memset(m->cursor, 0, sizeof m->cursor);
    m->used_count = 0;
    m->request_count = 0;
    m->note_count = 0;
}

void sim_metrics_warp_yield(worker *w)
{
    metrics_state *m = w->metrics;
    if (!m) return;
    count_followers(m);
    count_mixed_requests(m);
    sim_launch_metrics *c = &m->counts;
    for (size_t i = 0; i < m->request_count; i++) {
        const request *r = &m->requests[i];
        switch ((request_kind)r->kind) {
        case GLOBAL_LOAD: c->global_load_requests++, c->global_load_sectors += r->units, c->global_load_bytes += r->bytes; break;
        case GLOBAL_STORE: c->global_store_requests++, c->global_store_sectors += r->units, c->global_store_bytes += r->bytes; break;
        case SHARED_LOAD: c->shared_load_requests++, c->shared_load_wavefronts += r->ways, c->shared_load_bytes += r->bytes; break;
        case SHARED_STORE: c->shared_store_requests++, c->shared_store_wavefronts += r->ways, c->shared_store_bytes += r->bytes; break;
        case BLOCK_POINT: c->warp_steps++, c->active_lanes += r->lanes; break;
        }
        if ((r->kind == SHARED_LOAD || r->kind == SHARED_STORE) && r->ways > c->max_bank_conflict_ways)
            c->max_bank_conflict_ways = r->ways;
    }
    forget_requests(m);
}

/* ---------------------------------------------------------------------------------
 * Launches */

void sim_metrics_begin_launch(const sim_launch_request *r)
{
    if (!sim_metrics_enabled()) {
        next_flops = 0;
        return;
    }
    sim_metrics_counting = 1;
    memset(&current, 0, sizeof current);
    snprintf(current.kernel, sizeof current.kernel, "%s", r->kernel_name);
    current.grid[0] = r->grid.x, current.grid[1] = r->grid.y, current.grid[2] = r->grid.z;
    current.block[0] = r->block.x, current.block[1] = r->block.y, current.block[2] = r->block.z;
    current.declared_flops = next_flops;
    next_flops = 0;
}

void sim_metrics_begin_worker(worker *w)
{
    if (!sim_metrics_counting) {
        w->metrics = NULL;
        return;
    }
    if (!w->metrics_memory && !(w->metrics_memory = sim_try_alloc(1, sizeof(metrics_state))))
        sim_fatal("out of memory for the metrics' counting state");
    w->metrics = w->metrics_memory;
    memset(&w->metrics->counts, 0, sizeof w->metrics->counts);
}

void sim_metrics_end_worker(worker *w)
{
    metrics_state *m = w->metrics;
    if (!m) return;
    forget_requests(m);
    const sim_launch_metrics *c = &m->counts;
    pthread_mutex_lock(&adding);
    current.global_load_requests += c->global_load_requests, current.global_load_sectors += c->global_load_sectors;
    current.global_load_bytes += c->global_load_bytes;
    current.global_store_requests += c->global_store_requests, current.global_store_sectors += c->global_store_sectors;
    current.global_store_bytes += c->global_store_bytes;
    current.shared_load_requests += c->shared_load_requests, current.shared_load_wavefronts += c->shared_load_wavefronts;
    current.shared_load_bytes += c->shared_load_bytes;
    current.shared_store_requests += c->shared_store_requests;
    current.shared_store_wavefronts += c->shared_store_wavefronts, current.shared_store_bytes += c->shared_store_bytes;
    if (c->max_bank_conflict_ways > current.max_bank_conflict_ways) current.max_bank_conflict_ways = c->max_bank_conflict_ways;
    current.barriers += c->barriers, current.warp_steps += c->warp_steps, current.active_lanes += c->active_lanes;
    current.atomics += c->atomics;
    pthread_mutex_unlock(&adding);
    w->metrics = NULL;
}

void sim_metrics_end_launch(int failed)
{
    if (!sim_metrics_counting) return;
    sim_metrics_counting = 0;
    if (failed) return;
    if (sim_grow((void **)&history, &history_capacity, history_count, sizeof *history, 64))
        sim_fatal("out of memory keeping the metrics of %zu launches", history_count);
    history[history_count++] = current;
    if (report_requested()) sim_metrics_print(stderr, &current);
}

int sim_metrics_count(void) { return (int)history_count; }

const sim_launch_metrics *sim_metrics_get(int index)
{
    if (index < 0) index += (int)history_count;
    return index >= 0 && (size_t)index < history_count ? &history[index] : NULL;
}

void sim_metrics_clear(void) { history_count = 0; }

/* ---------------------------------------------------------------------------------
 * Derived figures and the report */

double sim_sectors_per_request(const sim_launch_metrics *m, int stores)
{
    unsigned long long requests = stores ? m->global_store_requests : m->global_load_requests;
    return requests ? (double)(stores ? m->global_store_sectors : m->global_load_sectors) / (double)requests : 0;
}

double sim_wavefronts_per_request(const sim_launch_metrics *m, int stores)
{
    unsigned long long requests = stores ? m->shared_store_requests : m->shared_load_requests;
    return requests ? (double)(stores ? m->shared_store_wavefronts : m->shared_load_wavefronts) / (double)requests : 0;
}

double sim_simt_efficiency(const sim_launch_metrics *m)
{
    return m->warp_steps ? (double)m->active_lanes / (32.0 * (double)m->warp_steps) : 0;
}

double sim_roofline_estimate_seconds(const sim_launch_metrics *m, const char *gpu_key, const char **bound)
{
    double peak_flops, bandwidth;
    if (!sim_gpu_rates(gpu_key, &peak_flops, &bandwidth)) return -1;
    double bytes = 32.0 * (double)(m->global_load_sectors + m->global_store_sectors);
    double compute = m->declared_flops / peak_flops, memory = bytes / bandwidth;
    if (bound) *bound = compute > memory ? "compute" : "memory";
    return compute > memory ? compute : memory;
}

void sim_metrics_print(FILE *out, const sim_launch_metrics *m)
{
    fprintf(out, "sim report: %s<<<(%u,%u,%u), (%u,%u,%u)>>> — counted by the simulator\n", m->kernel, m->grid[0],
            m->grid[1], m->grid[2], m->block[0], m->block[1], m->block[2]);
    fprintf(out, "  global loads   %10llu requests %10llu sectors  %5.2f sectors/request  %llu bytes requested\n",
            m->global_load_requests, m->global_load_sectors, sim_sectors_per_request(m, 0), m->global_load_bytes);
    fprintf(out, "  global stores  %10llu requests %10llu sectors  %5.2f sectors/request  %llu bytes requested\n",
            m->global_store_requests, m->global_store_sectors, sim_sectors_per_request(m, 1), m->global_store_bytes);
    fprintf(out, "  shared loads   %10llu requests %10llu wavefronts %5.2f per request\n", m->shared_load_requests,
            m->shared_load_wavefronts, sim_wavefronts_per_request(m, 0));
    fprintf(out, "  shared stores  %10llu requests %10llu wavefronts %5.2f per request (worst: %u-way bank conflict)\n",
            m->shared_store_requests, m->shared_store_wavefronts, sim_wavefronts_per_request(m, 1),
            m->max_bank_conflict_ways);
    fprintf(out, "  barriers %llu, atomics %llu, SIMT efficiency %.1f %% over %llu warp steps\n", m->barriers,
            m->atomics, 100 * sim_simt_efficiency(m), m->warp_steps);
    const char *key = getenv("SIM_GPU"), *bound = "";
    if (!key || !*key) key = "h100-sxm";
    double seconds = sim_roofline_estimate_seconds(m, key, &bound);
    if (seconds >= 0)
        fprintf(out, "  roofline estimate on %s: %.3g us (%s-bound; %.3g FLOP declared, %llu bytes of sectors) — an "
                "estimate, not a measurement\n", key, seconds * 1e6, bound, m->declared_flops,
                32 * (m->global_load_sectors + m->global_store_sectors));
}
