/* cooperative_groups/reduce.h (simulator) — cg::reduce(group, value, op): every thread of a tile or of a
 * coalesced group gets op combined over the values of all of them (op: cg::plus, cg::less, cg::greater,
 * cg::bit_and, cg::bit_or, cg::bit_xor of details/functional.h, or any of the program's own).
 *
 * The reduction takes the steps CUDA's header takes, so that a float result is the same number bit for
 * bit: in a tile of N threads (or a coalesced group of a whole warp) a butterfly, each thread combining
 * its value with the shfl_xor of distance N/2, N/4, ..., 1; in a smaller coalesced group an inclusive
 * scan over the ranks (each thread combining with the thread 1, 2, 4, ... ranks below) whose last
 * rank's value every thread then reads. (For integers of up to 4 bytes a GPU of compute capability 8.0
 * or later uses its redux instruction instead: the same result.) Each step is a warp shuffle of the
 * group's lanes, checked as any shuffle is. cg::reduce_store_async(group, pointer, value, op) stores
 * the result from rank 0. In a tile of more than 32 threads each warp reduces as above, and every thread
 * then combines the warps' results in rank order (tiles.c passes them): a float sum may differ from a
 * GPU's in its last bits. reduce_update_async and reduce_store_async into a cuda::atomic (libcu++ is not
 * simulated) are not simulated. */
#ifndef SIM_COOPERATIVE_GROUPS_REDUCE_H
#define SIM_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"
#include "details/coalesced_scan.h"
#include "details/functional.h"

namespace sim {
namespace groups {

/* Lanes `mask`, `size` of them, consecutive from a multiple of size (a tile, or a whole warp). */
template <typename T, typename Op>
static inline T butterfly_reduce(unsigned int mask, unsigned int size, T value, Op &op, const char *file, int line)
{
    for (unsigned int distance = size / 2; distance > 0; distance /= 2)
        value = op(value, exchange<T>(COLLECTIVE_SHFL_XOR, mask, value, (int)distance, (int)size, file, line));
    return value;
}

/* Lanes `mask`, fewer than 32, anywhere in the warp: the scan's last rank holds the result. */
template <typename T, typename Op>
static inline T scattered_reduce(unsigned int mask, T value, Op &op, const char *file, int line)
{
    value = scattered_inclusive_scan(mask, value, op, file, line);
    return exchange<T>(COLLECTIVE_SHFL, mask, value, 31 - __builtin_clz(mask), 32, file, line);
}

} /* namespace groups */
} /* namespace sim */

namespace cooperative_groups {

template <unsigned int Size, typename ParentT, typename TyVal, typename TyFn>
sim::groups::plain<TyVal> reduce(const thread_block_tile<Size, ParentT> &group, TyVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    static_assert(sim::groups::op_type_matches<TyVal, TyFn>(),
                  "cg::reduce: the operator's type differs from the value's (cg::plus<float>() for a float)");
    using V = sim::groups::plain<TyVal>;
    if constexpr (Size > 32) {   /* each warp's butterfly, then the warps' results in rank order */
        unsigned int lanes = sim::groups::warp_lanes();
        V part = lanes == 0xffffffffu ? sim::groups::butterfly_reduce<V>(lanes, 32, value, op, file, line)
                                      : sim::groups::scattered_reduce<V>(lanes, value, op, file, line);
        return group.across_warps(part, op, sim::groups::lane() == 0, file, line);
    } else {
        return sim::groups::butterfly_reduce<V>(group.sim_lanes(), Size, value, op, file, line);
    }
}

template <typename TyVal, typename TyFn>
sim::groups::plain<TyVal> reduce(const coalesced_group &group, TyVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    static_assert(sim::groups::op_type_matches<TyVal, TyFn>(),
                  "cg::reduce: the operator's type differs from the value's (cg::plus<float>() for a float)");
    unsigned int mask = sim::groups::access::lanes(group);
    if (mask == 0xffffffffu)
        return sim::groups::butterfly_reduce<sim::groups::plain<TyVal>>(mask, 32, value, op, file, line);
    return sim::groups::scattered_reduce<sim::groups::plain<TyVal>>(mask, value, op, file, line);
}

template <typename TyGroup, typename TyVal, typename TyFn>
sim::groups::plain<TyVal> reduce(const TyGroup &group, TyVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    static_assert(sim::groups::never<TyGroup>::value,
                  "cg::reduce takes a thread_block_tile (of up to 32 threads) or a coalesced_group: for a block, "
                  "reduce in each tile of 32 and combine the tiles' results through shared memory");
    return value;
}

/* The group's result stored at dst by its thread of rank 0 (the others go on without waiting for it). */
template <typename TyGroup, typename TyVal, typename TyInputVal, typename TyFn>
void reduce_store_async(const TyGroup &group, TyVal *dst, TyInputVal &&value, TyFn &&op, SIM_CALL_SITE)
{
    static_assert(std::is_same<TyVal, sim::groups::plain<TyInputVal>>::value,
                  "cg::reduce_store_async: the destination's type differs from the value's");
    TyVal result = reduce(group, value, op, file, line);
    if (group.thread_rank() == 0) *dst = result;
}

} /* namespace cooperative_groups */

#endif
