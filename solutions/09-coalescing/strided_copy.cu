/* strided_copy.cu — Day 09: a copy that reads with a stride and an offset, to see what a
 * warp-wide load costs.
 *
 * What you write today:
 *   strided_copy: out[i] = in[offset + i * stride] for every i < n, one thread per element.
 *   The writes are always coalesced; the reads are `stride` floats apart, `offset` floats in.
 *   launch_strided_copy: the launch, over n elements, in the blocks the caller asks for.
 *
 * Rules: one element per thread, one load and one store each; every out[i] written, nothing
 * past out[n - 1] written and nothing past the input read (the simulator stops the launch and
 * names the thread). The checks compare every element, on sizes that are not multiples of the
 * block and on an input of more than 2^31 floats, and count, on the simulator, the sectors each
 * warp's load and store touch, the blocks and their size.
 *
 * Check:  make check DAY=09        Stuck?  make hint DAY=09
 */
#include "lab.h"

__global__ void strided_copy(const float *in, float *out, int n, int stride, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[offset + (long long)i * stride];   // 64-bit index: i * stride can pass 2^31
}

extern "C" void launch_strided_copy(const float *in, float *out, int n, int stride, int offset,
                                    int threads_per_block)
{
    int blocks = (n + threads_per_block - 1) / threads_per_block;
    strided_copy<<<blocks, threads_per_block>>>(in, out, n, stride, offset);
}
