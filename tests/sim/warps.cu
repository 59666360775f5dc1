/* warps.cu — tests of warp collectives, atomics and the FP16/BF16 conversions against
 * hand-computed results and an independent rounding reference. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string>

#define FULL 0xffffffffu

static std::string captured_stderr()
{
    fflush(stderr);
    std::string text;
    char buffer[4096];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, cr_get_redirected_stderr())) > 0;) text.append(buffer, n);
    return text;
}

/* Runs kernel(out) on one block of `threads` and returns out[0..threads). */
template <typename K> static void run(K kernel, int threads, int *host)
{
    int *out;
    cudaMalloc(&out, threads * sizeof(int));
    kernel<<<1, threads>>>(out);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "the kernel failed");
    cudaMemcpy(host, out, threads * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(out);
}

/* ---------------------------------------------------------------------------------
 * Shuffles */

__global__ void broadcast_lane_5(int *out) { out[threadIdx.x] = __shfl_sync(FULL, (int)threadIdx.x * 10, 5); }
__global__ void segments_of_8(int *out) { out[threadIdx.x] = __shfl_sync(FULL, (int)threadIdx.x, 3, 8); }
__global__ void up_by_3(int *out) { out[threadIdx.x] = __shfl_up_sync(FULL, (int)threadIdx.x, 3); }
__global__ void up_by_3_width_16(int *out) { out[threadIdx.x] = __shfl_up_sync(FULL, (int)threadIdx.x, 3, 16); }
__global__ void down_by_4(int *out) { out[threadIdx.x] = __shfl_down_sync(FULL, (int)threadIdx.x, 4); }
__global__ void xor_8_width_8(int *out) { out[threadIdx.x] = __shfl_xor_sync(FULL, (int)threadIdx.x, 8, 8); }
__global__ void xor_8_width_16(int *out) { out[threadIdx.x] = __shfl_xor_sync(FULL, (int)threadIdx.x, 8, 16); }

Test(shuffles, index_up_down_xor_with_widths, .timeout = 10)
{
    int got[64];
    run(broadcast_lane_5, 64, got);
    for (int t = 0; t < 64; t++) cr_assert_eq(got[t], (t / 32 * 32 + 5) * 10, "broadcast: thread %d got %d", t, got[t]);
    run(segments_of_8, 32, got);
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], t / 8 * 8 + 3, "width 8: lane %d got %d", t, got[t]);
    run(up_by_3, 32, got);
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], t < 3 ? t : t - 3, "up 3: lane %d got %d", t, got[t]);
    run(up_by_3_width_16, 32, got);
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], t % 16 < 3 ? t : t - 3, "up 3 width 16: lane %d got %d", t, got[t]);
    run(down_by_4, 32, got);
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], t + 4 < 32 ? t + 4 : t, "down 4: lane %d got %d", t, got[t]);
    run(xor_8_width_8, 32, got);
    /* lane ^ 8 lies in the next segment of 8 for lanes 0-7, 16-23: they keep their own value. */
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], (t & 8) ? t ^ 8 : t, "xor 8 width 8: lane %d got %d", t, got[t]);
    run(xor_8_width_16, 32, got);
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], t ^ 8, "xor 8 width 16: lane %d got %d", t, got[t]);
}

__global__ void warp_sums(int *out)
{
    int value = threadIdx.x, butterfly = threadIdx.x;
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(FULL, value, offset);
    for (int mask = 16; mask > 0; mask /= 2) butterfly += __shfl_xor_sync(FULL, butterfly, mask);
    out[threadIdx.x] = threadIdx.x == 0 ? value : butterfly;
}

Test(shuffles, reductions, .timeout = 10)
{
    int got[32];
    run(warp_sums, 32, got);
    cr_assert_eq(got[0], 496, "tree reduction with __shfl_down_sync: %d", got[0]);
    for (int t = 1; t < 32; t++) cr_assert_eq(got[t], 496, "butterfly with __shfl_xor_sync: lane %d got %d", t, got[t]);
}

__global__ void shuffle_types(double *d, float *f, long long *l)
{
    double dv = 1.0 / (threadIdx.x + 3);
    float fv = -1.0f / (threadIdx.x + 7);
    long long lv = (long long)threadIdx.x << 40;
    d[threadIdx.x] = __shfl_sync(FULL, dv, 31 - threadIdx.x);
    f[threadIdx.x] = __shfl_sync(FULL, fv, 31 - threadIdx.x);
    l[threadIdx.x] = __shfl_sync(FULL, lv, 31 - threadIdx.x);
}

Test(shuffles, doubles_floats_and_64_bit_integers_keep_their_bits, .timeout = 10)
{
    double *d, hd[32];
    float *f, hf[32];
    long long *l, hl[32];
    cudaMalloc(&d, sizeof hd), cudaMalloc(&f, sizeof hf), cudaMalloc(&l, sizeof hl);
    shuffle_types<<<1, 32>>>(d, f, l);
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost), cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hl, l, sizeof hl, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 32; t++) {
        cr_assert(hd[t] == 1.0 / (31 - t + 3));
        cr_assert(hf[t] == -1.0f / (31 - t + 7));
        cr_assert(hl[t] == (long long)(31 - t) << 40);
    }
}

__global__ void half_warp_only(int *out)
{
    out[threadIdx.x] = -1;
    if (threadIdx.x < 16) out[threadIdx.x] = __shfl_sync(0x0000ffffu, (int)threadIdx.x + 100, 15);
}

Test(shuffles, a_partial_mask_leaves_the_other_lanes_alone, .timeout = 10)
{
    int got[32];
    run(half_warp_only, 32, got);
    for (int t = 0; t < 32; t++) cr_assert_eq(got[t], t < 16 ? 115 : -1, "lane %d got %d", t, got[t]);
}

__global__ void shuffle_after_half_returned(int *out)
{
    if (threadIdx.x >= 16) return;
    out[threadIdx.x] = __shfl_sync(FULL, 1, 0);
}
__global__ void mask_without_self(int *out)
{
    if (threadIdx.x == 3) out[0] = __shfl_sync(0x1u, 1, 0);
}
__global__ void full_mask_in_partial_warp(int *out) { out[threadIdx.x] = __shfl_down_sync(FULL, 1, 1); }
__global__ void active_mask_in_partial_warp(int *out)
{
    /* width 16: lane 15 keeps its own value instead of reading lane 16, which does not exist */
    out[threadIdx.x] = __popc(__activemask()) * 100 + __shfl_down_sync(__activemask(), (int)threadIdx.x, 1, 16);
}

Test(shuffles, impossible_collectives_are_reported, .timeout = 10, .init = cr_redirect_stderr)
{
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    shuffle_after_half_returned<<<1, 32>>>(out);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchFailure);
    cudaDeviceReset();
    cudaMalloc(&out, 64 * sizeof(int));
    mask_without_self<<<1, 32>>>(out);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchFailure);
    cudaDeviceReset();
    cudaMalloc(&out, 64 * sizeof(int));
    full_mask_in_partial_warp<<<1, 48>>>(out);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchFailure);
    cudaDeviceReset();
    std::string message = captured_stderr();
    cr_assert(message.find("has already returned") != std::string::npos, "%s", message.c_str());
    cr_assert(message.find("does not name it") != std::string::npos, "%s", message.c_str());
    cr_assert(message.find("this warp has only 16 threads") != std::string::npos, "%s", message.c_str());
}

Test(shuffles, activemask_in_a_partial_warp, .timeout = 10)
{
    int got[48];
    run(active_mask_in_partial_warp, 48, got);
    for (int t = 32; t < 48; t++) cr_assert_eq(got[t], 1600 + (t < 47 ? t + 1 : t), "thread %d got %d", t, got[t]);
}

/* ---------------------------------------------------------------------------------
 * Votes */

__global__ void votes(int *out)
{
    unsigned ballot = __ballot_sync(FULL, threadIdx.x % 3 == 0);
    int any = __any_sync(FULL, threadIdx.x == 17), all = __all_sync(FULL, threadIdx.x < 32);
    int none = __any_sync(FULL, 0), not_all = __all_sync(FULL, threadIdx.x != 4);
    out[threadIdx.x] = threadIdx.x == 0 ? (int)ballot : any * 1000 + all * 100 + none * 10 + not_all;
}

Test(votes, ballot_any_all, .timeout = 10)
{
    int got[32];
    run(votes, 32, got);
    unsigned want = 0;
    for (int t = 0; t < 32; t += 3) want |= 1u << t;
    cr_assert_eq((unsigned)got[0], want, "ballot 0x%08x, want 0x%08x", (unsigned)got[0], want);
    for (int t = 1; t < 32; t++) cr_assert_eq(got[t], 1100, "any/all: lane %d got %d", t, got[t]);
}

/* ---------------------------------------------------------------------------------
 * Atomics */

__global__ void integer_atomics(int *i, unsigned *u, unsigned long long *ull, long long *ll)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&i[0], 1);
    atomicSub(&i[1], 2);
    atomicMax(&i[2], t * 7 % 1000);
    atomicMin(&i[3], 500 - t);
    atomicOr(&u[0], 1u << (t % 32));
    atomicAnd(&u[1], ~(1u << (t % 16)));
    atomicXor(&u[2], 1u);
    atomicInc(&u[3], 9u);
    atomicDec(&u[4], 9u);
    atomicAdd(&ull[0], 1ull << 33);
    atomicMax(&ll[0], -(long long)t);
    int seen = atomicCAS(&i[4], t - 1, t);   /* a chain: each thread succeeds only after t - 1 */
    (void)seen;
    atomicExch(&i[5], 42);
}

Test(atomics, integers, .timeout = 10)
{
    int *i, hi[6] = {0, 0, -1, 1 << 30, 0, 0};
    unsigned *u, hu[5] = {0, 0xffffffffu, 0, 0, 0};
    unsigned long long *ull, hull = 0;
    long long *ll, hll = -1000;
    cudaMalloc(&i, sizeof hi), cudaMalloc(&u, sizeof hu), cudaMalloc(&ull, 8), cudaMalloc(&ll, 8);
    cudaMemcpy(i, hi, sizeof hi, cudaMemcpyHostToDevice), cudaMemcpy(u, hu, sizeof hu, cudaMemcpyHostToDevice);
    cudaMemcpy(ull, &hull, 8, cudaMemcpyHostToDevice), cudaMemcpy(ll, &hll, 8, cudaMemcpyHostToDevice);
    integer_atomics<<<4, 250>>>(i, u, ull, ll);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(hi, i, sizeof hi, cudaMemcpyDeviceToHost), cudaMemcpy(hu, u, sizeof hu, cudaMemcpyDeviceToHost);
    cudaMemcpy(&hull, ull, 8, cudaMemcpyDeviceToHost), cudaMemcpy(&hll, ll, 8, cudaMemcpyDeviceToHost);
    cr_assert_eq(hi[0], 1000, "atomicAdd: %d", hi[0]);
    cr_assert_eq(hi[1], -2000, "atomicSub: %d", hi[1]);
    cr_assert_eq(hi[2], 999, "atomicMax: %d", hi[2]);
    cr_assert_eq(hi[3], 500 - 999, "atomicMin: %d", hi[3]);
    cr_assert_eq(hu[0], 0xffffffffu, "atomicOr: 0x%x", hu[0]);
    cr_assert_eq(hu[1], 0xffff0000u, "atomicAnd: 0x%x", hu[1]);
    cr_assert_eq(hu[2], 0u, "atomicXor 1000 times: %u", hu[2]);
    cr_assert_eq(hu[3], 1000u % 10u, "atomicInc wraps at 9: %u", hu[3]);
    cr_assert_eq(hu[4], (10u - 1000u % 10u) % 10u, "atomicDec wraps to 9: %u", hu[4]);
    cr_assert_eq(hull, 1000ull << 33, "64-bit atomicAdd");
    cr_assert_eq(hll, 0, "atomicMax on long long: %lld", hll);
    cr_assert_eq(hi[4], 999, "the atomicCAS chain ends at the last thread: %d", hi[4]);
    cr_assert_eq(hi[5], 42);
}

__global__ void float_atomics(float *f, double *d)
{
    atomicAdd(f, 0.5f);
    atomicAdd(d, 0.25);
    __shared__ int counter;
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
    atomicAdd(&counter, 1);   /* many threads, one shared word, one interval: not a race */
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(f + 1, (float)counter);
}

Test(atomics, floats_doubles_and_shared_memory, .timeout = 10)
{
    float *f, hf[2] = {0, 0};
    double *d, hd = 0;
    cudaMalloc(&f, sizeof hf), cudaMalloc(&d, 8);
    cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice), cudaMemcpy(d, &hd, 8, cudaMemcpyHostToDevice);
    float_atomics<<<3, 128>>>(f, d);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost), cudaMemcpy(&hd, d, 8, cudaMemcpyDeviceToHost);
    cr_assert_eq(hf[0], 192.0f, "float atomicAdd: %g", hf[0]);
    cr_assert_eq(hd, 96.0, "double atomicAdd: %g", hd);
    cr_assert_eq(hf[1], 384.0f, "shared-memory atomicAdd: %g", hf[1]);
}

/* ---------------------------------------------------------------------------------
 * FP16 and BF16 conversions, against an independent reference: round in double with the
 * format's quantum (exact), half to even, with the format's overflow threshold. */

static unsigned short reference_round(float f, int mantissa_bits, int min_exponent, double largest, int exponent_bits)
{
    unsigned bits;
    memcpy(&bits, &f, 4);
    unsigned sign = bits >> 31;
    if (f != f) return 0x7fff;
    unsigned infinity = ((1u << exponent_bits) - 1) << mantissa_bits;
    if (isinf(f)) return (unsigned short)(sign << (mantissa_bits + exponent_bits) | infinity);
    double x = fabs((double)f);   /* finite from here: (int)floor(log2(x)) is defined (no cast of inf) */
    int exponent = x == 0 ? min_exponent : (int)floor(log2(x));
    if (exponent < min_exponent) exponent = min_exponent;
    double quantum = ldexp(1.0, exponent - mantissa_bits);
    double r = nearbyint(x / quantum) * quantum;      /* the FPU rounds half to even */
    unsigned magnitude;
    if (r > largest) {                                /* overflow: infinity */
        magnitude = ((1u << exponent_bits) - 1) << mantissa_bits;
    } else if (r == 0) {
        magnitude = 0;
    } else {
        int e = (int)floor(log2(r));
        if (e < min_exponent) magnitude = (unsigned)(r / ldexp(1.0, min_exponent - mantissa_bits));
        else magnitude = (unsigned)(e - min_exponent + 1) << mantissa_bits |
                         (unsigned)(r / ldexp(1.0, e - mantissa_bits) - ldexp(1.0, mantissa_bits));
    }
    return (unsigned short)(sign << (mantissa_bits + exponent_bits) | magnitude);
}

static void for_each_pattern_class(void (*check)(unsigned bits))
{
    /* Every exponent and leading mantissa (the top 16 bits), with low halves that make
     * exact values, ties for half (0x1000) and for bfloat16 (0x8000), and their neighbours. */
    const unsigned lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0xffff};
    for (unsigned high = 0; high < 0x10000; high++)
        for (unsigned k = 0; k < sizeof lows / sizeof lows[0]; k++) check(high << 16 | lows[k]);
}

static void check_half(unsigned bits)
{
    float f;
    memcpy(&f, &bits, 4);
    unsigned short got = __half_as_ushort(__float2half_rn(f)), want = reference_round(f, 10, -14, 65504.0, 5);
    cr_assert_eq(got, want, "__float2half_rn(0x%08x = %.9g) = 0x%04x, want 0x%04x", bits, f, got, want);
}

static void check_bfloat16(unsigned bits)
{
    float f;
    memcpy(&f, &bits, 4);
    double largest = ldexp(255.0, 127 - 7);
    unsigned short got = __bfloat16_as_ushort(__float2bfloat16_rn(f)), want = reference_round(f, 7, -126, largest, 8);
    cr_assert_eq(got, want, "__float2bfloat16_rn(0x%08x = %.9g) = 0x%04x, want 0x%04x", bits, f, got, want);
}

Test(conversions, float_to_half_round_to_nearest_even, .timeout = 60) { for_each_pattern_class(check_half); }
Test(conversions, float_to_bfloat16_round_to_nearest_even, .timeout = 60) { for_each_pattern_class(check_bfloat16); }

Test(conversions, every_half_and_bfloat16_survives_a_round_trip, .timeout = 30)
{
    for (unsigned h = 0; h < 0x10000; h++) {
        unsigned short bits = (unsigned short)h;
        int is_nan_half = (bits & 0x7fff) > 0x7c00, is_nan_bf16 = (bits & 0x7fff) > 0x7f80;
        unsigned short back = __half_as_ushort(__float2half_rn(__half2float(__ushort_as_half(bits))));
        cr_assert_eq(back, is_nan_half ? 0x7fff : bits, "half 0x%04x came back as 0x%04x", bits, back);
        back = __bfloat16_as_ushort(__float2bfloat16_rn(__bfloat162float(__ushort_as_bfloat16(bits))));
        cr_assert_eq(back, is_nan_bf16 ? 0x7fff : bits, "bfloat16 0x%04x came back as 0x%04x", bits, back);
    }
}

Test(conversions, known_values_and_directed_rounding, .timeout = 10)
{
    cr_assert_eq(__half_as_ushort(__float2half_rn(1.0f)), 0x3c00);
    cr_assert_eq(__half_as_ushort(__float2half_rn(65504.0f)), 0x7bff, "the largest half");
    cr_assert_eq(__half_as_ushort(__float2half_rn(65520.0f)), 0x7c00, "65520 rounds to infinity");
    cr_assert_eq(__half_as_ushort(__float2half_rz(65520.0f)), 0x7bff, "toward zero it stays finite");
    cr_assert_eq(__half_as_ushort(__float2half_rn(5.9604645e-8f)), 0x0001, "the smallest subnormal half");
    cr_assert_eq(__half_as_ushort(__float2half_rn(2.9802322e-8f)), 0x0000, "half of it is a tie: to even, 0");
    cr_assert_eq(__half_as_ushort(__float2half_ru(1e-30f)), 0x0001, "upward, any positive value is at least 2^-24");
    cr_assert_eq(__half_as_ushort(__float2half_rd(-1e-30f)), 0x8001);
    cr_assert_eq(__half_as_ushort(__float2half_rn(-INFINITY)), 0xfc00);
    cr_assert_eq(__half_as_ushort(__float2half_rn(-NAN)), 0x7fff, "every NaN becomes 0x7fff, as CUDA's does");
    cr_assert_eq(__bfloat16_as_ushort(__float2bfloat16_rn(1.00390625f)), 0x3f80, "1 + 2^-8 is a tie: to even");
    cr_assert_eq(__bfloat16_as_ushort(__float2bfloat16_rn(1.01171875f)), 0x3f82, "1 + 3 x 2^-8: tie to even, up");
    /* One rounding in __hfma: 1.01953125 x (2009 x 2^-22) + 1 = 1 + 2^-11 + 244 x 2^-32 lies just
     * above the tie between 1 and 1 + 2^-10, so it rounds up to 0x3c01; rounding first to
     * float lands on the tie and then rounds to even, 0x3c00. */
    cr_assert_eq(__half_as_ushort(__hfma(__ushort_as_half(0x3c14), __ushort_as_half(0x0fd9), __float2half(1.0f))), 0x3c01);
    cr_assert_eq(__half_as_ushort(__double2half(1.0 + ldexp(1.0, -11) + ldexp(1.0, -40))), 0x3c01,
                 "__double2half rounds once too");
    __half a = __float2half(0.1f), b = __float2half(0.2f);
    cr_assert_eq(__half_as_ushort(__hadd(a, b)), __half_as_ushort(__float2half((float)a + (float)b)));
    cr_assert_eq((float)__hfma(__float2half(2.0f), __float2half(3.0f), __float2half(1.0f)), 7.0f);
}
