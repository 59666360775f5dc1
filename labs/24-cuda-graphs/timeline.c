/* timeline.c — Day 24: a model of the timeline of one decode step, launched kernel by kernel
 * (eager) or as one graph, and the share of it the GPU spends idle.
 *
 * Eager, with the host ahead of the GPU (queue_depth >= 2): the host launches n kernels back to
 * back, L microseconds each; the GPU runs each kernel, K microseconds, once its launch has ended
 * and the kernel before it has ended. Either the GPU keeps up with the host or the host keeps
 * up with the GPU:
 *
 *   L >= K  (launch-bound)  host | L | L | L | L |          the GPU waits L - K before each
 *                           GPU      |K|  |K|  |K|  |K|      kernel: makespan n L + K
 *   L <  K  (GPU-bound)     host | L | L | L | L |          the GPU never waits after the
 *                           GPU      |  K  |  K  |  K  |  K  |   first launch: makespan L + n K
 *
 *   makespan = max(L + n K, n L + K),   idle share = 1 - n K / makespan
 *
 * queue_depth = 1 (synchronous): the host launches kernel i only after kernel i - 1 has ended, so
 * nothing overlaps: makespan = n (L + K), idle share = L / (L + K).
 * A graph: one launch of G for the whole step, then n K back to back: idle share = G / (G + n K).
 *
 * The event simulation walks the same rules kernel by kernel, for kernels of any lengths:
 *   host_start[i] = max(host_end[i - 1], gpu_end[i - queue_depth])   (a free slot in the queue)
 *   host_end[i]   = host_start[i] + L
 *   gpu_start[i]  = max(host_end[i], gpu_end[i - 1]),  gpu_end[i] = gpu_start[i] + kernel_us[i]
 * (terms with a negative index are 0). With equal kernels it must agree with the closed forms.
 *
 * Rules: plain C. Arguments that make no step give NaN (lab.h lists them); so do the totals of
 * the simulations, which then leave the events untouched.
 *
 * Check:  make check DAY=24        Stuck?  make hint DAY=24
 */
#include "lab.h"

#include <math.h>

double eager_idle_share(double launch_us, double kernel_us, int kernels, int queue_depth)
{
    // TODO: NaN for arguments that make no step (lab.h: kernels < 1, queue_depth < 1, launch_us negative
    //       or not finite, kernel_us not > 0 or not finite: isfinite from <math.h>).
    // TODO: busy = kernels x kernel_us; the makespan from the top of this file (synchronous when
    //       queue_depth is 1, the larger of the two bounds otherwise); return 1 - busy / makespan.
    (void)launch_us, (void)kernel_us, (void)kernels, (void)queue_depth;
    return 0;
}

double graph_idle_share(double graph_launch_us, double kernel_us, int kernels)
{
    // TODO: NaN for invalid arguments, as above; otherwise the one launch's share of the step.
    (void)graph_launch_us, (void)kernel_us, (void)kernels;
    return 0;
}

step_timeline simulate_eager(const double *kernel_us, int kernels, double launch_us, int queue_depth,
                             launch_event *events)
{
    // TODO: check every argument first (each kernel_us[i] too); if any is invalid, return totals of
    //       NaN and write no event.
    // TODO: for each kernel i, the four times of the recurrence at the top of this file. The slot
    //       rule: from kernel queue_depth on, the launch also waits for kernel i - queue_depth to end.
    // TODO: the totals: makespan = the last kernel's gpu_end, busy = the sum of kernel_us,
    //       idle_share = 1 - busy / makespan.
    (void)kernel_us, (void)kernels, (void)launch_us, (void)queue_depth, (void)events;
    step_timeline t = {0, 0, 0};
    return t;
}

step_timeline simulate_graph(const double *kernel_us, int kernels, double graph_launch_us, launch_event *events)
{
    // TODO: the same checks. Every node's host interval is the one launch, [0, graph_launch_us); the
    //       first kernel starts when it ends, each next one when the one before it ends.
    (void)kernel_us, (void)kernels, (void)graph_launch_us, (void)events;
    step_timeline t = {0, 0, 0};
    return t;
}
