/* sector_model.c — Day 09: predicting what a warp-wide load costs, before the simulator counts it.
 *
 * What you write today:
 *   1. sectors_per_request: your prediction of the 32-byte sectors one warp-wide load touches,
 *      for any stride, offset and element size: the count the chapter does with a pencil.
 *   2. copy_predicted_gb_per_s: the strided copy's useful bandwidth, predicted from its sectors.
 *
 * Rules: plain C, no simulator. The checks hold your model against hand-worked cases, then
 * against what the simulator counts, case by case, for every stride from 0 to 40, every offset
 * from 0 to 40 and elements of 1, 2, 4, 8 and 16 bytes. The lab prints your prediction beside
 * the count for each copy it runs.
 *
 * Check:  make check DAY=09        Stuck?  make hint DAY=09
 */
#include "lab.h"

int sectors_per_request(int stride_elements, int offset_elements, int element_bytes)
{
    // TODO: Predict the distinct 32-byte sectors touched when lane l (0 .. 31) reads element
    //       offset_elements + l * stride_elements, element_bytes bytes, of an array that starts
    //       on a sector boundary.
    //       Contract: stride and offset are any ints >= 0 (the byte addresses may pass 2^31);
    //       element_bytes is 1, 2, 4, 8 or 16; the answer is 1 to 32.
    //       Idea: memory moves whole sectors, so a request costs the sectors its lanes fall in,
    //       each counted once however many lanes share it.
    (void)stride_elements, (void)offset_elements, (void)element_bytes;
    return 0;
}

double copy_predicted_gb_per_s(double bandwidth_gb_per_s, int element_bytes, double load_sectors_per_request,
                               double store_sectors_per_request)
{
    // TODO: Predict the GB/s of elements read and written that the copy reaches when memory
    //       moves sectors at bandwidth_gb_per_s and a warp's load and store requests touch the
    //       sectors given (per request, as sectors_per_request counts them).
    //       Contract: GB/s in and out (10^9 bytes a second); element_bytes 1 to 16; the
    //       sectors may be fractions (averages over many requests); no element size assumed.
    //       Idea: the memory's time goes to the sectors it moves, used or not.
    (void)bandwidth_gb_per_s, (void)element_bytes, (void)load_sectors_per_request, (void)store_sectors_per_request;
    return 0;
}
