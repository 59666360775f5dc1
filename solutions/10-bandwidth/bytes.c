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
    switch (kernel) {
    case STREAM_COPY:  return 2 * (int)sizeof(double);   /* read a, write c */
    case STREAM_SCALE: return 2 * (int)sizeof(double);   /* read c, write b */
    case STREAM_ADD:   return 3 * (int)sizeof(double);   /* read a and b, write c */
    case STREAM_TRIAD: return 3 * (int)sizeof(double);   /* read b and c, write a */
    default:           return 0;
    }
}

int write_allocate_bytes_per_element(int kernel)
{
    int counted = stream_bytes_per_element(kernel);
    return counted ? counted + (int)sizeof(double) : 0;   /* each kernel writes one array: one more read */
}

long long memcpy_bytes_moved(long long bytes_copied)
{
    return 2 * bytes_copied;   /* every byte is read once and written once */
}

double bandwidth_gb_per_s(double bytes, double seconds)
{
    return bytes / seconds / 1e9;   /* GB, not GiB: datasheets count 10^9 bytes */
}
