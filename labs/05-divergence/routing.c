/* routing.c — Day 05: grouping tokens by expert, so that a warp's lanes share one.
 *
 * What you write today: a counting sort, in two steps.
 *   1. expert_offsets: count the tokens of each expert, then turn the counts into the
 *      position where each expert's group starts. That second step is an exclusive prefix
 *      sum, or exclusive scan: start[e] = count[0] + ... + count[e - 1], the sum of every
 *      count BEFORE e (so start[0] = 0); an inclusive scan would add count[e] too. Counts
 *      {3, 2, 0, 4} give starts {0, 3, 5, 5}.
 *   2. group_by_expert: order[0 .. n-1] lists the tokens 0 .. n-1 grouped by expert: expert
 *      0's tokens first, then expert 1's, and so on, each group in increasing token order:
 *      take the starts, then place every token at its expert's next free position.
 *
 * Rules: plain C, O(n) time; every token appears in order exactly once; write nothing
 * past order[n - 1] nor past start[EXPERTS - 1]. (Serving systems do this step on the GPU,
 * where the scan itself is done in parallel by a tree of partial sums, much as day 07's
 * reduction adds; here the host does it, so that today is about the warps.)
 *
 * Check:  make check DAY=05        Stuck?  make hint DAY=05
 */
#include "lab.h"

void expert_offsets(const int *expert, int n, int *start)
{
    // TODO: 1. count[e]: how many tokens go to expert e (e = 0 .. EXPERTS - 1).
    //       2. start[e]: where expert e's group starts in order: the sum of the counts of
    //          the experts before it (0 for expert 0). Exactly EXPERTS entries.
    (void)expert, (void)n, (void)start;
}

void group_by_expert(const int *expert, int n, int *order)
{
    // TODO: next[e] = the starts from expert_offsets; then for every token i in increasing
    //       order, put i at its expert's next free position in order.
    (void)expert, (void)n, (void)order;
}
