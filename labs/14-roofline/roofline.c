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

roofline roofline_from_datasheet(double peak_tflop_per_s, double bandwidth_gb_per_s)
{
    // TODO: the machine in the units the struct holds (lab.h), from a datasheet's. Idea: a
    //       ridge computed from mixed units is off by powers of ten.
    (void)peak_tflop_per_s, (void)bandwidth_gb_per_s;
    roofline machine = {0, 0};
    return machine;
}

double roofline_ridge_point(roofline machine)
{
    // TODO: the intensity, in FLOP/byte, at which the machine's two limits meet.
    (void)machine;
    return 0;
}

double roofline_attainable(roofline machine, double intensity)
{
    // TODO: the most FLOP/s a kernel of `intensity` FLOP/byte (0 or more) can reach on the
    //       machine. Idea: two limits, and the lower one binds.
    (void)machine, (void)intensity;
    return 0;
}

double roofline_predicted_seconds(roofline machine, double flops, double bytes)
{
    // TODO: the least time a kernel doing `flops` and moving `bytes` can take (either may be
    //       0). Idea: a good kernel loads while it computes.
    (void)machine, (void)flops, (void)bytes;
    return 0;
}

int roofline_is_memory_bound(roofline machine, double intensity)
{
    // TODO: 1 when a kernel of `intensity` waits for bytes: left of the ridge point. At the
    //       ridge itself the book says compute-bound: 0.
    (void)machine, (void)intensity;
    return 0;
}

double fma_predicted_flop_per_s(int chains, int latency_cycles, int pipes, int lanes, double clock_ghz)
{
    // TODO: the FLOP/s of `chains` independent FMA chains (lab.h), predicted from the core's
    //       latency and pipes, never timed. Idea: Little's law, FMAs in flight = latency x
    //       FMAs started a cycle, and a core cannot start more than it has pipes.
    (void)chains, (void)latency_cycles, (void)pipes, (void)lanes, (void)clock_ghz;
    return 0;
}

SIMD_TARGET double fma_peak_run(long iterations, float start, float multiplier, float addend, float *lane_sum)
{
    // TODO: the same work at this core's peak. This loop is one chain: each FMA waits for the
    //       one before. Keep lab.h's contract (every lane of every chain from `start`, one FMA
    //       a chain an iteration, *lane_sum the sum of them all, the FLOPs done returned).
    //       How many chains it takes is what your prediction says; the core has 16 vector
    //       registers to hold them.
    simd_floats acc = simd_broadcast(start), m = simd_broadcast(multiplier), k = simd_broadcast(addend);
    for (long i = 0; i < iterations; i++) acc = acc * m + k;
    *lane_sum = simd_sum_lanes(acc);
    return 2.0 * SIMD_FLOATS * (double)iterations;   // an FMA is 2 FLOPs a lane
}
