/* lab.h — Day 02: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY02_LAB_H
#define DAY02_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- indexing.cu (yours) ---- */
/* ceil(elements / threads_per_block): how many blocks cover `elements` elements. */
int blocks_needed(int elements, int threads_per_block);
/* If `error` is not cudaSuccess: print "FILE:LINE: CALL failed: NAME (STRING)" to stderr and exit. */
void cuda_check(cudaError_t error, const char *call, const char *file, int line);
/* Launchers: device pointers, row-major rows x cols matrices, blocks of block_x x block_y threads. */
void launch_matrix_add(const float *a, const float *b, float *c, int rows, int cols, int block_x, int block_y);
void launch_block_owner_map(int *owner, int rows, int cols, int block_x, int block_y);
void launch_scale_grid_stride(float *x, int n, float alpha, int blocks, int threads_per_block);
/* c = a + b for HOST arrays: device buffers, copies in, launch_matrix_add timed between two
 * CUDA events, the copy back, everything freed. Returns the kernel's milliseconds. */
float matrix_add_from_host(const float *a, const float *b, float *c, int rows, int cols, int block_x, int block_y);

/* ---- run.cu (driver): host arrays in, host arrays out ---- */
typedef struct gpu_run {
    const char *error;            /* NULL, or the CUDA error the run ended with */
    long long written_past_end;   /* elements written after the end of the output (must be 0) */
} gpu_run;

/* Each copies its inputs to the device, poisons the output and a guard region after it,
 * calls your launcher, waits, and copies the result back. */
gpu_run gpu_matrix_add(const float *a, const float *b, float *c, int rows, int cols, int block_x, int block_y);
/* a += b, by launching matrix_add with c = a: an element handled twice comes out as a + 2b. */
gpu_run gpu_matrix_add_in_place(float *a, const float *b, int rows, int cols, int block_x, int block_y);
gpu_run gpu_block_owner_map(int *owner, int rows, int cols, int block_x, int block_y);
gpu_run gpu_scale_grid_stride(float *x, int n, float alpha, int blocks, int threads_per_block);

/* Calls your matrix_add_from_host and watches it from outside: the device memory in use before
 * and after (cudaMemGetInfo), and the whole call on the host's clock. */
typedef struct host_cycle_run {
    float kernel_milliseconds;       /* what matrix_add_from_host returned */
    double call_milliseconds;        /* the whole call, on the host's clock */
    long long device_bytes_kept;     /* device memory in use after the call minus before (0: all freed) */
    int simulated;                   /* 1 on the simulator, whose clock is this CPU simulating a GPU */
    /* On the simulator, counted between the two events of the call's last cudaEventElapsedTime
     * (-1 on a GPU, or when it never called it): */
    long long timed_launches, timed_copies;
    const char *error;               /* NULL, or a CUDA error left behind by the call */
} host_cycle_run;
host_cycle_run watch_matrix_add_from_host(const float *a, const float *b, float *c, int rows, int cols, int block_x,
                                          int block_y);

#ifdef __cplusplus
}
#endif

#endif
