/* device.h — the limits of the GPU the simulator pretends to be.
 * Launch checks and cudaGetDeviceProperties() read them from here. */
#ifndef SIM_DEVICE_H
#define SIM_DEVICE_H

#include <stddef.h>

typedef struct sim_device_limits {
    const char *name;
    int major, minor;                  /* compute capability */
    int multiprocessor_count;
    int max_threads_per_block;
    int max_block_dim[3];
    int max_grid_dim[3];
    size_t shared_per_block;           /* without opting in: 48 KiB on every GPU since Kepler */
    size_t shared_per_block_optin;     /* the most a kernel can opt in to */
    size_t shared_per_multiprocessor;
    size_t shared_reserved_per_block;  /* what the driver keeps of each block's shared memory */
    int registers_per_block;
    int registers_per_multiprocessor;
    int max_threads_per_multiprocessor;
    int max_blocks_per_multiprocessor;
    size_t total_global_memory;
    size_t l2_cache_bytes;
    int clock_khz;
    int memory_clock_khz;
    int memory_bus_width_bits;
} sim_device_limits;

const sim_device_limits *sim_device(void);

#endif
