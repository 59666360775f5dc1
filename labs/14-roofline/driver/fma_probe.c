/* fma_probe.c — Day 14 driver: what one core's FP32 peak should be, and how to time the
 * probe that measures it. Do not edit.
 *
 * The derived peak is the datasheet arithmetic for a CPU core: the clock the OS reports x the
 * SIMD lanes of one FMA instruction x 2 FLOPs (a multiply and an add) x 2 FMA pipes (every
 * current x86 core has two). The measured one comes from your fma_peak_run; the single
 * dependent chain below is what it is compared with, side by side in the same run. */
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"

/* One chain: every FMA needs the result of the one before, so the core waits the FMA's
 * latency (4 cycles on most current cores) between them, whatever its throughput. */
SIMD_TARGET double fma_one_chain_run(long iterations, float start, float multiplier, float addend, float *lane_sum)
{
    simd_floats acc = simd_broadcast(start), m = simd_broadcast(multiplier), k = simd_broadcast(addend);
    for (long i = 0; i < iterations; i++) acc = acc * m + k;
    *lane_sum = simd_sum_lanes(acc);
    return 2.0 * SIMD_FLOATS * (double)iterations;
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

/* Grows the iteration count until one run takes a quarter of `seconds`, scales it to `seconds`,
 * then keeps the best rate of `repeats` runs: the machine's capability, not its neighbours'. */
double best_fma_rate(fma_probe probe, double seconds, int repeats)
{
    long iterations = 1 << 12;
    float lane_sum;
    for (;;) {
        double start = lab_now_seconds();
        probe(iterations, 0.5f, 0.999999f, 1e-6f, &lane_sum);
        double elapsed = lab_now_seconds() - start;
        if (elapsed >= seconds / 4 || iterations > (1L << 36)) {
            iterations = (long)((double)iterations * seconds / (elapsed > 0 ? elapsed : 1e-9)) + 1;
            break;
        }
        iterations *= 4;
    }
    double best = 0;
    for (int r = 0; r < repeats; r++) {
        double start = lab_now_seconds();
        double flops = probe(iterations, 0.5f, 0.999999f, 1e-6f, &lane_sum);
        double rate = flops / (lab_now_seconds() - start);
        if (rate > best) best = rate;
    }
    return best;
}
