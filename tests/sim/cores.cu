/* cores.cu — a launch's blocks shared out among two workers (two OS threads): the same results,
 * counts, printed output and reports as running the blocks one after another. Each test asks
 * for two workers (SIM_THREADS=2) before its first launch, so the shared-out path runs even on
 * a machine with one core; launches of fewer than 4096 CUDA threads run on one worker. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <sim_metrics.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void two_workers(void) { setenv("SIM_THREADS", "2", 1); }
static void two_workers_quiet(void) { two_workers(), cr_redirect_stdout(), cr_redirect_stderr(); }

/* Keeps one thread of a block busy for a while, so that later blocks finish first. */
__device__ float busy(int rounds)
{
    float x = 1;
    for (int k = 0; k < rounds; k++) x = x * 0.999f + (float)(k & 7);
    return x;
}

/* Block 0 waits until the grid's last block has run: only possible if blocks run at once. */
__global__ void first_waits_for_last(volatile int *flag, int *seen)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == gridDim.x - 1) *flag = 1;
    if (blockIdx.x == 0) {
        long long spins = 0;
        while (*flag == 0 && spins < 4000000000ll) spins++;
        *seen = *flag;
    }
}

Test(cores, blocks_run_at_once, .timeout = 60, .init = two_workers)
{
    int *flag, *seen, answer = 0;
    cudaMalloc(&flag, sizeof(int)), cudaMalloc(&seen, sizeof(int));
    cudaMemset(flag, 0, sizeof(int)), cudaMemset(seen, 0, sizeof(int));
    first_waits_for_last<<<4, 1024>>>(flag, seen);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(&answer, seen, sizeof answer, cudaMemcpyDeviceToHost);
    cr_assert_eq(answer, 1, "block 0 never saw the last block's flag: the blocks did not run at once");
}

/* Global loads and stores, a shared tile read across banks, a barrier, a branch and atomics. */
__global__ void mixed(const float *in, float *out, unsigned *count)
{
    __shared__ float tile[32][32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x / 32][threadIdx.x % 32] = in[i];
    __syncthreads();
    float v = tile[threadIdx.x % 32][threadIdx.x / 32];
    if (threadIdx.x % 2) v *= 2;
    out[i] = v;
    atomicAdd(count, 1u);
}

Test(cores, counts_match_the_blocks_one_launch_at_a_time, .timeout = 60, .init = two_workers)
{
    enum { BLOCKS = 64, THREADS = 1024, N = BLOCKS * THREADS };
    float *in, *out;
    unsigned *count, total = 0;
    cudaMalloc(&in, N * sizeof(float)), cudaMalloc(&out, N * sizeof(float)), cudaMalloc(&count, sizeof(unsigned));
    cudaMemset(in, 0, N * sizeof(float)), cudaMemset(count, 0, sizeof(unsigned));
    sim_metrics_enable(1);
    mixed<<<BLOCKS, THREADS>>>(in, out, count);   /* shared out among the workers */
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    sim_launch_metrics whole = *sim_metrics_get(-1);
    sim_launch_metrics sum;
    memset(&sum, 0, sizeof sum);
    for (int b = 0; b < BLOCKS; b++) {   /* 1024 threads: each of these launches runs on one worker */
        mixed<<<1, THREADS>>>(in + b * THREADS, out + b * THREADS, count);
        const sim_launch_metrics *m = sim_metrics_get(-1);
        sum.global_load_requests += m->global_load_requests, sum.global_load_sectors += m->global_load_sectors;
        sum.global_store_requests += m->global_store_requests, sum.global_store_sectors += m->global_store_sectors;
        sum.shared_load_requests += m->shared_load_requests, sum.shared_load_wavefronts += m->shared_load_wavefronts;
        sum.shared_store_wavefronts += m->shared_store_wavefronts, sum.barriers += m->barriers;
        sum.warp_steps += m->warp_steps, sum.active_lanes += m->active_lanes, sum.atomics += m->atomics;
        if (m->max_bank_conflict_ways > sum.max_bank_conflict_ways) sum.max_bank_conflict_ways = m->max_bank_conflict_ways;
    }
    cudaMemcpy(&total, count, sizeof total, cudaMemcpyDeviceToHost);
    cr_assert_eq(total, 2u * N, "atomicAdd lost updates: %u of %u", total, 2u * N);
    cr_assert_eq(whole.global_load_requests, sum.global_load_requests);
    cr_assert_eq(whole.global_load_sectors, sum.global_load_sectors);
    cr_assert_eq(whole.global_store_requests, sum.global_store_requests);
    cr_assert_eq(whole.global_store_sectors, sum.global_store_sectors);
    cr_assert_eq(whole.shared_load_requests, sum.shared_load_requests);
    cr_assert_eq(whole.shared_load_wavefronts, sum.shared_load_wavefronts);
    cr_assert_eq(whole.shared_store_wavefronts, sum.shared_store_wavefronts);
    cr_assert_eq(whole.max_bank_conflict_ways, 32u);
    cr_assert_eq(whole.barriers, (unsigned long long)BLOCKS, "one barrier per block: %llu", whole.barriers);
    cr_assert_eq(whole.warp_steps, sum.warp_steps);
    cr_assert_eq(whole.active_lanes, sum.active_lanes);
    cr_assert_eq(whole.atomics, (unsigned long long)N);
    cr_assert_eq(whole.global_load_requests, (unsigned long long)N / 32, "one load request per warp");
}

/* Block 0 prints last of all if nothing keeps the order: it works longest. */
__global__ void say_which(float *sink)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) sink[0] = busy(20000000);
    printf("block %d\n", blockIdx.x);
}

Test(cores, printf_comes_in_block_order, .timeout = 60, .init = two_workers)
{
    cr_redirect_stdout();
    float *sink;
    cudaMalloc(&sink, sizeof(float));
    say_which<<<8, 1024>>>(sink);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    fflush(stdout);
    cr_assert_stdout_eq_str("block 0\nblock 1\nblock 2\nblock 3\nblock 4\nblock 5\nblock 6\nblock 7\n");
}

/* Blocks 5 and 9 write past the end; block 5 first works a while, so block 9 fails first in time.
 * One after another, block 5 would fail and nothing after it would run. */
__global__ void two_fail(float *out, int n)
{
    if (threadIdx.x != 0) return;
    printf("block %d\n", blockIdx.x);
    if (blockIdx.x == 5) out[n + 100 + (busy(20000000) > 1e30f)] = 1;
    if (blockIdx.x == 9) out[n + 200] = 1;
}

Test(cores, the_first_failing_block_in_block_order_is_reported, .timeout = 60, .init = two_workers)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
    enum { N = 16 * 1024 };
    float *out;
    cudaMalloc(&out, N * sizeof(float));
    two_fail<<<16, 1024>>>(out, N);
    cr_assert_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    fflush(stdout), fflush(stderr);
    cr_assert_stdout_eq_str("block 0\nblock 1\nblock 2\nblock 3\nblock 4\nblock 5\n",
                            "only the blocks up to the failed one print, as one after another");
    FILE *err = cr_get_redirected_stderr();
    char text[4096] = {0};
    size_t got = fread(text, 1, sizeof text - 1, err);
    text[got] = 0;
    cr_assert(strstr(text, "block (5,0,0), thread (0,0,0)"), "the report names block 5: %s", text);
    cr_assert(strstr(text, "404 bytes past its end"), "block 5's access is the one explained: %s", text);
    cr_assert(!strstr(text, "block (9,0,0)"), "block 9 comes after the failure and is not reported: %s", text);
}

Test(cores, a_later_launch_runs_after_a_failed_one_is_cleared, .timeout = 60, .init = two_workers_quiet)
{
    enum { N = 16 * 1024 };
    float *out;
    cudaMalloc(&out, N * sizeof(float));
    two_fail<<<16, 1024>>>(out, N);
    cr_assert_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    unsigned *count, total = 0;
    float *in;
    cudaMalloc(&in, N * sizeof(float)), cudaMalloc(&out, N * sizeof(float)), cudaMalloc(&count, sizeof(unsigned));
    cudaMemset(in, 0, N * sizeof(float)), cudaMemset(count, 0, sizeof(unsigned));
    mixed<<<N / 1024, 1024>>>(in, out, count);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(&total, count, sizeof total, cudaMemcpyDeviceToHost);
    cr_assert_eq(total, (unsigned)N, "every block of the next launch ran: %u of %u threads", total, N);
}

Test(cores, a_bad_SIM_THREADS_is_refused, .timeout = 20, .init = cr_redirect_stderr, .exit_code = 2)
{
    setenv("SIM_THREADS", "two", 1);
    float *out;
    cudaMalloc(&out, 8192 * sizeof(float));
    say_which<<<8, 1024>>>(out);
    cudaDeviceSynchronize();
}
