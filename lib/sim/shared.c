/* shared.c — the shared memory of the running block.
 *
 * Each worker has one arena. A block's dynamic shared memory (extern __shared__) starts at
 * its beginning; each static __shared__ declaration gets its place after it the first time
 * a thread of the block reaches the declaration (tools/cu2sim rewrites declarations into
 * calls of sim_shared_static with a key unique to the declaration). Shared memory starts
 * every block as garbage (0xff bytes), as on a GPU, so reading before writing shows.
 * Declarations keep their names and shapes, so messages can say tile[4][17]. A gap follows
 * the dynamic part and each variable: an access that runs past the end of one is found in
 * the gap (w->shared_valid) and reported, as compute-sanitizer reports it on a GPU, where the
 * same access would silently read or overwrite the next variable. */
#include "internal.h"
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_shared_reset_block(worker *w)
{
    /* every valid byte lies below the gap after the last variable */
    if (w->shared_used > SHARED_GAP_BYTES)
        memset(w->shared_valid, 0, w->shared_used < SHARED_ARENA_BYTES ? w->shared_used - SHARED_GAP_BYTES : SHARED_ARENA_BYTES);
    w->declaration_count = 0;
    w->static_shared_bytes = 0;
    w->shared_used = ((w->dynamic_shared_bytes + 127) & ~(size_t)127) + SHARED_GAP_BYTES;
    memset(w->shared_arena, 0xff, w->dynamic_shared_bytes);
    memset(w->shared_valid, 1, w->dynamic_shared_bytes);
}

void *sim_shared_dynamic(const char *name, size_t element_bytes)
{
    worker *w = sim_current_worker;
    if (!w || !w->launch) sim_crash("extern __shared__ memory used outside a kernel");
    w->dynamic_name = name;
    w->dynamic_shape = (sim_shape){element_bytes ? element_bytes : 1, 1, {0}};
    return w->shared_arena;
}

void *sim_shared_static(const void *key, size_t bytes, size_t alignment, const char *name, const sim_shape *shape)
{
    worker *w = sim_current_worker;
    if (!w || !w->launch) sim_crash("the __shared__ variable %s used outside a kernel", name);
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
    if (w->dynamic_shared_bytes + w->static_shared_bytes > w->shared_limit || offset + bytes > SHARED_ARENA_BYTES ||
        w->declaration_count == MAX_SHARED_DECLARATIONS)
        sim_kernel_fail(cudaErrorLaunchOutOfResources,
            "shared memory exhausted: %zu bytes dynamic + %zu bytes static exceed the %zu bytes this\n"
            "     kernel may use per block.", w->dynamic_shared_bytes, w->static_shared_bytes, w->shared_limit);
    memset(w->shared_arena + offset, 0xff, bytes);
    memset(w->shared_valid + offset, 1, bytes);
    w->declarations[w->declaration_count++] = (shared_declaration){key, offset, bytes, name, shape};
    w->shared_used = offset + bytes + SHARED_GAP_BYTES;
    return w->shared_arena + offset;
}

/* Writes "name[i][j]" for the element of a shape at byte `offset`. */
static void name_element(char *out, size_t size, const char *name, const sim_shape *shape, size_t offset)
{
    size_t index = offset / shape->element_bytes;
    size_t used = (size_t)snprintf(out, size, "%s", name);
    if (shape->rank == 0) return;
    size_t indices[4], stride = 1;
    for (int k = shape->rank - 1; k >= 0; k--) {
        size_t extent = shape->extents[k] ? shape->extents[k] : (size_t)-1;
        indices[k] = k == 0 ? index / stride : index / stride % extent;
        if (shape->extents[k]) stride *= shape->extents[k];
    }
    for (int k = 0; k < shape->rank && used < size; k++) used += (size_t)snprintf(out + used, size - used, "[%zu]", indices[k]);
}

void sim_shared_name(worker *w, uintptr_t address, char *out, size_t size)
{
    size_t offset = address - (uintptr_t)w->shared_arena;
    for (int i = 0; i < w->declaration_count; i++) {
        const shared_declaration *d = &w->declarations[i];
        if (offset >= d->offset && offset < d->offset + d->bytes) {
            name_element(out, size, d->name, d->shape, offset - d->offset);
            return;
        }
    }
    if (offset < w->dynamic_shared_bytes && w->dynamic_name) {
        name_element(out, size, w->dynamic_name, &w->dynamic_shape, offset);
        return;
    }
    snprintf(out, size, "shared memory at byte %zu of the block's %zu", offset, w->shared_used);
}

void sim_shared_out_of_bounds(worker *w, uintptr_t address, size_t bytes, int is_write, void *site)
{
    size_t offset = address - (uintptr_t)w->shared_arena;
    /* the region that ends nearest before the access: the one it ran past */
    const char *name = NULL;
    size_t start = 0, size = 0, end = 0;
    if (w->dynamic_shared_bytes && w->dynamic_shared_bytes <= offset)
        name = w->dynamic_name ? w->dynamic_name : "the dynamic shared memory", start = 0, size = end = w->dynamic_shared_bytes;
    for (int i = 0; i < w->declaration_count; i++) {
        const shared_declaration *d = &w->declarations[i];
        if (d->offset + d->bytes <= offset && d->offset + d->bytes >= end)
            name = d->name, start = d->offset, size = d->bytes, end = d->offset + d->bytes;
    }
    const char *where = sim_source_line(site);
    sim_describe_place(w);
    if (name && start == 0 && size == w->dynamic_shared_bytes && end == w->dynamic_shared_bytes)
        sim_report("%s%s%s %zu bytes of shared memory %zu bytes past the end of the dynamic shared memory %s:\n"
                   "     the launch gave it %zu bytes (the third <<< >>> argument); is that the size the kernel uses?\n",
                   where, *where ? ": " : "", is_write ? "wrote" : "read", bytes, offset + bytes - end,
                   w->dynamic_name ? w->dynamic_name : "", w->dynamic_shared_bytes);
    else if (name)
        sim_report("%s%s%s %zu bytes of shared memory %zu bytes past the end of %s (%zu bytes):\n"
                   "     an index beyond the array. On a GPU this reads or overwrites whatever lies next.\n",
                   where, *where ? ": " : "", is_write ? "wrote" : "read", bytes, offset + bytes - end, name, size);
    else if (w->dynamic_shared_bytes == 0 && offset < SHARED_GAP_BYTES)
        sim_report("%s%s%s %zu bytes of dynamic shared memory%s%s, but the launch gave it 0 bytes:\n"
                   "     an extern __shared__ array needs its size as the third <<< >>> argument\n",
                   where, *where ? ": " : "", is_write ? "wrote" : "read", bytes, w->dynamic_name ? " " : "",
                   w->dynamic_name ? w->dynamic_name : "");
    else
        sim_report("%s%s%s %zu bytes of shared memory at byte %zu, before every __shared__ variable of the block\n"
                   "     (a negative index?)\n", where, *where ? ": " : "", is_write ? "wrote" : "read", bytes, offset);
    sim_abort_launch(w, cudaErrorIllegalAddress);
}
