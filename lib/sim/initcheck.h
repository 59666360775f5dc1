/* initcheck.h — compute-sanitizer's initcheck: a kernel that reads device memory nothing has
 * written. Off unless SIM_INITCHECK=1 (read at the program's first allocation or launch).
 *
 * Every byte of device memory (cudaMalloc, cudaMallocPitch, cudaMallocManaged) has a shadow byte in
 * a mapping beside the device region, at the same offset: 0 until something writes the byte (a
 * kernel's store or atomic, cudaMemcpy, cudaMemset, cuBLAS, host code's store to managed memory),
 * then 1. Shared memory uses the bounds map it already has (w->shared_valid: 0 outside every
 * variable, 1 inside, 2 once written in this block). A read of a byte still unmarked is reported,
 * unless the byte no longer holds the fill (0xff) that new memory gets: something the hooks do not
 * see wrote it (a struct of more than 8 bytes copied whole, libc's memset on managed memory), and it
 * is marked then. */
#ifndef SIM_INITCHECK_H
#define SIM_INITCHECK_H

#include "internal.h"

#include <string.h>

enum { SIM_SHARED_UNWRITTEN = 1, SIM_SHARED_WRITTEN = 2, SIM_DEVICE_WRITTEN = 1 };

extern int sim_initcheck_on;                   /* SIM_INITCHECK=1 */
extern uintptr_t sim_initcheck_shadow_offset;  /* a device address plus this is its shadow byte */

void sim_initcheck_start(void);    /* reads SIM_INITCHECK once: at the first allocation or launch */
void sim_initcheck_reserve(uintptr_t region_start, size_t region_bytes);   /* memory.c: the shadow's room */
void sim_initcheck_map(uintptr_t start, size_t bytes);       /* an allocation's pages: all unwritten */
void sim_initcheck_unmap(uintptr_t start, size_t bytes);     /* cudaFree */
/* What the host API wrote: device bytes marked written (a copy from device memory carries its marks). */
void sim_initcheck_written(const void *destination, size_t bytes);
void sim_initcheck_copied(void *destination, const void *source, size_t bytes);
/* A column-major matrix cuBLAS wrote: its columns' spans. */
void sim_initcheck_matrix_written(const void *pointer, int rows, int cols, int ld, size_t element);
/* Some of `shadow`'s `bytes` are not `written`: reported, unless those bytes left the 0xff fill. */
void sim_initcheck_unwritten(worker *w, uintptr_t address, size_t bytes, void *site, unsigned char *shadow,
                             unsigned char written);

static inline int sim_initcheck_all(const unsigned char *shadow, size_t bytes, unsigned char written)
{
    if (bytes == 4) {   /* the common case, one compare */
        uint32_t marks;
        memcpy(&marks, shadow, 4);
        return marks == written * 0x01010101u;
    }
    for (size_t i = 0; i < bytes; i++)
        if (shadow[i] != written) return 0;
    return 1;
}

/* A kernel's access to live device memory, `reads` unless it only writes. */
static inline __attribute__((always_inline)) void sim_initcheck_device(worker *w, uintptr_t a, size_t bytes,
                                                                       int reads, int writes, void *site)
{
    unsigned char *shadow = (unsigned char *)(a + sim_initcheck_shadow_offset);
    if (reads && __builtin_expect(!sim_initcheck_all(shadow, bytes, SIM_DEVICE_WRITTEN), 0))
        sim_initcheck_unwritten(w, a, bytes, site, shadow, SIM_DEVICE_WRITTEN);
    if (writes) memset(shadow, SIM_DEVICE_WRITTEN, bytes);
}

/* A kernel's access to the block's shared memory (inside a variable: access.c checked that). */
static inline __attribute__((always_inline)) void sim_initcheck_shared(worker *w, uintptr_t a, size_t bytes,
                                                                       int reads, int writes, void *site)
{
    unsigned char *shadow = w->shared_valid + (a - (uintptr_t)w->shared_arena);
    if (reads && __builtin_expect(!sim_initcheck_all(shadow, bytes, SIM_SHARED_WRITTEN), 0))
        sim_initcheck_unwritten(w, a, bytes, site, shadow, SIM_SHARED_WRITTEN);
    if (writes) memset(shadow, SIM_SHARED_WRITTEN, bytes);
}

#endif
