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

int warps_per_block(const gpu_limits *gpu, int threads_per_block)
{
    // TODO: threads_per_block / gpu->warp_size, rounded UP: a block of 33 threads takes two
    //       warps, the second with one thread in it.
    (void)gpu, (void)threads_per_block;
    return 0;
}

int blocks_limited_by_warps(const gpu_limits *gpu, int threads_per_block)
{
    // TODO: 0 when threads_per_block is above gpu->max_threads_per_block (such a launch is
    //       refused); otherwise how many whole blocks fit in gpu->max_warps_per_sm warp slots.
    //       Count in warps, not threads: a 100-thread block holds 4 warp slots, not 100/32.
    (void)gpu, (void)threads_per_block;
    return 0;
}

int registers_per_warp(const gpu_limits *gpu, int registers_per_thread)
{
    // TODO: a warp is given registers_per_thread x 32 registers, rounded up to a multiple of
    //       gpu->register_allocation_unit (256): 33 registers per thread cost a warp 1280, not 1056.
    (void)gpu, (void)registers_per_thread;
    return 0;
}

int blocks_limited_by_registers(const gpu_limits *gpu, int threads_per_block, int registers_per_thread)
{
    // TODO: 0 above gpu->max_registers_per_thread. Otherwise:
    //       - the register file is split into gpu->sm_subpartitions equal quarters, and a warp
    //         takes all its registers from one quarter: how many whole warps fit in a quarter?
    //       - those warps times the number of quarters is what the whole SM can hold;
    //       - divide by this kernel's warps per block: whole blocks only.
    //       (A kernel with no registers at all is not limited by them: return INT_MAX.)
    (void)gpu, (void)threads_per_block, (void)registers_per_thread;
    return 0;
}

int shared_memory_per_block(const gpu_limits *gpu, int requested_bytes)
{
    // TODO: requested_bytes plus gpu->shared_memory_reserved_per_block_bytes (1 KiB that the
    //       driver keeps for itself on compute capability 8.0 and later), rounded up to a
    //       multiple of gpu->shared_memory_allocation_unit_bytes.
    (void)gpu, (void)requested_bytes;
    return 0;
}

int blocks_limited_by_shared_memory(const gpu_limits *gpu, int requested_bytes)
{
    // TODO: 0 when requested_bytes is above gpu->max_shared_memory_per_block_bytes; INT_MAX
    //       when a block is given no shared memory at all; otherwise how many whole blocks'
    //       allocations fit in gpu->shared_memory_per_sm_bytes.
    (void)gpu, (void)requested_bytes;
    return 0;
}

occupancy compute_occupancy(const gpu_limits *gpu, kernel_resources kernel)
{
    // TODO: the four limits: warps, gpu->max_blocks_per_sm, registers, shared memory.
    //       blocks_per_sm is the SMALLEST of them (every resource must have room for a block);
    //       warps_per_sm = blocks_per_sm x warps per block; fraction = warps_per_sm divided by
    //       gpu->max_warps_per_sm, computed in double; limited_by has the LIMIT_* flag of
    //       EVERY limit equal to blocks_per_sm (ties are common: name them all).
    (void)gpu, (void)kernel;
    occupancy result = {0, 0, 0.0, 0};
    return result;
}
