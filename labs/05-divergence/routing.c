/* routing.c — Day 05: grouping tokens by expert, so that a warp's lanes share one.
 *
 * What you write today:
 *   group_by_expert: order[0 .. n-1] lists the tokens 0 .. n-1 grouped by expert: expert
 *   0's tokens first, then expert 1's, and so on, each group in increasing token order.
 *   That is a counting sort: count the tokens of each expert, turn the counts into the
 *   position where each expert's group starts, then place every token.
 *
 * Rules: plain C, O(n) time; every token appears in order exactly once; write nothing
 * past order[n - 1]. (Serving systems do this step on the GPU with a prefix sum, day 07's
 * subject; here the host does it, so that today is about the warps.)
 *
 * Check:  make check DAY=05        Stuck?  make hint DAY=05
 */
#include "lab.h"

void group_by_expert(const int *expert, int n, int *order)
{
    // TODO: 1. count[e]: how many tokens go to expert e (e = 0 .. EXPERTS - 1).
    //       2. next[e]: where expert e's group starts in order: the sum of the counts of
    //          the experts before it (0 for expert 0).
    //       3. for every token i in increasing order: order[next[expert[i]]++] = i.
    (void)expert, (void)n, (void)order;
}
