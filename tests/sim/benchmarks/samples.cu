/* samples.cu — the simulator's speed on kernels written as NVIDIA's samples write them, each
 * against the same algorithm as a plain C loop (samples_c.c), timed side by side in one run, so
 * the slowdown is a ratio of two times taken on the same machine at the same moment:
 *   matmul     a tiled matrix product (matrixMul): 16x16 tiles, two __syncthreads a tile
 *   scan       a work-efficient block scan (scan): up-sweep and down-sweep in shared memory
 *   bitonic    a bitonic sort of 512 keys a block in shared memory (sortingNetworks)
 *   transpose  a naive transpose, no barrier (transpose)
 *   add        c[i] = a[i] + b[i], no barrier (vectorAdd)
 * Every check is on (bounds, races, barriers), metrics off; one worker, timed in CPU seconds of
 * the one thread that runs both the launches and the loops. Prints `name: value unit` lines:
 * threads/s, thread-barriers/s where the kernel has barriers, and the slowdown against C.
 * Each result is compared with the C loop's, so a fast wrong simulator shows. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "samples_c.h"

enum { TILE = 16, SCAN_BLOCK = 256, SORT_KEYS = 512 };

__global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0;
    for (int t = 0; t < n; t += TILE) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

/* Blelloch's exclusive scan of 2 * SCAN_BLOCK values a block (each thread loads two). */
__global__ void scan_blocks(const int *in, int *out)
{
    __shared__ int s[2 * SCAN_BLOCK];
    int t = threadIdx.x, base = blockIdx.x * 2 * SCAN_BLOCK;
    s[2 * t] = in[base + 2 * t];
    s[2 * t + 1] = in[base + 2 * t + 1];
    int offset = 1;
    for (int d = SCAN_BLOCK; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
        offset *= 2;
    }
    if (t == 0) s[2 * SCAN_BLOCK - 1] = 0;
    for (int d = 1; d < 2 * SCAN_BLOCK; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            int left = s[ai];
            s[ai] = s[bi];
            s[bi] += left;
        }
    }
    __syncthreads();
    out[base + 2 * t] = s[2 * t];
    out[base + 2 * t + 1] = s[2 * t + 1];
}

/* Sorts SORT_KEYS keys a block, ascending, with SORT_KEYS / 2 threads (sortingNetworks' bitonicSortShared). */
__global__ void bitonic_blocks(unsigned *keys)
{
    __shared__ unsigned s[SORT_KEYS];
    unsigned *k = keys + blockIdx.x * SORT_KEYS;
    int t = threadIdx.x;
    s[t] = k[t];
    s[t + SORT_KEYS / 2] = k[t + SORT_KEYS / 2];
    for (int size = 2; size <= SORT_KEYS; size <<= 1) {
        int ascending = (t & (size / 2)) == 0;
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            int pos = 2 * t - (t & (stride - 1));
            unsigned x = s[pos], y = s[pos + stride];
            if ((x > y) == ascending) s[pos] = y, s[pos + stride] = x;
        }
    }
    __syncthreads();
    k[t] = s[t];
    k[t + SORT_KEYS / 2] = s[t + SORT_KEYS / 2];
}

__global__ void transpose_naive(const float *in, float *out, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    out[x * n + y] = in[y * n + x];
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

/* The calling thread's CPU time: the machine is shared, and time spent waiting for a core is not
 * the simulator's. One worker (SIM_THREADS=1, set in main) runs every block on this thread. */
static double now()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *device_copy(const void *host, size_t bytes)
{
    void *d;
    if (cudaMalloc(&d, bytes) != cudaSuccess) exit(1);
    cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice);
    return d;
}

static int same_bytes(const void *device, const void *host, size_t bytes)
{
    void *copy = malloc(bytes);
    cudaMemcpy(copy, device, bytes, cudaMemcpyDeviceToHost);
    int same = memcmp(copy, host, bytes) == 0;
    free(copy);
    return same;
}

/* One kernel's figures: its best time and the C loop's, each the best of `repeats`, taken in turn. */
typedef struct kernel_run {
    const char *name;
    double threads, thread_barriers;   /* per launch */
    double sim_seconds, c_seconds;
    int correct;
} kernel_run;

/* Whether to run `k`: every kernel, or only the one named on the command line. */
static int runs(const char *only, const kernel_run *k) { return !*only || strcmp(only, k->name) == 0; }

static void report(const kernel_run *k, const char *target)
{
    if (k->sim_seconds == 1e30) return;   /* not run */
    printf("sim_%s_threads_per_second: %.2f million threads/s\n", k->name, k->threads / k->sim_seconds / 1e6);
    if (k->thread_barriers > 0)
        printf("sim_%s_thread_barriers_per_second: %.2f million thread-barriers/s\n", k->name,
               k->thread_barriers / k->sim_seconds / 1e6);
    printf("sim_%s_slowdown_vs_c: %.1f x%s%s\n", k->name, k->sim_seconds / k->c_seconds, *target ? " " : "", target);
    if (!k->correct) printf("sim_%s: WRONG RESULT (differs from the C loop's)\n", k->name);
}

static void keep_best(double *best, double t) { if (t < *best) *best = t; }

int main(int argc, char **argv)
{
    setenv("SIM_THREADS", "1", 1);   /* before the first launch reads it */
    int repeats = argc > 1 ? atoi(argv[1]) : 3;
    if (repeats < 1) repeats = 1;
    const char *only = argc > 2 ? argv[2] : "";   /* one kernel's name: for perf record */
    const int n = 256;                        /* matrices n x n */
    const int scan_values = 1 << 18, sort_keys = 1 << 17, add_values = 1 << 20, transpose_n = 1024;
    srand(1);

    /* matmul: small integers, so the float sums are exact whatever the order */
    float *a = (float *)malloc(sizeof(float) * n * n), *b = (float *)malloc(sizeof(float) * n * n);
    float *c = (float *)calloc(n * n, sizeof(float));
    for (int i = 0; i < n * n; i++) a[i] = (float)(rand() % 5), b[i] = (float)(rand() % 5);
    float *da = (float *)device_copy(a, sizeof(float) * n * n), *db = (float *)device_copy(b, sizeof(float) * n * n);
    float *dc = (float *)device_copy(c, sizeof(float) * n * n);
    kernel_run matmul = {"matmul_tiled", (double)n * n, (double)n * n * 2 * (n / TILE), 1e30, 1e30, 1};

    int *scan_in = (int *)malloc(sizeof(int) * scan_values), *scan_out = (int *)calloc(scan_values, sizeof(int));
    for (int i = 0; i < scan_values; i++) scan_in[i] = rand() % 100;
    int *dscan_in = (int *)device_copy(scan_in, sizeof(int) * scan_values);
    int *dscan_out = (int *)device_copy(scan_out, sizeof(int) * scan_values);
    int scan_barriers = 0;
    for (int d = SCAN_BLOCK; d > 0; d >>= 1) scan_barriers++;
    for (int d = 1; d < 2 * SCAN_BLOCK; d *= 2) scan_barriers++;
    scan_barriers++;
    kernel_run scan = {"scan", scan_values / 2.0, scan_values / 2.0 * scan_barriers, 1e30, 1e30, 1};

    unsigned *keys = (unsigned *)malloc(sizeof(unsigned) * sort_keys);
    unsigned *sorted = (unsigned *)malloc(sizeof(unsigned) * sort_keys);
    for (int i = 0; i < sort_keys; i++) keys[i] = (unsigned)rand();
    unsigned *dkeys = (unsigned *)device_copy(keys, sizeof(unsigned) * sort_keys);
    int sort_barriers = 1;
    for (int size = 2; size <= SORT_KEYS; size <<= 1)
        for (int stride = size / 2; stride > 0; stride >>= 1) sort_barriers++;
    kernel_run bitonic = {"bitonic", sort_keys / 2.0, sort_keys / 2.0 * sort_barriers, 1e30, 1e30, 1};

    float *t_in = (float *)malloc(sizeof(float) * transpose_n * transpose_n);
    float *t_out = (float *)calloc(transpose_n * transpose_n, sizeof(float));
    for (int i = 0; i < transpose_n * transpose_n; i++) t_in[i] = (float)i;
    float *dt_in = (float *)device_copy(t_in, sizeof(float) * transpose_n * transpose_n);
    float *dt_out = (float *)device_copy(t_out, sizeof(float) * transpose_n * transpose_n);
    kernel_run transpose = {"transpose_naive", (double)transpose_n * transpose_n, 0, 1e30, 1e30, 1};

    float *x = (float *)malloc(sizeof(float) * add_values), *y = (float *)malloc(sizeof(float) * add_values);
    float *z = (float *)calloc(add_values, sizeof(float));
    for (int i = 0; i < add_values; i++) x[i] = (float)i, y[i] = 1;
    float *dx = (float *)device_copy(x, sizeof(float) * add_values);
    float *dy = (float *)device_copy(y, sizeof(float) * add_values);
    float *dz = (float *)device_copy(z, sizeof(float) * add_values);
    kernel_run add = {"vector_add", (double)add_values, 0, 1e30, 1e30, 1};

    for (int r = 0; r < repeats; r++) {
        double t0;
        if (runs(only, &matmul)) {
            t0 = now();
            matmul_tiled<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(da, db, dc, n);
            cudaDeviceSynchronize();
            keep_best(&matmul.sim_seconds, now() - t0);
            t0 = now();
            matmul_tiled_in_c(a, b, c, n);
            keep_best(&matmul.c_seconds, now() - t0);
            matmul.correct &= same_bytes(dc, c, sizeof(float) * n * n);
        }
        if (runs(only, &scan)) {
            t0 = now();
            scan_blocks<<<scan_values / (2 * SCAN_BLOCK), SCAN_BLOCK>>>(dscan_in, dscan_out);
            cudaDeviceSynchronize();
            keep_best(&scan.sim_seconds, now() - t0);
            t0 = now();
            scan_blocks_in_c(scan_in, scan_out, scan_values);
            keep_best(&scan.c_seconds, now() - t0);
            scan.correct &= same_bytes(dscan_out, scan_out, sizeof(int) * scan_values);
        }
        if (runs(only, &bitonic)) {
            cudaMemcpy(dkeys, keys, sizeof(unsigned) * sort_keys, cudaMemcpyHostToDevice);
            memcpy(sorted, keys, sizeof(unsigned) * sort_keys);
            t0 = now();
            bitonic_blocks<<<sort_keys / SORT_KEYS, SORT_KEYS / 2>>>(dkeys);
            cudaDeviceSynchronize();
            keep_best(&bitonic.sim_seconds, now() - t0);
            t0 = now();
            bitonic_blocks_in_c(sorted, sort_keys);
            keep_best(&bitonic.c_seconds, now() - t0);
            bitonic.correct &= same_bytes(dkeys, sorted, sizeof(unsigned) * sort_keys);
        }
        if (runs(only, &transpose)) {
            t0 = now();
            dim3 tiles(transpose_n / TILE, transpose_n / TILE);
            transpose_naive<<<tiles, dim3(TILE, TILE)>>>(dt_in, dt_out, transpose_n);
            cudaDeviceSynchronize();
            keep_best(&transpose.sim_seconds, now() - t0);
            t0 = now();
            transpose_in_c(t_in, t_out, transpose_n);
            keep_best(&transpose.c_seconds, now() - t0);
            transpose.correct &= same_bytes(dt_out, t_out, sizeof(float) * transpose_n * transpose_n);
        }
        if (runs(only, &add)) {
            t0 = now();
            vector_add<<<add_values / 256, 256>>>(dx, dy, dz, add_values);
            cudaDeviceSynchronize();
            keep_best(&add.sim_seconds, now() - t0);
            t0 = now();
            vector_add_in_c(x, y, z, add_values);
            keep_best(&add.c_seconds, now() - t0);
            add.correct &= same_bytes(dz, z, sizeof(float) * add_values);
        }
    }
    printf("samples: best of %d, each launch timed beside its C loop in CPU seconds of one thread; every check on, "
           "metrics off\n", repeats);
    report(&matmul, "(target <= 40)");
    report(&scan, "");
    report(&bitonic, "");
    report(&transpose, "(target <= 20)");
    report(&add, "(target <= 20)");
    return matmul.correct && scan.correct && bitonic.correct && transpose.correct && add.correct ? 0 : 1;
}
