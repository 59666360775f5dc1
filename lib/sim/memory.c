/* memory.c — device memory on the CPU: cudaMalloc/cudaFree, pitched memory, pinned and registered
 * host memory, the copies and the memsets (1-D and 2-D).
 *
 * All device memory lives in one large reserved range of address space, so that a device
 * address can never be mistaken for a host one (and the reverse). Each allocation gets
 * whole pages followed by an unmapped gap; cudaFree unmaps its pages but keeps a record,
 * so that a later access is explained as use after free rather than a random crash. The
 * table of allocations lets the simulator refuse what a GPU refuses: a copy in the wrong
 * direction or past the end, freeing twice. New allocations are filled with 0xff bytes
 * (NaN as float, -1 as int) so that reading memory nobody wrote shows up; with SIM_INITCHECK=1
 * such a read is reported (initcheck.c), and the copies and memsets here mark what they write. */
#include "initcheck.h"
#include "internal.h"
#include "runtime.h"
#include "device.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { PAGE = 4096, GAP = 64 * 1024 };

static uintptr_t region_start, region_bytes, region_next;
static allocation *allocations;    /* in increasing address order: the region only grows */
static size_t allocation_count, allocation_capacity;
static size_t bytes_allocated;

/* The most address space to reserve, in bytes: SIM_DEVICE_RESERVE_GIB, a power of two from 16 to 1024
 * (GiB), 1024 by default. Freed memory is never reused, so the reservation bounds all the allocations a
 * program makes, freed ones included; on a real machine reserving costs nothing, but an emulator such as
 * qemu-user keeps a record per page of every reservation (about 6 GB of its own memory per TiB), and
 * `make test-arm64` asks for less. */
static size_t most_to_reserve(void)
{
    const char *setting = getenv("SIM_DEVICE_RESERVE_GIB");
    if (!setting || !*setting) return (size_t)1 << 40;
    char *end;
    unsigned long long gib = strtoull(setting, &end, 10);
    if (*end || setting[0] == '-' || gib < 16 || gib > 1024 || (gib & (gib - 1)))
        sim_fatal("SIM_DEVICE_RESERVE_GIB=%s: give the address space to reserve for device memory in GiB, a power "
                  "of two from 16 to 1024 (the default is 1024)", setting);
    return (size_t)gib << 30;
}

static int reserve_region(void)
{
    if (region_start) return 1;
    for (size_t bytes = most_to_reserve(); bytes >= ((size_t)1 << 34); bytes >>= 1) {
        void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            region_start = region_next = (uintptr_t)p;
            region_bytes = bytes;
            sim_initcheck_reserve(region_start, region_bytes);
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

/* An allocation of `bytes`, recorded as made by the call that returns to `caller`. */
static cudaError_t allocate(void **pointer, size_t bytes, void *caller, int managed)
{
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
    sim_initcheck_map((uintptr_t)memory, bytes);
    allocations[allocation_count++] = (allocation){(uintptr_t)memory, bytes, caller, 0, managed};
    bytes_allocated += bytes;
    *pointer = memory;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **pointer, size_t bytes) { return allocate(pointer, bytes, __builtin_return_address(0), 0); }

/* Device memory for the simulator's own objects (a CUDA array's texels: textures.c), recorded as made by `caller`. */
cudaError_t sim_device_alloc(void **pointer, size_t bytes, void *caller) { return allocate(pointer, bytes, caller, 0); }

/* Unified memory: one allocation the host and every kernel use through the same pointer. It is
 * device memory (bounds, races and metrics are checked in kernels as for cudaMalloc) that host
 * code may also read and write. The simulator runs each kernel to its end inside the launch, so
 * the host never sees a kernel half done; on a GPU the host must wait (cudaDeviceSynchronize)
 * before touching memory a kernel may still be writing. Pages do not migrate: prefetches and
 * advice are accepted and change nothing. */
cudaError_t cudaMallocManaged(void **pointer, size_t bytes, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
        fprintf(stderr, "sim: cudaMallocManaged: flags 0x%x: the flags are cudaMemAttachGlobal and cudaMemAttachHost\n",
                flags);
        return sim_record_error(cudaErrorInvalidValue);
    }
    return allocate(pointer, bytes, __builtin_return_address(0), 1);
}

static cudaError_t check_managed_range(const char *call, const void *pointer, size_t bytes)
{
    const allocation *a = sim_find_allocation((uintptr_t)pointer);
    if (a && !a->freed && a->managed && (uintptr_t)pointer + bytes <= a->start + a->bytes) return cudaSuccess;
    fprintf(stderr, "sim: %s(%p, %zu bytes): not a range inside live memory from cudaMallocManaged\n", call, pointer,
            bytes);
    return sim_record_error(cudaErrorInvalidValue);
}

/* A location is this GPU (a device, id 0) or the host (any host kind). */
static int known_location(struct cudaMemLocation location)
{
    return (location.type == cudaMemLocationTypeDevice && location.id == 0) || location.type == cudaMemLocationTypeHost ||
           location.type == cudaMemLocationTypeHostNuma || location.type == cudaMemLocationTypeHostNumaCurrent;
}

cudaError_t cudaMemPrefetchAsync(const void *pointer, size_t bytes, struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream)
{
    (void)stream;
    if (!known_location(location) || flags != 0) {
        fprintf(stderr, "sim: cudaMemPrefetchAsync: location type %d, id %d, flags 0x%x: the location is device 0 or "
                "the host, and the flags are 0\n", (int)location.type, location.id, flags);
        return sim_record_error(cudaErrorInvalidValue);
    }
    return check_managed_range("cudaMemPrefetchAsync", pointer, bytes);
}

cudaError_t cudaMemAdvise(const void *pointer, size_t bytes, enum cudaMemoryAdvise advice, struct cudaMemLocation location)
{
    if ((unsigned)advice < cudaMemAdviseSetReadMostly || (unsigned)advice > cudaMemAdviseUnsetAccessedBy ||
        !known_location(location)) {
        fprintf(stderr, "sim: cudaMemAdvise: advice %d for location type %d, id %d: the advice is a cudaMemoryAdvise, "
                "the location device 0 or the host\n", (int)advice, (int)location.type, location.id);
        return sim_record_error(cudaErrorInvalidValue);
    }
    return check_managed_range("cudaMemAdvise", pointer, bytes);
}

/* Rows padded to a multiple of PITCH_ALIGNMENT bytes, the textureAlignment GPUs since Fermi report
 * (cudaMallocPitch on an A100 or H100 gives a 512-byte pitch for a 400-byte row): each row starts
 * where a 2-D array's row should, on a 32-byte sector and a 128-byte line. */
enum { PITCH_ALIGNMENT = 512 };

cudaError_t cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height)
{
    if (!pointer || !pitch) return sim_record_error(cudaErrorInvalidValue);
    size_t row = (width + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT;
    if (row < width || (height && row > (size_t)-1 / height)) {
        fprintf(stderr, "sim: cudaMallocPitch of %zu rows of %zu bytes: more than the address space holds\n",
                height, width);
        return sim_record_error(cudaErrorMemoryAllocation);
    }
    *pitch = row;
    return allocate(pointer, row * height, __builtin_return_address(0), 0);
}

static void release(allocation *a)
{
    size_t pages = (a->bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
    madvise((void *)a->start, pages, MADV_DONTNEED);
    mprotect((void *)a->start, pages, PROT_NONE);
    sim_initcheck_unmap(a->start, a->bytes);
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
 * Pinned and registered host memory. A GPU with unified addressing (every 64-bit system) maps it
 * into the device's address space at the same address (cudaDevAttrCanUseHostPointerForRegisteredMem
 * is 1 on x86-64 Linux), so a kernel may read and write it through the host pointer, as here, and
 * cudaHostGetDevicePointer gives that pointer back. */

typedef struct pinned { uintptr_t start; size_t bytes; int registered; } pinned;  /* registered: by cudaHostRegister */
static pinned *pinned_blocks;
static size_t pinned_count, pinned_capacity;

static pinned *find_pinned(uintptr_t address)
{
    for (size_t i = 0; i < pinned_count; i++)
        if (address - pinned_blocks[i].start < (pinned_blocks[i].bytes ? pinned_blocks[i].bytes : 1))
            return &pinned_blocks[i];
    return NULL;
}

int sim_is_pinned_host(uintptr_t address)
{
    const pinned *p = find_pinned(address);
    return p && p->bytes;   /* a 0-byte block has no byte a kernel may touch */
}

static cudaError_t add_pinned(uintptr_t start, size_t bytes, int registered)
{
    if (sim_grow((void **)&pinned_blocks, &pinned_capacity, pinned_count, sizeof *pinned_blocks, 16))
        return cudaErrorMemoryAllocation;
    pinned_blocks[pinned_count++] = (pinned){start, bytes, registered};
    return cudaSuccess;
}

static void remove_pinned(pinned *p) { *p = pinned_blocks[--pinned_count]; }

enum { HOST_ALLOC_FLAGS = 0x07, HOST_REGISTER_FLAGS = 0x03 };   /* Portable | Mapped (| WriteCombined) */

cudaError_t cudaHostAlloc(void **pointer, size_t bytes, unsigned int flags)
{
    if (!pointer) return sim_record_error(cudaErrorInvalidValue);
    if (flags & ~(unsigned)HOST_ALLOC_FLAGS) {
        fprintf(stderr, "sim: cudaHostAlloc: flags 0x%x: the flags are cudaHostAllocPortable, "
                "cudaHostAllocMapped and cudaHostAllocWriteCombined\n", flags);
        return sim_record_error(cudaErrorInvalidValue);
    }
    *pointer = sim_try_alloc(bytes, 1);
    if (!*pointer) return sim_record_error(cudaErrorMemoryAllocation);
    if (add_pinned((uintptr_t)*pointer, bytes, 0) != cudaSuccess) {
        free(*pointer);
        *pointer = NULL;
        return sim_record_error(cudaErrorMemoryAllocation);
    }
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **pointer, size_t bytes) { return cudaHostAlloc(pointer, bytes, 0); }

cudaError_t cudaFreeHost(void *pointer)
{
    if (!pointer) return cudaSuccess;
    pinned *p = find_pinned((uintptr_t)pointer);
    if (!p || p->registered || p->start != (uintptr_t)pointer) {
        fprintf(stderr, "sim: cudaFreeHost(%p): %s\n", pointer,
                !p ? "not memory from cudaMallocHost or cudaHostAlloc (free it with free or delete)"
                : p->registered ? "memory registered with cudaHostRegister: unregister it with cudaHostUnregister "
                                  "and free it the way it was allocated"
                                : "the pointer is inside an allocation, not at its start");
        return sim_record_error(cudaErrorInvalidValue);
    }
    remove_pinned(p);
    free(pointer);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *pointer, size_t bytes, unsigned int flags)
{
    if (!pointer || bytes == 0 || (flags & ~(unsigned)HOST_REGISTER_FLAGS)) {
        fprintf(stderr, "sim: cudaHostRegister(%p, %zu, 0x%x): %s\n", pointer, bytes, flags,
                !pointer || !bytes ? "a NULL pointer or an empty range"
                                   : "the simulator takes cudaHostRegisterDefault, Portable and Mapped (no I/O or "
                                     "read-only memory)");
        return sim_record_error(cudaErrorInvalidValue);
    }
    if (sim_is_device_address((uintptr_t)pointer)) {
        fprintf(stderr, "sim: cudaHostRegister(%p): this is device memory from cudaMalloc, not host memory\n", pointer);
        return sim_record_error(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < pinned_count; i++) {
        const pinned *p = &pinned_blocks[i];
        if ((uintptr_t)pointer < p->start + p->bytes && p->start < (uintptr_t)pointer + bytes) {
            fprintf(stderr, "sim: cudaHostRegister(%p, %zu): the range overlaps %s at %p (%zu bytes)\n", pointer,
                    bytes, p->registered ? "memory already registered" : "pinned memory from cudaMallocHost",
                    (void *)p->start, p->bytes);
            return sim_record_error(cudaErrorHostMemoryAlreadyRegistered);
        }
    }
    return sim_record_error(add_pinned((uintptr_t)pointer, bytes, 1));
}

cudaError_t cudaHostUnregister(void *pointer)
{
    pinned *p = pointer ? find_pinned((uintptr_t)pointer) : NULL;
    if (!p || !p->registered || p->start != (uintptr_t)pointer) {
        fprintf(stderr, "sim: cudaHostUnregister(%p): %s\n", pointer,
                p && p->registered ? "the pointer is inside a registered range, not at its start"
                                   : "this memory was not registered with cudaHostRegister");
        return sim_record_error(cudaErrorHostMemoryNotRegistered);
    }
    remove_pinned(p);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **device_pointer, void *host_pointer, unsigned int flags)
{
    if (!device_pointer || flags != 0) {
        fprintf(stderr, "sim: cudaHostGetDevicePointer: %s\n", flags ? "flags must be 0" : "a NULL result pointer");
        return sim_record_error(cudaErrorInvalidValue);
    }
    *device_pointer = NULL;
    if (!host_pointer || !find_pinned((uintptr_t)host_pointer)) {
        fprintf(stderr, "sim: cudaHostGetDevicePointer(%p): not memory from cudaHostAlloc, cudaMallocHost or "
                "cudaHostRegister\n", host_pointer);
        return sim_record_error(cudaErrorInvalidValue);
    }
    *device_pointer = host_pointer;
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Copies and memset */

/* Checks that [pointer, pointer + bytes) is live device memory (want_device) or is host memory. */
static int check_side(const char *call, const char *side, const void *pointer, size_t bytes, int want_device)
{
    const allocation *a = sim_find_allocation((uintptr_t)pointer);
    int managed = a && !a->freed && a->managed;   /* host and device memory at once: either kind names it */
    if (!want_device && !managed) {
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
    sim_initcheck_copied(destination, source, bytes);
    return cudaSuccess;
}

cudaError_t sim_memset_now(void *pointer, int value, size_t bytes)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (bytes == 0) return cudaSuccess;
    if (!check_side("cudaMemset", "destination", pointer, bytes, 1)) return sim_record_error(cudaErrorInvalidValue);
    memset(pointer, value, bytes);
    sim_initcheck_written(pointer, bytes);
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * 2-D copies and memsets: `height` rows of `width` bytes, each `pitch` bytes after the one before.
 * The whole rectangle is checked first, as CUDA checks it before copying anything; then each row
 * goes through cudaMemcpy(Async) or cudaMemset(Async), so a stream capture records them too. */

static const char *kind_name(cudaMemcpyKind kind)
{
    static const char *names[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                  "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
    return (unsigned)kind <= cudaMemcpyDefault ? names[kind] : "not a cudaMemcpyKind";
}

/* Checks one side of a 2-D copy: device memory that holds the whole rectangle, or host memory. */
static int check_rectangle(const char *call, const char *side, const void *pointer, size_t pitch, size_t width,
                           size_t height, int want_device)
{
    if (!want_device) return check_side(call, side, pointer, 1, 0);
    if (!check_side(call, side, pointer, 1, 1)) return 0;
    const allocation *a = sim_find_allocation((uintptr_t)pointer);
    size_t offset = (uintptr_t)pointer - a->start, span = (height - 1) * pitch + width;
    if (span > a->bytes - offset) {
        fprintf(stderr, "sim: %s: %zu rows of %zu bytes, %zu bytes apart, span %zu bytes from offset %zu of a "
                "%zu-byte allocation: they run %zu bytes past its end (the %s)\n     (is the height, the width "
                "or the pitch that of another array? cudaMallocPitch returns the pitch to use)\n", call, height,
                width, pitch, span, offset, a->bytes, span - (a->bytes - offset), side);
        return 0;
    }
    return 1;
}

static cudaError_t copy_2d(const char *function, void *destination, size_t destination_pitch, const void *source,
                           size_t source_pitch, size_t width, size_t height, cudaMemcpyKind kind, int async,
                           cudaStream_t stream)
{
    char call[80];
    snprintf(call, sizeof call, "%s(%s)", function, kind_name(kind));
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (width == 0 || height == 0) return cudaSuccess;
    if ((unsigned)kind > cudaMemcpyDefault) {
        fprintf(stderr, "sim: %s: %d is not a cudaMemcpyKind\n", function, (int)kind);
        return sim_record_error(cudaErrorInvalidMemcpyDirection);
    }
    if (width > destination_pitch || width > source_pitch) {
        fprintf(stderr, "sim: %s: rows of %zu bytes do not fit a %s pitch of %zu bytes (a pitch is the distance "
                "from one row's start to the next, in bytes: at least the width)\n", call, width,
                width > destination_pitch ? "destination" : "source",
                width > destination_pitch ? destination_pitch : source_pitch);
        return sim_record_error(cudaErrorInvalidPitchValue);
    }
    if (!destination || !source) {
        fprintf(stderr, "sim: %s: a NULL %s\n", call, destination ? "source" : "destination");
        return sim_record_error(cudaErrorInvalidValue);
    }
    cudaMemcpyKind actual = kind;
    if (kind == cudaMemcpyDefault)
        actual = (cudaMemcpyKind)((sim_is_device_address((uintptr_t)source) ? 2 : 0) +
                                  (sim_is_device_address((uintptr_t)destination) ? 1 : 0));
    int source_on_device = actual == cudaMemcpyDeviceToHost || actual == cudaMemcpyDeviceToDevice;
    int destination_on_device = actual == cudaMemcpyHostToDevice || actual == cudaMemcpyDeviceToDevice;
    if (!check_rectangle(call, "destination", destination, destination_pitch, width, height, destination_on_device) ||
        !check_rectangle(call, "source", source, source_pitch, width, height, source_on_device))
        return sim_record_error(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; row++) {
        void *to = (char *)destination + row * destination_pitch;
        const void *from = (const char *)source + row * source_pitch;
        cudaError_t error = async ? cudaMemcpyAsync(to, from, width, kind, stream) : cudaMemcpy(to, from, width, kind);
        if (error != cudaSuccess) return error;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                         size_t width, size_t height, cudaMemcpyKind kind)
{
    return copy_2d("cudaMemcpy2D", destination, destination_pitch, source, source_pitch, width, height, kind, 0, 0);
}

cudaError_t cudaMemcpy2DAsync(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy_2d("cudaMemcpy2DAsync", destination, destination_pitch, source, source_pitch, width, height, kind, 1,
                   stream);
}

static cudaError_t memset_2d(const char *call, void *pointer, size_t pitch, int value, size_t width, size_t height,
                             int async, cudaStream_t stream)
{
    if (sim_sticky_error()) return sim_record_error(sim_sticky_error());
    if (width == 0 || height == 0) return cudaSuccess;
    if (width > pitch) {
        fprintf(stderr, "sim: %s: rows of %zu bytes do not fit a pitch of %zu bytes\n", call, width, pitch);
        return sim_record_error(cudaErrorInvalidPitchValue);
    }
    if (!check_rectangle(call, "destination", pointer, pitch, width, height, 1))
        return sim_record_error(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; row++) {
        void *at = (char *)pointer + row * pitch;
        cudaError_t error = async ? cudaMemsetAsync(at, value, width, stream) : cudaMemset(at, value, width);
        if (error != cudaSuccess) return error;
    }
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *pointer, size_t pitch, int value, size_t width, size_t height)
{
    return memset_2d("cudaMemset2D", pointer, pitch, value, width, height, 0, 0);
}

cudaError_t cudaMemset2DAsync(void *pointer, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream)
{
    return memset_2d("cudaMemset2DAsync", pointer, pitch, value, width, height, 1, stream);
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
