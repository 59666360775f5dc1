/* cooperative_groups/details/coalesced_scan.h (simulator) — the inclusive scans that cg::reduce and
 * cg::inclusive_scan are made of, step for step as CUDA's header makes them (so that float results are
 * the same numbers): each thread combines its value with that of the thread 1, 2, 4, ... ranks below,
 * read with a shuffle of the group's lanes. */
#ifndef SIM_COOPERATIVE_GROUPS_COALESCED_SCAN_H
#define SIM_COOPERATIVE_GROUPS_COALESCED_SCAN_H

#include "../../cooperative_groups.h"

namespace sim {
namespace groups {

/* Lanes `mask`, `size` of them, consecutive from a multiple of size (a tile, or a whole warp). */
template <typename T, typename Op>
static inline T contiguous_inclusive_scan(unsigned int mask, unsigned int size, T value, Op &op, const char *file,
                                          int line)
{
    unsigned int rank = lane() & (size - 1);
    for (unsigned int step = 1; step < size; step *= 2) {
        T lower = exchange<T>(COLLECTIVE_SHFL_UP, mask, value, (int)step, (int)size, file, line);
        if (step <= rank) value = op(value, lower);
    }
    return value;
}

/* Lanes `mask`, fewer than 32, anywhere in the warp: each thread reads the lane `step` ranks below. */
template <typename T, typename Op>
static inline T scattered_inclusive_scan(unsigned int mask, T value, Op &op, const char *file, int line)
{
    unsigned int size = count(mask), rank = count(mask & lanes_below());
    for (unsigned int step = 1; step < size; step *= 2) {
        unsigned int source = step <= rank ? find_set_bit(mask, lane(), -(int)(step + 1)) : lane();
        T lower = exchange<T>(COLLECTIVE_SHFL, mask, value, (int)source, 32, file, line);
        if (step <= rank) value = op(value, lower);
    }
    return value;
}

} /* namespace groups */
} /* namespace sim */

#endif
