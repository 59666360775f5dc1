/* run.cu — Day 11 driver: runs your transposes on device memory, and on the simulator reads
 * what it counted while they ran; probes the simulator's bank counter with patterns of your
 * choosing, and with a tile whose rows are a given number of words long. Do not edit.
 *
 * The input is allocated with exactly rows x cols elements, so a thread that reads past its
 * end is stopped by the simulator. The output is poisoned (every byte 0xff, a NaN) and followed
 * by a guard region filled with a finite sentinel (every byte 0x5a): afterwards an element
 * still poisoned was never written, and a guard word that changed was written out of bounds.
 * After an error the device is reset, so that the next run starts clean. */
#include "lab.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <gpu_timer.cuh>
#include <sim_counts.h>

static const uint32_t SENTINEL = 0x5a5a5a5au;

/* More words than any thread of a grid rounded up to whole tiles can reach with
 * row * rows + col, even without a bounds check. */
static size_t guard_words(int rows, int cols) { return (size_t)(rows + TILE) * (size_t)(cols + TILE) + 4096; }

/* Copies what the simulator counted over a transpose's launches into run. */
static void add_counts(transpose_run *run, const lab_counts *counts)
{
    const sim_launch_metrics *total = &counts->total;
    unsigned long long load_sectors = total->global_load_sectors, store_sectors = total->global_store_sectors;
    run->counted = counts->counted;
    run->global_load_requests = total->global_load_requests;
    run->global_store_requests = total->global_store_requests;
    run->shared_load_requests = total->shared_load_requests;
    run->shared_store_requests = total->shared_store_requests;
    run->shared_load_wavefronts_per_request = sim_wavefronts_per_request(total, 0);
    run->shared_store_wavefronts_per_request = sim_wavefronts_per_request(total, 1);
    run->max_bank_conflict_ways = total->max_bank_conflict_ways;
    run->global_load_sectors_per_request = sim_sectors_per_request(total, 0);
    run->global_store_sectors_per_request = sim_sectors_per_request(total, 1);
    run->global_load_efficiency = load_sectors ? (double)total->global_load_bytes / (32.0 * (double)load_sectors) : 0;
    run->global_store_efficiency =
        store_sectors ? (double)total->global_store_bytes / (32.0 * (double)store_sectors) : 0;
    run->barriers = total->barriers;
    run->blocks = (int)counts->blocks;
}

extern "C" transpose_run gpu_transpose(int version, const float *in, float *out, int rows, int cols,
                                       int count_metrics)
{
    transpose_run run;
    memset(&run, 0, sizeof run);
    size_t n = (size_t)rows * (size_t)cols, guard = guard_words(rows, cols);
    float *device_in = NULL, *device_out = NULL;
    cudaError_t error = cudaMalloc(&device_in, n * sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(&device_out, (n + guard) * sizeof(float));
    if (error == cudaSuccess) error = cudaMemcpy(device_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaMemset(device_out, 0xff, n * sizeof(float));
    if (error == cudaSuccess) error = cudaMemset(device_out + n, 0x5a, guard * sizeof(float));
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    lab_counts counts;
    memset(&counts, 0, sizeof counts);
    if (error == cudaSuccess)
        error = lab_run_counted(count_metrics, 0, &counts, [&] {
            cudaError_t launched = transpose(version, device_in, device_out, rows, cols);
            return launched == cudaSuccess ? cudaGetLastError() : launched;
        });
    if (counts.counted) add_counts(&run, &counts);
    uint32_t *back = (uint32_t *)malloc((n + guard) * sizeof(float));
    if (error == cudaSuccess) error = cudaMemcpy(back, device_out, (n + guard) * sizeof(float), cudaMemcpyDeviceToHost);
    if (error == cudaSuccess) {
        memcpy(out, back, n * sizeof(float));
        for (size_t i = n; i < n + guard; i++) run.written_past_end += back[i] != SENTINEL;
        cudaFree(device_in), cudaFree(device_out);
    } else {
        run.error = cudaGetErrorString(error);
        cudaDeviceReset();   /* a fault inside a kernel is sticky: start the next run afresh */
    }
    free(back);
    return run;
}

/* One warp: lane k reads shared word word_of_lane[k]; the rest of the block's shared memory is
 * written first, so that nothing read is garbage. */
__global__ void probe_shared_words(const int *word_of_lane, int lanes, float *out)
{
    __shared__ float words[PROBE_WORDS];
    for (int k = threadIdx.x; k < PROBE_WORDS; k += blockDim.x) words[k] = (float)k;
    __syncthreads();
    if ((int)threadIdx.x < lanes) out[threadIdx.x] = words[word_of_lane[threadIdx.x]];
}

extern "C" int counted_bank_conflict_ways(const int *word_of_lane, int lanes)
{
    if (!LAB_SIMULATED) return -1;   /* a GPU counts nothing for us; ncu does, see the chapter */
    for (int k = 0; k < lanes; k++)
        if (word_of_lane[k] < 0 || word_of_lane[k] >= PROBE_WORDS) return -1;
    int *device_words = NULL;
    float *device_out = NULL;
    cudaError_t error = cudaMalloc(&device_words, 32 * sizeof(int));
    if (error == cudaSuccess) error = cudaMalloc(&device_out, 32 * sizeof(float));
    if (error == cudaSuccess) error = cudaMemcpy(device_words, word_of_lane, (size_t)lanes * sizeof(int),
                                                 cudaMemcpyHostToDevice);
    int ways = -1;
    if (error == cudaSuccess) {
        int first = lab_counts_begin();
        probe_shared_words<<<1, 32>>>(device_words, lanes, device_out);
        error = cudaDeviceSynchronize();
        lab_counts counts = lab_counts_end(first);
        if (error == cudaSuccess) ways = (int)counts.total.shared_load_wavefronts;   /* one request */
    }
    cudaFree(device_words), cudaFree(device_out);
    return ways;
}

/* One block moves one tile through shared memory with rows row_words apart: written by rows
 * (threadIdx.x along a row), read back by columns, as versions 2 and 3 do. */
__global__ void probe_tile_rows(int row_words, float *out)
{
    __shared__ float tile[TILE * PROBE_MAX_ROW_WORDS];
    for (int j = 0; j < TILE; j += BLOCK_ROWS) tile[(threadIdx.y + j) * row_words + threadIdx.x] = (float)j;
    __syncthreads();
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        out[(threadIdx.y + j) * TILE + threadIdx.x] = tile[threadIdx.x * row_words + threadIdx.y + j];
}

extern "C" int counted_tile_wavefronts(int row_words)
{
    if (!LAB_SIMULATED || row_words < TILE || row_words > PROBE_MAX_ROW_WORDS) return -1;
    float *device_out = NULL;
    int wavefronts = -1;
    if (cudaMalloc(&device_out, TILE * TILE * sizeof(float)) == cudaSuccess) {
        int first = lab_counts_begin();
        probe_tile_rows<<<1, dim3(TILE, BLOCK_ROWS)>>>(row_words, device_out);
        cudaError_t error = cudaDeviceSynchronize();
        lab_counts counts = lab_counts_end(first);
        if (error == cudaSuccess)
            wavefronts = (int)(counts.total.shared_load_wavefronts + counts.total.shared_store_wavefronts);
    }
    cudaFree(device_out);
    return wavefronts;
}

extern "C" double gpu_transpose_milliseconds(int version, int rows, int cols, int repeats)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    size_t n = (size_t)rows * (size_t)cols;
    float *device_in = NULL, *device_out = NULL;
    cudaError_t error = cudaMalloc(&device_in, n * sizeof(float));
    if (error == cudaSuccess) error = cudaMalloc(&device_out, n * sizeof(float));
    if (error == cudaSuccess) error = cudaMemset(device_in, 0, n * sizeof(float));
    double median = lab_gpu_median_milliseconds(repeats, &error,
                                                [&] { return transpose(version, device_in, device_out, rows, cols); });
    cudaFree(device_in), cudaFree(device_out);
    return median;
}
