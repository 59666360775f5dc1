/* metrics.c — counting, per launch, what Nsight Compute would measure on a GPU.
 *
 * A warp-level request is what the lanes of one warp do together: the n-th execution of
 * one memory instruction (its code address, the "site") by each lane. The lanes of a warp
 * run one after another between two points where they wait (a collective, a barrier, the
 * end), so during that stretch every access is noted as (site, n, unit), with unit a
 * 32-byte sector for global memory or a 4-byte word for shared memory. When the warp
 * yields, the notes are sorted and grouped: a group is one request; its distinct sectors
 * are what it costs; for shared memory, the most distinct words that fall in one of the
 * 32 banks is how many wavefronts (passes) it needs. Basic blocks are noted the same way:
 * a group is one warp-level step, and its size is how many lanes were active in it. */
#include "internal.h"
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { GLOBAL_LOAD, GLOBAL_STORE, SHARED_LOAD, SHARED_STORE, BLOCK_POINT } note_kind;

typedef struct note {
    uint64_t key;        /* kind (4 bits) | site slot (20 bits) | occurrence (40 bits) */
    uint64_t unit;       /* a sector or a word; unused for block points */
    uint32_t bytes;
} note;

typedef struct site_slot { const void *site; uint32_t occurrences[WARP_SIZE]; } site_slot;

enum { SITE_SLOTS = 4096 };
typedef struct metrics_state {
    site_slot sites[SITE_SLOTS];     /* open addressing on the site's address */
    uint32_t used_slots[SITE_SLOTS];
    int used_count;
    note *notes;
    size_t note_count, note_capacity;
} metrics_state;

static int asked_by_program;         /* sim_metrics_enable(1) */
int sim_metrics_counting;
static sim_launch_metrics current;
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

static uint64_t site_key(metrics_state *m, note_kind kind, const void *site, unsigned lane)
{
    size_t slot = ((uintptr_t)site >> 2) * 0x9E3779B97F4A7C15ull >> 52;   /* 12 bits */
    while (m->sites[slot].site && m->sites[slot].site != site) slot = (slot + 1) & (SITE_SLOTS - 1);
    site_slot *s = &m->sites[slot];
    if (!s->site) {
        if (m->used_count == SITE_SLOTS - 1) sim_kernel_fail(cudaErrorLaunchFailure, "too many distinct code sites to count");
        s->site = site;
        m->used_slots[m->used_count++] = (uint32_t)slot;
    }
    uint64_t occurrence = s->occurrences[lane]++;
    return (uint64_t)kind << 60 | (uint64_t)slot << 40 | occurrence;
}

static void add_note(metrics_state *m, uint64_t key, uint64_t unit, uint32_t bytes)
{
    if (sim_grow((void **)&m->notes, &m->note_capacity, m->note_count, sizeof *m->notes, 4096))
        sim_kernel_fail(cudaErrorMemoryAllocation, "out of memory counting metrics");
    m->notes[m->note_count++] = (note){key, unit, bytes};
}

void sim_metrics_global(worker *w, uintptr_t address, size_t bytes, int is_write, void *site)
{
    metrics_state *m = w->metrics;
    if (!m || !w->running) return;
    uint64_t key = site_key(m, is_write ? GLOBAL_STORE : GLOBAL_LOAD, site, w->running->linear % WARP_SIZE);
    for (uint64_t sector = address >> 5; sector <= (address + bytes - 1) >> 5; sector++)
        add_note(m, key, sector, sector == address >> 5 ? (uint32_t)bytes : 0);
}

void sim_metrics_shared(worker *w, uintptr_t address, size_t bytes, int is_write, void *site)
{
    metrics_state *m = w->metrics;
    if (!m) return;
    uint64_t key = site_key(m, is_write ? SHARED_STORE : SHARED_LOAD, site, w->running->linear % WARP_SIZE);
    uintptr_t offset = address - (uintptr_t)w->shared_arena;
    for (uint64_t word = offset >> 2; word <= (offset + bytes - 1) >> 2; word++)
        add_note(m, key, word, word == offset >> 2 ? (uint32_t)bytes : 0);
}

void sim_metrics_block_point(worker *w, uint32_t guard)
{
    metrics_state *m = w->metrics;
    add_note(m, site_key(m, BLOCK_POINT, (const void *)(uintptr_t)(guard * 4u + 4u), w->running->linear % WARP_SIZE), 0, 0);
}

void sim_metrics_barrier(worker *w)
{
    if (w->metrics) current.barriers++;
}

void sim_metrics_atomic(void)
{
    if (sim_current_worker && sim_current_worker->metrics) current.atomics++;
}

/* ---------------------------------------------------------------------------------
 * Grouping notes into requests when a warp yields */

static int by_key_then_unit(const void *a, const void *b)
{
    const note *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* Occurrences count from zero again after each yield: the next stretch makes new requests. */
static void forget_sites(metrics_state *m)
{
    for (int i = 0; i < m->used_count; i++) memset(&m->sites[m->used_slots[i]], 0, sizeof(site_slot));
    m->used_count = 0;
}

void sim_metrics_warp_yield(worker *w)
{
    metrics_state *m = w->metrics;
    if (!m) return;
    qsort(m->notes, m->note_count, sizeof *m->notes, by_key_then_unit);
    for (size_t i = 0; i < m->note_count;) {
        uint64_t key = m->notes[i].key;
        note_kind kind = (note_kind)(key >> 60);
        unsigned long long distinct = 0, bytes = 0, entries = 0;
        unsigned bank_words[32] = {0};
        size_t j = i;
        for (; j < m->note_count && m->notes[j].key == key; j++) {
            entries++;
            bytes += m->notes[j].bytes;
            if (j == i || m->notes[j].unit != m->notes[j - 1].unit) {
                distinct++;
                if (kind == SHARED_LOAD || kind == SHARED_STORE) bank_words[m->notes[j].unit % 32]++;
            }
        }
        unsigned ways = 0;
        for (int b = 0; b < 32; b++) ways = bank_words[b] > ways ? bank_words[b] : ways;
        switch (kind) {
        case GLOBAL_LOAD: current.global_load_requests++, current.global_load_sectors += distinct, current.global_load_bytes += bytes; break;
        case GLOBAL_STORE: current.global_store_requests++, current.global_store_sectors += distinct, current.global_store_bytes += bytes; break;
        case SHARED_LOAD: current.shared_load_requests++, current.shared_load_wavefronts += ways, current.shared_load_bytes += bytes; break;
        case SHARED_STORE: current.shared_store_requests++, current.shared_store_wavefronts += ways, current.shared_store_bytes += bytes; break;
        case BLOCK_POINT: current.warp_steps++, current.active_lanes += entries; break;
        }
        if ((kind == SHARED_LOAD || kind == SHARED_STORE) && ways > current.max_bank_conflict_ways)
            current.max_bank_conflict_ways = ways;
        i = j;
    }
    m->note_count = 0;
    forget_sites(m);
}

/* ---------------------------------------------------------------------------------
 * Launches */

void sim_metrics_begin_launch(const sim_launch_request *r)
{
    worker *w = sim_current_worker;
    if (!sim_metrics_enabled()) {
        w->metrics = NULL;
        next_flops = 0;
        return;
    }
    if (!w->metrics) w->metrics = calloc(1, sizeof(metrics_state));
    sim_metrics_counting = 1;
    memset(&current, 0, sizeof current);
    snprintf(current.kernel, sizeof current.kernel, "%s", r->kernel_name);
    current.grid[0] = r->grid.x, current.grid[1] = r->grid.y, current.grid[2] = r->grid.z;
    current.block[0] = r->block.x, current.block[1] = r->block.y, current.block[2] = r->block.z;
    current.declared_flops = next_flops;
    next_flops = 0;
}

void sim_metrics_end_launch(int failed)
{
    worker *w = sim_current_worker;
    sim_metrics_counting = 0;
    if (!w->metrics) return;
    w->metrics->note_count = 0;
    forget_sites(w->metrics);
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
    const char *key = getenv("SIM_GPU") && *getenv("SIM_GPU") ? getenv("SIM_GPU") : "h100-sxm", *bound = "";
    double seconds = sim_roofline_estimate_seconds(m, key, &bound);
    if (seconds >= 0)
        fprintf(out, "  roofline estimate on %s: %.3g us (%s-bound; %.3g FLOP declared, %llu bytes of sectors) — an "
                "estimate, not a measurement\n", key, seconds * 1e6, bound, m->declared_flops,
                32 * (m->global_load_sectors + m->global_store_sectors));
}
