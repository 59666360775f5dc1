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
    int sectors = 0;
    long long last_sector = -1;   // lanes read increasing addresses, so a new sector is one past the last
    for (int lane = 0; lane < WARP_LANES; lane++) {
        long long first_byte = ((long long)offset_elements + (long long)lane * stride_elements) * element_bytes;
        long long last_byte = first_byte + element_bytes - 1;
        for (long long sector = first_byte / SECTOR_BYTES; sector <= last_byte / SECTOR_BYTES; sector++)
            if (sector > last_sector) sectors++, last_sector = sector;
    }
    return sectors;
}

double copy_predicted_gb_per_s(double bandwidth_gb_per_s, int element_bytes, double load_sectors_per_request,
                               double store_sectors_per_request)
{
    double useful_bytes = 2.0 * WARP_LANES * element_bytes;   // 32 elements read, 32 written
    double moved_bytes = SECTOR_BYTES * (load_sectors_per_request + store_sectors_per_request);
    return bandwidth_gb_per_s * useful_bytes / moved_bytes;
}
