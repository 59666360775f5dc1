/* 24-cuda-graphs.c — the checks for day 24. The timeline model first (plain C, instant): the
 * closed forms against hand counts (launch-bound, GPU-bound, synchronous, a graph with kernels
 * above and below its node floor) and NaN for arguments that make no step; the event simulations
 * against hand-timed events, against the closed forms on a grid of equal-kernel steps, and on
 * uneven kernels, where the queue depth matters. Then the graph, on the toy decoder: capturing
 * runs nothing and leaves the stream idle, the graph holds one node per launch of the step,
 * replaying it step after step gives the eager path's logits and tokens bit for bit and the CPU
 * reference's within 1e-4, a replay without a graph is refused; a step that fails inside the
 * capture leaves the stream not capturing and nothing on the heap; a replay waits for nothing
 * (it can itself be captured) and goes to the stream it is given. No check is timed; each has a
 * .timeout. */
#include <criterion/criterion.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

/* ---------------------------------------------------------------------------------
 * The closed forms */

static void expect_share(const char *call, double got, double want, const char *why)
{
    cr_assert(fabs(got - want) <= 1e-12, "%s = %.15g, want %.15g (%s)%s", call, got, want, why,
              got == 0 ? ". Still 0: is it written yet?" : isnan(got) ? ". NaN: the arguments are valid here" : "");
}

Test(closed_form, launch_bound, .timeout = 10,
     .description = "Launch-bound (L >= K), host ahead of the GPU: the last kernel is launched at n L and ends K later, "
                    "so the makespan is n L + K and the GPU is busy n K of it.")
{
    /* L = 5, K = 1, n = 10: makespan 50 + 1 = 51, busy 10, idle 41 / 51 */
    expect_share("eager_idle_share(5, 1, 10, 4)", eager_idle_share(5, 1, 10, 4), 41.0 / 51,
                 "makespan n L + K = 51 us, busy 10 us");
    /* L = 4, K = 4, n = 3: both bounds are 16; busy 12: 4 / 16 */
    expect_share("eager_idle_share(4, 4, 3, 2)", eager_idle_share(4, 4, 3, 2), 0.25, "L = K: makespan 16 us, busy 12 us");
}

Test(closed_form, gpu_bound, .timeout = 10,
     .description = "GPU-bound (L < K), host ahead: after the first launch the GPU never waits, so the makespan is "
                    "L + n K and the only idle time is the first launch.")
{
    /* L = 1, K = 5, n = 10: makespan 1 + 50 = 51, idle 1 / 51 */
    expect_share("eager_idle_share(1, 5, 10, 1024)", eager_idle_share(1, 5, 10, 1024), 1.0 / 51,
                 "makespan L + n K = 51 us, busy 50 us");
    /* no launch cost: never idle */
    expect_share("eager_idle_share(0, 2, 7, 2)", eager_idle_share(0, 2, 7, 2), 0, "L = 0: the GPU never waits");
}

Test(closed_form, synchronous, .timeout = 10,
     .description = "Queue depth 1 (a synchronous launch): kernel i is launched only after kernel i - 1 has ended, so "
                    "nothing overlaps: makespan n (L + K), idle share L / (L + K), whatever n is.")
{
    expect_share("eager_idle_share(5, 1, 10, 1)", eager_idle_share(5, 1, 10, 1), 50.0 / 60,
                 "makespan 10 x (5 + 1) = 60 us, busy 10 us");
    expect_share("eager_idle_share(1, 5, 10, 1)", eager_idle_share(1, 5, 10, 1), 10.0 / 60,
                 "GPU-bound or not, each kernel waits for its own launch: 60 us, busy 50 us");
    /* depth 2 is already enough to overlap a launch with the kernel before it */
    expect_share("eager_idle_share(1, 5, 10, 2)", eager_idle_share(1, 5, 10, 2), 1.0 / 51,
                 "depth 2: the host launches kernel i while kernel i - 1 runs");
}

Test(closed_form, graph, .timeout = 10,
     .description = "A graph whose kernels are all longer than the node floor: one launch of G for the whole step, "
                    "then the n kernels back to back: idle share G / (G + n K), however many kernels there are.")
{
    expect_share("graph_idle_share(8, 0, 1, 10)", graph_idle_share(8, 0, 1, 10), 8.0 / 18, "makespan 8 + 10 = 18 us");
    expect_share("graph_idle_share(5, 0, 0.5, 184)", graph_idle_share(5, 0, 0.5, 184), 5.0 / 97,
                 "makespan 5 + 92 = 97 us");
    expect_share("graph_idle_share(0, 1, 3, 2)", graph_idle_share(0, 1, 3, 2), 0, "a free launch, kernels above "
                 "the floor: never idle");
}

Test(closed_form, graph_node_floor, .timeout = 10,
     .description = "Your derivation with the node floor F: every node holds the GPU for max(K, F), and only the "
                    "kernels' own n K is busy. Kernels below the floor: the floor sets the makespan, and the rest "
                    "of each node is idle; kernels above it: the floor changes nothing.")
{
    /* G = 5, F = 1, K = 0.5, n = 10: makespan 5 + 10 x 1 = 15, busy 5, idle 10 / 15 */
    double got = graph_idle_share(5, 1, 0.5, 10);
    cr_assert(fabs(got - 2.0 / 3) <= 1e-12, "graph_idle_share(5, 1, 0.5, 10) = %.15g, want 2/3: the makespan is "
              "5 + 10 x max(0.5, 1) = 15 us and the kernels are busy 5 us of it%s", got,
              fabs(got - 0.5) <= 1e-12 ? ". You have 1/2, the share without the floor: a node holds the GPU for at "
              "least F" : fabs(got - 1.0 / 3) <= 1e-12 ? ". You have 1/3: the floor counted as busy time; the GPU does "
              "no kernel's work in it" : "");
    /* G = 5, F = 1, K = 2, n = 10: the floor is below every kernel: 5 / 25 */
    got = graph_idle_share(5, 1, 2, 10);
    cr_assert(fabs(got - 0.2) <= 1e-12, "graph_idle_share(5, 1, 2, 10) = %.15g, want 0.2 = 5 / 25: kernels longer "
              "than the floor hold the GPU for their own time%s", got, fabs(got - 1 + 20.0 / 35) <= 1e-12 ?
              ". You have 1 - 20/35: the floor added to every kernel; it is a minimum, not an extra" : "");
    /* F = 0 is the model without a floor; a floor at K exactly changes nothing */
    expect_share("graph_idle_share(4, 0, 0.25, 48)", graph_idle_share(4, 0, 0.25, 48), 0.25, "no floor: 4 / 16");
    expect_share("graph_idle_share(4, 0.25, 0.25, 48)", graph_idle_share(4, 0.25, 0.25, 48), 0.25,
                 "a floor equal to K: 4 / 16");
}

Test(closed_form, invalid_arguments_give_nan, .timeout = 10,
     .description = "No kernels, a queue depth below 1, a negative, infinite or NaN launch cost, a kernel time that "
                    "is 0, negative, infinite or NaN, a node floor that is negative, infinite or NaN: no step, and "
                    "the answer is NaN, never a plausible share.")
{
    const struct { double launch, kernel; int kernels, depth; } bad[] = {
        {5, 1, 0, 2}, {5, 1, -3, 2}, {5, 1, 10, 0}, {5, 1, 10, -1}, {-1, 1, 10, 2}, {NAN, 1, 10, 2},
        {INFINITY, 1, 10, 2}, {5, 0, 10, 2}, {5, -1, 10, 2}, {5, NAN, 10, 2}, {5, INFINITY, 10, 2}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double got = eager_idle_share(bad[i].launch, bad[i].kernel, bad[i].kernels, bad[i].depth);
        cr_assert(isnan(got), "eager_idle_share(%g, %g, %d, %d) = %g, want NaN", bad[i].launch, bad[i].kernel,
                  bad[i].kernels, bad[i].depth, got);
        if (bad[i].depth >= 1) {
            got = graph_idle_share(bad[i].launch, 0.5, bad[i].kernel, bad[i].kernels);
            cr_assert(isnan(got), "graph_idle_share(%g, 0.5, %g, %d) = %g, want NaN", bad[i].launch, bad[i].kernel,
                      bad[i].kernels, got);
        }
    }
    const double bad_floors[] = {-0.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_floors / sizeof bad_floors[0]; i++) {
        double got = graph_idle_share(5, bad_floors[i], 1, 10);
        cr_assert(isnan(got), "graph_idle_share(5, %g, 1, 10) = %g, want NaN: a node floor is a cost, finite and not "
                  "negative", bad_floors[i], got);
    }
}

Test(closed_form, large_finite_arguments_are_valid, .timeout = 10,
     .description = "Finite is finite, however large: a launch of 1e300 us or a kernel of 1e300 us makes a step (an "
                    "absurd one), not NaN. Test the arguments in double, as they are given.")
{
    double got = eager_idle_share(1e300, 1, 10, 4);
    cr_assert(fabs(got - 1) <= 1e-12, "eager_idle_share(1e300, 1, 10, 4) = %g, want 1 (the GPU idles all but 10 us "
              "of 1e301)", got);
    got = graph_idle_share(1, 0.5, 1e300, 10);
    cr_assert(fabs(got) <= 1e-12, "graph_idle_share(1, 0.5, 1e300, 10) = %g, want 0 (1 us of idle in 1e301)", got);
    got = graph_idle_share(1, 1e300, 1, 10);
    cr_assert(fabs(got - 1) <= 1e-12, "graph_idle_share(1, 1e300, 1, 10) = %g, want 1 (nodes of 1e300 us, 10 us of "
              "work)", got);
}

Test(closed_form, kernel_counts_past_float, .timeout = 10,
     .description = "Every int is a kernel count: 16 777 217 kernels (2^24 + 1, the first int a float cannot hold) "
                    "must be counted exactly. Take the count in double, not float.")
{
    /* G = 1e6, no floor, K = 1, n = 2^24 + 1: idle 1e6 / (1e6 + 16777217); a float n (16777216) is 3e-9 off */
    double got = graph_idle_share(1e6, 0, 1, 16777217), want = 1e6 / (1e6 + 16777217.0);
    cr_assert(fabs(got - want) <= 1e-12, "graph_idle_share(1e6, 0, 1, 16777217) = %.15g, want %.15g%s", got, want,
              fabs(got - 1e6 / (1e6 + 16777216.0)) <= 1e-12 ? ": that is the share of 16777216 kernels; the count "
              "went through a float, which rounds 2^24 + 1 down" : "");
}

/* ---------------------------------------------------------------------------------
 * The event simulations */

/* The hand-timed events each check expects are static const: in the test program's data, not on the
 * stack beside the simulation while it runs (tests/grader/forgeries/reads-expected-values.patch). */
static void expect_events(const char *what, const launch_event *got, const launch_event *want, int kernels)
{
    for (int i = 0; i < kernels; i++)
        cr_assert(fabs(got[i].host_start - want[i].host_start) <= 1e-12 && fabs(got[i].host_end - want[i].host_end) <= 1e-12 &&
                  fabs(got[i].gpu_start - want[i].gpu_start) <= 1e-12 && fabs(got[i].gpu_end - want[i].gpu_end) <= 1e-12,
                  "%s, kernel %d: host [%g, %g), GPU [%g, %g); want host [%g, %g), GPU [%g, %g). The rules: a launch "
                  "starts when the one before it ends and a queue slot is free; a kernel starts when its launch "
                  "and the kernel before it have ended.", what, i, got[i].host_start, got[i].host_end,
                  got[i].gpu_start, got[i].gpu_end, want[i].host_start, want[i].host_end, want[i].gpu_start,
                  want[i].gpu_end);
}

static void expect_totals(const char *what, step_timeline got, double makespan, double busy)
{
    cr_assert(fabs(got.makespan_us - makespan) <= 1e-9 && fabs(got.busy_us - busy) <= 1e-9 &&
              fabs(got.idle_share - (1 - busy / makespan)) <= 1e-12,
              "%s: makespan %g, busy %g, idle share %g; want %g, %g and 1 - busy / makespan = %g", what,
              got.makespan_us, got.busy_us, got.idle_share, makespan, busy, 1 - busy / makespan);
}

Test(simulation, eager_hand_timed, .timeout = 10,
     .description = "Three kernels of 2, 6 and 1 us, launches of 3 us, queue depth 8: each launch follows the one "
                    "before; kernel 1 waits for its launch, kernel 2 for kernel 1.")
{
    /* launches [0,3) [3,6) [6,9); kernels: 0 at 3..5, 1 at max(6, 5) = 6..12, 2 at max(9, 12) = 12..13 */
    const double kernel_us[3] = {2, 6, 1};
    static const launch_event want[3] = {{0, 3, 3, 5}, {3, 6, 6, 12}, {6, 9, 12, 13}};
    launch_event got[3];
    memset(got, 0, sizeof got);
    step_timeline t = simulate_eager(kernel_us, 3, 3, 8, got);
    expect_events("simulate_eager({2, 6, 1}, 3, 3 us, depth 8)", got, want, 3);
    expect_totals("simulate_eager({2, 6, 1}, 3, 3 us, depth 8)", t, 13, 9);
}

Test(simulation, eager_queue_slot, .timeout = 10,
     .description = "Queue depth 2: the launch of kernel i waits until kernel i - 2 has ended. One long kernel first "
                    "holds the host back.")
{
    /* kernels {10, 1, 1, 1}, L = 1, depth 2: launches [0,1) [1,2); launch 2 waits for kernel 0 (ends 11): [11,12);
     * launch 3 waits for kernel 1 (ends 12): [12,13). Kernels: 0 at 1..11, 1 at 11..12, 2 at 12..13, 3 at 13..14 */
    const double kernel_us[4] = {10, 1, 1, 1};
    static const launch_event want[4] = {{0, 1, 1, 11}, {1, 2, 11, 12}, {11, 12, 12, 13}, {12, 13, 13, 14}};
    launch_event got[4];
    memset(got, 0, sizeof got);
    step_timeline t = simulate_eager(kernel_us, 4, 1, 2, got);
    expect_events("simulate_eager({10, 1, 1, 1}, 4, 1 us, depth 2)", got, want, 4);
    expect_totals("simulate_eager({10, 1, 1, 1}, 4, 1 us, depth 2)", t, 14, 13);
    /* depth 1: launch i waits for kernel i - 1: launches [0,1) [11,12) [13,14) [15,16); kernels end 11, 13, 15, 17 */
    static const launch_event serial[4] = {{0, 1, 1, 11}, {11, 12, 12, 13}, {13, 14, 14, 15}, {15, 16, 16, 17}};
    t = simulate_eager(kernel_us, 4, 1, 1, got);
    expect_events("simulate_eager({10, 1, 1, 1}, 4, 1 us, depth 1)", got, serial, 4);
    expect_totals("simulate_eager({10, 1, 1, 1}, 4, 1 us, depth 1)", t, 17, 13);
}

Test(simulation, depth_matters_for_uneven_kernels, .timeout = 10,
     .description = "A long kernel first, then short ones, launch-bound: a deep queue lets the host launch the short "
                    "kernels while the long one runs, so they run back to back; depth 2 does not.")
{
    /* {20, 1, 1, 1, 1}, L = 5. Depth 8: launches end 5, 10, 15, 20, 25; kernel 0 runs 5..25, the others 25..29:
     * makespan 29. Depth 2: launch 2 waits for kernel 0 (25): kernels end 25, 26, 31, 36, 41: makespan 41. */
    const double kernel_us[5] = {20, 1, 1, 1, 1};
    launch_event events[5];
    expect_totals("simulate_eager({20, 1, 1, 1, 1}, 5, 5 us, depth 8)", simulate_eager(kernel_us, 5, 5, 8, events), 29, 24);
    expect_totals("simulate_eager({20, 1, 1, 1, 1}, 5, 5 us, depth 2)", simulate_eager(kernel_us, 5, 5, 2, events), 41, 24);
}

Test(simulation, graph_hand_timed, .timeout = 10,
     .description = "A graph: every node shares the one launch's host interval [0, G); the kernels run back to back "
                    "from G on.")
{
    const double kernel_us[3] = {2, 6, 1};
    static const launch_event want[3] = {{0, 4, 4, 6}, {0, 4, 6, 12}, {0, 4, 12, 13}};
    launch_event got[3];
    memset(got, 0, sizeof got);
    step_timeline t = simulate_graph(kernel_us, 3, 4, 0, got);
    expect_events("simulate_graph({2, 6, 1}, 3, 4 us, no floor)", got, want, 3);
    expect_totals("simulate_graph({2, 6, 1}, 3, 4 us, no floor)", t, 13, 9);
}

Test(simulation, graph_node_floor, .timeout = 10,
     .description = "A graph with a node floor of 3 us: a node holds the GPU for its kernel's time or the floor, "
                    "whichever is longer; the busy time is still the kernels' own.")
{
    /* {2, 6, 1}, G = 4, F = 3: nodes 4..7 (2 us of work), 7..13, 13..16 (1 us of work): makespan 16, busy 9 */
    const double kernel_us[3] = {2, 6, 1};
    static const launch_event want[3] = {{0, 4, 4, 7}, {0, 4, 7, 13}, {0, 4, 13, 16}};
    launch_event got[3];
    memset(got, 0, sizeof got);
    step_timeline t = simulate_graph(kernel_us, 3, 4, 3, got);
    expect_events("simulate_graph({2, 6, 1}, 3, 4 us, floor 3 us)", got, want, 3);
    expect_totals("simulate_graph({2, 6, 1}, 3, 4 us, floor 3 us)", t, 16, 9);
}

Test(simulation, agrees_with_closed_form, .timeout = 30,
     .description = "Equal kernels: the event simulation and the closed form must agree (to 1e-9) for every launch "
                    "cost, kernel time, kernel count and queue depth — launch-bound, GPU-bound and in between.")
{
    const double launches[] = {0, 0.5, 2, 5, 20}, times[] = {0.1, 1, 2, 5, 50}, floors[] = {0, 0.58, 3};
    const int counts[] = {1, 2, 7, 34, 184}, depths[] = {1, 2, 3, 1024};
    double kernel_us[184];
    launch_event events[184];
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 5; c++) {
                for (int k = 0; k < counts[c]; k++) kernel_us[k] = times[b];
                for (int d = 0; d < 4; d++) {
                    double closed = eager_idle_share(launches[a], times[b], counts[c], depths[d]);
                    double simulated = simulate_eager(kernel_us, counts[c], launches[a], depths[d], events).idle_share;
                    cr_assert(launches[a] == 0 || closed > 0, "eager_idle_share(%g, %g, %d, %d) = %g: a launch that "
                              "costs time leaves the GPU idle for at least the first launch; the closed forms come "
                              "first (the closed_form checks)", launches[a], times[b], counts[c], depths[d], closed);
                    cr_assert(fabs(closed - simulated) <= 1e-9, "L = %g, K = %g, n = %d, depth %d: closed form %.12g, "
                              "simulated %.12g", launches[a], times[b], counts[c], depths[d], closed, simulated);
                }
                for (int f = 0; f < 3; f++) {
                    double closed = graph_idle_share(launches[a], floors[f], times[b], counts[c]);
                    double simulated = simulate_graph(kernel_us, counts[c], launches[a], floors[f], events).idle_share;
                    cr_assert(fabs(closed - simulated) <= 1e-9, "graph, G = %g, F = %g, K = %g, n = %d: closed form "
                              "%.12g, simulated %.12g", launches[a], floors[f], times[b], counts[c], closed, simulated);
                }
            }
}

Test(simulation, invalid_arguments, .timeout = 10,
     .description = "Invalid arguments (no kernels, a kernel of 0 or NaN us, a negative or NaN launch cost or node "
                    "floor, a depth below 1): totals of NaN, and no event written.")
{
    const double good[3] = {1, 2, 3}, zero[3] = {1, 0, 3}, nan_time[3] = {1, NAN, 3}, first_bad[3] = {-1, 2, 3};
    launch_event events[3];
    const struct { const char *what; step_timeline t; } cases[] = {
        {"simulate_eager(good, 0 kernels)", simulate_eager(good, 0, 1, 2, events)},
        {"simulate_eager({1, 0, 3})", simulate_eager(zero, 3, 1, 2, events)},
        {"simulate_eager({1, NaN, 3})", simulate_eager(nan_time, 3, 1, 2, events)},
        {"simulate_eager({-1, 2, 3}): the first kernel too", simulate_eager(first_bad, 3, 1, 2, events)},
        {"simulate_eager(launch -1)", simulate_eager(good, 3, -1, 2, events)},
        {"simulate_eager(launch NaN)", simulate_eager(good, 3, NAN, 2, events)},
        {"simulate_eager(depth 0)", simulate_eager(good, 3, 1, 0, events)},
        {"simulate_graph(good, 0 kernels)", simulate_graph(good, 0, 1, 0.5, events)},
        {"simulate_graph({1, 0, 3})", simulate_graph(zero, 3, 1, 0.5, events)},
        {"simulate_graph({-1, 2, 3}): the first kernel too", simulate_graph(first_bad, 3, 1, 0.5, events)},
        {"simulate_graph(launch -1)", simulate_graph(good, 3, -1, 0.5, events)},
        {"simulate_graph(floor -1)", simulate_graph(good, 3, 1, -1, events)},
        {"simulate_graph(floor NaN)", simulate_graph(good, 3, 1, NAN, events)}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert(isnan(cases[i].t.makespan_us) && isnan(cases[i].t.busy_us) && isnan(cases[i].t.idle_share),
                  "%s: makespan %g, busy %g, idle share %g; want NaN for each", cases[i].what, cases[i].t.makespan_us,
                  cases[i].t.busy_us, cases[i].t.idle_share);
    /* and nothing written: poisoned events stay poisoned */
    lab_poison(events, sizeof events);
    simulate_eager(zero, 3, 1, 2, events);
    simulate_graph(zero, 3, 1, 0.5, events);
    for (int i = 0; i < 3; i++)
        cr_assert(isnan(events[i].host_start) && isnan(events[i].gpu_end), "simulate_eager or simulate_graph with "
                  "kernel_us[1] = 0 wrote event %d; check every kernel time before writing anything", i);
}

/* ---------------------------------------------------------------------------------
 * The graph, on the toy decoder */

static const decode_config one_layer = {1, 16, 24, 2, 8, 20, 8}, two_layers = {2, 32, 64, 4, 8, 48, 16};
enum { SEED = 7 };

typedef struct fixture {
    decode_model *model;
    cudaStream_t stream;
} fixture;

static fixture make_fixture(decode_config c)
{
    fixture f = {decode_model_build(c, SEED), NULL};
    cr_assert(f.model != NULL, "decode_model_build failed: is the simulator broken?");
    cr_assert(cudaStreamCreate(&f.stream) == cudaSuccess, "cudaStreamCreate failed");
    return f;
}

static void free_fixture(fixture *f)
{
    cudaStreamDestroy(f->stream);
    decode_model_free(f->model);
}

#define CAPTURE_HINT "Begin a capture on the stream, decode_step_enqueue(model, stream), end the capture, count the " \
                     "nodes with cudaGraphGetNodes and instantiate with cudaGraphInstantiate."

static decode_graph capture_or_fail(fixture *f, const char *when)
{
    decode_graph graph = {NULL, 0};
    char said[1536];
    lab_capture_stderr();
    cudaError_t error = decode_graph_capture(f->model, f->stream, &graph);
    lab_release_stderr(said, sizeof said);
    cudaGetLastError();
    cr_assert(error == cudaSuccess, "%s: decode_graph_capture returned \"%s\". " CAPTURE_HINT "%s%s", when,
              cudaGetErrorString(error), SIMULATOR_SAID(said));
    cr_assert(graph.exec != NULL, "%s: decode_graph_capture succeeded but graph.exec is NULL: instantiate the "
              "captured graph into it", when);
    return graph;
}

Test(graph, capture_runs_nothing, .timeout = 60,
     .description = "Capturing records the launches without running them: the position stays 0, the logits stay "
                    "poisoned, and afterwards the stream is no longer capturing (cudaStreamEndCapture was called).")
{
    fixture f = make_fixture(two_layers);
    decode_graph graph = capture_or_fail(&f, "two layers");
    enum cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(f.stream, &status);
    cr_assert(status == cudaStreamCaptureStatusNone, "after decode_graph_capture the stream is still capturing: end "
              "the capture with cudaStreamEndCapture");
    int position = -1;
    float logits[48];
    cr_assert(decode_model_position(f.model, &position) == cudaSuccess && decode_model_logits(f.model, logits) == cudaSuccess,
              "reading the model after the capture failed: did something inside the capture synchronise?");
    cr_assert(position == 0, "after capturing, the position is %d; want 0: capturing must not run the step (did you "
              "run it once eagerly, or replay the graph, inside decode_graph_capture?)", position);
    for (int i = 0; i < 48; i++)
        cr_assert(lab_float_is_poison(logits[i]), "after capturing, logit %d = %g: the step ran, and only a replay "
                  "should run it", i, logits[i]);
    decode_graph_destroy(&graph);
    free_fixture(&f);
}

Test(graph, one_node_per_launch, .timeout = 60,
     .description = "The captured graph holds one node per launch of the step: 1 + 15 per layer + 4. Ask the graph "
                    "(cudaGraphGetNodes with a NULL array gives the count) rather than counting yourself.")
{
    const decode_config configs[2] = {one_layer, two_layers};
    for (int c = 0; c < 2; c++) {
        fixture f = make_fixture(configs[c]);
        decode_graph graph = capture_or_fail(&f, configs[c].layers == 1 ? "one layer" : "two layers");
        size_t want = (size_t)decode_step_kernels(configs[c]);
        cr_assert(graph.nodes == want, "%d layer(s): graph.nodes = %zu, want %zu (1 embed + 15 per layer + 4)%s",
                  configs[c].layers, graph.nodes, want, graph.nodes == 0 ? ": set it from cudaGraphGetNodes" : "");
        decode_graph_destroy(&graph);
        free_fixture(&f);
    }
}

/* Runs `steps` steps eagerly, or replayed from `graph`, from a reset model: every step's logits,
 * and the tokens. */
static void run_steps(fixture *f, decode_config c, const decode_graph *graph, int steps, float *logits, int *tokens)
{
    cr_assert(decode_model_reset(f->model) == cudaSuccess, "decode_model_reset failed");
    for (int s = 0; s < steps; s++) {
        cudaError_t error = graph ? decode_graph_replay(graph, f->stream) : decode_step_enqueue(f->model, f->stream);
        if (error == cudaSuccess) error = cudaStreamSynchronize(f->stream);
        cr_assert(error == cudaSuccess, "step %d %s: \"%s\"", s, graph ? "replayed (decode_graph_replay)" : "eager",
                  cudaGetErrorString(error));
        cr_assert(decode_model_logits(f->model, logits + (size_t)s * c.vocab) == cudaSuccess, "reading the logits failed");
    }
    cr_assert(decode_model_tokens(f->model, tokens, steps + 1) == cudaSuccess, "reading the tokens failed");
}

static void check_replay(decode_config c, int steps)
{
    fixture f = make_fixture(c);
    size_t count = (size_t)steps * c.vocab;
    float *eager = malloc(sizeof(float) * count), *replayed = malloc(sizeof(float) * count);
    float *reference = malloc(sizeof(float) * count);
    int *eager_tokens = malloc(sizeof(int) * (steps + 1)), *tokens = malloc(sizeof(int) * (steps + 1));
    int *reference_tokens = malloc(sizeof(int) * (steps + 1));
    /* the capture and the replays first, then the eager steps and the CPU reference (from the seed): neither
     * answer is in memory while your code runs */
    decode_graph graph = capture_or_fail(&f, c.layers == 1 ? "one layer" : "two layers");
    run_steps(&f, c, &graph, steps, replayed, tokens);
    run_steps(&f, c, NULL, steps, eager, eager_tokens);
    decode_reference(c, SEED, steps, reference, reference_tokens);
    for (int s = 0; s < steps; s++) {
        const float *e = eager + (size_t)s * c.vocab, *r = replayed + (size_t)s * c.vocab;
        size_t differ = 0, first = 0;
        for (int i = c.vocab - 1; i >= 0; i--)
            if (memcmp(&e[i], &r[i], sizeof(float))) differ++, first = (size_t)i;
        cr_assert(differ == 0, "%d layer(s), step %d of %d: %zu of %d replayed logits differ from the eager ones (the "
                  "first, logit %zu: replayed %.9g, eager %.9g). One replay must be exactly one step: one "
                  "cudaGraphLaunch of the graph of one decode_step_enqueue.", c.layers, s, steps, differ, c.vocab,
                  first, r[first], e[first]);
        cr_assert(tokens[s + 1] == eager_tokens[s + 1], "%d layer(s), step %d: the replay decoded token %d, the eager "
                  "path %d", c.layers, s, tokens[s + 1], eager_tokens[s + 1]);
        lab_comparison result = lab_compare_floats("logits", r, reference + (size_t)s * c.vocab, (size_t)c.vocab, 1e-4, 1e-5);
        cr_assert(result.mismatches == 0, "%d layer(s), step %d: the replayed logits against the CPU reference: %s",
                  c.layers, s, result.message);
    }
    decode_graph_destroy(&graph);
    free(eager), free(replayed), free(reference), free(eager_tokens), free(tokens), free(reference_tokens);
    free_fixture(&f);
}

Test(graph, replay_equals_eager_one_layer, .timeout = 120,
     .description = "One capture, then one replay per decode step: every step's logits must equal the eager "
                    "launches' bit for bit (the same kernels with the same arguments), and the CPU reference's. The "
                    "graph is captured once and replayed; the position it reads moves on in device memory.")
{
    check_replay(one_layer, 8);
}

Test(graph, replay_equals_eager_two_layers, .timeout = 120,
     .description = "The same with two layers and 16 steps, the whole KV cache of the toy model.")
{
    check_replay(two_layers, 16);
}

Test(graph, replay_without_graph_is_refused, .timeout = 30,
     .description = "decode_graph_replay of a graph with no exec (never captured, or destroyed) returns "
                    "cudaErrorInvalidValue, and decode_graph_destroy leaves exec NULL and nodes 0, twice over.")
{
    decode_graph none = {NULL, 0};
    cr_assert(decode_graph_replay(&none, NULL) == cudaErrorInvalidValue, "decode_graph_replay of a graph with exec NULL "
              "returned \"%s\"; want \"%s\"", cudaGetErrorString(decode_graph_replay(&none, NULL)),
              cudaGetErrorString(cudaErrorInvalidValue));
    cudaGetLastError();
    fixture f = make_fixture(one_layer);
    decode_graph graph = capture_or_fail(&f, "one layer");
    decode_graph_destroy(&graph);
    cr_assert(graph.exec == NULL && graph.nodes == 0, "after decode_graph_destroy: exec %p, nodes %zu; want NULL and 0",
              (void *)graph.exec, graph.nodes);
    decode_graph_destroy(&graph);
    cr_assert(decode_graph_replay(&graph, f.stream) == cudaErrorInvalidValue, "a replay after decode_graph_destroy "
              "must be refused with cudaErrorInvalidValue");
    cudaGetLastError();
    free_fixture(&f);
}

/* The bytes malloc has handed out and not had back (glibc): what a capture that fails must not
 * leave behind. */
static size_t heap_in_use(void)
{
    return mallinfo2().uordblks;
}

/* A step that fails after its first launch has been recorded: an error left pending by an earlier
 * call (here a synchronise on a stream that does not exist) is what the first kernel's
 * cudaGetLastError() reports, so decode_step_enqueue returns it inside the capture. */
static cudaError_t capture_a_failing_step(fixture *f, decode_graph *graph, char *said, size_t size)
{
    cudaStream_t gone;
    cr_assert(cudaStreamCreate(&gone) == cudaSuccess && cudaStreamDestroy(gone) == cudaSuccess,
              "cudaStreamCreate failed");
    lab_capture_stderr();
    cudaStreamSynchronize(gone);   /* leaves cudaErrorInvalidResourceHandle pending */
    cudaError_t error = decode_graph_capture(f->model, f->stream, graph);
    lab_release_stderr(said, size);
    cudaGetLastError();
    return error;
}

Test(graph, failed_capture_is_ended_and_freed, .timeout = 60,
     .description = "A step that fails inside the capture (after its first launch was recorded): decode_graph_capture "
                    "returns the step's error, graph.exec is NULL, the stream is no longer capturing, the half-"
                    "recorded graph is freed (32 failed captures leave the heap as it was), and the next capture "
                    "on the same stream works.")
{
    fixture f = make_fixture(one_layer);
    char said[1536];
    decode_graph graph = {NULL, 0};
    cudaError_t error = capture_a_failing_step(&f, &graph, said, sizeof said);
    cr_assert(error != cudaSuccess, "decode_graph_capture returned cudaSuccess although decode_step_enqueue failed "
              "inside the capture (\"%s\"): return the step's error",
              cudaGetErrorString(cudaErrorInvalidResourceHandle));
    cr_assert(graph.exec == NULL && graph.nodes == 0, "after a failed capture, graph.exec = %p and graph.nodes = %zu; "
              "want NULL and 0: nothing was instantiated", (void *)graph.exec, graph.nodes);
    enum cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(f.stream, &status);
    cr_assert(status == cudaStreamCaptureStatusNone, "after decode_graph_capture failed, the stream is still capturing "
              "(\"%s\"): a capture that has begun must be ended with cudaStreamEndCapture even when the step fails, "
              "or every later launch on the stream is recorded instead of run.%s%s", cudaGetErrorString(error),
              SIMULATOR_SAID(said));
    size_t before = heap_in_use();
    for (int i = 0; i < 32; i++) capture_a_failing_step(&f, &graph, said, sizeof said);
    size_t after = heap_in_use();
    cr_assert(after <= before + 4096, "32 failed captures left %zu bytes more on the heap than before: the graph "
              "cudaStreamEndCapture returned (one node recorded) must be freed with cudaGraphDestroy on the failure "
              "path as well", after - before);
    decode_graph next = capture_or_fail(&f, "the capture after a failed one, on the same stream");
    cr_assert(next.nodes == (size_t)decode_step_kernels(one_layer), "the capture after a failed one holds %zu nodes, "
              "want %d: the failed capture's launches must not be left in the stream's recording", next.nodes,
              decode_step_kernels(one_layer));
    float replayed[20], eager[20];
    int tokens[2];
    run_steps(&f, one_layer, &next, 1, replayed, tokens);
    run_steps(&f, one_layer, NULL, 1, eager, tokens);
    cr_assert(memcmp(replayed, eager, sizeof eager) == 0, "after a failed capture, the next graph's replay does not "
              "give the eager step's logits");
    decode_graph_destroy(&next);
    free_fixture(&f);
}

Test(graph, refused_capture_leaves_no_graph, .timeout = 60,
     .description = "When the capture cannot even begin (the stream is already capturing), decode_graph_capture "
                    "returns that error with graph.exec NULL and graph.nodes 0, whatever they held before.")
{
    fixture f = make_fixture(one_layer);
    cr_assert(cudaStreamBeginCapture(f.stream, cudaStreamCaptureModeRelaxed) == cudaSuccess,
              "cudaStreamBeginCapture failed");
    decode_graph graph = {NULL, 99};
    cudaError_t error = decode_graph_capture(f.model, f.stream, &graph);
    cudaGraph_t outer = NULL;
    cudaStreamEndCapture(f.stream, &outer);
    if (outer) cudaGraphDestroy(outer);
    cudaGetLastError();
    cr_assert(error != cudaSuccess, "decode_graph_capture on a stream already capturing returned cudaSuccess: "
              "cudaStreamBeginCapture refuses it, and its error must be returned");
    cr_assert(graph.exec == NULL && graph.nodes == 0, "after a capture that could not begin: graph.exec = %p, "
              "graph.nodes = %zu; want NULL and 0 (set them before anything can fail)", (void *)graph.exec,
              graph.nodes);
    free_fixture(&f);
}

Test(graph, replay_waits_for_nothing, .timeout = 60,
     .description = "decode_graph_replay only enqueues the step, as a launch does: replayed into a stream that is "
                    "itself being captured (a graph inside a graph), it must not wait for the GPU. A replay that "
                    "synchronises (after the launch, or after each node) is refused there and invalidates the "
                    "capture; the caller decides when to wait.")
{
    fixture f = make_fixture(one_layer);
    decode_graph graph = capture_or_fail(&f, "one layer");
    char said[1536];
    cr_assert(cudaStreamBeginCapture(f.stream, cudaStreamCaptureModeGlobal) == cudaSuccess,
              "cudaStreamBeginCapture failed");
    lab_capture_stderr();
    cudaError_t error = decode_graph_replay(&graph, f.stream);
    lab_release_stderr(said, sizeof said);
    enum cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(f.stream, &status);
    cudaGraph_t outer = NULL;
    cudaStreamEndCapture(f.stream, &outer);
    if (outer) cudaGraphDestroy(outer);
    cudaGetLastError();
    cr_assert(error == cudaSuccess && status == cudaStreamCaptureStatusActive, "decode_graph_replay into a capturing "
              "stream returned \"%s\" and left the capture %s: the replay waited for the GPU (cudaStreamSynchronize "
              "or cudaDeviceSynchronize). A replay is one cudaGraphLaunch and returns at once; a wait after every "
              "step puts the host's round trip back between the steps the graph was made to remove.%s%s",
              cudaGetErrorString(error), status == cudaStreamCaptureStatusActive ? "active" : "invalidated",
              SIMULATOR_SAID(said));
    decode_graph_destroy(&graph);
    free_fixture(&f);
}

Test(graph, replay_goes_to_the_given_stream, .timeout = 60,
     .description = "decode_graph_replay launches on the stream it is given: on a stream that no longer exists it "
                    "is refused (cudaErrorInvalidResourceHandle) and runs nothing. A replay on the legacy stream 0 "
                    "runs anyway, serialised with every blocking stream and fatal to any capture in progress.")
{
    fixture f = make_fixture(one_layer);
    decode_graph graph = capture_or_fail(&f, "one layer");
    cr_assert(decode_model_reset(f.model) == cudaSuccess, "decode_model_reset failed");
    cudaStream_t gone;
    cr_assert(cudaStreamCreate(&gone) == cudaSuccess && cudaStreamDestroy(gone) == cudaSuccess,
              "cudaStreamCreate failed");
    cudaError_t error = decode_graph_replay(&graph, gone);
    cudaGetLastError();
    int position = -1;
    cr_assert(decode_model_position(f.model, &position) == cudaSuccess, "reading the position failed");
    cr_assert(error == cudaErrorInvalidResourceHandle && position == 0, "decode_graph_replay on a destroyed stream "
              "returned \"%s\" and the position is now %d; want \"%s\" and 0: the replay did not go to the stream it "
              "was given. Launch the graph with cudaGraphLaunch(exec, stream), never on the legacy stream 0",
              cudaGetErrorString(error), position, cudaGetErrorString(cudaErrorInvalidResourceHandle));
    decode_graph_destroy(&graph);
    free_fixture(&f);
}
