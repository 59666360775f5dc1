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
 * A graph: one launch of G for the whole step, then the n nodes back to back, each holding the
 * GPU for max(K, F), F the node floor; the GPU is busy only the n K of its kernels' own work:
 *   makespan = G + n max(K, F),   idle share = 1 - n K / (G + n max(K, F))
 * (= G / (G + n K) when K >= F; a floor under kernels that move nothing is idle time, not work).
 *
 * The event simulation walks the same rules kernel by kernel, for kernels of any lengths:
 *   host_start[i] = max(host_end[i - 1], gpu_end[i - queue_depth])   (a free slot in the queue)
 *   host_end[i]   = host_start[i] + L
 *   gpu_start[i]  = max(host_end[i], gpu_end[i - 1]),  gpu_end[i] = gpu_start[i] + kernel_us[i]
 * (terms with a negative index are 0); a graph's node i starts at G or when node i - 1 ends, and
 * ends max(kernel_us[i], F) later. With equal kernels it must agree with the closed forms.
 *
 * Rules: plain C. Arguments that make no step give NaN (lab.h lists them); so do the totals of
 * the simulations, which then leave the events untouched.
 *
 * Check:  make check DAY=24        Stuck?  make hint DAY=24
 */
#include "lab.h"

#include <math.h>

static int cost_is_valid(double cost_us) { return isfinite(cost_us) && cost_us >= 0; }
static int time_is_valid(double kernel_us) { return isfinite(kernel_us) && kernel_us > 0; }

double eager_idle_share(double launch_us, double kernel_us, int kernels, int queue_depth)
{
    if (!cost_is_valid(launch_us) || !time_is_valid(kernel_us) || kernels < 1 || queue_depth < 1) return NAN;
    double n = kernels, busy = n * kernel_us;
    double makespan = queue_depth == 1 ? n * (launch_us + kernel_us)
                                       : fmax(launch_us + n * kernel_us, n * launch_us + kernel_us);
    return 1 - busy / makespan;
}

double graph_idle_share(double graph_launch_us, double node_floor_us, double kernel_us, int kernels)
{
    if (!cost_is_valid(graph_launch_us) || !cost_is_valid(node_floor_us) || !time_is_valid(kernel_us) || kernels < 1)
        return NAN;
    double n = kernels;
    return 1 - n * kernel_us / (graph_launch_us + n * fmax(kernel_us, node_floor_us));
}

static const step_timeline no_step = {NAN, NAN, NAN};

static int kernels_are_valid(const double *kernel_us, int kernels)
{
    if (kernels < 1) return 0;
    for (int i = 0; i < kernels; i++)
        if (!time_is_valid(kernel_us[i])) return 0;
    return 1;
}

static step_timeline totals(const launch_event *events, const double *kernel_us, int kernels)
{
    step_timeline t;
    t.busy_us = 0;
    for (int i = 0; i < kernels; i++) t.busy_us += kernel_us[i];
    t.makespan_us = events[kernels - 1].gpu_end;
    t.idle_share = 1 - t.busy_us / t.makespan_us;
    return t;
}

step_timeline simulate_eager(const double *kernel_us, int kernels, double launch_us, int queue_depth,
                             launch_event *events)
{
    if (!kernels_are_valid(kernel_us, kernels) || !cost_is_valid(launch_us) || queue_depth < 1) return no_step;
    for (int i = 0; i < kernels; i++) {
        double start = i > 0 ? events[i - 1].host_end : 0;
        if (i >= queue_depth) start = fmax(start, events[i - queue_depth].gpu_end);   // wait for a free slot
        events[i].host_start = start;
        events[i].host_end = start + launch_us;
        events[i].gpu_start = fmax(events[i].host_end, i > 0 ? events[i - 1].gpu_end : 0);
        events[i].gpu_end = events[i].gpu_start + kernel_us[i];
    }
    return totals(events, kernel_us, kernels);
}

step_timeline simulate_graph(const double *kernel_us, int kernels, double graph_launch_us, double node_floor_us,
                             launch_event *events)
{
    if (!kernels_are_valid(kernel_us, kernels) || !cost_is_valid(graph_launch_us) || !cost_is_valid(node_floor_us))
        return no_step;
    for (int i = 0; i < kernels; i++) {
        events[i].host_start = 0;
        events[i].host_end = graph_launch_us;
        events[i].gpu_start = i > 0 ? events[i - 1].gpu_end : graph_launch_us;
        events[i].gpu_end = events[i].gpu_start + fmax(kernel_us[i], node_floor_us);   // at least the floor
    }
    return totals(events, kernel_us, kernels);
}
