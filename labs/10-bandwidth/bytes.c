/* bytes.c — Day 10: the byte arithmetic of effective bandwidth, and your prediction.
 *
 * What you write today:
 *   1. stream_bytes_per_element: the bytes STREAM counts per element of each kernel.
 *   2. write_allocate_bytes_per_element: the bytes a write-allocate cache moves per element.
 *   3. memcpy_bytes_moved: the bytes memcpy moves, counted the way STREAM counts copy.
 *   4. bandwidth_gb_per_s: bytes and seconds to GB/s.
 * The first two are predictions, made from the lines of lab.h before anything runs: the checks
 * hold stream_bytes_per_element against the bytes the simulator counts for your CUDA kernels and
 * against the walks of each array counted for your C kernels, and the lab prints them side by side.
 *
 * Rules: plain C; the kernels are STREAM's, over doubles (see lab.h).
 *
 * Check:  make check DAY=10        Stuck?  make hint DAY=10
 */
#include "lab.h"

int stream_bytes_per_element(int kernel)
{
    // TODO: Predict the bytes per element STREAM counts for `kernel`.
    //       Contract: one of the four kernels of lab.h; bytes, not doubles; 0 for any other value.
    //       Idea: STREAM counts each array its line of source names once per element, whether
    //       it is read or written; the scalar q costs nothing.
    return 0;
}

int write_allocate_bytes_per_element(int kernel)
{
    // TODO: Predict the bytes per element that cross the memory bus for `kernel` on a CPU
    //       whose caches write-allocate.
    //       Contract: as stream_bytes_per_element: bytes per element, 0 for any other value.
    //       Idea: a cache that writes part of a line it does not hold must read the line first.
    return 0;
}

long long memcpy_bytes_moved(long long bytes_copied)
{
    // TODO: The bytes memcpy moves to copy bytes_copied bytes, counted as STREAM counts copy.
    //       Contract: any count up to 2^62 bytes (an 8 GiB copy included), in and out in bytes.
    //       Idea: memcpy is STREAM's copy without the loop.
    return 0;
}

double bandwidth_gb_per_s(double bytes, double seconds)
{
    // TODO: The bandwidth of `bytes` moved in `seconds`, in GB/s.
    //       Contract: seconds > 0; a GB is 10^9 bytes, as data/gpus.csv and the datasheets count.
    //       Idea: effective bandwidth is a byte count you choose over a time you measure.
    return 0;
}
