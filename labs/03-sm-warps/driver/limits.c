/* limits.c — Day 03 driver: a GPU's per-SM limits, read from data/gpus.csv. Do not edit.
 *
 * Every number your calculator needs comes from one row of the table: the SM's warp, block,
 * register and shared-memory capacities (CUDA C++ Programming Guide, "Technical
 * Specifications per Compute Capability"), and the allocation rules the hardware applies
 * (the columns sm_subpartitions, register_allocation_unit, max_registers_per_thread,
 * shared_memory_allocation_unit_bytes and shared_memory_reserved_per_block_bytes, taken from
 * the CUDA Toolkit's occupancy calculator, cuda_occupancy.h). The two limits every GPU of the
 * table shares, 32 threads per warp and 1024 threads per block, are set here. */
#include "lab.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int whole(const lab_table *t, int row, const char *column)
{
    return (int)lround(lab_table_number_or_exit(t, row, column));
}

int gpu_limits_load(const char *key, gpu_limits *gpu)
{
    char error[512];
    lab_table *t = lab_table_read(lab_data_path("gpus.csv"), error, sizeof error);
    if (!t) {
        fprintf(stderr, "%s\n", error);
        return -1;
    }
    int row = lab_table_find(t, "key", key);
    if (row < 0) {
        fprintf(stderr, "%s has no GPU with the key %s\n", t->path, key);
        lab_table_free(t);
        return -1;
    }
    memset(gpu, 0, sizeof *gpu);
    snprintf(gpu->key, sizeof gpu->key, "%s", key);
    snprintf(gpu->name, sizeof gpu->name, "%s", lab_table_text_or_exit(t, row, "name"));
    double capability = lab_table_number_or_exit(t, row, "compute_capability");
    gpu->compute_capability_major = (int)floor(capability);
    gpu->compute_capability_minor = (int)lround((capability - floor(capability)) * 10);
    gpu->warp_size = 32;
    gpu->max_threads_per_block = 1024;
    gpu->max_warps_per_sm = whole(t, row, "max_warps_per_sm");
    gpu->max_blocks_per_sm = whole(t, row, "max_blocks_per_sm");
    gpu->registers_per_sm = whole(t, row, "registers_per_sm");
    gpu->sm_subpartitions = whole(t, row, "sm_subpartitions");
    gpu->register_allocation_unit = whole(t, row, "register_allocation_unit");
    gpu->max_registers_per_thread = whole(t, row, "max_registers_per_thread");
    gpu->shared_memory_per_sm_bytes = whole(t, row, "shared_memory_per_sm_kib") * 1024;
    gpu->max_shared_memory_per_block_bytes = whole(t, row, "shared_memory_per_block_kib") * 1024;
    gpu->shared_memory_allocation_unit_bytes = whole(t, row, "shared_memory_allocation_unit_bytes");
    gpu->shared_memory_reserved_per_block_bytes = whole(t, row, "shared_memory_reserved_per_block_bytes");
    lab_table_free(t);
    return 0;
}

const char *limit_names(int limited_by, char *text, int size)
{
    static const struct { int flag; const char *name; } names[] = {
        {LIMIT_WARPS, "warps"}, {LIMIT_BLOCKS, "blocks"}, {LIMIT_REGISTERS, "registers"},
        {LIMIT_SHARED_MEMORY, "shared memory"},
    };
    int used = 0;
    text[0] = 0;
    for (int i = 0; i < 4; i++)
        if (limited_by & names[i].flag)
            used += snprintf(text + used, used < size ? (size_t)(size - used) : 0, "%s%s", used ? "+" : "",
                             names[i].name);
    if (limited_by & ~15) snprintf(text + used, used < size ? (size_t)(size - used) : 0, "%s?", used ? "+" : "");
    if (!text[0]) snprintf(text, (size_t)size, "nothing");
    return text;
}
