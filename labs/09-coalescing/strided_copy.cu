/* strided_copy.cu — Day 09: a copy that reads with a stride and an offset, to see what a
 * warp-wide load costs.
 *
 * What you write today:
 *   strided_copy: thread i (its global index) copies in[offset + i * stride] to out[i],
 *   for every i < n. The writes are always coalesced (lane l writes the float after lane
 *   l - 1's); the reads are `stride` floats apart, starting `offset` floats in.
 *   launch_strided_copy: enough blocks of threads_per_block threads for n elements.
 *
 * Rules: one element per thread, one load and one store each; every out[i] written, nothing
 * past out[n - 1] written and nothing past the input read (the simulator stops the launch and
 * names the thread). The checks count, on the simulator, the sectors each warp's load
 * touches: 4 for stride 1, 8 for stride 2, 32 from stride 8 on, 5 when the start is off by
 * one float.
 *
 * Check:  make check DAY=09        Stuck?  make hint DAY=09
 */
#include "lab.h"

__global__ void strided_copy(const float *in, float *out, int n, int stride, int offset)
{
    // TODO: i = this thread's global index (block and thread); if i is inside the output,
    //       copy element offset + i * stride of `in` to out[i]. Compute that index in 64 bits
    //       (long long): i * stride passes 2^31 once the input passes 8 GiB.
}

extern "C" void launch_strided_copy(const float *in, float *out, int n, int stride, int offset,
                                    int threads_per_block)
{
    // TODO: enough blocks of threads_per_block threads to give each of the n elements a
    //       thread (round up), then launch strided_copy.
    (void)in, (void)out, (void)n, (void)stride, (void)offset, (void)threads_per_block;
}
