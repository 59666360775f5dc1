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
