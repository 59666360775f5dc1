/* device.c — the GPU the simulator pretends to be: an H100 SXM5 (compute capability
 * 9.0), with the limits NVIDIA's CUDA C++ Programming Guide lists for that capability
 * (table "Technical Specifications per Compute Capability") and the H100 datasheet. */
#include "device.h"

static const sim_device_limits h100_sxm = {
    .name = "H100 SXM (simulated on the CPU)",
    .major = 9, .minor = 0,
    .multiprocessor_count = 132,
    .max_threads_per_block = 1024,
    .max_block_dim = {1024, 1024, 64},
    .max_grid_dim = {2147483647, 65535, 65535},
    .shared_per_block = 48 * 1024,
    .shared_per_block_optin = 227 * 1024,
    .shared_per_multiprocessor = 228 * 1024,
    .registers_per_block = 65536,
    .registers_per_multiprocessor = 65536,
    .max_threads_per_multiprocessor = 2048,
    .max_blocks_per_multiprocessor = 32,
    .total_global_memory = 80ull * 1000 * 1000 * 1000,
    .l2_cache_bytes = 50 * 1024 * 1024,
    .clock_khz = 1980000,
    .memory_clock_khz = 2619000,
    .memory_bus_width_bits = 5120,
};

const sim_device_limits *sim_device(void) { return &h100_sxm; }
