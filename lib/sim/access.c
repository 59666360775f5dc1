/* access.c — every load and store of a .cu file comes here first, and is checked.
 *
 * lib/sim/tools/simcc compiles .cu files with clang's -fsanitize-coverage=trace-loads,trace-stores,
 * which calls __sanitizer_cov_loadN(address) / __sanitizer_cov_storeN(address) before each
 * access (this file is compiled without the flag, so the runtime itself is not watched).
 * Inside a kernel an address is one of:
 *   the thread's own stack (local variables)           allowed, not counted
 *   the block's shared memory                          race-checked; counted (banks)
 *   a live cudaMalloc allocation, wholly inside it     counted (sectors)
 *   the kernel's parameters, the built-in variables,   allowed: on a GPU these are the
 *   the program's own data (string literals,            parameter, special-register and
 *   __constant__ and __device__ variables), pinned     constant spaces
 *   host memory from cudaMallocHost
 *   anything else                                      an error, explained: past the end of
 *                                                      an allocation, freed, NULL, a host pointer
 * In host code, touching device memory is the error (on a real system it crashes). With
 * SIM_INITCHECK=1, a kernel's read of global or shared memory nothing wrote is one too (initcheck.h). */
#include "initcheck.h"
#include "internal.h"
#include "metrics.h"

#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * Where the program's own code and data are */

typedef struct address_range { uintptr_t start, end; } address_range;
static address_range image[512];
static int image_count;

static int add_object(struct dl_phdr_info *info, size_t size, void *unused)
{
    (void)size, (void)unused;
    for (int i = 0; i < info->dlpi_phnum && image_count < 512; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            image[image_count++] = (address_range){start, start + info->dlpi_phdr[i].p_memsz};
        }
    return 0;
}

void sim_image_ranges_init(void)
{
    if (image_count == 0) dl_iterate_phdr(add_object, NULL);
}

static int in_image(uintptr_t a)
{
    for (int i = 0; i < image_count; i++)
        if (a - image[i].start < image[i].end - image[i].start) return 1;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The running launch */

static uintptr_t arguments_start, arguments_bytes;   /* set before any worker starts */
/* The stack of the host thread that launched, for the messages: its bounds as the C library knows
 * them, else 8 MiB either side of the launch's frame. (A distance alone misleads where the heap
 * lies close to the stack, as under qemu's user-mode emulation.) */
static uintptr_t host_stack_low, host_stack_high;
/* The allocations this worker's last accesses hit: a kernel reads and writes a few arrays in turn,
 * and an access inside one of them is the common case, checked without a call. Empty ranges
 * (start and end 0) outside a launch: no access may pass as a kernel's. */
enum { CACHED = 4 };
static __thread uintptr_t recent_start[CACHED], recent_end[CACHED];
static __thread unsigned recent_next;
/* The running worker's shared-memory arena and its validity bytes, and the running CUDA thread's
 * stack, as thread-local copies, so that the hook tells these accesses apart without reading the
 * worker. Outside a launch the arena and the stack name the top of the address space, where no
 * access lands. */
static __thread uintptr_t arena_start = (uintptr_t)-SHARED_ARENA_BYTES;
static __thread const unsigned char *valid_start;   /* its shared_valid */
__thread uintptr_t sim_running_stack_low = (uintptr_t)-STACK_BYTES;

void sim_access_forget_allocations(void)
{
    for (unsigned k = 0; k < CACHED; k++) recent_start[k] = recent_end[k] = 0;
    arena_start = (uintptr_t)-SHARED_ARENA_BYTES;
    sim_running_stack_low = (uintptr_t)-STACK_BYTES;
}

void sim_access_begin_worker(worker *w)
{
    sim_access_forget_allocations();
    arena_start = (uintptr_t)w->shared_arena;
    valid_start = w->shared_valid;
}

void sim_access_begin_launch(const sim_launch_request *r)
{
    arguments_start = (uintptr_t)r->arguments;
    arguments_bytes = r->arguments_bytes;
    /* The bounds are looked up once per launching thread (the main thread's from /proc/self/maps). */
    static __thread uintptr_t own_low, own_high;
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    if (frame - own_low >= own_high - own_low) {
        own_low = frame - (8u << 20), own_high = frame + (8u << 20);
        pthread_attr_t attributes;
        if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
            void *low;
            size_t size;
            if (pthread_attr_getstack(&attributes, &low, &size) == 0 && frame - (uintptr_t)low < size)
                own_low = (uintptr_t)low, own_high = (uintptr_t)low + size;
            pthread_attr_destroy(&attributes);
        }
    }
    host_stack_low = own_low, host_stack_high = own_high;
    sim_initcheck_start();
}

/* ---------------------------------------------------------------------------------
 * Explaining a bad address */

static void explain(char *out, size_t size, uintptr_t a, size_t bytes)
{
    long long offset = 0;
    const allocation *freed = sim_find_allocation(a);
    if (freed && freed->freed) {
        snprintf(out, size, "%lld bytes into a %zu-byte allocation that cudaFree has released (the allocation was made at %s)",
                 (long long)(a - freed->start), freed->bytes, sim_source_line(freed->made_at));
        return;
    }
    const allocation *near = sim_nearest_allocation(a, &offset);
    if (near && (offset >= (long long)near->bytes - (long long)bytes + 1 || offset < 0) &&
        (offset < 0 ? -offset : offset - (long long)near->bytes) < (1 << 20)) {
        if (offset < 0)
            snprintf(out, size, "%lld bytes before the start of a %zu-byte allocation (the allocation was made at %s)", -offset,
                     near->bytes, sim_source_line(near->made_at));
        else
            snprintf(out, size, "at byte %lld of a %zu-byte allocation: %lld bytes past its end (the allocation was made at %s)",
                     offset, near->bytes, offset + (long long)bytes - (long long)near->bytes,
                     sim_source_line(near->made_at));
        return;
    }
    if (a < 65536)
        snprintf(out, size, "a null pointer, or an offset from one (was a pointer never set, or did a cudaMalloc fail?)");
    else if (sim_is_device_address(a))
        snprintf(out, size, "device address space that no allocation holds");
    else if (a - host_stack_low < host_stack_high - host_stack_low)
        snprintf(out, size, "a variable on the host's stack, not device memory: was the address of a host variable "
                 "passed to the kernel?");
    else
        snprintf(out, size, "host memory, not device memory: was a host pointer (from malloc or new) passed to the "
                 "kernel instead of one from cudaMalloc?");
}

static __attribute__((noinline)) void bad_kernel_access(worker *w, uintptr_t a, size_t bytes, int is_write, void *site)
{
    char why[400];
    explain(why, sizeof why, a, bytes);
    const char *where = sim_source_line(site);
    sim_describe_place(w);
    sim_report("%s%s%s %zu bytes at %p,\n     %s\n", where, *where ? ": " : "", is_write ? "wrote" : "read", bytes,
               (void *)a, why);
    sim_abort_launch(w, cudaErrorIllegalAddress);
}

static __attribute__((noinline)) void host_touches_device(uintptr_t a, size_t bytes, int is_write, void *site)
{
    const allocation *al = sim_find_allocation(a);
    if (!al) return;   /* unmapped device space: the fault handler explains it */
    if (al->managed && !al->freed && a + bytes <= al->start + al->bytes) {   /* unified memory */
        if (is_write && sim_initcheck_on) sim_initcheck_written((void *)a, bytes);
        return;
    }
    const char *where = sim_source_line(site);
    if (al->managed) {
        sim_crash("host code %s %zu bytes of unified memory at %p%s%s, %s %zu-byte allocation from\n"
                  "     cudaMallocManaged. Use it only between cudaMallocManaged and its cudaFree, and inside it.",
                  is_write ? "wrote" : "read", bytes, (void *)a, *where ? ", at " : "", where,
                  al->freed ? "inside a freed" : "past the end of a", al->bytes);
    }
    sim_crash("host code %s %zu bytes of device memory at %p%s%s (%s %zu-byte allocation).\n"
              "     On a real system the host cannot dereference a device pointer: this crashes. Copy the data\n"
              "     with cudaMemcpy and use the host copy.", is_write ? "wrote" : "read", bytes, (void *)a,
              *where ? ", at " : "", where, al->freed ? "inside a freed" : "inside a", al->bytes);
}

/* ---------------------------------------------------------------------------------
 * The check of one access
 *
 * check() is inlined into each hook and holds the common cases: a recent allocation and the
 * thread's own stack, which need no worker, and shared memory. Everything else goes to
 * check_rest(). Only kernel code calls a hook while arena_start names an arena (between a
 * worker's begin and end of a launch), so a shared access always has a running thread. */

static __attribute__((noinline)) void check_rest(uintptr_t a, size_t bytes, int is_write, void *site)
{
    worker *w = sim_current_worker;
    if (__builtin_expect(!w || !w->running, 0)) {
        if (sim_is_device_address(a)) host_touches_device(a, bytes, is_write, site);
        return;
    }
    if (sim_is_device_address(a)) {
        const allocation *al = sim_find_allocation(a);
        if (al && !al->freed && a + bytes <= al->start + al->bytes) {
            recent_start[recent_next] = al->start;
            recent_end[recent_next] = al->start + al->bytes;
            recent_next = (recent_next + 1) % CACHED;
            sim_metrics_global(w, a, bytes, is_write, site);
            if (sim_initcheck_on) sim_initcheck_device(w, a, bytes, !is_write, is_write, site);
            return;
        }
        bad_kernel_access(w, a, bytes, is_write, site);
    }
    if (a - arguments_start < arguments_bytes) return;                   /* the kernel's parameters */
    if (a - (uintptr_t)&sim_builtins < sizeof sim_builtins) return;     /* threadIdx and friends */
    if (in_image(a) || sim_is_pinned_host(a)) return;
    bad_kernel_access(w, a, bytes, is_write, site);
}

/* A shared access outside every variable, or one the metrics or initcheck see. */
static __attribute__((noinline)) void check_shared_rest(uintptr_t a, size_t bytes, int is_write, void *site)
{
    worker *w = sim_current_worker;
    size_t offset = a - arena_start;
    if (!w->shared_valid[offset] || offset + bytes > SHARED_ARENA_BYTES || !w->shared_valid[offset + bytes - 1])
        sim_shared_out_of_bounds(w, a, bytes, is_write, site);
    sim_metrics_shared(w, a, bytes, is_write, site);   /* (a launch that fails later drops its counts) */
    sim_race_check(w, a, bytes, is_write, site);
    if (sim_initcheck_on) sim_initcheck_shared(w, a, bytes, !is_write, is_write, site);
}

/* An access to a recent allocation that the metrics count or initcheck checks. */
static __attribute__((noinline)) void count_global(uintptr_t a, size_t bytes, int is_write, void *site)
{
    if (sim_metrics_counting) sim_metrics_global(sim_current_worker, a, bytes, is_write, site);
    if (sim_initcheck_on) sim_initcheck_device(sim_current_worker, a, bytes, !is_write, is_write, site);
}

/* Every call here is a tail call: the hooks save no registers. */
static inline __attribute__((always_inline)) void check(void *address, size_t bytes, int is_write, void *site)
{
    uintptr_t a = (uintptr_t)address;
    if (a - arena_start < SHARED_ARENA_BYTES) {   /* shared memory: inside a variable, then races */
        size_t offset = a - arena_start;
        worker *w = sim_current_worker;
        if (__builtin_expect(!valid_start[offset] || offset + bytes > SHARED_ARENA_BYTES ||
                             !valid_start[offset + bytes - 1] || sim_metrics_counting | sim_initcheck_on, 0))
            return check_shared_rest(a, bytes, is_write, site);
        return sim_race_check(w, a, bytes, is_write, site);
    }
    for (unsigned k = 0; k < CACHED; k++)
        if (a - recent_start[k] < recent_end[k] - recent_start[k] && a + bytes <= recent_end[k]) {
            if (__builtin_expect(sim_metrics_counting | sim_initcheck_on, 0)) count_global(a, bytes, is_write, site);
            return;
        }
    if (a - sim_running_stack_low < STACK_BYTES) return;                 /* a local variable */
    check_rest(a, bytes, is_write, site);
}

/* An atomic's address must be global or shared memory, as on a GPU. Every atomic writes; all but
 * atomicExch read the value they change (initcheck). */
void sim_check_atomic_address(const void *address, size_t bytes, const char *operation, int reads, void *site)
{
    worker *w = sim_current_worker;
    uintptr_t a = (uintptr_t)address;
    if (!w || !w->running) sim_crash("%s called from host code; atomics are device functions", operation);
    if (a - (uintptr_t)w->shared_arena < SHARED_ARENA_BYTES) {
        if (sim_initcheck_on && w->shared_valid[a - (uintptr_t)w->shared_arena])
            sim_initcheck_shared(w, a, bytes, reads, 1, site);
        return;
    }
    const allocation *al = sim_is_device_address(a) ? sim_find_allocation(a) : NULL;
    if (al && !al->freed && a + bytes <= al->start + al->bytes) {
        if (sim_initcheck_on) sim_initcheck_device(w, a, bytes, reads, 1, site);
        return;
    }
    bad_kernel_access(w, a, bytes, 1, NULL);
}

#define ACCESS_HOOKS(n)                                                                              \
    void __sanitizer_cov_load##n(void *a) { check(a, n, 0, __builtin_return_address(0)); }          \
    void __sanitizer_cov_store##n(void *a) { check(a, n, 1, __builtin_return_address(0)); }
ACCESS_HOOKS(1)
ACCESS_HOOKS(2)
ACCESS_HOOKS(4)
ACCESS_HOOKS(8)
ACCESS_HOOKS(16)

/* Basic-block coverage: each instrumented block of code gets a number; the metrics use the
 * blocks the lanes of a warp pass through to measure SIMT efficiency. */
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
    static uint32_t next = 1;
    if (start == stop || *start) return;
    for (uint32_t *guard = start; guard < stop; guard++) *guard = next++;
}

static __attribute__((noinline)) void count_block_or_stop(uint32_t *guard, void *site)
{
    if (sim_steps_left == 0) sim_out_of_steps(site);   /* a thread that never ends (threads.c) */
    if (!sim_metrics_counting) return;
    worker *w = sim_current_worker;
    if (w && w->running && w->metrics) sim_metrics_block_point(w, *guard);
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
    if (__builtin_expect(--sim_steps_left == 0 || sim_metrics_counting, 0))
        count_block_or_stop(guard, __builtin_return_address(0));
}
