/* timeline.c — Day 24: a model of the timeline of one decode step, launched kernel by kernel
 * (eager) or as one graph, and the share of it the GPU spends idle.
 *
 * The model (lab.h states it in full): the host spends L microseconds on each launch, one after
 * the other; kernel i runs for its own time once its launch and kernel i - 1 have ended; with a
 * queue of depth Q the host may not launch kernel i until kernel i - Q has ended (Q = 1 is a
 * synchronous launch). A graph is one launch of G for the whole step, and each of its nodes
 * holds the GPU for at least F, the node floor, even when its kernel would take less; only the
 * kernels' own time counts as busy.
 *
 * Today's derivation is yours: for n equal kernels of K microseconds, when does the step end,
 * and what share of it does the GPU sit idle? Draw the two lanes (host, GPU) for a few kernels,
 * find what ends the step when the host is ahead of the GPU and when it is behind, then what a
 * queue of depth 1 and a graph change, and what the floor changes when K is below it and when
 * it is above. The checks hold your closed forms to hand counts, and your event simulation
 * (the same rules walked kernel by kernel, for kernels of any lengths) to your closed forms.
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
    // TODO: task: the share of an eager step the GPU is idle, 1 - busy / makespan, in closed form
    //       (your derivation). Contract: microseconds in; NaN for arguments that make no step
    //       (lab.h lists them; NaN itself must be refused). Idea: two lanes, and whichever is
    //       slower ends the step.
    (void)launch_us, (void)kernel_us, (void)kernels, (void)queue_depth;
    return 0;
}

double graph_idle_share(double graph_launch_us, double node_floor_us, double kernel_us, int kernels)
{
    // TODO: task: the same share for a step launched as one graph. Contract: as above; the node
    //       floor is a cost like a launch (0 is allowed). Idea: one launch, then nodes back to
    //       back; a node the floor lengthens keeps the GPU from the next node, not busy.
    (void)graph_launch_us, (void)node_floor_us, (void)kernel_us, (void)kernels;
    return 0;
}

step_timeline simulate_eager(const double *kernel_us, int kernels, double launch_us, int queue_depth,
                             launch_event *events)
{
    // TODO: task: walk the model's rules kernel by kernel, filling events[i] (host and GPU
    //       intervals, microseconds from the first launch's start), and return the totals.
    //       Contract: kernels of any lengths; any invalid argument (each kernel time too) gives
    //       totals of NaN and leaves events untouched. Idea: everything kernel i waits for is in
    //       the events before it.
    (void)kernel_us, (void)kernels, (void)launch_us, (void)queue_depth, (void)events;
    step_timeline t = {0, 0, 0};
    return t;
}

step_timeline simulate_graph(const double *kernel_us, int kernels, double graph_launch_us, double node_floor_us,
                             launch_event *events)
{
    // TODO: task: the same for a step launched as one graph (every node shares the one launch's
    //       host interval; each node's GPU interval is at least the floor long). Contract: as above.
    (void)kernel_us, (void)kernels, (void)graph_launch_us, (void)node_floor_us, (void)events;
    step_timeline t = {0, 0, 0};
    return t;
}
