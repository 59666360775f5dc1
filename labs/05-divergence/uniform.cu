/* uniform.cu — Day 05: the same work, rearranged so that every warp takes one path.
 *
 * A warp is 32 consecutive threads that issue one instruction at a time for all of them.
 * When its lanes disagree at a branch, the warp runs one side with some lanes switched
 * off, then the other side with the rest: both paths, one after the other. The kernels
 * below start as the divergent originals (run.cu has the same code as the reference).
 * What you write today:
 *   1. even_odd_uniform and its launcher: y[i] = even_work(x[i]) for even i and
 *      odd_work(x[i]) for odd i, as before, but with a different assignment of elements to
 *      threads, so that the 32 lanes of every warp hold elements of the same parity.
 *   2. experts_grouped and its launcher: thread t handles token order[t] instead of token
 *      t, where order (from your group_by_expert in routing.c) lists the tokens grouped by
 *      expert; neighbouring lanes then mostly share an expert.
 *
 * Rules: results bit-identical to the originals (same functions of work.cuh, same inputs);
 * every element written exactly once, nothing past the end; no computing both paths and
 * keeping one (the checks count the steps the warps issue, not only how full they are).
 *
 * Check:  make check DAY=05        Stuck?  make hint DAY=05
 */
#include "lab.h"
#include "work.cuh"

__global__ void even_odd_uniform(const float *x, float *y, int n)
{
    // TODO: this is still the divergent original: element i to thread i, so even and odd
    //       elements alternate lane by lane and every warp runs both paths. Give each
    //       thread a different element i, so that all 32 lanes of a warp get elements of
    //       the same parity and every element < n still gets exactly one thread. (Hint: a
    //       thread's warp is t / 32 and its lane t % 32.)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (i % 2 == 0) ? even_work(x[i]) : odd_work(x[i]);
}

extern "C" void launch_even_odd_uniform(const float *x, float *y, int n, int threads_per_block)
{
    // TODO: launch enough threads for your new assignment. Blocks of threads_per_block
    //       threads (the tests use 256, 96 and 32): make sure every element, up to the
    //       last one, has a thread, whatever the block size.
    int blocks = n / threads_per_block + (n % threads_per_block != 0);
    even_odd_uniform<<<blocks, threads_per_block>>>(x, y, n);
}

__global__ void experts_grouped(const float *x, const int *expert, const int *order, float *y, int n)
{
    // TODO: this is still the divergent original: thread t handles token t, and a warp's
    //       32 tokens go to all four experts. Let thread t handle token order[t] instead:
    //       read its input and expert at that token's place, and write its output there.
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = expert_work(expert[t], x[t]);
    (void)order;
}

extern "C" void launch_experts_grouped(const float *x, const int *expert, const int *order, float *y, int n)
{
    int threads_per_block = 256, blocks = n / threads_per_block + (n % threads_per_block != 0);
    experts_grouped<<<blocks, threads_per_block>>>(x, expert, order, y, n);
}
