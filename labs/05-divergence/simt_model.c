/* simt_model.c — Day 05: predicting what a branch costs a warp, before counting it.
 *
 * What you write today:
 *   branch_cost_model: `threads` threads, warps of 32 consecutive threads (the last warp
 *   may have fewer). Thread t takes path A when (t / group) is even, path B when it is odd.
 *   A warp whose lanes all take one path issues that path's steps; a warp whose lanes
 *   split issues both paths, one after the other, each with only its own lanes active.
 *   Return, summed over the warps, the steps issued (warp_steps) and the active lanes
 *   summed over those steps (lane_steps). SIMT efficiency is then
 *   lane_steps / (32 x warp_steps): driver/lab.h's branch_simt_efficiency.
 *
 * Rules: plain C; count, per warp, how many lanes take each path (a path with no lanes
 * costs its warp nothing); lanes past `threads` do not exist and are never active.
 *
 * Check:  make check DAY=05        Stuck?  make hint DAY=05
 */
#include "lab.h"

branch_cost branch_cost_model(int threads, int group, int steps_a, int steps_b)
{
    branch_cost cost = {0, 0};
    // TODO: for each warp (threads first .. first + 31, stopping at `threads`), count the
    //       lanes taking path A ((t / group) % 2 == 0) and path B. Each path with at least
    //       one lane adds its steps to cost.warp_steps, and lanes x steps to cost.lane_steps.
    (void)threads, (void)group, (void)steps_a, (void)steps_b;
    return cost;
}
