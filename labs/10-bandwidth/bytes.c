/* bytes.c — Day 10: the byte arithmetic of effective bandwidth.
 *
 * What you write today:
 *   1. stream_bytes_per_element: the bytes STREAM counts per element of each kernel — the
 *      doubles its line of source names, each read or written once.
 *   2. write_allocate_bytes_per_element: what a write-allocate cache really moves to and
 *      from DRAM: a store first reads the line it writes, so every array written costs one
 *      read more than STREAM counts.
 *   3. memcpy_bytes_moved: the bytes memcpy moves, counted the way STREAM counts copy.
 *   4. bandwidth_gb_per_s: bytes and seconds to GB/s.
 *
 * Rules: plain C; the kernels are STREAM's, over doubles (see lab.h); return 0 for a kernel
 * that is not one of the four.
 *
 * Check:  make check DAY=10        Stuck?  make hint DAY=10
 */
#include "lab.h"

int stream_bytes_per_element(int kernel)
{
    // TODO: for each of the four kernels of lab.h, count the doubles its line of source
    //       names (each read or written once) and return their bytes. A switch on kernel
    //       reads well; any other kernel: 0.
    return 0;
}

int write_allocate_bytes_per_element(int kernel)
{
    // TODO: before a write-allocate cache can write part of a line, it reads the line from
    //       DRAM. How many arrays does each kernel write? Add their extra read to STREAM's
    //       count. Any other kernel: 0.
    return 0;
}

long long memcpy_bytes_moved(long long bytes_copied)
{
    // TODO: memcpy is STREAM's copy. How many bytes does copy count for each byte it copies?
    return 0;
}

double bandwidth_gb_per_s(double bytes, double seconds)
{
    // TODO: bytes per second, in units of 10^9 bytes (GB, as datasheets count; not GiB).
    return 0;
}
