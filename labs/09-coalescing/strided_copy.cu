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
    // TODO: Copy element offset + i * stride of `in` to out[i], where i numbers this thread
    //       across the whole grid.
    //       Contract: out[0 .. n-1] each written once, nothing else written, nothing read
    //       past the input; the input may hold more than 2^31 floats (8 GiB).
    //       Idea: neighbouring lanes write neighbouring floats; their reads are `stride` apart,
    //       and cost what your sectors_per_request predicts.
}

extern "C" void launch_strided_copy(const float *in, float *out, int n, int stride, int offset,
                                    int threads_per_block)
{
    // TODO: Launch strided_copy for n elements (n >= 1) in blocks of threads_per_block threads.
    //       Contract: the block size given, whatever it is; every element a thread, and no
    //       block without work.
    //       Idea: a grid comes in whole blocks, so the last block is usually partial.
    (void)in, (void)out, (void)n, (void)stride, (void)offset, (void)threads_per_block;
}
