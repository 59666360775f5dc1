/* threads.c — running a grid on the CPU: blocks, CUDA threads as fibers, barriers,
 * shared memory, and turning a crash inside a kernel into a CUDA error.
 *
 * One OS thread (a "worker") runs one block at a time. A block's CUDA threads are
 * fibers that the worker's scheduler runs in order of their linear index
 * (x fastest, then y, then z). Each runs until it ends or reaches __syncthreads().
 * One pass over the block is therefore one barrier interval; after a pass every
 * unfinished thread waits at a barrier, and if they all wait at the same one they are
 * released together. A thread that ends hands its stack to the next thread to start,
 * so a kernel without barriers runs every thread on the same, cache-hot stack. */
#define _GNU_SOURCE
#include "sim.h"
#include "device.h"
#include "fiber.h"
#include "runtime.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__thread uint3 sim_thread_idx;
__thread uint3 sim_block_idx;
__thread uint3 sim_block_dim;
__thread uint3 sim_grid_dim;

/* ---------------------------------------------------------------------------------
 * The state of one worker */

enum { MAX_THREADS_PER_BLOCK = 1024, MAX_SHARED_DECLARATIONS = 64 };
enum { STACK_BYTES = 64 * 1024, GUARD_BYTES = 64 * 1024, SIGNAL_STACK_BYTES = 64 * 1024 };
enum { SHARED_ARENA_BYTES = 256 * 1024 };

typedef enum { NOT_STARTED, RUNNING, AT_BARRIER, RELEASED, DONE } thread_state;

typedef struct cuda_thread {
    fiber context;
    uint3 idx;
    thread_state state;
    int stack;                     /* index in the stack pool while it holds one */
    const char *barrier_file;      /* where it waits, when state == AT_BARRIER */
    int barrier_line;
    const void *barrier_site;
} cuda_thread;

typedef struct shared_declaration { const void *key; size_t offset; } shared_declaration;

typedef struct worker {
    fiber scheduler;
    cuda_thread threads[MAX_THREADS_PER_BLOCK];
    int thread_count;
    cuda_thread *running;

    unsigned char *stack_region;   /* MAX_THREADS_PER_BLOCK stacks, each above a guard page */
    size_t stack_stride;
    int free_stacks[MAX_THREADS_PER_BLOCK];
    int free_stack_count;

    unsigned char *shared_arena;   /* dynamic shared memory first, static declarations after */
    size_t shared_used, dynamic_shared_bytes, static_shared_bytes, shared_limit;
    shared_declaration declarations[MAX_SHARED_DECLARATIONS];
    int declaration_count;

    const sim_launch_request *launch;
    sigjmp_buf abort_launch;
    cudaError_t abort_error;
} worker;

static __thread worker *current_worker;

static void *map_or_die(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("sim: cannot map memory for CUDA thread stacks");
        exit(EXIT_FAILURE);
    }
    return p;
}

static void install_fault_handlers(void);

static worker *get_worker(void)
{
    if (current_worker) return current_worker;
    worker *w = calloc(1, sizeof *w);
    if (!w) { fputs("sim: out of memory creating a worker\n", stderr); exit(EXIT_FAILURE); }
    size_t guard = GUARD_BYTES;   /* large, so that no single stack frame can jump over it */
    w->stack_stride = STACK_BYTES + guard;
    w->stack_region = map_or_die(w->stack_stride * MAX_THREADS_PER_BLOCK);
    for (int i = 0; i < MAX_THREADS_PER_BLOCK; i++) {
        mprotect(w->stack_region + (size_t)i * w->stack_stride, guard, PROT_NONE);
        w->free_stacks[i] = MAX_THREADS_PER_BLOCK - 1 - i;
    }
    w->free_stack_count = MAX_THREADS_PER_BLOCK;
    w->shared_arena = map_or_die(SHARED_ARENA_BYTES);

    stack_t signal_stack = { .ss_sp = map_or_die(SIGNAL_STACK_BYTES), .ss_size = SIGNAL_STACK_BYTES };
    sigaltstack(&signal_stack, NULL);
    install_fault_handlers();
    current_worker = w;
    return w;
}

static unsigned char *stack_base(worker *w, int stack)
{
    return w->stack_region + (size_t)stack * w->stack_stride + GUARD_BYTES;
}

int sim_in_kernel(void) { return current_worker && current_worker->running; }

/* ---------------------------------------------------------------------------------
 * Failing a launch: print where, then jump back to sim_launch */

static void describe_place(FILE *out, worker *w)
{
    const sim_launch_request *r = w->launch;
    fprintf(out, "sim: kernel %s (launched at %s:%d), block (%u,%u,%u)", r->kernel_name, r->file,
            r->line, sim_block_idx.x, sim_block_idx.y, sim_block_idx.z);
    if (w->running)
        fprintf(out, ", thread (%u,%u,%u)", w->running->idx.x, w->running->idx.y, w->running->idx.z);
    fputs(":\n     ", out);
}

static __attribute__((noreturn)) void abort_launch(worker *w, cudaError_t error)
{
    w->abort_error = error;
    siglongjmp(w->abort_launch, 1);
}

void sim_kernel_fail(cudaError_t error, const char *format, ...)
{
    worker *w = current_worker;
    va_list args;
    va_start(args, format);
    if (w && w->launch) describe_place(stderr, w);
    else fputs("sim: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    if (!w || !w->launch) abort();
    abort_launch(w, error);
}

/* A fault inside a kernel (a bad pointer, a stack overflow, a division by zero)
 * becomes a failed launch with a message, as a GPU turns it into a CUDA error,
 * instead of killing the program without saying which thread did it. */
static void on_fault(int signal_number, siginfo_t *info, void *context)
{
    (void)context;
    worker *w = current_worker;
    if (!w || !w->launch) {            /* a host-code crash: let it crash as usual */
        signal(signal_number, SIG_DFL);
        return;
    }
    uintptr_t address = (uintptr_t)info->si_addr;
    uintptr_t stacks = (uintptr_t)w->stack_region;
    int stack = (int)((address - stacks) / w->stack_stride);
    describe_place(stderr, w);
    if (signal_number == SIGFPE) {
        fputs("integer division by zero (on a GPU the result is undefined; here the launch stops)\n", stderr);
        abort_launch(w, cudaErrorLaunchFailure);
    }
    if (address >= stacks && stack < MAX_THREADS_PER_BLOCK &&
        address - stacks - (size_t)stack * w->stack_stride < GUARD_BYTES) {
        fprintf(stderr, "stack overflow: this thread used more than its %d KiB of stack "
                "(a large local array? deep recursion?)\n", STACK_BYTES / 1024);
        abort_launch(w, cudaErrorLaunchOutOfResources);
    }
    fprintf(stderr, "invalid memory access at address %p: it is not memory this kernel may use\n"
            "     (is it a host pointer, or past the end of a cudaMalloc allocation?)\n",
            info->si_addr);
    abort_launch(w, cudaErrorIllegalAddress);
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
 * CUDA threads as fibers */

static void cuda_thread_main(void)
{
    worker *w = current_worker;
    w->launch->run_thread(w->launch->arguments);
    cuda_thread *self = w->running;
    self->state = DONE;
    fiber_switch(&self->context, &w->scheduler);   /* never resumed */
}

static void run_until_blocked(worker *w, cuda_thread *t)
{
    if (t->state == NOT_STARTED) {
        t->stack = w->free_stacks[--w->free_stack_count];
        fiber_prepare(&t->context, stack_base(w, t->stack), STACK_BYTES, cuda_thread_main);
    }
    t->state = RUNNING;
    w->running = t;
    sim_thread_idx = t->idx;
    fiber_switch(&w->scheduler, &t->context);
    w->running = NULL;
    if (t->state == DONE) w->free_stacks[w->free_stack_count++] = t->stack;
}

void sim_syncthreads_at(const char *file, int line)
{
    worker *w = current_worker;
    if (!w || !w->running) {
        fprintf(stderr, "sim: %s:%d: __syncthreads() called outside a kernel\n", file, line);
        abort();
    }
    cuda_thread *self = w->running;
    self->state = AT_BARRIER;
    self->barrier_file = file;
    self->barrier_line = line;
    self->barrier_site = __builtin_return_address(0);
    fiber_switch(&self->context, &w->scheduler);
}

/* After a pass, every unfinished thread waits at a barrier. They may go on only if all
 * of the block's threads wait there: a thread that returned, or one waiting at another
 * __syncthreads(), would hang a GPU (or worse, silently break it). */
static void check_barrier_release(worker *w)
{
    cuda_thread *first_waiting = NULL, *first_done = NULL;
    for (int i = 0; i < w->thread_count; i++) {
        cuda_thread *t = &w->threads[i];
        if (t->state == DONE) {
            if (!first_done) first_done = t;
        } else if (!first_waiting) {
            first_waiting = t;
        } else if (t->barrier_site != first_waiting->barrier_site || t->barrier_line != first_waiting->barrier_line ||
                   strcmp(t->barrier_file, first_waiting->barrier_file) != 0) {
            /* The line matters too: the compiler may merge two barrier calls into one. */
            sim_kernel_fail(cudaErrorLaunchFailure,
                "threads wait at different barriers: thread (%u,%u,%u) at __syncthreads() in %s:%d,\n"
                "     thread (%u,%u,%u) at __syncthreads() in %s:%d. A barrier inside a branch that\n"
                "     not every thread of the block takes never completes; move it out of the branch.",
                first_waiting->idx.x, first_waiting->idx.y, first_waiting->idx.z,
                first_waiting->barrier_file, first_waiting->barrier_line,
                t->idx.x, t->idx.y, t->idx.z, t->barrier_file, t->barrier_line);
        }
    }
    if (first_done)
        sim_kernel_fail(cudaErrorLaunchFailure,
            "thread (%u,%u,%u) waits at __syncthreads() in %s:%d, but thread (%u,%u,%u) of the same\n"
            "     block has already returned and will never arrive. Do not return early from a kernel\n"
            "     that synchronises: guard the work with `if (i < n)` and keep every barrier outside it.",
            first_waiting->idx.x, first_waiting->idx.y, first_waiting->idx.z,
            first_waiting->barrier_file, first_waiting->barrier_line,
            first_done->idx.x, first_done->idx.y, first_done->idx.z);
    for (int i = 0; i < w->thread_count; i++) w->threads[i].state = RELEASED;
}

static void run_block(worker *w)
{
    w->declaration_count = 0;
    w->static_shared_bytes = 0;
    w->shared_used = (w->dynamic_shared_bytes + 127) & ~(size_t)127;
    memset(w->shared_arena, 0xff, w->dynamic_shared_bytes);   /* shared memory starts as garbage */

    for (int i = 0; i < w->thread_count; i++) w->threads[i].state = NOT_STARTED;
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < w->thread_count; i++) {
            cuda_thread *t = &w->threads[i];
            if (t->state == DONE) continue;
            run_until_blocked(w, t);
            waiting += t->state == AT_BARRIER;
        }
        if (waiting == 0) return;
        check_barrier_release(w);
    }
}

/* ---------------------------------------------------------------------------------
 * Shared memory */

void *sim_shared_dynamic(void)
{
    worker *w = current_worker;
    if (!w || !w->launch) {
        fputs("sim: extern __shared__ memory used outside a kernel\n", stderr);
        abort();
    }
    return w->shared_arena;
}

void *sim_shared_static(const void *key, size_t bytes, size_t alignment)
{
    worker *w = current_worker;
    if (!w || !w->launch) {
        fputs("sim: a __shared__ variable used outside a kernel\n", stderr);
        abort();
    }
    for (int i = 0; i < w->declaration_count; i++)
        if (w->declarations[i].key == key) return w->shared_arena + w->declarations[i].offset;

    if (alignment < 16) alignment = 16;
    size_t offset = (w->shared_used + alignment - 1) & ~(alignment - 1);
    w->static_shared_bytes += bytes;
    const sim_device_limits *d = sim_device();
    if (w->static_shared_bytes > d->shared_per_block)
        sim_kernel_fail(cudaErrorLaunchOutOfResources,
            "the kernel's static __shared__ variables need %zu bytes; a kernel may declare at most\n"
            "     %zu bytes statically (nvcc refuses to compile it). Use dynamic shared memory\n"
            "     (extern __shared__) and cudaFuncSetAttribute to go beyond.",
            w->static_shared_bytes, d->shared_per_block);
    if (offset + bytes > w->shared_limit || w->declaration_count == MAX_SHARED_DECLARATIONS)
        sim_kernel_fail(cudaErrorLaunchOutOfResources,
            "shared memory exhausted: %zu bytes dynamic + %zu bytes static exceed the %zu bytes this\n"
            "     kernel may use per block.",
            w->dynamic_shared_bytes, w->static_shared_bytes, w->shared_limit);
    memset(w->shared_arena + offset, 0xff, bytes);
    w->declarations[w->declaration_count++] = (shared_declaration){key, offset};
    w->shared_used = offset + bytes;
    return w->shared_arena + offset;
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
                r->kernel_name, r->file, r->line, r->dynamic_shared_bytes, *shared_limit,
                d->shared_per_block);
        return cudaErrorInvalidValue;
    }
    if (r->stream && !sim_stream_is_valid(r->stream)) {
        fprintf(stderr, "sim: launch of %s at %s:%d: the stream was destroyed or never created\n",
                r->kernel_name, r->file, r->line);
        return cudaErrorInvalidResourceHandle;
    }
    return cudaSuccess;
}

cudaError_t sim_launch(const sim_launch_request *r)
{
    cudaError_t sticky = sim_sticky_error();
    if (sticky != cudaSuccess) return sim_record_error(sticky);
    size_t shared_limit = 0;
    cudaError_t error = check_configuration(r, &shared_limit);
    if (error != cudaSuccess) return sim_record_error(error);

    worker *w = get_worker();
    if (w->launch) {
        fprintf(stderr, "sim: kernel %s launched from inside kernel %s: dynamic parallelism is not "
                "simulated\n", r->kernel_name, w->launch->kernel_name);
        return sim_record_error(cudaErrorNotSupported);
    }
    w->launch = r;
    w->dynamic_shared_bytes = r->dynamic_shared_bytes;
    w->shared_limit = shared_limit > w->dynamic_shared_bytes ? shared_limit : w->dynamic_shared_bytes;
    if (w->shared_limit < sim_device()->shared_per_block) w->shared_limit = sim_device()->shared_per_block;
    sim_block_dim = r->block;
    sim_grid_dim = r->grid;
    w->thread_count = (int)(r->block.x * r->block.y * r->block.z);
    for (int i = 0; i < w->thread_count; i++) {
        unsigned linear = (unsigned)i;
        w->threads[i].idx = (uint3){linear % r->block.x, linear / r->block.x % r->block.y,
                                    linear / (r->block.x * r->block.y)};
    }

    if (sigsetjmp(w->abort_launch, 1)) {
        /* Abandon the block: its fibers are never resumed, so every stack is free again. */
        w->running = NULL;
        w->launch = NULL;
        w->free_stack_count = MAX_THREADS_PER_BLOCK;
        for (int i = 0; i < MAX_THREADS_PER_BLOCK; i++) w->free_stacks[i] = MAX_THREADS_PER_BLOCK - 1 - i;
        return sim_record_error(w->abort_error);
    }
    for (unsigned z = 0; z < r->grid.z; z++)
        for (unsigned y = 0; y < r->grid.y; y++)
            for (unsigned x = 0; x < r->grid.x; x++) {
                sim_block_idx = (uint3){x, y, z};
                run_block(w);
            }
    w->launch = NULL;
    return sim_record_error(cudaSuccess);
}
