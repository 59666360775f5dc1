/* occupancy.c — Day 03: how many blocks of a kernel fit on one SM, and what stops the next.
 *
 * What you write today, in this order (each function is checked on its own first):
 *   1. warps_per_block: a block's threads in whole warps.
 *   2. blocks_limited_by_warps: blocks that fit in the SM's warp slots.
 *   3. registers_per_warp: a warp's registers, rounded up to the allocation unit.
 *   4. blocks_limited_by_registers: blocks that fit in the register file, which is four
 *      separate quarters, one per warp scheduler.
 *   5. shared_memory_per_block: a block's shared memory, plus the driver's reservation,
 *      rounded up to the allocation unit.
 *   6. blocks_limited_by_shared_memory: blocks that fit in the SM's shared memory.
 *   7. compute_occupancy: the smallest of the four limits, the warps it gives, the occupancy,
 *      and which limits are the smallest.
 *
 * Rules: every number comes from *gpu (a row of data/gpus.csv; see driver/lab.h): no constants for
 * one GPU. Integer arithmetic throughout, except the final fraction. Assume the kernel has
 * opted in to the largest shared memory per block and that the SM's carve-out is the largest
 * (what cudaOccupancyMaxActiveBlocksPerMultiprocessor assumes by default).
 *
 * Check:  make check DAY=03        Stuck?  make hint DAY=03
 */
#include "lab.h"

#include <limits.h>

/* a / b rounded up, for a >= 0 and b > 0. */
static int divide_rounding_up(int a, int b)
{
    return a / b + (a % b != 0);
}

int warps_per_block(const gpu_limits *gpu, int threads_per_block)
{
    return divide_rounding_up(threads_per_block, gpu->warp_size);
}

int blocks_limited_by_warps(const gpu_limits *gpu, int threads_per_block)
{
    if (threads_per_block < 1 || threads_per_block > gpu->max_threads_per_block) return 0;
    return gpu->max_warps_per_sm / warps_per_block(gpu, threads_per_block);
}

int registers_per_warp(const gpu_limits *gpu, int registers_per_thread)
{
    int unit = gpu->register_allocation_unit;
    return divide_rounding_up(registers_per_thread * gpu->warp_size, unit) * unit;
}

int blocks_limited_by_registers(const gpu_limits *gpu, int threads_per_block, int registers_per_thread)
{
    if (registers_per_thread > gpu->max_registers_per_thread) return 0;
    int per_warp = registers_per_warp(gpu, registers_per_thread);
    if (per_warp == 0) return INT_MAX;
    /* A warp lives in one quarter of the SM and takes its registers from that quarter's
     * file: count whole warps per quarter first, then add the quarters up. */
    int warps_per_subpartition = gpu->registers_per_sm / gpu->sm_subpartitions / per_warp;
    int warps = warps_per_subpartition * gpu->sm_subpartitions;
    return warps / warps_per_block(gpu, threads_per_block);
}

int shared_memory_per_block(const gpu_limits *gpu, int requested_bytes)
{
    int unit = gpu->shared_memory_allocation_unit_bytes;
    int bytes = requested_bytes + gpu->shared_memory_reserved_per_block_bytes;
    return divide_rounding_up(bytes, unit) * unit;
}

int blocks_limited_by_shared_memory(const gpu_limits *gpu, int requested_bytes)
{
    if (requested_bytes > gpu->max_shared_memory_per_block_bytes) return 0;
    int per_block = shared_memory_per_block(gpu, requested_bytes);
    if (per_block == 0) return INT_MAX;
    return gpu->shared_memory_per_sm_bytes / per_block;
}

occupancy compute_occupancy(const gpu_limits *gpu, kernel_resources kernel)
{
    int by_warps = blocks_limited_by_warps(gpu, kernel.threads_per_block);
    int by_blocks = gpu->max_blocks_per_sm;
    int by_registers = blocks_limited_by_registers(gpu, kernel.threads_per_block, kernel.registers_per_thread);
    int by_shared_memory = blocks_limited_by_shared_memory(gpu, kernel.shared_memory_bytes);

    int blocks = by_warps;
    if (by_blocks < blocks) blocks = by_blocks;
    if (by_registers < blocks) blocks = by_registers;
    if (by_shared_memory < blocks) blocks = by_shared_memory;

    occupancy result;
    result.blocks_per_sm = blocks;
    result.warps_per_sm = blocks * warps_per_block(gpu, kernel.threads_per_block);
    result.fraction = (double)result.warps_per_sm / gpu->max_warps_per_sm;
    result.limited_by = (by_warps == blocks ? LIMIT_WARPS : 0) | (by_blocks == blocks ? LIMIT_BLOCKS : 0) |
                        (by_registers == blocks ? LIMIT_REGISTERS : 0) |
                        (by_shared_memory == blocks ? LIMIT_SHARED_MEMORY : 0);
    return result;
}
