/* roofline.c — Day 14: the roofline model, and the peak that gives this CPU its ceiling.
 *
 * What you write today:
 *   1. The roofline of a machine from its datasheet (TFLOP/s and GB/s, as data/gpus.csv has
 *      them): its ridge point, the attainable FLOP/s at an intensity, the least time a kernel
 *      can take, and whether it is memory-bound.
 *   2. fma_predicted_flop_per_s: the prediction, before anything is timed, of the rate of a
 *      number of independent FMA chains on one core.
 *   3. fma_peak_run: this core's FP32 peak. It ships as one chain, correct and slow; the
 *      checks time it beside the driver's 12-chain reference and want it as fast.
 *
 * Rules: plain C and the SIMD type of lab.h (simd_floats, simd_broadcast, simd_sum_lanes); no
 * intrinsics, no threads, no libraries. Every lane of every chain starts at `start` and does
 * acc = acc * multiplier + addend; keep the result alive through *lane_sum.
 *
 * Check:  make check DAY=14        Stuck?  make hint DAY=14
 */
#include "lab.h"

#include <math.h>

roofline roofline_from_datasheet(double peak_tflop_per_s, double bandwidth_gb_per_s)
{
    roofline machine = {peak_tflop_per_s * 1e12, bandwidth_gb_per_s * 1e9};
    return machine;
}

double roofline_ridge_point(roofline machine)
{
    return machine.peak_flop_per_s / machine.bandwidth_byte_per_s;   /* FLOP/s over byte/s: FLOP/byte */
}

double roofline_attainable(roofline machine, double intensity)
{
    double memory_roof = intensity * machine.bandwidth_byte_per_s;   /* what the bytes can feed */
    return fmin(memory_roof, machine.peak_flop_per_s);
}

double roofline_predicted_seconds(roofline machine, double flops, double bytes)
{
    double compute_seconds = flops / machine.peak_flop_per_s, memory_seconds = bytes / machine.bandwidth_byte_per_s;
    return fmax(compute_seconds, memory_seconds);   /* the two overlap */
}

int roofline_is_memory_bound(roofline machine, double intensity)
{
    return intensity < roofline_ridge_point(machine);
}

double fma_predicted_flop_per_s(int chains, int latency_cycles, int pipes, int lanes, double clock_ghz)
{
    /* Little's law: in flight / latency, and no more than the pipes can start */
    double fmas_per_cycle = fmin((double)chains / latency_cycles, pipes);
    return fmas_per_cycle * lanes * 2 * clock_ghz * 1e9;   /* an FMA is 2 FLOPs a lane */
}

/* Chains needed = FMA latency x FMA pipes: 4 cycles x 2 = 8 in flight on current cores; 12
 * leaves room for a core with a longer latency, and 12 accumulators fit in 16 registers. */
enum { FMA_CHAINS = 12 };

SIMD_TARGET double fma_peak_run(long iterations, float start, float multiplier, float addend, float *lane_sum)
{
    simd_floats acc[FMA_CHAINS], m = simd_broadcast(multiplier), k = simd_broadcast(addend);
    for (int c = 0; c < FMA_CHAINS; c++) acc[c] = simd_broadcast(start);
    for (long i = 0; i < iterations; i++)
        for (int c = 0; c < FMA_CHAINS; c++) acc[c] = acc[c] * m + k;   /* independent of each other */
    simd_floats total = simd_broadcast(0);
    for (int c = 0; c < FMA_CHAINS; c++) total += acc[c];
    *lane_sum = simd_sum_lanes(total);
    return 2.0 * SIMD_FLOATS * FMA_CHAINS * (double)iterations;
}
