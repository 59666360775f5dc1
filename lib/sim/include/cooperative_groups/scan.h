/* cooperative_groups/scan.h (simulator) — cg::inclusive_scan(group, value[, op]) and
 * cg::exclusive_scan(group, value[, op]) over a tile or a coalesced group: thread r gets op combined
 * over the values of ranks 0..r (inclusive) or 0..r-1 (exclusive; rank 0 gets T(), except that an
 * integer cg::plus scan subtracts the thread's own value, as CUDA's does). op defaults to cg::plus.
 *
 * The steps are CUDA's, so float results are the same numbers: each thread combines with the value 1,
 * 2, 4, ... ranks below (a shfl_up in a tile or a whole warp; a shuffle from the lane that holds that
 * rank in a smaller coalesced group), and an exclusive scan then reads the inclusive result of the rank
 * below. The scans that also update a cuda::atomic (inclusive_scan_update; libcu++ is not simulated)
 * and tiles of more than 32 threads are not. */
#ifndef SIM_COOPERATIVE_GROUPS_SCAN_H
#define SIM_COOPERATIVE_GROUPS_SCAN_H

#include "../cooperative_groups.h"
#include "details/coalesced_scan.h"
#include "details/functional.h"

namespace sim {
namespace groups {
template <typename T, typename Op> struct integer_plus : std::false_type {};
template <typename T> struct integer_plus<T, cooperative_groups::plus<T>> : std::is_integral<T> {};

template <typename T, typename Op, typename Group>
static inline T exclusive_from_inclusive(const Group &group, T inclusive, T value, const char *file, int line)
{
    if constexpr (integer_plus<T, plain<Op>>::value) {
        return inclusive - value;
    } else {
        T below = group.shfl_up(inclusive, 1, file, line);
        return group.thread_rank() == 0 ? T() : below;
    }
}
} /* namespace groups */
} /* namespace sim */

namespace cooperative_groups {

template <unsigned int Size, typename ParentT, typename TyVal, typename TyFn>
sim::groups::plain<TyVal> inclusive_scan(const thread_block_tile<Size, ParentT> &tile, TyVal &&value, TyFn &&op,
                                         SIM_CALL_SITE)
{
    static_assert(sim::groups::op_type_matches<TyVal, TyFn>(),
                  "cg::inclusive_scan: the operator's type differs from the value's (cg::plus<float>() for a float)");
    static_assert(Size <= 32, "cg::inclusive_scan over a tile of more than 32 threads is not simulated: scan in "
                              "tiles of 32 and add the tiles' totals through shared memory");
    return sim::groups::contiguous_inclusive_scan<sim::groups::plain<TyVal>>(tile.sim_lanes(), Size, value, op, file,
                                                                             line);
}

template <typename TyVal, typename TyFn>
sim::groups::plain<TyVal> inclusive_scan(const coalesced_group &group, TyVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    static_assert(sim::groups::op_type_matches<TyVal, TyFn>(),
                  "cg::inclusive_scan: the operator's type differs from the value's (cg::plus<float>() for a float)");
    using T = sim::groups::plain<TyVal>;
    unsigned int mask = sim::groups::access::lanes(group);
    if (mask == 0xffffffffu) return sim::groups::contiguous_inclusive_scan<T>(mask, 32, value, op, file, line);
    return sim::groups::scattered_inclusive_scan<T>(mask, value, op, file, line);
}

template <typename TyGroup, typename TyVal, typename TyFn>
sim::groups::plain<TyVal> inclusive_scan(const TyGroup &group, TyVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    static_assert(sim::groups::never<TyGroup>::value,
                  "cg::inclusive_scan and cg::exclusive_scan take a thread_block_tile (of up to 32 threads) or a "
                  "coalesced_group");
    return value;
}

template <typename TyGroup, typename TyVal, typename TyFn>
sim::groups::plain<TyVal> exclusive_scan(const TyGroup &group, TyVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    using T = sim::groups::plain<TyVal>;
    T inclusive = inclusive_scan(group, value, op, file, line);
    return sim::groups::exclusive_from_inclusive<T, TyFn>(group, inclusive, value, file, line);
}

template <typename TyGroup, typename TyVal>
sim::groups::plain<TyVal> inclusive_scan(const TyGroup &group, TyVal &&value, SIM_CALL_SITE)
{
    return inclusive_scan(group, value, plus<sim::groups::plain<TyVal>>(), file, line);
}

template <typename TyGroup, typename TyVal>
sim::groups::plain<TyVal> exclusive_scan(const TyGroup &group, TyVal &&value, SIM_CALL_SITE)
{
    return exclusive_scan(group, value, plus<sim::groups::plain<TyVal>>(), file, line);
}

} /* namespace cooperative_groups */

#endif
