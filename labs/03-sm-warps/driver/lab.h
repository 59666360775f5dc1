/* lab.h — Day 03: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY03_LAB_H
#define DAY03_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits.c (driver): one GPU's per-SM limits, from a row of data/gpus.csv ---- */
typedef struct gpu_limits {
    char key[32];                              /* "h100-sxm" */
    char name[64];                             /* "H100 SXM" */
    int compute_capability_major, compute_capability_minor;
    int warp_size;                             /* 32 threads on every NVIDIA GPU */
    int max_threads_per_block;                 /* 1024 on every GPU of the table */
    int max_warps_per_sm;                      /* resident warps an SM can hold: 64 on an H100 */
    int max_blocks_per_sm;                     /* resident blocks an SM can hold: 32 on an H100 */
    int registers_per_sm;                      /* 32-bit registers in the SM's register file: 65 536 */
    int sm_subpartitions;                      /* the SM is four quarters, each with its own warp
                                                  scheduler and a quarter of the register file */
    int register_allocation_unit;              /* registers are given to a warp in multiples of this: 256 */
    int max_registers_per_thread;              /* 255 */
    int shared_memory_per_sm_bytes;            /* the largest shared-memory carve-out: 228 KiB on an H100 */
    int max_shared_memory_per_block_bytes;     /* what one block may ask for, after opting in: 227 KiB */
    int shared_memory_allocation_unit_bytes;   /* a block's shared memory is rounded up to this: 128 B */
    int shared_memory_reserved_per_block_bytes;/* the driver's own per-block share: 1 KiB on cc >= 8.0 */
} gpu_limits;

/* Fills *gpu from the row of data/gpus.csv whose key is `key`; returns 0, or -1 (with a
 * message on stderr) when the table or the row is missing. */
int gpu_limits_load(const char *key, gpu_limits *gpu);

/* ---- occupancy.c (yours) ---- */
/* What a kernel asks of each SM, per block: the launch's threads, the compiler's registers
 * per thread (nvcc -Xptxas -v prints them), and the block's shared memory in bytes (static
 * plus dynamic). */
typedef struct kernel_resources {
    int threads_per_block;
    int registers_per_thread;
    int shared_memory_bytes;
} kernel_resources;

/* Which resources stop one more block from fitting: flags, OR-ed together when several
 * limits give the same, smallest number of blocks. */
enum {
    LIMIT_WARPS = 1,            /* the SM's warp slots (threads per SM / 32), or a block over 1024 threads */
    LIMIT_BLOCKS = 2,           /* the SM's block slots */
    LIMIT_REGISTERS = 4,        /* the register file */
    LIMIT_SHARED_MEMORY = 8     /* the shared-memory carve-out */
};

typedef struct occupancy {
    int blocks_per_sm;          /* resident blocks: the smallest of the four limits */
    int warps_per_sm;           /* resident (active) warps: blocks_per_sm x warps per block */
    double fraction;            /* occupancy: warps_per_sm / max_warps_per_sm, from 0 to 1 */
    int limited_by;             /* LIMIT_* flags: every limit that equals blocks_per_sm */
} occupancy;

/* Warps a block of threads_per_block threads occupies (a partial warp is a whole warp). */
int warps_per_block(const gpu_limits *gpu, int threads_per_block);
/* Blocks that fit in the SM's warp slots; 0 for a block of more than max_threads_per_block. */
int blocks_limited_by_warps(const gpu_limits *gpu, int threads_per_block);
/* Registers a warp is given: 32 threads' worth, rounded up to the allocation unit. */
int registers_per_warp(const gpu_limits *gpu, int registers_per_thread);
/* Blocks that fit in the register file; 0 when even one block cannot get its registers. */
int blocks_limited_by_registers(const gpu_limits *gpu, int threads_per_block, int registers_per_thread);
/* Bytes of shared memory a block is given: the request plus the reservation, rounded up. */
int shared_memory_per_block(const gpu_limits *gpu, int requested_bytes);
/* Blocks that fit in the SM's shared memory; 0 above the per-block limit; INT_MAX when a
 * block is given no shared memory at all (then shared memory limits nothing). */
int blocks_limited_by_shared_memory(const gpu_limits *gpu, int requested_bytes);
/* All of it together. */
occupancy compute_occupancy(const gpu_limits *gpu, kernel_resources kernel);

/* ---- limits.c (driver): names for messages ---- */
/* "warps", "registers+shared memory", ... or "nothing" for 0; writes into text, returns it. */
const char *limit_names(int limited_by, char *text, int size);

/* ---- run.cu (driver): the same questions, asked of the CUDA runtime on a real GPU ---- */
typedef struct runtime_comparison {
    int available;              /* 0 on the simulator, which has no occupancy API */
    char device[256];           /* the GPU's name */
    int configurations;         /* launch configurations compared */
    int agreements;             /* of which your blocks_per_sm equals the runtime's */
    char first_disagreement[512];
} runtime_comparison;

/* On a GPU: for a few kernels of different register counts, each block size and several
 * shared-memory sizes, compares your compute_occupancy (with the limits read from the
 * device) with cudaOccupancyMaxActiveBlocksPerMultiprocessor. */
runtime_comparison compare_with_cuda_runtime(void);

#ifdef __cplusplus
}
#endif

#endif
