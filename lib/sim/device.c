/* device.c — the GPU the simulator pretends to be: a row of data/gpus.csv, chosen with
 * SIM_GPU=<key> (default h100-sxm). Launch checks and cudaGetDeviceProperties() read its
 * limits from here. The limits every GPU since compute capability 3.0 shares (1024 threads
 * per block, block and grid extents, 48 KiB of shared memory per block without opting in)
 * come from the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability". */
#include "device.h"
#include "gpu_table.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIM_DATA_DIR
#define SIM_DATA_DIR "data"
#endif

static sim_device_limits device;
static char device_name[160];

/* The row of data/gpus.csv for `key` ($LAB_DATA_DIR, else the book's data folder this library
 * was built from): 1 when found, 0 when the table has no such GPU; a missing table ends the run. */
static int read_gpu(const char *key, sim_gpu_row *row)
{
    char path[1024], error[512];
    const char *dir = getenv("LAB_DATA_DIR");
    snprintf(path, sizeof path, "%s/gpus.csv", dir && *dir ? dir : SIM_DATA_DIR);
    int found = sim_gpu_table_read(path, key, row, error, sizeof error);
    if (found < 0) sim_fatal("%s\n     the simulator needs the book's GPU table (set LAB_DATA_DIR to its data folder)", error);
    return found;
}

static void load_device(void)
{
    const char *key = getenv("SIM_GPU");
    if (!key || !*key) key = "h100-sxm";
    static sim_gpu_row row;
    if (!read_gpu(key, &row)) sim_fatal("SIM_GPU=%s is not a GPU of %s; the known ones are:%s", key, row.path, row.known_keys);
    const sim_gpu_row *t = &row;
    snprintf(device_name, sizeof device_name, "%s (simulated on the CPU)", sim_gpu_text(t, "name"));
    double capability = sim_gpu_number(t, "compute_capability", 1, 20);
    device = (sim_device_limits){
        .name = device_name,
        .major = (int)capability,
        .minor = (int)lround((capability - floor(capability)) * 10),
        .multiprocessor_count = (int)sim_gpu_number(t, "sms", 1, 1024),
        .max_threads_per_block = 1024,
        .max_block_dim = {1024, 1024, 64},
        .max_grid_dim = {2147483647, 65535, 65535},
        .shared_per_block = 48 * 1024,
        .shared_per_block_optin = (size_t)sim_gpu_number(t, "shared_memory_per_block_kib", 1, 1 << 20) * 1024,
        .shared_per_multiprocessor = (size_t)sim_gpu_number(t, "shared_memory_per_sm_kib", 1, 1 << 20) * 1024,
        .shared_reserved_per_block = (size_t)sim_gpu_number(t, "shared_memory_reserved_per_block_bytes", 0, 1 << 20),
        .registers_per_block = 65536,
        .registers_per_multiprocessor = (int)sim_gpu_number(t, "registers_per_sm", 1, 1 << 24),
        .max_threads_per_multiprocessor = (int)sim_gpu_number(t, "max_threads_per_sm", 32, 1 << 16),
        .max_blocks_per_multiprocessor = (int)sim_gpu_number(t, "max_blocks_per_sm", 1, 1024),
        /* Memory sizes are sold in binary gigabytes: an "80 GB" H100 has 80 GiB. */
        .total_global_memory = (size_t)(sim_gpu_number(t, "memory_gib", 0.001, 1e6) * 1073741824.0),
        .l2_cache_bytes = (size_t)(sim_gpu_number(t, "l2_cache_mib", 0.001, 1e6) * 1048576.0),
        .clock_khz = (int)(sim_gpu_number(t, "boost_clock_mhz", 1, 1e5) * 1000),
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
    static sim_gpu_row row;   /* the metrics ask for the same GPU on every launch: read it once */
    static char cached_key[64];
    static int cached_found;
    if (strcmp(cached_key, key) != 0) {
        cached_found = read_gpu(key, &row);
        snprintf(cached_key, sizeof cached_key, "%s", key);
    }
    if (!cached_found) return 0;
    const sim_gpu_row *t = &row;
    *peak_flops = sim_gpu_number(t, "fp32_tflops", 0.001, 1e5) * 1e12;
    *bandwidth = sim_gpu_number(t, "memory_bandwidth_gb_per_s", 0.001, 1e7) * 1e9;
    return 1;
}
