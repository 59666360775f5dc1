/* memory.c — device memory on the CPU: cudaMalloc/cudaFree, the copies and cudaMemset.
 *
 * All device memory lives in one large reserved range of address space, so that a device
 * address can never be mistaken for a host one (and the reverse). Each allocation gets
 * whole pages followed by an unmapped gap; cudaFree unmaps its pages but keeps a record,
 * so that a later access is explained as use after free rather than a random crash. The
 * table of allocations lets the simulator refuse what a GPU refuses: a copy in the wrong
 * direction or past the end, freeing twice. New allocations are filled with 0xff bytes
 * (NaN as float, -1 as int) so that reading memory nobody wrote shows up. */
#include "internal.h"
#include "runtime.h"
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { PAGE = 4096, GAP = 64 * 1024 };

static uintptr_t region_start, region_bytes, region_next;
static allocation *allocations;    /* in increasing address order: the region only grows */
static size_t allocation_count, allocation_capacity;
static size_t bytes_allocated;

static int reserve_region(void)
{
    if (region_start) return 1;
    for (size_t bytes = (size_t)1 << 40; bytes >= ((size_t)1 << 34); bytes >>= 1) {
        void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            region_start = region_next = (uintptr_t)p;
            region_bytes = bytes;
            return 1;
        }
    }
    return 0;
}

int sim_is_device_address(uintptr_t address) { return address - region_start < region_bytes; }

/* The allocation (live or freed) whose bytes hold `address`, or NULL. */
const allocation *sim_find_allocation(uintptr_t address)
{
    size_t low = 0, high = allocation_count;
    while (low < high) {
        size_t mid = (low + high) / 2;
        if (allocations[mid].start <= address) low = mid + 1;
        else high = mid;
    }
    if (low == 0) return NULL;
    allocation *a = &allocations[low - 1];
    return address < a->start + (a->bytes ? a->bytes : 1) ? a : NULL;
}

/* The live allocation nearest to `address`; *offset is address minus its start. */
const allocation *sim_nearest_allocation(uintptr_t address, long long *offset)
{
    const allocation *best = NULL;
    unsigned long long best_distance = ~0ull;
    for (size_t i = 0; i < allocation_count; i++) {
        const allocation *a = &allocations[i];
        if (a->freed) continue;
        unsigned long long distance = address < a->start ? a->start - address
                                    : address >= a->start + a->bytes ? address - (a->start + a->bytes) + 1 : 0;
        if (distance < best_distance) best = a, best_distance = distance;
    }
    if (best) *offset = (long long)(address - best->start);
    return best;
}

cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
    void *caller = __builtin_return_address(0);
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (!pointer) return sim_record_error(cudaErrorInvalidValue);
    *pointer = NULL;
    if (bytes == 0) return cudaSuccess;
    size_t total = sim_device()->total_global_memory;
    if (bytes > total - bytes_allocated) {
        fprintf(stderr, "sim: cudaMalloc of %zu bytes: the simulated %s has %zu of its %zu bytes free\n", bytes,
                sim_device()->name, total - bytes_allocated, total);
        return sim_record_error(cudaErrorMemoryAllocation);
    }
    size_t pages = (bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
    if (!reserve_region() || region_next + pages + GAP > region_start + region_bytes ||
        mprotect((void *)region_next, pages, PROT_READ | PROT_WRITE) != 0) {
        fprintf(stderr, "sim: cudaMalloc of %zu bytes: the host cannot provide the memory\n", bytes);
        return sim_record_error(cudaErrorMemoryAllocation);
    }
    if (sim_grow((void **)&allocations, &allocation_capacity, allocation_count, sizeof *allocations, 64))
        return sim_record_error(cudaErrorMemoryAllocation);
    void *memory = (void *)region_next;
    region_next += pages + GAP;
    memset(memory, 0xff, bytes);
    allocations[allocation_count++] = (allocation){(uintptr_t)memory, bytes, caller, 0};
    bytes_allocated += bytes;
    *pointer = memory;
    return cudaSuccess;
}

static void release(allocation *a)
{
    size_t pages = (a->bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
    madvise((void *)a->start, pages, MADV_DONTNEED);
    mprotect((void *)a->start, pages, PROT_NONE);
    a->freed = 1;
    bytes_allocated -= a->bytes;
}

cudaError_t cudaFree(void *pointer)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (!pointer) return cudaSuccess;
    allocation *a = (allocation *)sim_find_allocation((uintptr_t)pointer);
    if (!a || a->freed || a->start != (uintptr_t)pointer) {
        fprintf(stderr, "sim: cudaFree(%p): %s\n", pointer,
                !a ? "not an allocation from cudaMalloc"
                : a->freed ? "this allocation was already freed (freed twice)"
                           : "the pointer is inside an allocation, not at its start");
        return sim_record_error(cudaErrorInvalidValue);
    }
    release(a);
    return cudaSuccess;
}

void sim_free_all_allocations(void)
{
    for (size_t i = 0; i < allocation_count; i++)
        if (!allocations[i].freed) release(&allocations[i]);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes) return sim_record_error(cudaErrorInvalidValue);
    *total_bytes = sim_device()->total_global_memory;
    *free_bytes = *total_bytes - bytes_allocated;
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Pinned host memory: host memory that kernels may read, as on a system with unified addressing */

typedef struct pinned { uintptr_t start; size_t bytes; } pinned;
static pinned pinned_blocks[256];
static int pinned_count;

int sim_is_pinned_host(uintptr_t address)
{
    for (int i = 0; i < pinned_count; i++)
        if (address - pinned_blocks[i].start < pinned_blocks[i].bytes) return 1;
    return 0;
}

cudaError_t cudaMallocHost(void **pointer, size_t bytes)
{
    if (!pointer) return sim_record_error(cudaErrorInvalidValue);
    *pointer = malloc(bytes ? bytes : 1);
    if (!*pointer) return sim_record_error(cudaErrorMemoryAllocation);
    if (pinned_count < 256) pinned_blocks[pinned_count++] = (pinned){(uintptr_t)*pointer, bytes};
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *pointer)
{
    for (int i = 0; i < pinned_count; i++)
        if (pinned_blocks[i].start == (uintptr_t)pointer) pinned_blocks[i] = pinned_blocks[--pinned_count];
    free(pointer);
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Copies and memset */

/* Checks that [pointer, pointer + bytes) is live device memory (want_device) or is host memory. */
static int check_side(const char *call, const char *side, const void *pointer, size_t bytes, int want_device)
{
    const allocation *a = sim_find_allocation((uintptr_t)pointer);
    if (!want_device) {
        if (!sim_is_device_address((uintptr_t)pointer)) return 1;
        fprintf(stderr, "sim: %s: the %s %p is device memory, but the copy kind says host memory\n"
                "     (did you swap the destination and the source, or pick the wrong cudaMemcpyKind?)\n",
                call, side, pointer);
        return 0;
    }
    if (!a || a->freed) {
        fprintf(stderr, "sim: %s: the %s %p is %s\n     (did you swap the destination and the source, or pick "
                "the wrong cudaMemcpyKind?)\n", call, side, pointer,
                a ? "device memory that cudaFree has released" : "not device memory from cudaMalloc");
        return 0;
    }
    size_t offset = (uintptr_t)pointer - a->start;
    if (bytes > a->bytes - offset) {
        fprintf(stderr, "sim: %s: %zu bytes at offset %zu of a %zu-byte allocation run %zu bytes past "
                "its end (the %s)\n", call, bytes, offset, a->bytes, bytes - (a->bytes - offset), side);
        return 0;
    }
    return 1;
}

cudaError_t sim_memcpy_now(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (bytes == 0) return cudaSuccess;
    if (!destination || !source) {
        fprintf(stderr, "sim: cudaMemcpy: a NULL %s\n", destination ? "source" : "destination");
        return sim_record_error(cudaErrorInvalidValue);
    }
    if (kind == cudaMemcpyDefault)
        kind = (cudaMemcpyKind)((sim_is_device_address((uintptr_t)source) ? 2 : 0) +
                                (sim_is_device_address((uintptr_t)destination) ? 1 : 0));
    static const char *names[] = {"cudaMemcpy(cudaMemcpyHostToHost)", "cudaMemcpy(cudaMemcpyHostToDevice)",
                                  "cudaMemcpy(cudaMemcpyDeviceToHost)", "cudaMemcpy(cudaMemcpyDeviceToDevice)"};
    if ((unsigned)kind > cudaMemcpyDeviceToDevice) {
        fprintf(stderr, "sim: cudaMemcpy: %d is not a cudaMemcpyKind\n", (int)kind);
        return sim_record_error(cudaErrorInvalidMemcpyDirection);
    }
    int source_on_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    int destination_on_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    if (!check_side(names[kind], "destination", destination, bytes, destination_on_device) ||
        !check_side(names[kind], "source", source, bytes, source_on_device))
        return sim_record_error(cudaErrorInvalidValue);
    memmove(destination, source, bytes);
    return cudaSuccess;
}

cudaError_t sim_memset_now(void *pointer, int value, size_t bytes)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (bytes == 0) return cudaSuccess;
    if (!check_side("cudaMemset", "destination", pointer, bytes, 1)) return sim_record_error(cudaErrorInvalidValue);
    memset(pointer, value, bytes);
    return cudaSuccess;
}

/* __constant__ and __device__ variables are ordinary variables in the simulator. */
cudaError_t sim_memcpy_symbol(void *symbol, size_t symbol_bytes, void *host, size_t bytes, size_t offset,
                              int to_symbol)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (offset > symbol_bytes || bytes > symbol_bytes - offset) {
        fprintf(stderr, "sim: cudaMemcpy%sSymbol: %zu bytes at offset %zu do not fit a %zu-byte symbol\n",
                to_symbol ? "To" : "From", bytes, offset, symbol_bytes);
        return sim_record_error(cudaErrorInvalidValue);
    }
    if (to_symbol) memcpy((char *)symbol + offset, host, bytes);
    else memcpy(host, (char *)symbol + offset, bytes);
    return cudaSuccess;
}
