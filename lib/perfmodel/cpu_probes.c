/* cpu_probes.c — STREAM's kernels and the FMA-chain peak probe of cpu_probes.h.
 *
 * The kernels use the engine's SIMD type (lanes.h) so that the compiler cannot leave any
 * of them scalar: the read kernel keeps 4 independent vector sums (one would be bound by
 * the add's latency, not by memory) and asks for its lines ahead as the engine's decode
 * rows do (lanes.h's prefetch_stream_line: without, the engine's kernels read faster than
 * the probe of their bound), and the FMA probe keeps `chains` vector accumulators in
 * registers. Results are kept alive through a volatile sink so that no loop is removed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpu_probes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../simd/lanes.h"

static volatile float sink;

/* The calling thread's CPU time: on a machine shared with other programs, the time they hold
 * the core is not counted (on a quiet machine it is the wall clock). The engine's bench
 * (tests/llama/decode_bench.c) times its decode steps by the same clock, so that its
 * fractions of these bounds compare like with like. */
static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ----------------------------------------------------------------------------------
 * STREAM */

const char *perfmodel_stream_kernel_name(perfmodel_stream_kernel kernel)
{
    static const char *names[] = {"read", "copy", "scale", "add", "triad"};
    return kernel >= STREAM_READ && kernel <= STREAM_TRIAD ? names[kernel] : "unknown";
}

int perfmodel_stream_arrays(perfmodel_stream_kernel kernel) { return kernel == STREAM_READ ? 1 : kernel <= STREAM_SCALE ? 2 : 3; }

int perfmodel_stream_bytes_per_element(perfmodel_stream_kernel kernel) { return 4 * perfmodel_stream_arrays(kernel); }

float perfmodel_stream_read(const float *a, size_t n)
{
    simd_float_lanes s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    size_t i = 0;
    for (; i + 4 * LANES <= n; i += 4 * LANES) {
        for (int line = 0; line < 4 * LANES; line += CACHE_LINE_BYTES / (int)sizeof(float)) prefetch_stream_line(a + i + line);
        s0 += load_floats(a + i);
        s1 += load_floats(a + i + LANES);
        s2 += load_floats(a + i + 2 * LANES);
        s3 += load_floats(a + i + 3 * LANES);
    }
    float total = sum_lanes(s0 + s1 + s2 + s3);
    for (; i < n; i++) total += a[i];
    return total;
}

static void run_stream(perfmodel_stream_kernel kernel, float *a, float *b, float *c, size_t n)
{
    const float q = 3.0f;
    switch (kernel) {
    case STREAM_READ: sink = perfmodel_stream_read(a, n); return;
    case STREAM_COPY: for (size_t i = 0; i < n; i++) c[i] = a[i]; break;
    case STREAM_SCALE: for (size_t i = 0; i < n; i++) b[i] = q * c[i]; break;
    case STREAM_ADD: for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i]; break;
    case STREAM_TRIAD: for (size_t i = 0; i < n; i++) a[i] = b[i] + q * c[i]; break;
    }
    sink = a[n / 2] + b[n / 3] + c[n / 5];
}

static float *allocate_array(size_t n)
{
    void *memory = NULL;
    size_t bytes = n * sizeof(float);
    if (posix_memalign(&memory, 2u << 20, bytes) != 0) return NULL;
    madvise(memory, bytes, MADV_HUGEPAGE);   /* as the engine's weights: the same TLB behaviour */
    return memory;
}

double perfmodel_stream_bandwidth(perfmodel_stream_kernel kernel, size_t working_set_bytes, int repeats)
{
    int arrays = perfmodel_stream_arrays(kernel);
    size_t n = working_set_bytes / (size_t)arrays / sizeof(float);
    if (n < 4 * LANES) n = 4 * LANES;
    float *a = allocate_array(n), *b = arrays > 1 ? allocate_array(n) : a, *c = arrays > 1 ? allocate_array(n) : a;
    if (!a || !b || !c) {
        free(a);
        if (arrays > 1) free(b), free(c);
        return -1.0;
    }
    for (size_t i = 0; i < n; i++) a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.5f;   /* touch every page before timing */
    run_stream(kernel, a, b, c, n);
    double best = 1e30;
    for (int r = 0; r < (repeats < 1 ? 1 : repeats); r++) {
        double start = seconds_now();
        run_stream(kernel, a, b, c, n);
        double elapsed = seconds_now() - start;
        if (elapsed < best) best = elapsed;
    }
    free(a);
    if (arrays > 1) free(b), free(c);
    return (double)n * perfmodel_stream_bytes_per_element(kernel) / best;
}

/* ----------------------------------------------------------------------------------
 * Peak FLOP/s: `chains` accumulators, each updated acc = acc * m + k, m just below 1 so
 * the values stay finite however long it runs. Each chain waits for its previous FMA; the
 * chains are independent, so the core overlaps them. */

ALWAYS_INLINE double run_chains(int chains, long iterations)
{
    simd_float_lanes acc[16], m, k;
    for (int l = 0; l < LANES; l++) m[l] = 0.999999f, k[l] = 1e-6f;
    for (int c = 0; c < chains; c++)
        for (int l = 0; l < LANES; l++) acc[c][l] = (float)(c + l);
    for (long i = 0; i < iterations; i++)
        for (int c = 0; c < chains; c++) acc[c] = acc[c] * m + k;
    simd_float_lanes total = acc[0];
    for (int c = 1; c < chains; c++) total += acc[c];
    sink = sum_lanes(total);
    return 2.0 * LANES * chains * (double)iterations;   /* an FMA is 2 FLOPs a lane */
}

static double run_chains_any(int chains, long iterations)
{
    switch (chains) {
    case 1: return run_chains(1, iterations);
    case 2: return run_chains(2, iterations);
    case 3: return run_chains(3, iterations);
    case 4: return run_chains(4, iterations);
    case 5: return run_chains(5, iterations);
    case 6: return run_chains(6, iterations);
    case 7: return run_chains(7, iterations);
    case 8: return run_chains(8, iterations);
    case 9: return run_chains(9, iterations);
    case 10: return run_chains(10, iterations);
    case 11: return run_chains(11, iterations);
    case 12: return run_chains(12, iterations);
    case 13: return run_chains(13, iterations);
    case 14: return run_chains(14, iterations);
    case 15: return run_chains(15, iterations);
    default: return run_chains(16, iterations);
    }
}

/* Runs `run(parameter, iterations)`, which returns the FLOPs it did, with enough iterations to
 * take about `seconds`, then returns the best FLOP rate of `repeats` runs. */
static double best_flop_rate(double (*run)(int parameter, long iterations), int parameter, long iterations,
                             double seconds, int repeats)
{
    for (;;) {                          /* calibrate the iteration count */
        double start = seconds_now();
        run(parameter, iterations);
        double elapsed = seconds_now() - start;
        if (elapsed >= seconds / 4 || iterations > (1L << 40)) {
            iterations = (long)((double)iterations * seconds / (elapsed > 0 ? elapsed : 1e-9)) + 1;
            break;
        }
        iterations *= 4;
    }
    double best = 0.0;
    for (int r = 0; r < (repeats < 1 ? 1 : repeats); r++) {
        double start = seconds_now();
        double flops = run(parameter, iterations);
        double rate = flops / (seconds_now() - start);
        if (rate > best) best = rate;
    }
    return best;
}

double perfmodel_fma_flops(int chains, double seconds, int repeats)
{
    if (chains < 1) chains = 1;
    if (chains > 16) chains = 16;
    return best_flop_rate(run_chains_any, chains, 1 << 16, seconds, repeats);
}

int perfmodel_peak_chains(void) { return LANES == 16 ? 16 : 12; }

double perfmodel_peak_fp32_flops(void) { return perfmodel_fma_flops(perfmodel_peak_chains(), 0.05, 3); }

/* ----------------------------------------------------------------------------------
 * The compute ceiling of weight-only INT8 on a CPU: every FMA first converts a register of
 * weights from int8 to float (sign-extend, then convert), two instructions beside the FMA.
 * Eight independent chains, each reading its own int8 vectors from an L1-resident block.
 * The block's offset wraps with a compare, not a remainder: `(offset + 128) % 3968` is a
 * multiply and shifts that each pass waits for, which held this probe well below the rate a
 * core converts at (data/measured/cpu/engine-kernels.md). */

static double run_dequantizing_chains(int unused, long iterations)
{
    (void)unused;
    enum { CHAINS = 8, BLOCK = 4096 };
    static int8_t weights[BLOCK];
    for (int i = 0; i < BLOCK; i++) weights[i] = (int8_t)(i * 37 % 255 - 127);
    simd_float_lanes acc[CHAINS] = {{0}}, x;
    for (int l = 0; l < LANES; l++) x[l] = 1e-6f * (float)(l + 1);
    int offset = 0;
    for (long i = 0; i < iterations; i++) {
        for (int c = 0; c < CHAINS; c++) acc[c] += load_int8_as_floats(weights + offset + c * LANES) * x;
        offset += CHAINS * LANES;
        if (offset > BLOCK - CHAINS * LANES) offset = 0;
    }
    simd_float_lanes total = acc[0];
    for (int c = 1; c < CHAINS; c++) total += acc[c];
    sink = sum_lanes(total);
    return 2.0 * LANES * CHAINS * (double)iterations;
}

double perfmodel_dequantizing_fma_flops(double seconds, int repeats)
{
    return best_flop_rate(run_dequantizing_chains, 0, 1 << 14, seconds, repeats);
}

int perfmodel_simd_float_lanes(void) { return LANES; }
