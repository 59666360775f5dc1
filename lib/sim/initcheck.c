/* initcheck.c — compute-sanitizer's initcheck: a read of device or shared memory nothing has
 * written stops the launch, naming the allocation (or the shared variable), the thread and the
 * line. initcheck.h says how written bytes are tracked; this file keeps the shadow of device memory
 * and explains what it finds.
 *
 * It is a mode, as compute-sanitizer's initcheck is a tool of its own: SIM_INITCHECK=1 turns it on
 * for the whole program. A program that reads memory it never wrote usually computes garbage that a
 * test sees anyway; the mode says where. The shadow costs one byte per byte of device memory. */
#include "initcheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int sim_initcheck_on;
uintptr_t sim_initcheck_shadow_offset;
static int started;
static uintptr_t shadow_start, device_start;
static size_t shadow_bytes;

enum { PAGE = 4096, FILL = 0xff };

void sim_initcheck_start(void)
{
    if (started) return;
    started = 1;
    const char *setting = getenv("SIM_INITCHECK");
    if (!setting || !*setting || (setting[0] == '0' && !setting[1])) return;
    if (strcmp(setting, "1") != 0)
        sim_fatal("SIM_INITCHECK=%s: 1 reports reads of device and shared memory nothing has written, 0 (the "
                  "default) does not", setting);
    sim_initcheck_on = 1;
}

void sim_initcheck_reserve(uintptr_t region_start, size_t region_bytes)
{
    sim_initcheck_start();
    if (!sim_initcheck_on || shadow_start) return;
    void *p = mmap(NULL, region_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) sim_fatal("SIM_INITCHECK=1: cannot reserve the shadow of device memory: %s", strerror(errno));
    shadow_start = (uintptr_t)p, shadow_bytes = region_bytes, device_start = region_start;
    sim_initcheck_shadow_offset = shadow_start - region_start;
}

static unsigned char *shadow_of(uintptr_t address) { return (unsigned char *)(address + sim_initcheck_shadow_offset); }

void sim_initcheck_map(uintptr_t start, size_t bytes)
{
    if (!shadow_start || !bytes) return;
    if (mprotect(shadow_of(start), (bytes + PAGE - 1) & ~(size_t)(PAGE - 1), PROT_READ | PROT_WRITE) != 0)
        sim_fatal("SIM_INITCHECK=1: cannot map the shadow of a %zu-byte allocation: %s", bytes, strerror(errno));
}

void sim_initcheck_unmap(uintptr_t start, size_t bytes)
{
    if (!shadow_start || !bytes) return;
    size_t pages = (bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
    madvise(shadow_of(start), pages, MADV_DONTNEED);
    mprotect(shadow_of(start), pages, PROT_NONE);
}

static int tracked(const void *pointer) { return shadow_start && (uintptr_t)pointer - device_start < shadow_bytes; }

void sim_initcheck_written(const void *destination, size_t bytes)
{
    if (tracked(destination)) memset(shadow_of((uintptr_t)destination), SIM_DEVICE_WRITTEN, bytes);
}

void sim_initcheck_copied(void *destination, const void *source, size_t bytes)
{
    if (!tracked(destination)) return;
    if (tracked(source)) memmove(shadow_of((uintptr_t)destination), shadow_of((uintptr_t)source), bytes);
    else memset(shadow_of((uintptr_t)destination), SIM_DEVICE_WRITTEN, bytes);
}

void sim_initcheck_matrix_written(const void *pointer, int rows, int cols, int ld, size_t element)
{
    if (!tracked(pointer)) return;
    for (int j = 0; j < cols; j++)
        sim_initcheck_written((const char *)pointer + (size_t)j * (size_t)ld * element, (size_t)rows * element);
}

void sim_initcheck_unwritten(worker *w, uintptr_t address, size_t bytes, void *site, unsigned char *shadow,
                             unsigned char written)
{
    const unsigned char *memory = (const unsigned char *)address;
    size_t first = bytes;
    for (size_t i = 0; i < bytes; i++)
        if (shadow[i] != written) {
            if (memory[i] != FILL) shadow[i] = written;   /* written where the hooks do not look */
            else if (first == bytes) first = i;
        }
    if (first == bytes) return;
    char where[600];   /* sim_source_line's answer lasts until its next call */
    snprintf(where, sizeof where, "%s", sim_source_line(site));
    sim_describe_place(w);
    if (written == SIM_SHARED_WRITTEN) {
        char name[160];
        sim_shared_name(w, address + first, name, sizeof name);
        sim_report("%s%sread %s, which no thread of this block has written (initcheck):\n"
                   "     shared memory is undefined at the start of every block (here 0xff bytes; on a GPU, whatever\n"
                   "     an earlier block left there). Is an index one past the slots the threads filled?\n",
                   where, *where ? ": " : "", name);
    } else {
        const allocation *al = sim_find_allocation(address);
        sim_report("%s%sread %zu bytes at %p, which nothing has written (initcheck):\n"
                   "     byte %zu of a %zu-byte allocation made at %s.\n"
                   "     Memory from %s is undefined until written (here it holds 0xff bytes): zero it\n"
                   "     with cudaMemset, or write it before a kernel reads it (an atomicAdd reads what it adds to).\n",
                   where, *where ? ": " : "", bytes, (void *)address, (size_t)(address + first - al->start), al->bytes,
                   sim_source_line(al->made_at), al->managed ? "cudaMallocManaged" : "cudaMalloc");
    }
    sim_abort_launch(w, cudaErrorLaunchFailure);
}
