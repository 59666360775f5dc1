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
    int count[EXPERTS] = {0}, next[EXPERTS];
    for (int i = 0; i < n; i++) count[expert[i]]++;
    for (int e = 0, start = 0; e < EXPERTS; e++) {   // where each expert's group starts
        next[e] = start;
        start += count[e];
    }
    for (int i = 0; i < n; i++) order[next[expert[i]]++] = i;   // in token order: stable
}
