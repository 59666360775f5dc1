/* lab.h — Day 17: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY17_LAB_H
#define DAY17_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* Every kernel works on `rows` rows of n floats, row-major (row r starts at r * n), with one
 * block of ROW_THREADS threads per row. The one-pass softmax keeps its row in shared memory,
 * so its rows hold at most ONE_PASS_MAX_LENGTH floats: the 48 KiB a block may use by default, less
 * the 256 bytes of its reduction's partial results (32 running_softmax pairs). */
enum { ROW_THREADS = 256, ONE_PASS_MAX_LENGTH = (48 * 1024 - 32 * 8) / 4 };

/* The softmax versions, in the order the chapter builds them. Version 0 is given. */
enum { SOFTMAX_NAIVE = 0, SOFTMAX_THREE_PASS = 1, SOFTMAX_TWO_PASS = 2, SOFTMAX_ONE_PASS = 3, SOFTMAX_VERSIONS = 4 };

/* ---- softmax.cu (yours) ---- */
/* The online softmax's running state over some elements x_1 .. x_k of a row:
 *   max = the largest x_j (-INFINITY when there are none, or every one is -INFINITY)
 *   sum = the sum of exp(x_j - max)  (0 when there are none)
 * so that sum * exp(max) is the sum of exp(x_j), never computed as such. */
typedef struct running_softmax { float max, sum; } running_softmax;

/* The state of the union of two sets of elements: the same merge the kernels use, on the host. */
running_softmax softmax_merge_on_host(running_softmax a, running_softmax b);

/* y = softmax of each row of x, on device pointers, with kernel `version` (SOFTMAX_NAIVE ..
 * SOFTMAX_ONE_PASS). Entries may be -INFINITY (masked): their output is 0, and a row whose every
 * entry is -INFINITY comes out all zeros. Returns the launch's error (cudaErrorInvalidValue for
 * a version that does not exist, n < 1, or a one-pass row longer than ONE_PASS_MAX_LENGTH). */
cudaError_t softmax_rows(int version, const float *x, float *y, int rows, int n);

/* Your prediction: the global bytes, loads plus stores, that softmax `version` (SOFTMAX_NAIVE ..
 * SOFTMAX_ONE_PASS) moves for one row of n floats, n a multiple of 8 (each row starts on a 32-byte
 * sector); -1 for a version that does not exist. */
double softmax_predicted_bytes_per_row(int version, int n);

/* ---- rmsnorm.cu (yours) ---- */
/* y[r][i] = x[r][i] / sqrt(mean over i of x[r][i]^2 + eps) * weight[i], on device pointers.
 * Returns the launch's error (cudaErrorInvalidValue for n < 1). */
cudaError_t rmsnorm_rows(const float *x, const float *weight, float *y, int rows, int n, float eps);

/* ---- run.cu (driver): host arrays in and out ---- */
typedef struct row_run {
    const char *error;              /* NULL, or the CUDA error the run ended with */
    long long written_past_end;     /* floats written in the guard after y (must be 0) */
    int counted;                    /* 1 when the simulator counted the fields below */
    int launches;                   /* kernel launches the run made */
    unsigned grid_blocks;           /* blocks of the (last) launch */
    unsigned block_threads;         /* threads per block of the (last) launch */
    double global_load_bytes;       /* 32 x the global sectors loaded, all launches */
    double global_store_bytes;      /* 32 x the global sectors stored */
    double shared_load_bytes;       /* bytes the lanes read from shared memory */
} row_run;

/* Copies x (rows x n) to the device, poisons y and a guard after it, runs softmax_rows, copies
 * y back. With count_metrics, the simulator counts the launches. */
row_run gpu_softmax(int version, const float *x, float *y, int rows, int n, int count_metrics);
/* The same for rmsnorm_rows; weight has n floats. */
row_run gpu_rmsnorm(const float *x, const float *weight, float *y, int rows, int n, float eps, int count_metrics);
/* On a real GPU: the median microseconds of `repeats` runs (events, after a warm-up) of softmax
 * `version`, or of RMSNorm for version -1, on rows x n zeros. On the simulator: -1 (its time is
 * this CPU's, not a GPU's). */
double gpu_row_kernel_microseconds(int version, int rows, int n, int repeats);

/* ---- reference.c (driver): double precision on the host ---- */
/* want = softmax of each row, computed in double from the float inputs (masked entries 0, fully
 * masked rows all 0), then rounded to float. */
void softmax_reference(const float *x, float *want, int rows, int n);
void rmsnorm_reference(const float *x, const float *weight, float *want, int rows, int n, float eps);

#ifdef __cplusplus
}
#endif

#endif
