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
