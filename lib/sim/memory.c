/* memory.c — device memory on the CPU: cudaMalloc/cudaFree, the copies and cudaMemset.
 *
 * Device memory is ordinary host memory, but the simulator keeps a table of every live
 * allocation so that it can refuse what a GPU refuses: a copy in the wrong direction,
 * a copy past the end of an allocation, freeing twice. New allocations are filled with
 * 0xff bytes (NaN as float, -1 as int) so that reading memory nobody wrote shows up. */
#include "sim.h"
#include "runtime.h"
#include "device.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct allocation { uintptr_t start; size_t bytes; } allocation;

static allocation *allocations;    /* sorted by start address */
static size_t allocation_count, allocation_capacity;
static size_t bytes_allocated;

/* The allocation that holds `address`, or NULL. */
static allocation *find_allocation(uintptr_t address)
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

int sim_is_device_pointer(const void *p) { return find_allocation((uintptr_t)p) != NULL; }

cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (!pointer) return sim_record_error(cudaErrorInvalidValue);
    *pointer = NULL;
    if (bytes == 0) return cudaSuccess;
    if (bytes > sim_device()->total_global_memory - bytes_allocated) {
        fprintf(stderr, "sim: cudaMalloc of %zu bytes: the simulated GPU has %zu of its %zu bytes free\n",
                bytes, sim_device()->total_global_memory - bytes_allocated,
                sim_device()->total_global_memory);
        return sim_record_error(cudaErrorMemoryAllocation);
    }
    size_t rounded = (bytes + 255) & ~(size_t)255;     /* cudaMalloc aligns to 256 bytes */
    void *memory = aligned_alloc(256, rounded);
    if (!memory) return sim_record_error(cudaErrorMemoryAllocation);
    memset(memory, 0xff, bytes);
    if (allocation_count == allocation_capacity) {
        size_t capacity = allocation_capacity ? 2 * allocation_capacity : 64;
        allocation *grown = realloc(allocations, capacity * sizeof *grown);
        if (!grown) { free(memory); return sim_record_error(cudaErrorMemoryAllocation); }
        allocations = grown;
        allocation_capacity = capacity;
    }
    size_t at = allocation_count;
    while (at > 0 && allocations[at - 1].start > (uintptr_t)memory) at--;
    memmove(&allocations[at + 1], &allocations[at], (allocation_count - at) * sizeof *allocations);
    allocations[at] = (allocation){(uintptr_t)memory, bytes};
    allocation_count++;
    bytes_allocated += bytes;
    *pointer = memory;
    return cudaSuccess;
}

cudaError_t cudaFree(void *pointer)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (!pointer) return cudaSuccess;
    allocation *a = find_allocation((uintptr_t)pointer);
    if (!a || a->start != (uintptr_t)pointer) {
        fprintf(stderr, "sim: cudaFree(%p): %s\n", pointer,
                a ? "the pointer is inside an allocation, not at its start"
                  : "not a live cudaMalloc allocation (freed twice, or never device memory?)");
        return sim_record_error(cudaErrorInvalidValue);
    }
    bytes_allocated -= a->bytes;
    free(pointer);
    size_t at = (size_t)(a - allocations);
    memmove(a, a + 1, (allocation_count - at - 1) * sizeof *allocations);
    allocation_count--;
    return cudaSuccess;
}

void sim_free_all_allocations(void)
{
    for (size_t i = 0; i < allocation_count; i++) free((void *)allocations[i].start);
    allocation_count = 0;
    bytes_allocated = 0;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes) return sim_record_error(cudaErrorInvalidValue);
    *total_bytes = sim_device()->total_global_memory;
    *free_bytes = *total_bytes - bytes_allocated;
    return cudaSuccess;
}

/* Checks that [pointer, pointer + bytes) is device memory (want_device) or is not. */
static int check_side(const char *call, const char *side, const void *pointer, size_t bytes,
                      int want_device)
{
    allocation *a = find_allocation((uintptr_t)pointer);
    if (!want_device) {
        if (!a) return 1;
        fprintf(stderr, "sim: %s: the %s %p is device memory, but the copy kind says host memory\n"
                "     (did you swap the destination and the source, or pick the wrong cudaMemcpyKind?)\n",
                call, side, pointer);
        return 0;
    }
    if (!a) {
        fprintf(stderr, "sim: %s: the %s %p is not device memory from cudaMalloc\n"
                "     (did you swap the destination and the source, or pick the wrong cudaMemcpyKind?)\n",
                call, side, pointer);
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

cudaError_t cudaMemcpy(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (bytes == 0) return cudaSuccess;
    if (!destination || !source) {
        fprintf(stderr, "sim: cudaMemcpy: a NULL %s\n", destination ? "source" : "destination");
        return sim_record_error(cudaErrorInvalidValue);
    }
    if (kind == cudaMemcpyDefault) {
        kind = (cudaMemcpyKind)((sim_is_device_pointer(source) ? 2 : 0) +
                                (sim_is_device_pointer(destination) ? 1 : 0));
    }
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

cudaError_t cudaMemcpyAsync(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    if (stream && !sim_stream_is_valid(stream)) return sim_record_error(cudaErrorInvalidResourceHandle);
    return cudaMemcpy(destination, source, bytes, kind);
}

cudaError_t cudaMemset(void *pointer, int value, size_t bytes)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (bytes == 0) return cudaSuccess;
    if (!check_side("cudaMemset", "destination", pointer, bytes, 1))
        return sim_record_error(cudaErrorInvalidValue);
    memset(pointer, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes, cudaStream_t stream)
{
    if (stream && !sim_stream_is_valid(stream)) return sim_record_error(cudaErrorInvalidResourceHandle);
    return cudaMemset(pointer, value, bytes);
}

/* __constant__ and __device__ variables are ordinary variables in the simulator. */
cudaError_t sim_memcpy_symbol(void *symbol, size_t symbol_bytes, void *host, size_t bytes,
                              size_t offset, int to_symbol)
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

cudaError_t cudaMallocHost(void **pointer, size_t bytes)
{
    if (!pointer) return sim_record_error(cudaErrorInvalidValue);
    *pointer = malloc(bytes ? bytes : 1);
    return *pointer ? cudaSuccess : sim_record_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void *pointer)
{
    free(pointer);
    return cudaSuccess;
}
