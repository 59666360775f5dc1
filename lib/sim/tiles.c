/* tiles.c — cooperative groups' tiles of several warps (thread_block_tile<64> to <1024>): their
 * barrier, and the exchange behind their cg::reduce.
 *
 * On a GPU such a tile's sync() is a barrier of just the tile's warps (a named barrier with a count):
 * the other warps of the block run on. Here a thread that calls it waits, as at __syncthreads(); once
 * every warp of the block has run as far as it can (threads.c), each tile whose threads all wait at a
 * tile's sync() is released, and the block runs on without a block barrier. Any sync() of the tile
 * will do, wherever it is written (a named barrier counts arrivals, not places). A tile that cannot
 * complete — one of its threads has returned, waits at __syncthreads() or at a tile of another size —
 * is reported, as a barrier that never completes is.
 *
 * A released tile moves each of its warps' epochs on, as a warp collective does, and notes, for its
 * size and each smaller tile size, the epoch it left the warp at: races.c reads that to know that the
 * tile's barrier ordered accesses by threads of two of its warps, and only of its warps.
 * The collectives CUDA gives such tiles (cg::reduce, shfl from one rank, any, all) pass each warp's part
 * through a slot of the worker's between two of the tile's barriers (cooperative_groups.h).
 *
 * CUDA makes such tiles from a block that has scratch memory (block_tile_memory) on GPUs of compute
 * capability below 8.0, and from any block on 8.0 and later: the simulated GPU's (SIM_GPU) decides. */
#include "internal.h"
#include "device.h"

#include <stdio.h>
#include <string.h>

static worker *kernel_worker(const char *what, const char *file, int line)
{
    worker *w = sim_current_worker;
    if (!w || !w->running) sim_crash("%s:%d: %s called outside a kernel", file, line, what);
    return w;
}

void sim_tile_sync(unsigned size, const char *file, int line)
{
    worker *w = kernel_worker("tile.sync()", file, line);
    cuda_thread *self = w->running;
    self->state = AT_TILE_BARRIER;
    self->tile_size = size;
    self->barrier_file = file;
    self->barrier_line = line;
    w->tiles_waiting++;
    sim_block_running_thread(w, self);
}

void sim_tile_check_scratch(int has_scratch, unsigned size, const char *file, int line)
{
    const sim_device_limits *d = sim_device();
    if (has_scratch || d->major >= 8) return;
    sim_kernel_fail(cudaErrorLaunchFailure,
        "%s:%d: tiled_partition<%u>(block): on a GPU of compute capability %d.%d (this one's, SIM_GPU) a tile of\n"
        "     more than 32 threads needs the block's scratch memory: declare `__shared__ cg::block_tile_memory<N>\n"
        "     scratch;` (N: the block's threads) and make the block with cg::this_thread_block(scratch).\n"
        "     Compute capability 8.0 and later need none.", file, line, size, d->major, d->minor);
}

void sim_tile_deposit(unsigned warp, const void *value, unsigned bytes)
{
    worker *w = kernel_worker("a tile's collective", "", 0);
    memcpy(w->tile_values[warp % MAX_WARPS], value, bytes < 32 ? bytes : 32);
}

void sim_tile_read(unsigned warp, void *value, unsigned bytes)
{
    worker *w = kernel_worker("a tile's collective", "", 0);
    memcpy(value, w->tile_values[warp % MAX_WARPS], bytes < 32 ? bytes : 32);
}

static unsigned tile_end(const worker *w, unsigned first, unsigned size)
{
    return first + size < (unsigned)w->thread_count ? first + size : (unsigned)w->thread_count;
}

/* The tile's threads go on; its barrier orders their accesses from here (races.c). */
static void release_tile(worker *w, unsigned first, unsigned end, unsigned size)
{
    unsigned level = (unsigned)__builtin_ctz(size / WARP_SIZE);
    for (unsigned i = first; i < end; i++) w->threads[i].state = RELEASED;
    w->tiles_waiting -= (int)(end - first);
    for (unsigned warp = first / WARP_SIZE; warp < (end + WARP_SIZE - 1) / WARP_SIZE; warp++) {
        w->warp_epoch[warp]++;
        for (unsigned l = 1; l <= level; l++) {
            w->tile_epoch[l][warp] = (uint16_t)w->warp_epoch[warp];
            w->tile_interval[l][warp] = w->interval;
        }
    }
}

int sim_release_tiles(worker *w)
{
    int progress = 0;
    for (unsigned i = 0; i < (unsigned)w->thread_count; i++) {
        const cuda_thread *t = &w->threads[i];
        if (t->state != AT_TILE_BARRIER) continue;
        unsigned size = t->tile_size, first = t->linear & ~(size - 1), end = tile_end(w, first, size), j = first;
        while (j < end && w->threads[j].state == AT_TILE_BARRIER && w->threads[j].tile_size == size) j++;
        if (j == end) release_tile(w, first, end, size), progress = 1;
        i = end - 1;   /* the next tile */
    }
    return progress;
}

void sim_tiles_never_complete(worker *w)
{
    for (unsigned i = 0; i < (unsigned)w->thread_count; i++) {
        cuda_thread *t = &w->threads[i];
        if (t->state != AT_TILE_BARRIER) continue;
        unsigned size = t->tile_size, first = t->linear & ~(size - 1), end = tile_end(w, first, size);
        for (unsigned j = first; j < end; j++) {
            const cuda_thread *u = &w->threads[j];
            if (u->state == AT_TILE_BARRIER && u->tile_size == size) continue;
            char why[300];
            if (u->state == DONE) snprintf(why, sizeof why, "has already returned and will never arrive");
            else if (u->state == AT_BARRIER)
                snprintf(why, sizeof why, "waits at __syncthreads() in %s:%d: neither can go on", u->barrier_file,
                         u->barrier_line);
            else if (u->state == AT_TILE_BARRIER)
                snprintf(why, sizeof why, "waits at the sync() of a tile of %u threads in %s:%d", u->tile_size,
                         u->barrier_file, u->barrier_line);
            else snprintf(why, sizeof why, "waits at a warp collective that never completes");
            w->running = t;
            sim_kernel_fail(cudaErrorLaunchFailure,
                "%s:%d: this thread waits at the sync() of its tile of %u threads (threads %u to %u of the block),\n"
                "     but thread (%u,%u,%u) of the same tile %s.\n"
                "     Every thread of a tile must reach each of its sync() calls: keep them out of branches that only\n"
                "     some of the tile's threads take.", t->barrier_file, t->barrier_line, size, first, end - 1,
                u->idx.x, u->idx.y, u->idx.z, why);
        }
    }
    sim_crash("sim_tiles_never_complete: no tile is held back");
}
