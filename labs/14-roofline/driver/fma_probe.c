/* fma_probe.c — Day 14 driver: what one core's FP32 peak should be, and how to time the
 * probe that measures it. Do not edit.
 *
 * The derived peak is the datasheet arithmetic for a CPU core: the clock the OS reports x the
 * SIMD lanes of one FMA instruction x 2 FLOPs (a multiply and an add) x 2 FMA pipes (every
 * current x86 core has two). The measured one comes from your fma_peak_run, timed side by side
 * with the probes below: the same FMAs in 1, 2, 4, 8 and 12 independent chains, the 12 the
 * reference your probe is held to, the fewer the measurements your prediction is held to. */
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"

/* `chains` accumulators, each updated once an iteration: every FMA of a chain needs the result
 * of the one before, so one chain waits the FMA's latency between them; the chains do not wait
 * for each other. The inner loop's trip count is a constant, so the accumulators stay in
 * registers. */
#define FMA_CHAINS_RUN(chains)                                                                                 \
    static SIMD_TARGET double fma_##chains##_chains_run(long iterations, float start, float multiplier,      \
                                                       float addend, float *lane_sum)                         \
    {                                                                                                         \
        simd_floats acc[chains], m = simd_broadcast(multiplier), k = simd_broadcast(addend);                  \
        for (int c = 0; c < chains; c++) acc[c] = simd_broadcast(start);                                      \
        for (long i = 0; i < iterations; i++)                                                                 \
            for (int c = 0; c < chains; c++) acc[c] = acc[c] * m + k;                                         \
        simd_floats total = acc[0];                                                                           \
        for (int c = 1; c < chains; c++) total += acc[c];                                                     \
        *lane_sum = simd_sum_lanes(total);                                                                    \
        return 2.0 * SIMD_FLOATS * chains * (double)iterations;                                               \
    }
FMA_CHAINS_RUN(1)
FMA_CHAINS_RUN(2)
FMA_CHAINS_RUN(4)
FMA_CHAINS_RUN(8)
FMA_CHAINS_RUN(12)
_Static_assert(REFERENCE_CHAINS == 12, "the reference probe is fma_12_chains_run");

fma_probe fma_chains_probe(int chains)
{
    switch (chains) {
    case 1: return fma_1_chains_run;
    case 2: return fma_2_chains_run;
    case 4: return fma_4_chains_run;
    case 8: return fma_8_chains_run;
    case REFERENCE_CHAINS: return fma_12_chains_run;
    default: return NULL;
    }
}

int simd_target_supported(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 1;
#endif
}

int simd_hardware_lanes(void)
{
#if defined(__x86_64__)
    return 8;   /* SIMD_TARGET is AVX2: 256-bit registers */
#else
    return 4;   /* 128-bit (NEON): an 8-float vector is two instructions */
#endif
}

/* cpufreq's maximum (kHz) is the clock the core may boost to; a VM or a container often has
 * no cpufreq, and then /proc/cpuinfo's "cpu MHz" is the clock the hypervisor reports. */
double os_clock_ghz(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    double khz = 0;
    if (f) {
        if (fscanf(f, "%lf", &khz) != 1) khz = 0;
        fclose(f);
        if (khz > 0) return khz / 1e6;
    }
    double best_mhz = 0;
    char line[512];
    f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        double mhz;
        if (strncmp(line, "cpu MHz", 7) == 0 && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1 && mhz > best_mhz)
            best_mhz = mhz;
    }
    if (f) fclose(f);
    return best_mhz / 1e3;
}

double derived_peak_flop_per_s(void)
{
    const double flops_per_fma_lane = 2, fma_pipes = 2;
    return os_clock_ghz() * 1e9 * simd_hardware_lanes() * flops_per_fma_lane * fma_pipes;
}

/* Grows the iteration count until one run takes a quarter of `seconds`, then scales it to
 * `seconds`. */
static long iterations_for(fma_probe probe, double seconds)
{
    long iterations = 1 << 12;
    float lane_sum;
    for (;;) {
        double start = lab_now_seconds();
        probe(iterations, 0.5f, 0.999999f, 1e-6f, &lane_sum);
        double elapsed = lab_now_seconds() - start;
        if (elapsed >= seconds / 4 || iterations > (1L << 36))
            return (long)((double)iterations * seconds / (elapsed > 0 ? elapsed : 1e-9)) + 1;
        iterations *= 4;
    }
}

static double rate_of_one_run(fma_probe probe, long iterations)
{
    float lane_sum;
    double start = lab_now_seconds();
    double flops = probe(iterations, 0.5f, 0.999999f, 1e-6f, &lane_sum);
    return flops / (lab_now_seconds() - start);
}

/* The best of several runs: the machine's capability, not its neighbours'. */
double best_fma_rate(fma_probe probe, double seconds, int repeats)
{
    long iterations = iterations_for(probe, seconds);
    double best = 0;
    for (int r = 0; r < repeats; r++) best = fmax(best, rate_of_one_run(probe, iterations));
    return best;
}

void best_fma_rates_side_by_side(fma_probe a, fma_probe b, double seconds, int rounds, double *rate_a,
                                 double *rate_b)
{
    long iterations_a = iterations_for(a, seconds), iterations_b = iterations_for(b, seconds);
    *rate_a = *rate_b = 0;
    for (int r = 0; r < rounds; r++) {
        *rate_a = fmax(*rate_a, rate_of_one_run(a, iterations_a));
        *rate_b = fmax(*rate_b, rate_of_one_run(b, iterations_b));
    }
}
