/* roofline.c — Day 14: the roofline model, and the peak that gives this CPU its ceiling.
 *
 * What you write today:
 *   1. The roofline of a machine from its datasheet (TFLOP/s and GB/s, as data/gpus.csv has
 *      them), its ridge point, the attainable FLOP/s at an intensity, the least time a kernel
 *      can take, and whether it is memory-bound.
 *   2. fma_peak_run: enough independent chains of SIMD FMAs to keep both of this core's FMA
 *      pipes busy every cycle. The driver times it; one chain (given) reaches only a fraction.
 *
 * Rules: plain C and the SIMD type of lab.h (simd_floats, simd_broadcast, simd_sum_lanes); no
 * intrinsics, no threads, no libraries. Every lane of every chain starts at `start` and does
 * acc = acc * multiplier + addend; keep the result alive through *lane_sum.
 *
 * Check:  make check DAY=14        Stuck?  make hint DAY=14
 */
#include "lab.h"

roofline roofline_from_datasheet(double peak_tflop_per_s, double bandwidth_gb_per_s)
{
    // TODO: the struct holds base units: FLOP/s and byte/s.
    roofline machine = {peak_tflop_per_s, bandwidth_gb_per_s};
    return machine;
}

double roofline_ridge_point(roofline machine)
{
    // TODO: the intensity (FLOP/byte) at which the memory slope reaches the compute ceiling.
    (void)machine;
    return 0;
}

double roofline_attainable(roofline machine, double intensity)
{
    // TODO: a kernel is held down by whichever of its two limits is lower.
    (void)machine, (void)intensity;
    return 0;
}

double roofline_predicted_seconds(roofline machine, double flops, double bytes)
{
    // TODO: the time the FLOPs need at the peak, the time the bytes need at the bandwidth;
    //       a kernel overlaps the two, so which one is the least it can take?
    (void)machine, (void)flops, (void)bytes;
    return 0;
}

int roofline_is_memory_bound(roofline machine, double intensity)
{
    // TODO: 1 left of the ridge point, 0 at it and right of it.
    (void)machine, (void)intensity;
    return 0;
}

SIMD_TARGET double fma_peak_run(long iterations, float start, float multiplier, float addend, float *lane_sum)
{
    // TODO: this is one chain: each FMA waits for the one before, the latency of an FMA.
    //       Keep several independent accumulators (an array of simd_floats) and update each
    //       one per iteration. How many does it take to cover latency x pipes?
    simd_floats acc = simd_broadcast(start), m = simd_broadcast(multiplier), k = simd_broadcast(addend);
    for (long i = 0; i < iterations; i++) acc = acc * m + k;
    *lane_sum = simd_sum_lanes(acc);
    return 2.0 * SIMD_FLOATS * (double)iterations;   // an FMA is 2 FLOPs a lane
}
