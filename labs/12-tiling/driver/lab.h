/* lab.h — Day 12: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY12_LAB_H
#define DAY12_LAB_H

#include <stddef.h>
#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* Every matrix is row-major floats: C (m x n) = A (m x k) · B (k x n). */

/* ---- tiled.cu (yours) ---- */
/* Launches the tiled kernel with TILE = tile (8, 16 or 32; anything else: cudaErrorInvalidValue)
 * on device pointers. Returns the launch's error, or cudaSuccess. */
cudaError_t matmul_tiled(int tile, const float *a, const float *b, float *c, int m, int n, int k);
/* The prediction: the floats a tiled kernel with tiles of tile x tile loads from global memory
 * for C (m x n) = A (m x k) B (k x n), exactly, for any sizes; tile 1 is the naive kernel (each
 * thread its own 1 x 1 tile). -1 when tile or a size is below 1. */
long long predicted_global_floats(int tile, int m, int n, int k);

/* ---- blocked.c (yours): host pointers ---- */
void matmul_loop_order(const float *a, const float *b, float *c, int m, int n, int k);
void matmul_blocked(const float *a, const float *b, float *c, int m, int n, int k);

/* ---- run.cu (driver): the GPU side, host arrays in and out ---- */
enum { NAIVE_KERNEL = 0 };   /* "tile" 0: the driver's naive kernel, one thread per output, no reuse */

typedef struct matmul_run {
    const char *error;          /* NULL, or the CUDA error the run ended with */
    long long written_outside;  /* guard floats before or after C that changed (must be 0) */
    int counted;                /* 1 when the simulator counted the fields below */
    double global_floats_loaded;            /* global load bytes / 4 */
    double global_load_requests, global_load_sectors;
    double global_floats_stored;
    double shared_floats_loaded;            /* shared load bytes / 4 */
    double shared_wavefronts_per_request;   /* loads and stores together; 1 = no bank conflicts */
    double barriers;                        /* __syncthreads() completed, summed over blocks */
    unsigned grid[2], block[2];             /* the launch's blocks and threads per block, x and y */
    double h100_estimate_seconds;           /* roofline estimate for an H100 SXM from the counts */
} matmul_run;

/* Copies A and B to the device, poisons C and a guard region on each side of it, runs
 * matmul_tiled(tile, ...) (or the naive kernel for tile 0), copies C back. With
 * count_metrics, the simulator counts the launch. */
matmul_run gpu_matmul(int tile, const float *a, const float *b, float *c, int m, int n, int k, int count_metrics);
/* On a real GPU: the median milliseconds of `repeats` n x n x n runs (events, after a warm-up).
 * On the simulator: -1, because its time is this CPU's, not a GPU's. */
double gpu_matmul_milliseconds(int tile, int n, int repeats);

/* The system BLAS on this CPU, one thread (OpenBLAS's cblas_sgemm). The simulator's build links
 * OpenBLAS; a build for a real GPU does not, and there cpu_blas_available() is 0. */
int cpu_blas_available(void);
void cpu_matmul_blas(const float *a, const float *b, float *c, int m, int n, int k);

/* ---- cpu.c (driver): references and timing on the host ---- */
typedef void (*cpu_matmul)(const float *a, const float *b, float *c, int m, int n, int k);

/* The three loops in the order i, j, p: the baseline the chapter starts from. */
void cpu_matmul_naive(const float *a, const float *b, float *c, int m, int n, int k);

/* Fills x with n floats in [-1, 1] from a seed. */
void fill_matrix(float *x, size_t n, unsigned seed);

/* want = A · B in double precision, rounded to float; returns the error a float matmul
 * may make: the rounding bound gamma_k = k u / (1 - k u), u = 2^-24, times the largest
 * element of |A|·|B| (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3),
 * plus the rounding of the reference itself to float. */
double matmul_reference(const float *a, const float *b, float *want, int m, int n, int k);

/* Times `count` CPU matmuls of n x n x n side by side: each repeat runs every one of them once,
 * in turn, so a busy neighbour slows them alike; best_seconds[i] gets the fastest of `repeats`
 * runs of function i (repeats >= 2: the first run is also the warm-up). */
void cpu_time_side_by_side(const cpu_matmul *functions, int count, int n, int repeats, double *best_seconds);

#ifdef __cplusplus
}
#endif

#endif
