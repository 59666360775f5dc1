/* threads.c — running a grid on the CPU: blocks, CUDA threads as fibers, barriers, and
 * turning a crash inside a kernel into a CUDA error.
 *
 * One OS thread (a "worker") runs one block at a time; a launch's blocks are shared out among
 * one worker per core (SIM_THREADS), each taking the next block not yet taken, and what they
 * print comes out in block order (output.c). A block's CUDA threads are fibers;
 * the scheduler runs them warp by warp (warps are 32 consecutive threads, x fastest,
 * then y, then z) and, within a warp, lane by lane, each until it ends, reaches
 * __syncthreads() or reaches a warp collective (warps.c). When every lane a collective
 * names has arrived, the collective is resolved and those lanes go on. When every warp is
 * stuck, the tiles of several warps whose threads all wait at the tile's sync() go on (tiles.c);
 * when none can, every thread waits at __syncthreads() and the barrier is released: that ends one
 * barrier interval.
 * A thread that ends hands its stack to the next thread to start, so a kernel without
 * barriers runs every thread on the same, cache-hot stack. */
#include "internal.h"
#include "device.h"
#include "runtime.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__thread sim_builtin_variables sim_builtins;
__thread worker *sim_current_worker;
__thread unsigned long long sim_steps_left = ~0ULL;

/* ---------------------------------------------------------------------------------
 * Workers */

static void *map_or_null(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void install_fault_handlers(void);

static void free_all_stacks(worker *w)
{
    for (int i = 0; i < MAX_THREADS_PER_BLOCK; i++) w->free_stacks[i] = MAX_THREADS_PER_BLOCK - 1 - i;
    w->free_stack_count = MAX_THREADS_PER_BLOCK;
}

/* A worker's stacks and shared memory, or NULL if they cannot be had. */
static worker *new_worker(void)
{
    worker *w = sim_try_alloc(1, sizeof *w);
    if (!w) return NULL;
    w->stack_stride = STACK_BYTES + GUARD_BYTES;
    w->stack_region = map_or_null(w->stack_stride * MAX_THREADS_PER_BLOCK);
    w->shared_arena = map_or_null(SHARED_ARENA_BYTES);
    w->shared_valid = map_or_null(SHARED_ARENA_BYTES);
    w->signal_stack = map_or_null(SIGNAL_STACK_BYTES);
    if (!w->stack_region || !w->shared_arena || !w->shared_valid || !w->signal_stack) {
        if (w->stack_region) munmap(w->stack_region, w->stack_stride * MAX_THREADS_PER_BLOCK);
        if (w->shared_arena) munmap(w->shared_arena, SHARED_ARENA_BYTES);
        if (w->shared_valid) munmap(w->shared_valid, SHARED_ARENA_BYTES);
        if (w->signal_stack) munmap(w->signal_stack, SIGNAL_STACK_BYTES);
        free(w);
        return NULL;
    }
    free_all_stacks(w);
    sim_output_add_worker(w);
    return w;
}

/* The calling OS thread becomes worker `w`: a fault in a kernel it runs is caught on its own stack. */
static void adopt_worker(worker *w)
{
    stack_t signal_stack = {.ss_sp = w->signal_stack, .ss_size = SIGNAL_STACK_BYTES};
    sigaltstack(&signal_stack, NULL);
    install_fault_handlers();
    sim_image_ranges_init();
    sim_current_worker = w;
}

/* The program's own thread's worker. */
static worker *get_worker(void)
{
    if (sim_current_worker) return sim_current_worker;
    worker *w = new_worker();
    if (!w) sim_fatal("cannot map memory for CUDA thread stacks: %s", strerror(errno));
    adopt_worker(w);
    return w;
}

static unsigned char *stack_base(worker *w, int stack)
{
    return w->stack_region + (size_t)stack * w->stack_stride + GUARD_BYTES;
}

/* Where a stack's first frame goes: a little below the top, by a different number of
 * cache lines for each stack, so that the busiest bytes of the block's stacks do not all
 * fall into the same cache sets (their tops are a power-of-two-ish distance apart). */
static size_t usable_stack_bytes(int stack) { return STACK_BYTES - (size_t)(stack % 64) * 64; }

/* ---------------------------------------------------------------------------------
 * Failing a launch: say where, then jump back to sim_launch */

void sim_describe_place(worker *w)
{
    const sim_launch_request *r = w->launch;
    sim_report("sim: kernel %s (launched at %s:%d), block (%u,%u,%u)", r->kernel_name, r->file, r->line,
               sim_builtins.block_idx.x, sim_builtins.block_idx.y, sim_builtins.block_idx.z);
    if (w->running) sim_report(", thread (%u,%u,%u)", w->running->idx.x, w->running->idx.y, w->running->idx.z);
    sim_report(":\n     ");
}

void sim_abort_launch(worker *w, cudaError_t error)
{
    if (w->race.pending) {   /* the race was kept for the end of the interval (races.c): say it too */
        const uint3 t = w->threads[w->race.thread].idx;
        sim_report("sim: before that, in the same barrier interval, thread (%u,%u,%u) %s,\n"
                   "     with nothing ordering the two accesses.\n", t.x, t.y, t.z, w->race.accesses);
        w->race.pending = 0;
    }
    w->abort_error = error;
    siglongjmp(w->abort_launch, 1);
}

void sim_kernel_fail(cudaError_t error, const char *format, ...)
{
    worker *w = sim_current_worker;
    va_list args;
    va_start(args, format);
    if (w && w->launch) sim_describe_place(w);
    else sim_report("sim: ");
    sim_vreport(format, args);
    sim_report("\n");
    va_end(args);
    if (!w || !w->launch) sim_crash("(the failure above happened outside a kernel: nothing to stop but the program)");
    sim_abort_launch(w, error);
}

/* A thread that runs on and on without reaching a barrier or its end: most often a loop that never
 * ends (a grid-stride step of 0, a bound it never reaches). A GPU would run it until the program is
 * killed, and a test would wait for its timeout; a GPU with a display watchdog stops it with
 * cudaErrorLaunchTimeout after a few seconds. The simulator counts the thread's steps (the basic
 * blocks of code it runs, access.c) and stops it, with that error, after SIM_MAX_STEPS of them:
 * 2^28 by default, about a second here, and sixteen times what a grid-stride loop of one thread
 * over 16 million elements takes (a step an element); every program of the book runs within it
 * (make test). While the metrics count (they keep a record of every step a warp takes, which would
 * otherwise grow until memory runs out), a 256th of that. Counted, not timed, so the same kernel
 * stops at the same point every time. */
enum { DEFAULT_MAX_STEPS = 1 << 28, COUNTED_SHARE = 256 };
/* SIM_MAX_STEPS, and a thread's share while the metrics count: set at the first launch */
static unsigned long long max_steps, max_counted_steps;

static unsigned long long steps_for(const worker *w) { return w->metrics ? max_counted_steps : max_steps; }

static unsigned long long steps_allowed(void)
{
    const char *setting = getenv("SIM_MAX_STEPS");
    if (!setting || !*setting) return DEFAULT_MAX_STEPS;
    char *end;
    unsigned long long n = strtoull(setting, &end, 10);
    if (*end || n < 1000 || setting[0] == '-')
        sim_fatal("SIM_MAX_STEPS=%s: give how many steps (basic blocks of code) one CUDA thread may run before it "
                  "reaches a barrier or ends, 1000 or more (the default is %d)", setting, DEFAULT_MAX_STEPS);
    return n;
}

void sim_out_of_steps(void *site)
{
    worker *w = sim_current_worker;
    if (!w || !w->running || !w->launch) {   /* host code: it has no budget */
        sim_steps_left = ~0ULL;
        return;
    }
    if (w->suspect.pending) {   /* a suspect write's store has happened (races.c); one step taken since */
        sim_race_settle_write(w);
        if (--sim_steps_left > 0) return;
    }
    unsigned long long steps = steps_for(w);
    const char *where = sim_source_line(site);   /* often only "file.cu:?": the count is code of no line */
    if (*where && where[strlen(where) - 1] == '?') where = "";
    sim_kernel_fail(cudaErrorLaunchTimeout,
        "%s%sthis thread has run %llu steps (basic blocks of code) since it started or last passed a barrier, and\n"
        "     has not ended. Does a loop never end (a stride of 0, a bound it never reaches)? On a GPU the\n"
        "     launch would run until the program is killed. If it is meant to run this long, SIM_MAX_STEPS=N\n"
        "     allows more (now %llu%s).", where, *where ? ": " : "", steps, max_steps,
        steps < max_steps ? "; while the metrics count, as here, a thread gets a 256th of it" : "");
}

/* A fault inside a kernel (a bad pointer the access checks did not see, a stack
 * overflow, a division by zero) becomes a failed launch with a message, as a GPU turns it
 * into a CUDA error, instead of killing the program without saying which thread did it. */
static void on_fault(int signal_number, siginfo_t *info, void *context)
{
    (void)context;
    worker *w = sim_current_worker;
    uintptr_t address = (uintptr_t)info->si_addr;
    if (!w || !w->launch) {                 /* host code */
        if (signal_number == SIGSEGV && sim_is_device_address(address))
            fprintf(stderr, "sim: host code touched device memory at %p (%s). On a GPU system this is a "
                    "crash too:\n     copy the data back with cudaMemcpy before reading it on the host.\n",
                    info->si_addr, sim_find_allocation(address) ? "freed by cudaFree" : "not allocated");
        signal(signal_number, SIG_DFL);
        return;
    }
    uintptr_t stacks = (uintptr_t)w->stack_region;
    size_t stack = (address - stacks) / w->stack_stride;
    sim_describe_place(w);
    if (signal_number == SIGFPE) {
        sim_report("integer division by zero (on a GPU the result is undefined; here the launch stops)\n");
        sim_abort_launch(w, cudaErrorLaunchFailure);
    }
    if (address >= stacks && stack < MAX_THREADS_PER_BLOCK && address - stacks - stack * w->stack_stride < GUARD_BYTES) {
        sim_report("stack overflow: this thread used more than its %d KiB of stack (a large local array? "
                   "deep recursion?)\n", STACK_BYTES / 1024);
        sim_abort_launch(w, cudaErrorLaunchOutOfResources);
    }
    sim_report("invalid memory access at address %p\n", info->si_addr);
    sim_abort_launch(w, cudaErrorIllegalAddress);
}

static void install_fault_handlers(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, NULL);
    sigaction(SIGBUS, &action, NULL);
    sigaction(SIGFPE, &action, NULL);
}

/* ---------------------------------------------------------------------------------
 * CUDA threads as fibers
 *
 * The CPU passes from lane to lane of a warp directly, not through the scheduler: a lane
 * that ends lets the next lane of its warp start right there, on the same stack (its own
 * frames are gone); a lane that waits switches straight to the next lane that can run.
 * Only when no lane of the warp can run does control return to the scheduler. A warp
 * without barriers thus costs one switch into it and one out, whatever its size. */

static void become_running(worker *w, cuda_thread *t)
{
    sim_steps_left = t->steps_mark = steps_for(w);
    sim_running_stack_low = t->stack_low;
    t->state = RUNNING;
    w->running = t;
    w->running_lane = t->linear % WARP_SIZE;
    sim_builtins.thread_idx = t->idx;
}

/* The next lane of `self`'s warp that can run now, or NULL. */
static cuda_thread *next_runnable_lane(worker *w, cuda_thread *self)
{
    unsigned end = (self->linear / WARP_SIZE + 1) * WARP_SIZE;
    if (end > (unsigned)w->thread_count) end = (unsigned)w->thread_count;
    for (unsigned i = self->linear + 1; i < end; i++)
        if (w->threads[i].state == NOT_STARTED || w->threads[i].state == RELEASED) return &w->threads[i];
    return NULL;
}

static void cuda_thread_main(void);

/* Gives the CPU to `next` (starting it on a fresh stack if it has not started), saving the
 * running context in `from`. */
static void switch_to_lane(worker *w, fiber *from, cuda_thread *next)
{
    if (next->state == NOT_STARTED) {
        next->stack = w->free_stacks[--w->free_stack_count];
        /* A stack's guard page is made when the stack is first used: the free list hands out
         * 0, 1, 2, ... before any it took back, so the stacks in use are always below
         * guarded_stacks. (All 1024 guards at once were 1024 calls to mprotect in every
         * process that launched a kernel: one per test, as Criterion runs them.) */
        if (next->stack == w->guarded_stacks)
            mprotect(w->stack_region + (size_t)w->guarded_stacks++ * w->stack_stride, GUARD_BYTES, PROT_NONE);
        next->stack_low = (uintptr_t)stack_base(w, next->stack);
        sim_fiber_prepare(&next->context, stack_base(w, next->stack), usable_stack_bytes(next->stack), cuda_thread_main);
    }
    become_running(w, next);
    if (next->linear + 1 < (unsigned)w->thread_count) sim_fiber_prefetch(&next[1].context);   /* the next switch's */
    sim_fiber_switch(from, &next->context);
}

/* `self` has just stopped at a barrier or a collective: run another lane, or the scheduler. */
void sim_block_running_thread(worker *w, cuda_thread *self)
{
    sim_race_settle(w);
    self->steps += self->steps_mark - sim_steps_left;
    cuda_thread *next = next_runnable_lane(w, self);
    if (next) {
        switch_to_lane(w, &self->context, next);
    } else {
        w->running = NULL;
        sim_fiber_switch(&self->context, &w->scheduler);
    }
}

static void cuda_thread_main(void)
{
    worker *w = sim_current_worker;
    cuda_thread *self = w->running;
    for (;;) {
        w->launch->run_thread(w->launch->arguments);
        sim_race_settle(w);
        self->state = DONE;
        w->done_count++;
        cuda_thread *following = self + 1;   /* the common case: the next lane has not started */
        cuda_thread *next = self->linear % WARP_SIZE != WARP_SIZE - 1 && (int)self->linear + 1 < w->thread_count &&
                            following->state == NOT_STARTED ? following : next_runnable_lane(w, self);
        if (next && next->state == NOT_STARTED) {     /* it inherits this stack, right here */
            next->stack = self->stack;
            next->stack_low = self->stack_low;
            become_running(w, next);
            self = next;
            continue;
        }
        w->free_stacks[w->free_stack_count++] = self->stack;   /* safe: nothing reuses it before we leave */
        if (next) {
            switch_to_lane(w, &self->context, next);
        } else {
            w->running = NULL;
            sim_fiber_switch(&self->context, &w->scheduler);
        }
        __builtin_unreachable();
    }
}

long long sim_clock64(void)
{
    worker *w = sim_current_worker;
    if (!w || !w->running || !w->launch) sim_crash("clock64() called outside a kernel: in CUDA it is device code only");
    cuda_thread *t = w->running;
    sim_race_settle(w);
    return (long long)(t->steps + (t->steps_mark - sim_steps_left));
}

clock_t sim_clock(void)
{
    worker *w = sim_current_worker;
    if (!w || !w->running || !w->launch) return clock();
    return (clock_t)sim_clock64();
}

void sim_syncthreads_at(const char *file, int line)
{
    worker *w = sim_current_worker;
    if (!w || !w->running) sim_crash("%s:%d: __syncthreads() called outside a kernel", file, line);
    cuda_thread *self = w->running;
    self->state = AT_BARRIER;
    self->barrier_file = file;
    self->barrier_line = line;
    sim_block_running_thread(w, self);
}

/* ---------------------------------------------------------------------------------
 * Blocks: warp by warp, barrier interval by barrier interval */

/* A barrier is known by its place in the source: the compiler may merge two barrier calls
 * into one, or copy one into both arms of a branch, so the call's address is no name. */
static int same_barrier(const cuda_thread *a, const cuda_thread *b)
{
    return a->barrier_line == b->barrier_line &&
           (a->barrier_file == b->barrier_file || strcmp(a->barrier_file, b->barrier_file) == 0);
}

/* Fails the launch: `waiter` waits at a barrier that `other` will never reach, because it has
 * returned or waits at another barrier. `because` is "" or a sentence about a race it caused. */
static __attribute__((noreturn)) void barrier_never_completes(const cuda_thread *waiter, const cuda_thread *other,
                                                              const char *because)
{
    if (other->state == DONE)
        sim_kernel_fail(cudaErrorLaunchFailure,
            "thread (%u,%u,%u) waits at __syncthreads() in %s:%d, but thread (%u,%u,%u) of the same\n"
            "     block has already returned and will never arrive.%s\n"
            "     Every thread of a block must reach each __syncthreads(): do not return early from a kernel\n"
            "     that synchronises, and keep every barrier out of branches that only some threads take\n"
            "     (guard the work with `if (i < n)`, not the barrier).",
            waiter->idx.x, waiter->idx.y, waiter->idx.z, waiter->barrier_file, waiter->barrier_line,
            other->idx.x, other->idx.y, other->idx.z, because);
    sim_kernel_fail(cudaErrorLaunchFailure,
        "threads wait at different barriers: thread (%u,%u,%u) at __syncthreads() in %s:%d,\n"
        "     thread (%u,%u,%u) at __syncthreads() in %s:%d.%s\n"
        "     A barrier inside a branch that not every thread of the block takes never completes;\n"
        "     move it out of the branch.",
        waiter->idx.x, waiter->idx.y, waiter->idx.z, waiter->barrier_file, waiter->barrier_line,
        other->idx.x, other->idx.y, other->idx.z, other->barrier_file, other->barrier_line, because);
}

/* A race kept for the end of the interval (races.c): if the racing thread did not reach the
 * barrier the other thread waits at, the barrier is the mistake and the race its symptom. */
static void report_pending_race(worker *w)
{
    const cuda_thread *racer = &w->threads[w->race.thread], *waiter = &w->threads[w->race.other];
    if (racer->state == AT_BARRIER && same_barrier(racer, waiter)) sim_race_fail(w);
    char because[1100];
    snprintf(because, sizeof because, "\n     Not having waited at %s:%d, thread (%u,%u,%u) %s;\n"
             "     that race follows from the barrier it skipped.", waiter->barrier_file, waiter->barrier_line,
             racer->idx.x, racer->idx.y, racer->idx.z, w->race.accesses);
    w->race.pending = 0;
    barrier_never_completes(waiter, racer, because);
}

/* After every warp has run as far as it can, every unfinished thread waits at a barrier.
 * They may go on only if all of the block's threads wait at the same one: a thread that
 * returned, or one waiting elsewhere, would hang a GPU (or worse, silently break it). */
static void release_barrier(worker *w)
{
    if (w->race.pending) report_pending_race(w);
    cuda_thread *first_waiting = NULL, *first_done = NULL;
    for (int i = 0; i < w->thread_count; i++) {
        cuda_thread *t = &w->threads[i];
        if (t->state == DONE) {
            if (!first_done) first_done = t;
        } else if (!first_waiting) {
            first_waiting = t;
        } else if (!same_barrier(t, first_waiting)) {
            barrier_never_completes(first_waiting, t, "");
        }
    }
    if (first_done) barrier_never_completes(first_waiting, first_done, "");
    for (int i = 0; i < w->thread_count; i++) w->threads[i].state = RELEASED;
    w->interval++;
    sim_metrics_barrier(w);
}

/* Runs one warp until every lane has ended or waits at a barrier. */
static void run_warp(worker *w, int first, int lanes)
{
    for (;;) {
        for (int lane = 0; lane < lanes; lane++) {
            cuda_thread *t = &w->threads[first + lane];
            if (t->state == NOT_STARTED || t->state == RELEASED) {
                switch_to_lane(w, &w->scheduler, t);   /* the lanes after it run from there */
                break;
            }
        }
        sim_metrics_warp_yield(w);
        if (w->collectives_waiting == 0 || !sim_resolve_collectives(w, first, lanes)) return;
    }
}

static void run_block(worker *w)
{
    sim_shared_reset_block(w);
    w->interval++;
    w->done_count = 0;
    w->collectives_waiting = 0;
    w->tiles_waiting = 0;
    w->race.pending = 0;
    w->suspect.pending = 0;   /* a launch that stopped may have left one */
    for (int i = 0; i < w->thread_count; i++) w->threads[i].state = NOT_STARTED, w->threads[i].steps = 0;
    for (;;) {
        for (int first = 0; first < w->thread_count; first += WARP_SIZE)
            run_warp(w, first, w->thread_count - first < WARP_SIZE ? w->thread_count - first : WARP_SIZE);
        if (w->done_count == w->thread_count) return;
        if (w->tiles_waiting && sim_release_tiles(w)) continue;   /* tiles of several warps (tiles.c) */
        if (w->collectives_waiting) sim_check_collectives_at_barrier(w);
        if (w->tiles_waiting) sim_tiles_never_complete(w);
        release_barrier(w);
    }
}

/* ---------------------------------------------------------------------------------
 * The launch */

static cudaError_t check_configuration(const sim_launch_request *r, size_t *shared_limit)
{
    const sim_device_limits *d = sim_device();
    const unsigned grid[3] = {r->grid.x, r->grid.y, r->grid.z};
    const unsigned block[3] = {r->block.x, r->block.y, r->block.z};
    const char *axis = "xyz";
    for (int i = 0; i < 3; i++) {
        if (grid[i] == 0 || grid[i] > (unsigned)d->max_grid_dim[i]) {
            fprintf(stderr, "sim: launch of %s at %s:%d: gridDim.%c = %u, but it must be 1..%d\n",
                    r->kernel_name, r->file, r->line, axis[i], grid[i], d->max_grid_dim[i]);
            return cudaErrorInvalidConfiguration;
        }
        if (block[i] == 0 || block[i] > (unsigned)d->max_block_dim[i]) {
            fprintf(stderr, "sim: launch of %s at %s:%d: blockDim.%c = %u, but it must be 1..%d\n",
                    r->kernel_name, r->file, r->line, axis[i], block[i], d->max_block_dim[i]);
            return cudaErrorInvalidConfiguration;
        }
    }
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    if (threads > (unsigned long long)d->max_threads_per_block) {
        fprintf(stderr, "sim: launch of %s at %s:%d: a block of %u x %u x %u = %llu threads; "
                "the most a block may have is %d\n", r->kernel_name, r->file, r->line,
                block[0], block[1], block[2], threads, d->max_threads_per_block);
        return cudaErrorInvalidConfiguration;
    }
    *shared_limit = sim_max_dynamic_shared(r->kernel);
    if (r->dynamic_shared_bytes > *shared_limit) {
        fprintf(stderr, "sim: launch of %s at %s:%d: %zu bytes of dynamic shared memory requested; "
                "this kernel may use %zu\n     (above %zu bytes, call cudaFuncSetAttribute(kernel, "
                "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first)\n",
                r->kernel_name, r->file, r->line, r->dynamic_shared_bytes, *shared_limit, d->shared_per_block);
        return cudaErrorInvalidValue;
    }
    if (r->stream && !sim_stream_is_valid(r->stream)) {
        fprintf(stderr, "sim: launch of %s at %s:%d: the stream was destroyed or never created\n",
                r->kernel_name, r->file, r->line);
        return cudaErrorInvalidResourceHandle;
    }
    return cudaSuccess;
}

/* A launch's blocks, shared out among the workers: each takes the next block not yet taken,
 * and none takes one after a block that has failed (output.c keeps the order of what they
 * print, so it is what running the blocks one after another prints). */
typedef struct grid_run {
    const sim_launch_request *r;
    size_t shared_limit;
    unsigned long long block_count;
    unsigned long long next_block;   /* taken with an atomic add */
} grid_run;

static void begin_worker(worker *w, const grid_run *run)
{
    const sim_launch_request *r = run->r;
    w->launch = r;
    w->dynamic_shared_bytes = r->dynamic_shared_bytes;
    w->shared_limit = run->shared_limit > w->dynamic_shared_bytes ? run->shared_limit : w->dynamic_shared_bytes;
    if (w->shared_limit < sim_device()->shared_per_block) w->shared_limit = sim_device()->shared_per_block;
    sim_builtins.block_dim = r->block;
    sim_builtins.grid_dim = r->grid;
    w->thread_count = (int)(r->block.x * r->block.y * r->block.z);
    for (int i = 0; i < w->thread_count; i++) {
        unsigned linear = (unsigned)i;
        w->threads[i].linear = linear;
        w->threads[i].idx = (uint3){linear % r->block.x, linear / r->block.x % r->block.y,
                                    linear / (r->block.x * r->block.y)};
    }
    sim_access_begin_worker(w);
    sim_metrics_begin_worker(w);
}

static void end_worker(worker *w)
{
    w->launch = NULL;
    sim_access_forget_allocations();
    sim_metrics_end_worker(w);
}

static void run_blocks(worker *w, grid_run *run)
{
    begin_worker(w, run);
    if (sigsetjmp(w->abort_launch, 1)) {
        /* Abandon the block: its fibers are never resumed, so every stack is free again. */
        w->running = NULL;
        w->collectives_waiting = 0;
        w->tiles_waiting = 0;
        free_all_stacks(w);
        sim_output_end_block(w, w->abort_error);
        end_worker(w);
        return;
    }
    const uint3 grid = run->r->grid;
    for (;;) {
        unsigned long long block = __atomic_fetch_add(&run->next_block, 1, __ATOMIC_RELAXED);
        if (block >= run->block_count || block > sim_output_first_failed()) break;
        sim_builtins.block_idx = (uint3){(unsigned)(block % grid.x), (unsigned)(block / grid.x % grid.y),
                                         (unsigned)(block / grid.x / grid.y)};
        sim_output_begin_block(w, block);
        run_block(w);
        sim_output_end_block(w, cudaSuccess);
    }
    end_worker(w);
}

/* ---------------------------------------------------------------------------------
 * The other cores' workers: one OS thread each, waiting for a launch */

/* Below this many CUDA threads a launch runs on the program's own thread: waking another costs
 * more than it saves. */
enum { MAX_WORKERS = 64, SEVERAL_WORKERS_FROM_THREADS = 4096 };

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    int wanted;                      /* workers in all (SIM_THREADS, or the cores), 0 until decided */
    int helpers;                     /* OS threads started besides the program's own */
    unsigned long long generation;   /* counts the launches the helpers were woken for */
    int busy;                        /* helpers still running the current launch's blocks */
    grid_run *run;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, NULL};

static void *helper_main(void *argument)
{
    adopt_worker(argument);
    unsigned long long seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        grid_run *run = pool.run;
        pthread_mutex_unlock(&pool.lock);
        run_blocks(argument, run);
        pthread_mutex_lock(&pool.lock);
        if (--pool.busy == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* After fork() only the calling thread exists: the child runs its launches on it alone. */
static void forget_helpers(void) { pool.helpers = 0, pool.wanted = 1; }

static int workers_wanted(void)
{
    const char *setting = getenv("SIM_THREADS");
    if (setting && *setting) {
        char *end;
        long n = strtol(setting, &end, 10);
        if (*end || n < 1 || n > MAX_WORKERS)
            sim_fatal("SIM_THREADS=%s: give how many cores run a launch's blocks, 1 to %d (1: one after another)",
                      setting, MAX_WORKERS);
        return (int)n;
    }
    cpu_set_t cores;
    int n = sched_getaffinity(0, sizeof cores, &cores) == 0 ? CPU_COUNT(&cores) : 1;
    return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : n;
}

/* Starts the helpers once; where one cannot be had (memory, a limit on threads), fewer run. */
static int helpers_ready(void)
{
    if (pool.wanted) return pool.helpers;
    pool.wanted = workers_wanted();
    pthread_atfork(NULL, NULL, forget_helpers);
    sigset_t all, previous;
    sigfillset(&all);   /* signals are the program's thread's to take */
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    while (pool.helpers < pool.wanted - 1) {
        worker *w = new_worker();
        pthread_t thread;
        if (!w || pthread_create(&thread, NULL, helper_main, w) != 0) break;
        pthread_detach(thread);
        pool.helpers++;
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return pool.helpers;
}

cudaError_t sim_launch_now(const sim_launch_request *r)
{
    cudaError_t sticky = sim_sticky_error();
    if (sticky != cudaSuccess) return sim_record_error(sticky);
    size_t shared_limit = 0;
    cudaError_t error = check_configuration(r, &shared_limit);
    if (error != cudaSuccess) return sim_record_error(error);

    if (!max_steps) {   /* before any worker starts a thread */
        max_steps = steps_allowed();
        max_counted_steps = max_steps / COUNTED_SHARE >= 1000 ? max_steps / COUNTED_SHARE : max_steps;
    }
    worker *w = get_worker();
    if (w->launch) {
        fprintf(stderr, "sim: kernel %s launched from inside kernel %s: dynamic parallelism is not simulated\n",
                r->kernel_name, w->launch->kernel_name);
        return sim_record_error(cudaErrorNotSupported);
    }
    grid_run run = {r, shared_limit, (unsigned long long)r->grid.x * r->grid.y * r->grid.z, 0};
    unsigned long long threads = run.block_count * r->block.x * r->block.y * r->block.z;
    int helpers = run.block_count > 1 && threads >= SEVERAL_WORKERS_FROM_THREADS ? helpers_ready() : 0;
    sim_access_begin_launch(r);
    sim_metrics_begin_launch(r);
    sim_output_begin_launch(helpers > 0);
    if (helpers) {
        pthread_mutex_lock(&pool.lock);
        pool.run = &run;
        pool.busy = helpers;
        pool.generation++;
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
    }
    run_blocks(w, &run);
    if (helpers) {
        pthread_mutex_lock(&pool.lock);
        while (pool.busy) pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    error = sim_output_end_launch();
    sim_metrics_end_launch(error != cudaSuccess);
    return error != cudaSuccess ? sim_record_error(error) : cudaSuccess;
}
