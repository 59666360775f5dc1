/* run.cu — Day 14 driver: the week's kernels, small, run so that the simulator can count the
 * bytes each one moves. Do not edit.
 *
 *   triad            day 10   a[i] = b[i] + q * c[i]                      2 FLOPs, 12 bytes
 *   strided scale    day 09   b[i] = q * a[i * SCALE_STRIDE]              the strided copy, x q
 *   naive transpose  day 11   out[x][y] = alpha * in[y][x], by threads    reads coalesced, writes not
 *   tiled transpose  day 11   the same through a padded 32 x 33 tile      both coalesced
 *   tiled matmul     day 12   C = A B with 16 x 16 shared-memory tiles     2 N^3 FLOPs
 * The copy and the transpose of days 09 and 11 do no arithmetic; a multiply by q (STREAM's
 * "scale") gives them one FLOP per element so that they have an intensity to plot.
 * On the simulator the global sectors loaded and stored are counted; 32 bytes each is what a
 * GPU's L1 asks of the memory below it. On a GPU the kernels just run. */
#include "lab.h"

#include <cstdlib>
#include <sim_counts.h>

__global__ void triad(float *a, const float *b, const float *c, float q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + q * c[i];
}

__global__ void strided_scale(float *b, const float *a, float q, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = q * a[(size_t)i * stride];   // a warp's 32 loads span 32 x stride floats
}

__global__ void transpose_naive(float *out, const float *in, float alpha, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) out[(size_t)x * n + y] = alpha * in[(size_t)y * n + x];   // stores n floats apart
}

__global__ void transpose_tiled(float *out, const float *in, float alpha, int n)
{
    __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];   // 33: a column's words in 32 banks
    int x = blockIdx.x * TRANSPOSE_TILE + threadIdx.x, y = blockIdx.y * TRANSPOSE_TILE + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * n + x];
    __syncthreads();
    x = blockIdx.y * TRANSPOSE_TILE + threadIdx.x, y = blockIdx.x * TRANSPOSE_TILE + threadIdx.y;
    if (x < n && y < n) out[(size_t)y * n + x] = alpha * tile[threadIdx.x][threadIdx.y];
}

__global__ void matmul_tiled(float *c, const float *a, const float *b, int n)
{
    __shared__ float a_tile[MATMUL_TILE][MATMUL_TILE], b_tile[MATMUL_TILE][MATMUL_TILE];
    int row = blockIdx.y * MATMUL_TILE + threadIdx.y, col = blockIdx.x * MATMUL_TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < n / MATMUL_TILE; t++) {   // the driver runs n a multiple of the tile
        a_tile[threadIdx.y][threadIdx.x] = a[(size_t)row * n + t * MATMUL_TILE + threadIdx.x];
        b_tile[threadIdx.y][threadIdx.x] = b[(size_t)(t * MATMUL_TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int p = 0; p < MATMUL_TILE; p++) sum += a_tile[threadIdx.y][p] * b_tile[p][threadIdx.x];
        __syncthreads();
    }
    c[(size_t)row * n + col] = sum;
}

/* Three device buffers of `floats` floats each, filled with 1.0f. */
static cudaError_t allocate(float **x, float **y, float **z, size_t floats)
{
    float *host = (float *)malloc(floats * sizeof(float));
    for (size_t i = 0; i < floats; i++) host[i] = 1.0f;
    cudaError_t error = cudaMalloc(x, floats * sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(y, floats * sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(z, floats * sizeof(float));
    if (error == cudaSuccess) error = cudaMemcpy(*y, host, floats * sizeof(float), cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaMemcpy(*z, host, floats * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    return error;
}

static void launch(int which, float *x, float *y, float *z)
{
    switch (which) {
    case KERNEL_TRIAD: triad<<<TRIAD_N / 256, 256>>>(x, y, z, 3.0f, TRIAD_N); break;
    case KERNEL_STRIDED_SCALE: strided_scale<<<SCALE_N / 256, 256>>>(x, y, 3.0f, SCALE_N, SCALE_STRIDE); break;
    case KERNEL_TRANSPOSE_NAIVE:
        transpose_naive<<<dim3(TRANSPOSE_N / 32, TRANSPOSE_N / 8), dim3(32, 8)>>>(x, y, 2.0f, TRANSPOSE_N);
        break;
    case KERNEL_TRANSPOSE_TILED:
        transpose_tiled<<<dim3(TRANSPOSE_N / TRANSPOSE_TILE, TRANSPOSE_N / TRANSPOSE_TILE),
                          dim3(TRANSPOSE_TILE, TRANSPOSE_TILE)>>>(x, y, 2.0f, TRANSPOSE_N);
        break;
    default:
        matmul_tiled<<<dim3(MATMUL_N / MATMUL_TILE, MATMUL_N / MATMUL_TILE), dim3(MATMUL_TILE, MATMUL_TILE)>>>(
            x, y, z, MATMUL_N);
        break;
    }
}

extern "C" const char *run_week_kernel(int which, double *counted_bytes)
{
    static const size_t floats[] = {TRIAD_N, (size_t)SCALE_N * SCALE_STRIDE, TRANSPOSE_N * TRANSPOSE_N,
                                    TRANSPOSE_N * TRANSPOSE_N, MATMUL_N * MATMUL_N};
    *counted_bytes = -1;
    if (which < KERNEL_TRIAD || which > KERNEL_MATMUL_TILED) return "no such kernel";
    float *x = NULL, *y = NULL, *z = NULL;
    cudaError_t error = allocate(&x, &y, &z, floats[which]);
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(1, 0, &counts, [&] {
            launch(which, x, y, z);
            return cudaGetLastError();
        });
    if (counts.counted && counts.launches == 1)
        *counted_bytes = 32.0 * (double)(counts.total.global_load_sectors + counts.total.global_store_sectors);
    cudaFree(x), cudaFree(y), cudaFree(z);
    return error == cudaSuccess ? NULL : cudaGetErrorString(error);
}
