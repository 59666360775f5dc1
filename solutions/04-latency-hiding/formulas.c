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
    double busy = (double)warps * math_cycles / (math_cycles + latency_cycles);
    return busy < 1.0 ? busy : 1.0;   // one issue per cycle at most
}

double knee_warps(int math_cycles, int latency_cycles)
{
    return (double)(math_cycles + latency_cycles) / math_cycles;
}

int warps_to_hide_latency(int math_cycles, int latency_cycles)
{
    return (math_cycles + latency_cycles + math_cycles - 1) / math_cycles;   // (c + L) / c, rounded up
}

double bytes_in_flight(double bandwidth_gb_per_s, double latency_ns)
{
    return bandwidth_gb_per_s * latency_ns;
}

double bandwidth_from_bytes_in_flight(double bytes, double latency_ns, double peak_gb_per_s)
{
    double sustained = bytes / latency_ns;
    return sustained < peak_gb_per_s ? sustained : peak_gb_per_s;
}

int warps_per_sm_for_bandwidth(double bandwidth_gb_per_s, double latency_ns, int sms, int bytes_per_warp)
{
    return (int)ceil(bytes_in_flight(bandwidth_gb_per_s, latency_ns) / ((double)sms * bytes_per_warp));
}
