/* lab.h — Day 22: the interface between your code, the driver and the tests. The shapes are
 * day 18's: one head, q, k, v and out [n][d] row-major floats, scale 1 / sqrt(d), and with the
 * causal mask query i sees keys 0 .. i. Driver file: do not edit. */
#ifndef DAY22_LAB_H
#define DAY22_LAB_H

#include <stddef.h>
#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* A tile is `tile` rows of q, k or v (or of out), each of up to MAX_HEAD_DIM floats. */
enum { MAX_HEAD_DIM = 128, MAX_TILE = 32 };

/* ---- flash.cu (yours) ---- */
/* FlashAttention's forward pass on device pointers: out = softmax(q k^T / sqrt(d)) v in ONE
 * kernel, one block of `tile` threads per tile of `tile` queries, with k and v brought through
 * shared memory a tile at a time. There is no n x n scratch: the scores never reach global
 * memory. tile is 8, 16 or 32; n >= 1; 1 <= d <= MAX_HEAD_DIM. Anything else: nothing is
 * launched and the answer is cudaErrorInvalidValue. Returns the launch's error. */
cudaError_t flash_attention_forward(const float *q, const float *k, const float *v, float *out, int n, int d,
                                    int causal, int tile);

/* ---- tiled.c (yours): the prediction ---- */
/* The global bytes FlashAttention requests for these shapes, predicted from its loop structure
 * before the simulator counts them (4 bytes a float): q loaded and out stored once each, and
 * each key tile's rows of k and v once for every query tile that visits it (all of them; with
 * the causal mask, those up to and including the diagonal). n >= 1, d >= 1, 1 <= tile <= MAX_TILE;
 * the last tile of n may be partial. Exact on the simulator when a row is a whole number of
 * 32-byte sectors (d a multiple of 8), and for the CPU version's copies (less out's 4 n d). */
double flash_predicted_bytes(int n, int d, int causal, int tile);

/* ---- tiled.c (yours): the same algorithm on the CPU, host pointers ---- */
/* The only working memory the CPU version may use: a tile of q, one of k and one of v as
 * copied in, a tile of scores, the running max and sum of each query row of the tile, and
 * each row's running output. Its size does not depend on n: 69 888 bytes. */
typedef struct attention_tiles {
    float q[MAX_TILE][MAX_HEAD_DIM], k[MAX_TILE][MAX_HEAD_DIM], v[MAX_TILE][MAX_HEAD_DIM];
    float scores[MAX_TILE][MAX_TILE];
    float running_max[MAX_TILE], running_sum[MAX_TILE];
    float out[MAX_TILE][MAX_HEAD_DIM];
} attention_tiles;

/* The same out as flash_attention_forward, for 1 <= tile <= MAX_TILE, n >= 1 and
 * 1 <= d <= MAX_HEAD_DIM, working in `tiles` (whose contents on entry are garbage) with tiles of
 * `tile` rows: q, k and v are read only through copy_tile, one tile at a time, so that what it
 * copies is what the kernel would load. */
void attention_tiled_cpu(const float *q, const float *k, const float *v, float *out, int n, int d, int causal,
                         int tile, attention_tiles *tiles);

/* ---- cpu.c (driver): the CPU version's loads, day 18's algorithm, on the host ---- */
/* Rows first .. first + rows - 1 of a [n][d] matrix into the first rows of a tile buffer: the
 * CPU version's "load from HBM", counted as the simulator counts a kernel's loads. */
void copy_tile(float (*tile)[MAX_HEAD_DIM], const float *matrix, int first, int rows, int d);
/* The bytes copy_tile has copied on the calling thread since the program started. */
long long copied_tile_bytes(void);
/* Naive attention as day 18 runs it, in float: all n x n scores into `scores` (n * n floats),
 * a max-subtracted softmax of each row in place, then out = P v. */
void attention_naive_cpu(const float *q, const float *k, const float *v, float *scores, float *out, int n, int d,
                         int causal);
/* Day 18's double-precision reference: attention in double from the float inputs, then rounded
 * to float. A masked score is left out of its row. */
void attention_reference(const float *q, const float *k, const float *v, float *want, int n, int d, int causal);
/* Fills q, k and v (n x d each) with a seeded uniform pattern in [-spread, spread] (v in [-1, 1]). */
void fill_attention_inputs(float *q, float *k, float *v, int n, int d, float spread, unsigned seed);

/* ---- run.cu (driver): host arrays in and out ---- */
typedef struct attention_run {
    const char *error;                   /* NULL, or the CUDA error the run ended with */
    long long written_past_end;          /* floats written in the guard after out (must be 0) */
    int counted;                         /* 1 when the simulator counted the fields below */
    int launches;                        /* kernel launches the run made */
    double footprint_bytes;              /* device memory the run allocated */
    double global_load_bytes;            /* 32 x the global sectors loaded, all launches */
    double global_store_bytes;           /* 32 x the global sectors stored, all launches */
    double shared_load_bytes;            /* bytes read from shared memory, all launches */
} attention_run;

/* Copies q, k, v ([n][d] each) to the device, poisons out (followed by a guard), runs
 * flash_attention_forward with `tile`, and copies out back. With count_metrics, the simulator counts. */
attention_run gpu_attention(const float *q, const float *k, const float *v, float *out, int n, int d, int causal,
                            int tile, int count_metrics);
/* On a real GPU: the median microseconds of `repeats` runs (events, after a warm-up) on zeros.
 * On the simulator: -1 (its time is this CPU's, not a GPU's). */
double gpu_attention_microseconds(int n, int d, int causal, int tile, int repeats);

#ifdef __cplusplus
}
#endif

#endif
