/* sector_model.c — Day 09: predicting what a warp-wide load costs, before counting it.
 *
 * What you write today:
 *   1. sectors_per_request: lane l (0 .. 31) reads the element_bytes bytes of element
 *      offset_elements + l * stride_elements of an array that starts on a 32-byte boundary.
 *      Return how many distinct 32-byte sectors those 32 reads touch together. The memory
 *      system moves whole sectors, so that is what the load costs.
 *   2. copy_predicted_gb_per_s: a warp of the strided copy reads 32 elements and writes 32;
 *      to do so it moves load_sectors_per_request + store_sectors_per_request sectors. If
 *      the memory moves sectors at bandwidth_gb_per_s, what rate of useful bytes (elements
 *      read and written) does the copy reach?
 *
 * Rules: plain C, no simulator. The checks compare your model with the counts the simulator
 * makes for every stride from 0 to 40, every offset from 0 to 40 and elements of 1, 2, 4, 8 and
 * 16 bytes.
 *
 * Check:  make check DAY=09        Stuck?  make hint DAY=09
 */
#include "lab.h"

int sectors_per_request(int stride_elements, int offset_elements, int element_bytes)
{
    // TODO: for each of the 32 lanes, the element's first and last byte, and the sectors
    //       (byte / SECTOR_BYTES) between them; count each sector once. The lanes' addresses
    //       never decrease, so a sector already counted is never further on than the last one.
    (void)stride_elements, (void)offset_elements, (void)element_bytes;
    return 0;
}

double copy_predicted_gb_per_s(double bandwidth_gb_per_s, int element_bytes, double load_sectors_per_request,
                               double store_sectors_per_request)
{
    // TODO: the useful bytes of one warp (its elements, read and written) over the bytes it
    //       moves (its sectors, loaded and stored), times the bandwidth.
    (void)bandwidth_gb_per_s, (void)element_bytes, (void)load_sectors_per_request, (void)store_sectors_per_request;
    return 0;
}
