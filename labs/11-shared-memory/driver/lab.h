/* lab.h — Day 11: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY11_LAB_H
#define DAY11_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* Every version transposes in tiles of TILE x TILE elements, with blocks of TILE x BLOCK_ROWS
 * threads: each thread moves TILE / BLOCK_ROWS elements of its tile. Shared memory has
 * SHARED_BANKS banks, each BANK_BYTES wide. */
enum { TRANSPOSE_VERSIONS = 4, TILE = 32, BLOCK_ROWS = 8, SHARED_BANKS = 32, BANK_BYTES = 4 };

/* ---- transpose.cu (yours) ---- */
/* The bank model: how many wavefronts (passes) shared memory needs for one warp-wide request in
 * which lane k (0 <= k < lanes <= 32) touches the 4-byte word word_of_lane[k] (its byte offset
 * in shared memory divided by 4). 1 means no bank conflict. */
int bank_conflict_ways(const int *word_of_lane, int lanes);
/* The prediction: the shared-memory wavefronts one block spends moving a whole TILE x TILE tile
 * of floats through a tile whose rows start row_words words apart, written by rows and read by
 * columns, one warp-wide request per row and per column. -1 for row_words < TILE. */
int predicted_tile_wavefronts(int row_words);
/* out (cols x rows) = the transpose of in (rows x cols); both row-major device arrays.
 * version 1 naive, 2 shared tile, 3 padded tile, 4 swizzled tile. Returns the first CUDA error. */
cudaError_t transpose(int version, const float *in, float *out, int rows, int cols);

/* ---- run.cu (driver) ---- */
typedef struct transpose_run {
    const char *error;                 /* NULL, or the CUDA error the run ended with */
    long long written_past_end;        /* words written in the guard after the output (must be 0) */
    int counted;                       /* 1 when the simulator counted the fields below */
    unsigned long long global_load_requests, global_store_requests;   /* one per warp per access */
    unsigned long long shared_load_requests, shared_store_requests;
    double shared_load_wavefronts_per_request, shared_store_wavefronts_per_request;
    unsigned max_bank_conflict_ways;   /* the worst single shared request */
    double global_load_sectors_per_request, global_store_sectors_per_request;
    double global_load_efficiency, global_store_efficiency;   /* bytes asked for / (32 x sectors) */
    unsigned long long barriers;       /* __syncthreads() completed, summed over blocks */
    int blocks;                        /* blocks in the grid */
} transpose_run;

/* Copies in (rows x cols) to the device, poisons the output and a guard after it, calls
 * transpose(), and copies the cols x rows result into out. With count_metrics, the simulator
 * counts the launch. */
transpose_run gpu_transpose(int version, const float *in, float *out, int rows, int cols, int count_metrics);

/* On the simulator: the wavefronts it counts when one warp's lanes 0 .. lanes-1 read the shared
 * words word_of_lane[k] (each below PROBE_WORDS). On a real GPU: -1 (nothing is counted). */
enum { PROBE_WORDS = 4096 };
int counted_bank_conflict_ways(const int *word_of_lane, int lanes);

/* On the simulator: the wavefronts it counts when one block of TILE x BLOCK_ROWS threads writes
 * a TILE x TILE tile by rows into shared memory whose rows start row_words words apart, and reads
 * it back by columns (the shared side of versions 2 and 3). -1 on a real GPU, or for row_words
 * outside TILE .. PROBE_MAX_ROW_WORDS. */
enum { PROBE_MAX_ROW_WORDS = 64 };
int counted_tile_wavefronts(int row_words);

/* On a real GPU: the median time in milliseconds of `repeats` transposes of a rows x cols matrix
 * (events, after a warm-up). On the simulator: -1, because its time is this CPU's. */
double gpu_transpose_milliseconds(int version, int rows, int cols, int repeats);

#ifdef __cplusplus
}
#endif

#endif
