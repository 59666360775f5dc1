/* run.cu — Day 05 driver: the divergent originals, and the wrappers that run them and
 * your rewrites on device memory and report what the simulator counted. Do not edit.
 *
 * Before a kernel runs, its output is filled with the poison pattern (0xff bytes, a NaN)
 * and followed by a guard region filled with a finite sentinel (0x5a bytes); afterwards an
 * output element still poisoned was never written, and a guard element that changed was
 * written out of bounds. Inputs are allocated at exactly their size, so the simulator stops
 * a kernel that reads past one and names the thread and the line.
 *
 * On the simulator every launch made during a run is counted (sim_metrics.h): SIMT
 * efficiency, warp-level steps and sectors per load request, summed over the launches. On
 * a GPU nothing is counted here (counted = 0): Nsight Compute measures the same things. */
#include "lab.h"
#include "work.cuh"

#include <cstring>
#include <device_buffer.cuh>
#include <sim_counts.h>

/* ---------------------------------------------------------------------------------
 * The originals: correct, and divergent */

/* One thread per element, element i to thread i: neighbouring lanes of every warp take
 * different paths, so each warp runs even_work with half its lanes, then odd_work with
 * the other half. */
__global__ void even_odd_divergent(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (i % 2 == 0) ? even_work(x[i]) : odd_work(x[i]);
}

/* One thread per token, token t to thread t: a warp holds tokens routed to every expert,
 * so it runs up to all four experts, one after another, each with a few lanes. */
__global__ void experts_divergent(const float *x, const int *expert, float *y, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = expert_work(expert[t], x[t]);
}

/* The plot's kernel: groups of `group` consecutive threads alternate between the paths. */
__global__ void alternating_groups(float *y, int group)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)(t % 7) * 0.125f - 0.375f;
    y[t] = ((t / group) % 2 == 0) ? even_work(x) : odd_work(x);
}

/* ---------------------------------------------------------------------------------
 * Device buffers with poison and guards */

static size_t guard_words(int n) { return (size_t)n + 8192; }   /* beyond any grid the tests launch */

/* A device buffer of `words` 4-byte words, copied from host (or poisoned when host is
 * NULL), followed by `guard` sentinel words (lib/lab/device_buffer.cuh). */
static void *device_buffer(const void *host, size_t words, size_t guard, cudaError_t *error)
{
    return lab_device_buffer(host, words * 4, guard * 4, error);
}

/* Sums what was counted for every launch since `mark` (lab_counts_begin), and stops counting; on
 * a GPU nothing is counted (counts.counted is 0: Nsight Compute measures these). */
static void counting_stop(branch_run *run, int mark)
{
    lab_counts counts = lab_counts_end(mark);
    run->counted = counts.counted;
    run->launches = counts.launches;
    run->warp_steps = counts.total.warp_steps;
    run->simt_efficiency = sim_simt_efficiency(&counts.total);
    run->load_sectors_per_request = sim_sectors_per_request(&counts.total, 0);
}

/* Waits for the kernels, copies `words` words back into host and counts guard words that
 * are no longer the sentinel. */
static void finish(branch_run *run, void *device_out, void *host_out, size_t words, size_t guard, cudaError_t error)
{
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    run->written_past_end += lab_device_fetch(host_out, device_out, words * 4, guard * 4, &error);
    if (error != cudaSuccess) run->error = cudaGetErrorString(error);
}

static branch_run empty_run(void)
{
    branch_run run;
    memset(&run, 0, sizeof run);
    return run;
}

/* ---------------------------------------------------------------------------------
 * Even and odd elements */

static branch_run even_odd(const float *x, float *y, int n, int threads_per_block, int yours, int in_place)
{
    branch_run run = empty_run();
    cudaError_t error = cudaSuccess;
    size_t guard = guard_words(n);
    float *device_x = (float *)device_buffer(x, (size_t)n, in_place ? guard : 0, &error);
    float *device_y = in_place ? device_x : (float *)device_buffer(NULL, (size_t)n, guard, &error);
    if (error == cudaSuccess) {
        int mark = lab_counts_begin();
        if (yours) {
            launch_even_odd_uniform(device_x, device_y, n, threads_per_block);
        } else {
            int blocks = n / threads_per_block + (n % threads_per_block != 0);
            even_odd_divergent<<<blocks, threads_per_block>>>(device_x, device_y, n);
        }
        counting_stop(&run, mark);
    }
    finish(&run, device_y, y, (size_t)n, guard, error);
    cudaFree(device_x);
    if (!in_place) cudaFree(device_y);
    return run;
}

extern "C" branch_run gpu_even_odd_divergent(const float *x, float *y, int n, int threads_per_block)
{
    return even_odd(x, y, n, threads_per_block, 0, 0);
}

extern "C" branch_run gpu_even_odd_uniform(const float *x, float *y, int n, int threads_per_block)
{
    return even_odd(x, y, n, threads_per_block, 1, 0);
}

extern "C" branch_run gpu_even_odd_uniform_in_place(float *x, int n, int threads_per_block)
{
    return even_odd(x, x, n, threads_per_block, 1, 1);
}

/* ---------------------------------------------------------------------------------
 * Tokens routed to experts */

static branch_run experts(const float *x, const int *expert, const int *order, float *y, int n, int in_place)
{
    branch_run run = empty_run();
    cudaError_t error = cudaSuccess;
    size_t guard = guard_words(n);
    float *device_x = (float *)device_buffer(x, (size_t)n, in_place ? guard : 0, &error);
    float *device_y = in_place ? device_x : (float *)device_buffer(NULL, (size_t)n, guard, &error);
    int *device_expert = (int *)device_buffer(expert, (size_t)n, 0, &error);
    int *device_order = order ? (int *)device_buffer(order, (size_t)n, 0, &error) : NULL;
    if (error == cudaSuccess) {
        int mark = lab_counts_begin();
        if (order) {
            launch_experts_grouped(device_x, device_expert, device_order, device_y, n);
        } else {
            int threads = 256, blocks = n / threads + (n % threads != 0);
            experts_divergent<<<blocks, threads>>>(device_x, device_expert, device_y, n);
        }
        counting_stop(&run, mark);
    }
    finish(&run, device_y, y, (size_t)n, guard, error);
    cudaFree(device_x), cudaFree(device_expert);
    if (!in_place) cudaFree(device_y);
    if (device_order) cudaFree(device_order);
    return run;
}

extern "C" branch_run gpu_experts_divergent(const float *x, const int *expert, float *y, int n)
{
    return experts(x, expert, NULL, y, n, 0);
}

extern "C" branch_run gpu_experts_grouped(const float *x, const int *expert, const int *order, float *y, int n)
{
    return experts(x, expert, order, y, n, 0);
}

extern "C" branch_run gpu_experts_grouped_in_place(float *x, const int *expert, const int *order, int n)
{
    return experts(x, expert, order, x, n, 1);
}

/* ---------------------------------------------------------------------------------
 * The plot's kernel */

extern "C" branch_run gpu_alternating_groups(float *y, int threads, int group)
{
    branch_run run = empty_run();
    cudaError_t error = cudaSuccess;
    size_t guard = 64;
    float *device_y = (float *)device_buffer(NULL, (size_t)threads, guard, &error);
    if (error == cudaSuccess) {
        int mark = lab_counts_begin();
        alternating_groups<<<threads / 256, 256>>>(device_y, group);
        counting_stop(&run, mark);
    }
    finish(&run, device_y, y, (size_t)threads, guard, error);
    cudaFree(device_y);
    return run;
}
