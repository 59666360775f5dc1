/* device.c — the GPU the simulator pretends to be: a row of data/gpus.csv, chosen with
 * SIM_GPU=<key> (default h100-sxm). Launch checks and cudaGetDeviceProperties() read its
 * limits from here. The limits every GPU since compute capability 3.0 shares (1024 threads
 * per block, block and grid extents, 48 KiB of shared memory per block without opting in)
 * come from the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability". */
#include "device.h"
#include "internal.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIM_DATA_DIR
#define SIM_DATA_DIR "data"
#endif

static sim_device_limits device;
static char device_name[160];
static table *gpus;

/* data/gpus.csv: $LAB_DATA_DIR, else the book's data folder this library was built from. */
static table *gpu_table(void)
{
    if (gpus) return gpus;
    char path[1024], error[512];
    const char *dir = getenv("LAB_DATA_DIR");
    snprintf(path, sizeof path, "%s/gpus.csv", dir && *dir ? dir : SIM_DATA_DIR);
    gpus = table_read(path, error, sizeof error);
    if (!gpus) {
        fprintf(stderr, "sim: %s\n     the simulator needs the book's GPU table (set LAB_DATA_DIR to its data folder)\n",
                error);
        exit(2);
    }
    return gpus;
}

static int find_gpu(const char *key)
{
    table *t = gpu_table();
    int row = table_find(t, "key", key);
    if (row >= 0) return row;
    fprintf(stderr, "sim: SIM_GPU=%s is not a GPU of %s; the known ones are:", key, t->path);
    for (int r = 0; r < t->rows; r++) fprintf(stderr, " %s", table_text(t, r, "key"));
    fputc('\n', stderr);
    exit(2);
}

static void load_device(void)
{
    const char *key = getenv("SIM_GPU");
    if (!key || !*key) key = "h100-sxm";
    table *t = gpu_table();
    int row = find_gpu(key);
    snprintf(device_name, sizeof device_name, "%s (simulated on the CPU)", table_text(t, row, "name"));
    double capability = table_number(t, row, "compute_capability");
    device = (sim_device_limits){
        .name = device_name,
        .major = (int)capability,
        .minor = (int)lround((capability - floor(capability)) * 10),
        .multiprocessor_count = (int)table_number(t, row, "sms"),
        .max_threads_per_block = 1024,
        .max_block_dim = {1024, 1024, 64},
        .max_grid_dim = {2147483647, 65535, 65535},
        .shared_per_block = 48 * 1024,
        .shared_per_block_optin = (size_t)table_number(t, row, "shared_memory_per_block_kib") * 1024,
        .shared_per_multiprocessor = (size_t)table_number(t, row, "shared_memory_per_sm_kib") * 1024,
        .shared_reserved_per_block = (size_t)table_number(t, row, "shared_memory_reserved_per_block_bytes"),
        .registers_per_block = 65536,
        .registers_per_multiprocessor = (int)table_number(t, row, "registers_per_sm"),
        .max_threads_per_multiprocessor = (int)table_number(t, row, "max_threads_per_sm"),
        .max_blocks_per_multiprocessor = (int)table_number(t, row, "max_blocks_per_sm"),
        /* Memory sizes are sold in binary gigabytes: an "80 GB" H100 has 80 GiB. */
        .total_global_memory = (size_t)(table_number(t, row, "memory_gb") * 1073741824.0),
        .l2_cache_bytes = (size_t)(table_number(t, row, "l2_cache_mib") * 1048576.0),
        .clock_khz = (int)(table_number(t, row, "boost_clock_mhz") * 1000),
        .memory_clock_khz = 0,
        .memory_bus_width_bits = 0,
    };
}

const sim_device_limits *sim_device(void)
{
    if (!device.name) load_device();
    return &device;
}

int sim_gpu_rates(const char *key, double *peak_flops, double *bandwidth)
{
    table *t = gpu_table();
    int row = table_find(t, "key", key);
    if (row < 0) return 0;
    *peak_flops = table_number(t, row, "fp32_tflops") * 1e12;
    *bandwidth = table_number(t, row, "memory_bandwidth_gb_per_s") * 1e9;
    return 1;
}
