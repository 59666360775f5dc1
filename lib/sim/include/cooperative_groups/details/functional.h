/* cooperative_groups/details/functional.h (simulator) — the operators CUDA 11 defines for cg::reduce and
 * the scans: cg::plus, cg::less (the smaller), cg::greater (the larger), cg::bit_and, cg::bit_or,
 * cg::bit_xor, each comparing or combining exactly as CUDA's do. */
#ifndef SIM_COOPERATIVE_GROUPS_FUNCTIONAL_H
#define SIM_COOPERATIVE_GROUPS_FUNCTIONAL_H

namespace cooperative_groups {
template <typename Ty> struct plus { Ty operator()(Ty a, Ty b) const { return a + b; } };
template <typename Ty> struct less { Ty operator()(Ty a, Ty b) const { return (b < a) ? b : a; } };
template <typename Ty> struct greater { Ty operator()(Ty a, Ty b) const { return (a < b) ? b : a; } };
template <typename Ty> struct bit_and { Ty operator()(Ty a, Ty b) const { return a & b; } };
template <typename Ty> struct bit_or { Ty operator()(Ty a, Ty b) const { return a | b; } };
template <typename Ty> struct bit_xor { Ty operator()(Ty a, Ty b) const { return a ^ b; } };
} /* namespace cooperative_groups */

#endif
