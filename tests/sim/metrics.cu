/* metrics.cu — the simulator's counts on patterns whose answers are known: coalesced and
 * strided loads, a shared tile read by column with and without padding, a half-taken
 * branch, barriers and atomics, and the roofline estimate built from them. */
#include <criterion/criterion.h>
#include <sim_metrics.h>

static void enable(void) { sim_metrics_enable(1); }

__global__ void copy_with_stride(const float *in, float *out, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[(long)i * stride];
}

static const sim_launch_metrics *copy(int stride)
{
    int n = 4096;
    float *in, *out;
    cudaMalloc(&in, (size_t)n * stride * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    copy_with_stride<<<n / 256, 256>>>(in, out, stride);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cudaFree(in), cudaFree(out);
    return sim_metrics_get(-1);
}

Test(metrics, sectors_per_request_follow_the_stride, .timeout = 20, .init = enable)
{
    int strides[] = {1, 2, 4, 8, 32};
    double want[] = {4, 8, 16, 32, 32};
    for (int k = 0; k < 5; k++) {
        const sim_launch_metrics *m = copy(strides[k]);
        cr_assert_eq(m->global_load_requests, 4096 / 32, "stride %d: one request per warp", strides[k]);
        cr_assert_float_eq(sim_sectors_per_request(m, 0), want[k], 1e-9, "stride %d: %.2f sectors/request, want %.0f",
                           strides[k], sim_sectors_per_request(m, 0), want[k]);
        cr_assert_float_eq(sim_sectors_per_request(m, 1), 4, 1e-9, "the stores stay coalesced");
        cr_assert_eq(m->global_load_bytes, 4096 * 4);
    }
}

template <int WIDTH> __global__ void read_tile_by_column(float *out)
{
    __shared__ float tile[32][WIDTH];
    tile[threadIdx.y][threadIdx.x] = threadIdx.x + 32 * threadIdx.y;    /* rows: conflict-free */
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];   /* columns */
}

Test(metrics, shared_tile_read_by_column, .timeout = 20, .init = enable)
{
    float *out;
    cudaMalloc(&out, 32 * 32 * sizeof(float));
    read_tile_by_column<32><<<1, dim3(32, 32)>>>(out);
    const sim_launch_metrics *unpadded = sim_metrics_get(-1);
    cr_assert_float_eq(sim_wavefronts_per_request(unpadded, 0), 32, 1e-9, "32 x 32 read by column: %.2f-way",
                       sim_wavefronts_per_request(unpadded, 0));
    cr_assert_float_eq(sim_wavefronts_per_request(unpadded, 1), 1, 1e-9, "writing rows is conflict-free");
    cr_assert_eq(unpadded->max_bank_conflict_ways, 32);
    read_tile_by_column<33><<<1, dim3(32, 32)>>>(out);
    const sim_launch_metrics *padded = sim_metrics_get(-1);
    cr_assert_float_eq(sim_wavefronts_per_request(padded, 0), 1, 1e-9, "padded to 33: %.2f-way",
                       sim_wavefronts_per_request(padded, 0));
    cr_assert_eq(padded->shared_load_requests, 32, "one request per warp");
    cr_assert_eq(padded->barriers, 1);
}

__global__ void broadcast_one_word(float *out)
{
    __shared__ float value[32];
    if (threadIdx.x == 0) value[0] = 7;
    __syncthreads();
    out[threadIdx.x] = value[0];   /* every lane, one word: a broadcast */
}

Test(metrics, a_broadcast_is_one_wavefront, .timeout = 20, .init = enable)
{
    float *out;
    cudaMalloc(&out, 32 * sizeof(float));
    broadcast_one_word<<<1, 32>>>(out);
    cr_assert_float_eq(sim_wavefronts_per_request(sim_metrics_get(-1), 0), 1, 1e-9);
}

__device__ __noinline__ float work(float x)
{
    for (int k = 0; k < 200; k++) x = x * 0.999f + 0.5f;
    return x;
}

__global__ void branchy(float *out, int taken_below)
{
    float x = threadIdx.x;
    if (threadIdx.x % 32 < (unsigned)taken_below) x = work(x);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

Test(metrics, simt_efficiency_of_a_branch_half_the_lanes_take, .timeout = 20, .init = enable)
{
    float *out;
    cudaMalloc(&out, 128 * sizeof(float));
    branchy<<<2, 64>>>(out, 32);
    double all = sim_simt_efficiency(sim_metrics_get(-1));
    branchy<<<2, 64>>>(out, 16);
    double half = sim_simt_efficiency(sim_metrics_get(-1));
    cr_assert(all > 0.99, "every lane takes the branch: %.3f", all);
    cr_assert(half > 0.49 && half < 0.53, "half the lanes spend almost all their steps in the branch: %.3f", half);
}

__global__ void barriers_and_atomics(int *counter)
{
    for (int k = 0; k < 3; k++) __syncthreads();
    atomicAdd(counter, 1);
}

Test(metrics, barriers_and_atomics_are_counted, .timeout = 20, .init = enable)
{
    int *counter;
    cudaMalloc(&counter, sizeof(int));
    barriers_and_atomics<<<4, 64>>>(counter);
    const sim_launch_metrics *m = sim_metrics_get(-1);
    cr_assert_eq(m->barriers, 12, "3 barriers x 4 blocks: %llu", m->barriers);
    cr_assert_eq(m->atomics, 256, "one per thread: %llu", m->atomics);
    cr_assert_str_eq(m->kernel, "barriers_and_atomics");
    cr_assert_eq(m->grid[0], 4);
    cr_assert_eq(m->block[0], 64);
}

Test(metrics, the_roofline_estimate_uses_the_counts, .timeout = 20, .init = enable)
{
    int n = 1 << 16;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float)), cudaMalloc(&out, n * sizeof(float));
    sim_declare_flops(0);
    copy_with_stride<<<n / 256, 256>>>(in, out, 1);
    const sim_launch_metrics *m = sim_metrics_get(-1);
    const char *bound = NULL;
    double seconds = sim_roofline_estimate_seconds(m, "h100-sxm", &bound);
    cr_assert_float_eq(seconds, 2.0 * n * 4 / 3350e9, 1e-15, "8 bytes per element at 3350 GB/s: %g s", seconds);
    cr_assert_str_eq(bound, "memory");
    sim_declare_flops(1e12);
    copy_with_stride<<<n / 256, 256>>>(in, out, 1);
    seconds = sim_roofline_estimate_seconds(sim_metrics_get(-1), "h100-sxm", &bound);
    cr_assert_float_eq(seconds, 1e12 / 66.9e12, 1e-12, "declared FLOPs at the FP32 peak");
    cr_assert_str_eq(bound, "compute");
    cr_assert(sim_roofline_estimate_seconds(m, "no-such-gpu", &bound) < 0, "an unknown GPU has no estimate");
}

Test(metrics, nothing_is_counted_unless_asked, .timeout = 20)
{
    sim_metrics_enable(0);
    float *in, *out;
    cudaMalloc(&in, 1024 * sizeof(float)), cudaMalloc(&out, 1024 * sizeof(float));
    copy_with_stride<<<4, 256>>>(in, out, 1);
    cr_assert_eq(sim_metrics_count(), 0);
}

/* Lanes that part ways: the odd lanes load in a branch, then every lane loads again. */
__global__ void odd_lanes_load_more(const float *in, float *out)
{
    int t = threadIdx.x;
    float x = 0;
    if (t % 2) x = in[32 + t];   /* 16 lanes, every other float of 128 bytes: 4 sectors */
    x += in[t];                  /* all 32 lanes: 4 sectors */
    out[t] = x;
}

Test(metrics, lanes_that_part_ways_still_share_requests, .timeout = 20, .init = enable)
{
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float)), cudaMalloc(&out, 32 * sizeof(float));
    odd_lanes_load_more<<<1, 32>>>(in, out);
    const sim_launch_metrics *m = sim_metrics_get(-1);
    cr_assert_eq(m->global_load_requests, 2, "one request each: %llu", m->global_load_requests);
    cr_assert_eq(m->global_load_sectors, 8, "%llu", m->global_load_sectors);
    cr_assert_eq(m->global_load_bytes, (16 + 32) * 4, "%llu", m->global_load_bytes);
}

/* Lanes reading sectors (or words of one bank) far apart, in no order, some of them twice. */
__global__ void scattered(const float *in, float *out, int spread)
{
    __shared__ float s[32 * 32];
    int t = threadIdx.x, k = t * 7 % spread;   /* a permutation of 0 .. spread - 1, twice if spread is 16 */
    for (int i = t; i < 32 * 32; i += 32) s[i] = i;
    __syncthreads();
    out[t] = in[k * 64] + s[k * 32];           /* 256 bytes apart; all in bank 0 */
}

Test(metrics, scattered_lanes_count_each_unit_once, .timeout = 20, .init = enable)
{
    float *in, *out;
    cudaMalloc(&in, 32 * 64 * sizeof(float)), cudaMalloc(&out, 32 * sizeof(float));
    int spreads[] = {32, 16};
    for (int k = 0; k < 2; k++) {
        scattered<<<1, 32>>>(in, out, spreads[k]);
        const sim_launch_metrics *m = sim_metrics_get(-1);
        cr_assert_eq(m->global_load_requests, 1);
        cr_assert_eq(m->global_load_sectors, (unsigned)spreads[k], "spread %d: %llu sectors", spreads[k],
                     m->global_load_sectors);
        cr_assert_eq(m->shared_load_requests, 1);
        cr_assert_eq(m->shared_load_wavefronts, (unsigned)spreads[k], "spread %d: %llu wavefronts", spreads[k],
                     m->shared_load_wavefronts);
        cr_assert_eq(m->max_bank_conflict_ways, (unsigned)spreads[k]);
    }
}

/* One load instruction that reaches shared memory from some lanes and global memory from others. */
__device__ __noinline__ float load_through(const float *p) { return *p; }

__global__ void both_spaces(const float *in, float *out)
{
    __shared__ float s[32];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = load_through(t % 2 ? &in[t] : &s[t]);
}

Test(metrics, one_instruction_in_both_spaces, .timeout = 20, .init = enable)
{
    float *in, *out;
    cudaMalloc(&in, 32 * sizeof(float)), cudaMalloc(&out, 32 * sizeof(float));
    both_spaces<<<1, 32>>>(in, out);
    const sim_launch_metrics *m = sim_metrics_get(-1);
    cr_assert_eq(m->global_load_requests, 1, "%llu", m->global_load_requests);
    cr_assert_eq(m->global_load_sectors, 4, "%llu", m->global_load_sectors);
    cr_assert_eq(m->global_load_bytes, 16 * 4);
    cr_assert_eq(m->shared_load_requests, 1, "%llu", m->shared_load_requests);
    cr_assert_eq(m->shared_load_wavefronts, 1, "%llu", m->shared_load_wavefronts);
    cr_assert_eq(m->shared_load_bytes, 16 * 4);
}

/* The odd lanes go once more round a loop: their third load is a request of its own. */
__global__ void odd_lanes_loop_longer(const float *in, float *out)
{
    int t = threadIdx.x;
    float x = 0;
    for (int j = 0; j < 2 + t % 2; j++) x += in[32 * j + t];
    out[t] = x;
}

/* Two half-warps reading the same 16 floats: each word and sector once per request. */
__global__ void half_warps_read_one_row(const float *in, float *out)
{
    __shared__ float row[16];
    if (threadIdx.y == 0) row[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 16 + threadIdx.x] = row[threadIdx.x] + in[threadIdx.x];
}

Test(metrics, repeats_and_longer_loops, .timeout = 20, .init = enable)
{
    float *in, *out;
    cudaMalloc(&in, 96 * sizeof(float)), cudaMalloc(&out, 32 * sizeof(float));
    odd_lanes_loop_longer<<<1, 32>>>(in, out);
    const sim_launch_metrics *m = sim_metrics_get(-1);
    cr_assert_eq(m->global_load_requests, 3, "%llu", m->global_load_requests);
    cr_assert_eq(m->global_load_sectors, 12, "%llu", m->global_load_sectors);
    cr_assert_eq(m->global_load_bytes, (32 + 32 + 16) * 4, "%llu", m->global_load_bytes);
    half_warps_read_one_row<<<1, dim3(16, 2)>>>(in, out);
    m = sim_metrics_get(-1);
    cr_assert_eq(m->shared_load_requests, 1);
    cr_assert_eq(m->shared_load_wavefronts, 1, "16 words, each read twice: %llu", m->shared_load_wavefronts);
    cr_assert_eq(m->global_load_requests, 2);
    cr_assert_eq(m->global_load_sectors, 2 + 2, "%llu", m->global_load_sectors);
}
