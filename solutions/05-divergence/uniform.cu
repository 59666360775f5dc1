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
    int t = blockIdx.x * blockDim.x + threadIdx.x;   // this thread's number in the grid
    int warp = t / 32, lane = t % 32;                // a warp is 32 consecutive threads
    // Warps 2p and 2p + 1 share the 64 elements 64p .. 64p + 63: warp 2p takes the 32 even
    // ones, warp 2p + 1 the 32 odd ones. All lanes of a warp then agree on the branch.
    int i = 64 * (warp / 2) + 2 * lane + warp % 2;
    if (i < n) y[i] = (i % 2 == 0) ? even_work(x[i]) : odd_work(x[i]);
}

extern "C" void launch_even_odd_uniform(const float *x, float *y, int n, int threads_per_block)
{
    // Whole pairs of warps: ceil(n / 64) pairs of 64 threads. Rounding n up to whole blocks
    // is not enough: with 32- or 96-thread blocks it can leave the last pair without its
    // odd warp, and the odd elements of the last 64 would never be written.
    int threads = 64 * (n / 64 + (n % 64 != 0));
    int blocks = threads / threads_per_block + (threads % threads_per_block != 0);
    even_odd_uniform<<<blocks, threads_per_block>>>(x, y, n);
}

__global__ void experts_grouped(const float *x, const int *expert, const int *order, float *y, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        int i = order[t];   // the t-th token in expert order: lanes t .. t+31 mostly share an expert
        y[i] = expert_work(expert[i], x[i]);   // gather from, and scatter back to, token i's place
    }
}

extern "C" void launch_experts_grouped(const float *x, const int *expert, const int *order, float *y, int n)
{
    int threads_per_block = 256, blocks = n / threads_per_block + (n % threads_per_block != 0);
    experts_grouped<<<blocks, threads_per_block>>>(x, expert, order, y, n);
}
