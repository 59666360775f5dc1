/* internal.h — the simulator's state, shared by its parts (threads, warps, memory,
 * accesses, metrics). Each part is one file; this header is how they see one another.
 *
 * One OS thread runs one block at a time: it is a "worker"; a launch's blocks are shared out
 * among as many workers as there are cores (threads.c). The worker's scheduler runs
 * the block warp by warp; within a warp, lane by lane, each until it ends, reaches
 * __syncthreads() or reaches a warp collective. A warp's collectives are resolved as soon
 * as every lane they name has arrived; a barrier is released once every warp is stuck at
 * it. Every load and store of kernel code arrives at access.c (clang's sanitizer-coverage
 * hooks), which checks it and, when metrics are on, counts it.
 *
 * One way to give up: sim_fatal (exit 2, the simulator cannot go on) or sim_crash (SIGABRT, where
 * a GPU would crash too); one way to get memory: sim_alloc, sim_try_alloc, sim_grow. Both are
 * declared below, by errors.c's functions, and nothing else exits, aborts or allocates. */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include "fiber.h"
#include "sim.h"
#include "sim_metrics.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum { MAX_THREADS_PER_BLOCK = 1024, WARP_SIZE = 32, MAX_WARPS = MAX_THREADS_PER_BLOCK / WARP_SIZE };
/* One guard page below each stack is enough: kernels are compiled with
 * -fstack-clash-protection, so a large frame touches every page it spans and cannot jump it. */
enum { STACK_BYTES = 64 * 1024, GUARD_BYTES = 4096, SIGNAL_STACK_BYTES = 64 * 1024 };
/* The arena holds a block's shared memory with a gap of SHARED_GAP_BYTES after the dynamic part and
 * after each static variable, so that an access past the end of one lands in a gap and is reported
 * instead of silently reaching the next variable. */
enum { SHARED_GAP_BYTES = 1024, MAX_SHARED_DECLARATIONS = 64,
       SHARED_ARENA_BYTES = 256 * 1024 + (MAX_SHARED_DECLARATIONS + 1) * SHARED_GAP_BYTES };

typedef enum { NOT_STARTED, RUNNING, AT_BARRIER, AT_TILE_BARRIER, AT_COLLECTIVE, RELEASED, DONE } thread_state;

/* Tiles of several warps (tiles.c): 64, 128, 256, 512 or 1024 threads, levels 1 to 5 (2^level warps). */
enum { MAX_TILE_LEVEL = 5 };

typedef struct collective_call {
    sim_collective_kind kind;
    unsigned mask;
    uint64_t value;          /* the lane's contribution (a shuffled value, a predicate) */
    int argument;            /* source lane, delta or lane mask */
    int width;
    const char *file;
    int line;
    uint64_t result;
} collective_call;

typedef struct cuda_thread {
    fiber context;
    uint3 idx;
    unsigned linear;         /* x + y * blockDim.x + z * blockDim.x * blockDim.y */
    thread_state state;
    int stack;               /* index in the stack pool while it holds one */
    uintptr_t stack_low;     /* its stack, for telling local accesses apart */
    const char *barrier_file;
    int barrier_line;
    unsigned tile_size;      /* at AT_TILE_BARRIER: the threads of the tile it waits with */
    collective_call collective;
    unsigned long long steps;       /* basic blocks run before it last started running (clock64) */
    unsigned long long steps_mark;  /* sim_steps_left when it last started running */
} cuda_thread;

typedef struct shared_declaration {
    const void *key;
    size_t offset, bytes;
    const char *name;        /* for messages: "tile" */
    const sim_shape *shape;  /* element size and extents, to name tile[4][17] */
} shared_declaration;

/* A race with a thread waiting at a barrier, kept until the interval ends (races.c says why). */
typedef struct pending_race {
    int pending;
    unsigned thread, other;  /* the thread whose access raced, and the one that waits */
    unsigned later_races;    /* races met since, while it waits */
    char accesses[900];      /* "read tile[0] at x.cu:12, which thread (0,0,0) wrote at x.cu:11" */
} pending_race;

/* A write to bytes another thread wrote in the interval, with nothing ordering the two: a race unless
 * it stores the bytes already there. The hooks run before the store, so it is decided once the store
 * has happened (races.c). */
typedef struct suspect_write {
    int pending;
    uintptr_t address, record_address;  /* the access, and the record (word or byte) that raced */
    size_t bytes;
    unsigned char before[16];           /* the access's bytes before the store */
    unsigned other;                     /* the thread that wrote them */
    const void *site, *other_site;
    unsigned long long steps_left;      /* the thread's step budget, while sim_steps_left is 1 */
} suspect_write;

/* What a block has printed while blocks before it still run (output.c). */
typedef struct sim_output_buffer { char *data; size_t bytes, capacity; } sim_output_buffer;

typedef struct worker {
    fiber scheduler;
    cuda_thread threads[MAX_THREADS_PER_BLOCK];
    int thread_count;
    cuda_thread *running;
    unsigned running_lane;            /* running->linear % WARP_SIZE (the metrics read it on every access) */
    uint32_t warp_epoch[MAX_WARPS];   /* counts the warp's resolved collectives (orders lanes) */
    uint32_t interval;                /* the barrier interval, unique across blocks and launches */
    int done_count;                   /* threads of the block that have ended */
    int collectives_waiting;          /* lanes waiting at a warp collective */
    int tiles_waiting;                /* threads waiting at the sync() of a tile of several warps */
    /* For each warp and tile level: its warp_epoch just after, and the interval of, the last sync() of a
     * tile of that size or larger it passed (races.c: what such a barrier ordered) */
    uint16_t tile_epoch[MAX_TILE_LEVEL + 1][MAX_WARPS];
    uint32_t tile_interval[MAX_TILE_LEVEL + 1][MAX_WARPS];
    unsigned char tile_values[MAX_WARPS][32];   /* each warp's part of a tile's collective (tiles.c) */

    void *signal_stack;               /* where a fault in one of its kernels is handled */
    unsigned char *stack_region;      /* MAX_THREADS_PER_BLOCK stacks, each above a guard */
    size_t stack_stride;
    int free_stacks[MAX_THREADS_PER_BLOCK];
    int free_stack_count;
    int guarded_stacks;               /* stacks 0 .. guarded_stacks-1 have their guard page */

    unsigned char *shared_arena;      /* dynamic shared memory first, static declarations after */
    unsigned char *shared_valid;      /* one byte per arena byte: 1 inside the dynamic part or a variable */
    size_t shared_used, dynamic_shared_bytes, static_shared_bytes, shared_limit;
    shared_declaration declarations[MAX_SHARED_DECLARATIONS];
    int declaration_count;
    const char *dynamic_name;         /* the extern __shared__ array's name and shape, for messages */
    sim_shape dynamic_shape;

    const sim_launch_request *launch;
    sigjmp_buf abort_launch;
    cudaError_t abort_error;

    struct access_record *shadow;     /* race-detector state, one per 4-byte word of the arena */
    struct access_record *shadow_bytes;   /* and one per byte, for words accessed in parts */
    pending_race race;
    suspect_write suspect;
    struct metrics_state *metrics;    /* per-block counting state, while a counted launch runs */
    struct metrics_state *metrics_memory;   /* kept from one counted launch to the next */

    unsigned long long block_number;  /* the running block's linear index (x fastest) */
    sim_output_buffer output;         /* what it printed while an earlier block still ran */
} worker;

extern __thread worker *sim_current_worker;
/* Steps (basic blocks of kernel code) the running CUDA thread may still take before it reaches a
 * barrier or ends (threads.c sets it as a thread starts or resumes; access.c counts it down). */
extern __thread unsigned long long sim_steps_left;

/* threads.c */
cudaError_t sim_launch_now(const sim_launch_request *r);
/* The running thread has stopped (barrier, collective): run another lane or the scheduler. */
void sim_block_running_thread(worker *w, cuda_thread *self);
void sim_describe_place(worker *w);
/* The step budget ran out at `site` (access.c): fails the launch when a CUDA thread runs, else resets it. */
void sim_out_of_steps(void *site);
/* Room for element `count` of a doubling array (errors.c): 0, or -1 with the array untouched. */
int sim_grow(void **array, size_t *capacity, size_t count, size_t element_bytes, size_t first);
/* How the simulator gives up (errors.c), the only places it exits or aborts:
 *   sim_fatal   "sim: <reason>", exit status 2: the simulator cannot go on (its GPU table, a limit);
 *   sim_crash   "sim: <what happened>", then SIGABRT: the program broke CUDA's rules where a GPU would
 *               crash it too (device memory read by host code, a device function called from it).
 * And how it gets memory: sim_alloc (zeroed; out of memory is fatal) for its own state, sim_try_alloc
 * (NULL) for what a CUDA call allocates and reports failing as CUDA's error, sim_grow for arrays.
 * tools/ci/give-up-check holds lib/sim to it. */
__attribute__((noreturn, format(printf, 1, 2))) void sim_fatal(const char *format, ...);
__attribute__((noreturn, format(printf, 1, 2))) void sim_crash(const char *format, ...);
void *sim_alloc(size_t count, size_t size);
void *sim_try_alloc(size_t count, size_t size);
__attribute__((noreturn)) void sim_abort_launch(worker *w, cudaError_t error);

/* shared.c */
void sim_shared_reset_block(worker *w);
/* "tile[4][17]" for a shared address, or "shared memory at offset N". */
void sim_shared_name(worker *w, uintptr_t address, char *out, size_t size);
/* An access to shared memory outside the dynamic part and every variable: reported, the launch stopped. */
__attribute__((noreturn)) void sim_shared_out_of_bounds(worker *w, uintptr_t address, size_t bytes, int is_write, void *site);

/* warps.c: resolves the collectives of one warp; returns whether any lane can go on. */
int sim_resolve_collectives(worker *w, int first_lane, int lanes);
void sim_check_collectives_at_barrier(worker *w);

/* groups.c: releases the lanes waiting at coalesced_threads(), grouped by place; returns whether any can go on. */
int sim_resolve_coalesced(worker *w, int first_lane, int lanes);

/* tiles.c: releases every tile of several warps whose threads all wait at its sync(); returns whether any
 * could go on. When none can, sim_tiles_never_complete says which thread holds one back, and fails. */
int sim_release_tiles(worker *w);
__attribute__((noreturn)) void sim_tiles_never_complete(worker *w);

/* memory.c */
typedef struct allocation {
    uintptr_t start;
    size_t bytes;
    void *made_at;            /* return address of the cudaMalloc call, for messages */
    int freed;
    int managed;              /* from cudaMallocManaged: the host may use it too */
} allocation;
const allocation *sim_find_allocation(uintptr_t address);           /* live or freed, containing it */
const allocation *sim_nearest_allocation(uintptr_t address, long long *offset);
int sim_is_device_address(uintptr_t address);                         /* inside the device region */
int sim_is_pinned_host(uintptr_t address);
cudaError_t sim_device_alloc(void **pointer, size_t bytes, void *caller);   /* made at `caller` */

/* access.c */
void sim_access_begin_launch(const sim_launch_request *r);   /* the launch's parameters, for every worker */
void sim_access_begin_worker(worker *w);     /* this worker runs the launch's blocks: its arena */
void sim_access_forget_allocations(void);   /* this worker's cache of allocations and arena: at its end */
/* The running CUDA thread's stack (threads.c sets it as a thread starts or resumes). */
extern __thread uintptr_t sim_running_stack_low;
void sim_image_ranges_init(void);

/* races.c */
void sim_race_check(worker *w, uintptr_t address, size_t bytes, int is_write, void *site);
/* Fails the launch with the pending race, in the name of the thread whose access raced. */
__attribute__((noreturn)) void sim_race_fail(worker *w);
/* Decides a suspect write (above) once its store has happened: at the running thread's next basic
 * block (sim_out_of_steps), its next shared access, or when it stops or ends. */
void sim_race_settle_write(worker *w);
static inline void sim_race_settle(worker *w)
{
    if (__builtin_expect(w->suspect.pending, 0)) sim_race_settle_write(w);
}

/* metrics.c */
extern int sim_metrics_counting;    /* true during a launch whose metrics are being counted */
int sim_metrics_enabled(void);
void sim_metrics_begin_launch(const sim_launch_request *r);
void sim_metrics_begin_worker(worker *w);   /* each worker that runs the launch's blocks */
void sim_metrics_end_worker(worker *w);     /* adds what it counted to the launch's figures */
void sim_metrics_end_launch(int failed);
/* (and metrics.h: what access.c counts for each access and basic block) */
void sim_metrics_warp_yield(worker *w);   /* a warp has stopped: count its requests */
void sim_metrics_barrier(worker *w);
void sim_metrics_atomic(void);

/* output.c: what kernels print, in block order (printf itself is there too) */
void sim_report(const char *format, ...) __attribute__((format(printf, 1, 2)));   /* to stderr */
void sim_vreport(const char *format, va_list args);
void sim_output_add_worker(worker *w);
void sim_output_begin_launch(int several_workers);
void sim_output_begin_block(worker *w, unsigned long long block);
void sim_output_end_block(worker *w, cudaError_t error);   /* cudaSuccess, or why the block failed */
unsigned long long sim_output_first_failed(void);         /* in block order; ULLONG_MAX if none */
cudaError_t sim_output_end_launch(void);                  /* the first failed block's error, or cudaSuccess */

/* device.c: a GPU's FP32 peak (FLOP/s) and memory bandwidth (bytes/s); 0 if unknown. */
int sim_gpu_rates(const char *key, double *peak_flops, double *bandwidth);

/* symbols.c: "file.cu:42 (in kernel_name)" for a code address, or "" if unknown. */
const char *sim_source_line(const void *code_address);

#endif
