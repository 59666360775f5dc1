/* formulas.c — Day 04: the closed form of the scheduler model, and Little's law.
 *
 * What you write today:
 *   1. utilisation_closed_form: N warps each offer c busy cycles per round of c + L cycles;
 *      one issue slot cannot be busier than every cycle. knee_warps: where that reaches 1.
 *      warps_to_hide_latency: the fewest whole warps that get there.
 *   2. Little's law (concurrency = throughput x latency) for memory: the bytes that must be
 *      in flight to sustain a bandwidth, the bandwidth a given number of bytes in flight
 *      sustains, and the warps per SM that number of bytes takes.
 *
 * Rules: plain C and <math.h>. Units: GB/s x ns = bytes (10^9 x 10^-9), and bytes / ns = GB/s.
 *
 * Check:  make check DAY=04        Stuck?  make hint DAY=04
 */
#include "lab.h"

#include <math.h>

double utilisation_closed_form(int warps, int math_cycles, int latency_cycles)
{
    // TODO: the busy fraction N c / (c + L), computed in double, and never more than 1.
    (void)warps, (void)math_cycles, (void)latency_cycles;
    return 0;
}

double knee_warps(int math_cycles, int latency_cycles)
{
    // TODO: the N at which N c / (c + L) reaches 1.
    (void)math_cycles, (void)latency_cycles;
    return 0;
}

int warps_to_hide_latency(int math_cycles, int latency_cycles)
{
    // TODO: the knee rounded up to a whole warp (in integers: (a + b - 1) / b rounds a / b up).
    (void)math_cycles, (void)latency_cycles;
    return 0;
}

double bytes_in_flight(double bandwidth_gb_per_s, double latency_ns)
{
    // TODO: Little's law.
    (void)bandwidth_gb_per_s, (void)latency_ns;
    return 0;
}

double bandwidth_from_bytes_in_flight(double bytes, double latency_ns, double peak_gb_per_s)
{
    // TODO: Little's law solved for the throughput, and no more than the peak.
    (void)bytes, (void)latency_ns, (void)peak_gb_per_s;
    return 0;
}

int warps_per_sm_for_bandwidth(double bandwidth_gb_per_s, double latency_ns, int sms, int bytes_per_warp)
{
    // TODO: bytes_in_flight spread over the SMs, divided by each warp's share, rounded up (ceil).
    (void)bandwidth_gb_per_s, (void)latency_ns, (void)sms, (void)bytes_per_warp;
    return 0;
}
