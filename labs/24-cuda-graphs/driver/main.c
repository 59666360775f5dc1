/* main.c — Day 24 driver: the toy decode step run eagerly and replayed from your graph (checked
 * against each other and against the CPU), then your timeline model of that step at the width of
 * a real small model. Do not edit.
 *
 *   build/24-cuda-graphs/labs-sim/lab RESULTS.csv     (make check DAY=24 runs it)
 *
 * Prints, in order:
 *   1. the toy model (2 layers, dim 32): kernels per step, the nodes your graph holds, and for
 *      each of 12 steps whether the replayed logits equal the eager ones bit for bit, and how far
 *      both are from the CPU reference;
 *   2. on a real GPU, microseconds per step, eager and replayed (measured); nothing on the
 *      simulator, whose clock is this CPU's;
 *   3. the same step at the widths of llama2.c's stories110M (12 layers, dim 768, hidden 2048,
 *      vocab 32000; FP32 weights, as lib/llama keeps them) decoding its 256th token on an H100
 *      SXM: each kernel's time predicted as its compulsory bytes over the memory bandwidth of
 *      data/gpus.csv (a roofline lower bound), then the step's timeline from your simulations
 *      with a launch cost of LAUNCH_US per kernel (eager, synchronous and asynchronous) and
 *      GRAPH_LAUNCH_US for the graph, each node at least NODE_FLOOR_US, beside your closed forms;
 *   4. the idle share against the kernel time, closed form and simulated.
 * Writes one CSV, two kinds of row (part = gantt or sweep):
 *   part,mode,kernel,name,host_start_us,host_end_us,gpu_start_us,gpu_end_us,kernel_us,
 *   eager_closed,eager_simulated,serial_closed,serial_simulated,graph_closed,graph_simulated
 * gantt rows: one per kernel of part 3's step, for mode eager (queue depth QUEUE_DEPTH) and graph;
 * sweep rows: one per kernel time, the idle shares of the three ways for that step's kernel count. */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's parameters: the host's cost of one kernel launch and of one graph launch, a few
 * microseconds (the chapter cites its sources); and the GPU's floor per node of a graph, what a
 * node costs however little its kernel does. Its source: a chain of N empty kernels replayed
 * from a graph took about 15 us + 0.58 us per node (N = 8 to 117: 19.4 us to 82.9 us; RTX 5070
 * Ti Laptop, CUDA 13.3, https://github.com/ahrefs/ocannl/issues/488, comment of 2026-07-30), a
 * figure measured on another GPU and used here for the H100. Change them and see. */
static const double LAUNCH_US = 5.0, GRAPH_LAUNCH_US = 5.0, NODE_FLOOR_US = 0.58;
enum { QUEUE_DEPTH = 1024, TOY_STEPS = 12, TOY_SEED = 24, CONTEXT = 256 };
static const decode_config toy = {2, 32, 64, 4, 8, 48, 16};
static const decode_config stories110m = {12, 768, 2048, 12, 64, 32000, 256};

/* ---------------------------------------------------------------------------------
 * 1 and 2. The toy model on the device: eager, replayed, and the CPU */

static double largest_difference(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = isfinite(a[i]) ? fmax(worst, fabs((double)a[i] - b[i])) : INFINITY;
    return worst;
}

static cudaError_t run_steps(decode_model *model, const decode_graph *graph, cudaStream_t stream, float *logits)
{
    cudaError_t error = decode_model_reset(model);
    for (int s = 0; s < TOY_STEPS && error == cudaSuccess; s++) {
        error = graph ? decode_graph_replay(graph, stream) : decode_step_enqueue(model, stream);
        if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
        if (error == cudaSuccess) error = decode_model_logits(model, logits + (size_t)s * toy.vocab);
    }
    return error;
}

static void toy_part(void)
{
    size_t count = (size_t)TOY_STEPS * toy.vocab;
    float *eager = malloc(sizeof(float) * count), *replayed = malloc(sizeof(float) * count);
    float *reference = malloc(sizeof(float) * count);
    int reference_tokens[TOY_STEPS + 1], tokens[TOY_STEPS + 1];
    decode_reference(toy, TOY_SEED, TOY_STEPS, reference, reference_tokens);
    printf("1. The toy decoder (%d layers, dim %d, %d heads of %d, hidden %d, vocab %d): one decode step is %d "
           "kernels.\n", toy.layers, toy.dim, toy.heads, toy.head_dim, toy.hidden, toy.vocab, decode_step_kernels(toy));
    decode_model *model = decode_model_build(toy, TOY_SEED);
    cudaStream_t stream;
    if (!model || cudaStreamCreate(&stream) != cudaSuccess) {
        printf("   the model could not be built on the device\n\n");
        free(eager), free(replayed), free(reference);
        return;
    }
    cudaError_t error = run_steps(model, NULL, stream, eager);
    if (error != cudaSuccess) printf("   the eager steps failed: %s\n", cudaGetErrorString(error));
    decode_graph graph = {NULL, 0};
    cudaError_t capture = decode_graph_capture(model, stream, &graph);
    if (capture != cudaSuccess) {
        printf("   decode_graph_capture failed: \"%s\" (make check DAY=24 says which check fails)\n",
               cudaGetErrorString(capture));
    } else {
        printf("   your graph holds %zu nodes (%s)\n", graph.nodes, graph.nodes == (size_t)decode_step_kernels(toy) ?
               "one per launch of the step" : "the step has one launch per kernel: not yet right");
        cudaError_t replay = run_steps(model, &graph, stream, replayed);
        if (replay != cudaSuccess) printf("   replaying failed: %s\n", cudaGetErrorString(replay));
        else {
            printf("   step   replayed == eager (bit for bit)   |eager - CPU|   |replayed - CPU|   token\n");
            decode_model_tokens(model, tokens, TOY_STEPS + 1);
            for (int s = 0; s < TOY_STEPS; s++) {
                const float *e = eager + (size_t)s * toy.vocab, *r = replayed + (size_t)s * toy.vocab;
                const float *want = reference + (size_t)s * toy.vocab;
                printf("   %4d   %30s   %13.3g   %16.3g   %5d%s\n", s, memcmp(e, r, sizeof(float) * toy.vocab) == 0 ?
                       "yes" : "NO", largest_difference(e, want, toy.vocab), largest_difference(r, want, toy.vocab),
                       tokens[s + 1], tokens[s + 1] == reference_tokens[s + 1] ? "" : " (the CPU decoded another)");
            }
        }
    }
    double eager_us = decode_step_microseconds(model, NULL, toy.max_positions);
    double graph_us = capture == cudaSuccess ? decode_step_microseconds(model, &graph, toy.max_positions) : -1;
    if (eager_us < 0) printf("\n2. Time per step: not measured on the simulator (its clock is this CPU simulating).\n\n");
    else printf("\n2. Time per step on this GPU (measured, median of 20 runs of %d steps): eager %.2f us, graph %.2f us\n\n",
                toy.max_positions, eager_us, graph_us);
    decode_graph_destroy(&graph);
    cudaStreamDestroy(stream);
    decode_model_free(model);
    free(eager), free(replayed), free(reference);
}

/* ---------------------------------------------------------------------------------
 * 3. The step at stories110M's widths, modelled */

/* The compulsory bytes of kernel k of the step (FP32), decoding the token at `position`: what it
 * must read and write at least once, in model.cu's order of kernels. */
static double kernel_bytes(decode_config c, int kernel, int position)
{
    double dim = c.dim, hidden = c.hidden, vocab = c.vocab;
    int last = 1 + 15 * c.layers;
    double floats;
    if (kernel == 0) floats = 2 * dim;                                     /* one embedding row in, x out */
    else if (kernel >= last) {
        const double tail[4] = {3 * dim, vocab * dim + dim + vocab, vocab + 1, 2};
        floats = tail[kernel - last];                                      /* norm, logits, argmax, position */
    } else {
        double keys = position + 1;
        const double ops[15] = {3 * dim,                                   /* RMSNorm: x, weight, out */
                                dim * dim + 2 * dim, dim * dim + 2 * dim, dim * dim + 2 * dim,   /* Q, K, V */
                                4 * dim,                                   /* RoPE: q and k in and out */
                                4 * dim,                                   /* KV append: k, v in, cache out */
                                2 * dim + 2 * keys * dim,                  /* attention: q, K and V, out */
                                dim * dim + 2 * dim,                       /* O */
                                3 * dim,                                   /* residual: x, delta in, x out */
                                3 * dim,                                   /* RMSNorm */
                                hidden * dim + dim + hidden, hidden * dim + dim + hidden,        /* gate, up */
                                3 * hidden,                                /* SwiGLU */
                                dim * hidden + hidden + dim,               /* down */
                                3 * dim};                                  /* residual */
        floats = ops[(kernel - 1) % 15];
    }
    return 4 * floats;
}

static double h100_bandwidth_gb_per_s(void)
{
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int row = lab_table_find(gpus, "key", "h100-sxm");
    if (row < 0) {
        fprintf(stderr, "data/gpus.csv has no row with key h100-sxm\n");
        exit(EXIT_FAILURE);
    }
    double bandwidth = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
    lab_table_free(gpus);
    return bandwidth;
}

static void print_way(const char *way, step_timeline t, double closed)
{
    printf("   %-34s %12.1f %10.1f %12.1f%% %12.1f%% %10.0f\n", way, t.makespan_us, t.busy_us, 100 * t.idle_share,
           100 * closed, 1e6 / t.makespan_us);
}

static void write_events(lab_results *csv, const char *mode, decode_config c, const launch_event *events,
                         const double *kernel_us, int kernels)
{
    for (int k = 0; k < kernels; k++) {
        char name[64];
        lab_results_row_or_exit(csv, "gantt,%s,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,,,,,,", mode, k, decode_kernel_name(c, k, name,
                        sizeof name), events[k].host_start, events[k].host_end, events[k].gpu_start, events[k].gpu_end,
                        kernel_us[k]);
    }
}

static void model_part(lab_results *csv)
{
    decode_config c = stories110m;
    int kernels = decode_step_kernels(c);
    double bandwidth = h100_bandwidth_gb_per_s(), bytes = 0, *kernel_us = malloc(sizeof(double) * kernels);
    for (int k = 0; k < kernels; k++) {
        kernel_us[k] = kernel_bytes(c, k, CONTEXT - 1) / (bandwidth * 1e3);   /* GB/s = 1e3 bytes per microsecond */
        bytes += kernel_bytes(c, k, CONTEXT - 1);
    }
    double mean_us = 0, shortest = INFINITY, longest = 0;
    for (int k = 0; k < kernels; k++)
        mean_us += kernel_us[k] / kernels, shortest = fmin(shortest, kernel_us[k]), longest = fmax(longest, kernel_us[k]);
    printf("3. The same step at stories110M's widths (%d layers, dim %d, hidden %d, vocab %d, FP32), token %d, on an\n"
           "   H100 SXM (data/gpus.csv: %.0f GB/s): %d kernels, %.1f MB, each kernel's time predicted as its bytes /\n"
           "   bandwidth (%.3g to %.3g us, mean %.3g us). Model parameters: %.1f us a kernel launch, %.1f us a graph\n"
           "   launch, %.2f us the floor of a graph's node.\n",
           c.layers, c.dim, c.hidden, c.vocab, CONTEXT, bandwidth, kernels, bytes / 1e6, shortest, longest,
           mean_us, LAUNCH_US, GRAPH_LAUNCH_US, NODE_FLOOR_US);
    launch_event *eager = calloc(kernels, sizeof(launch_event)), *serial = calloc(kernels, sizeof(launch_event));
    launch_event *graph = calloc(kernels, sizeof(launch_event));
    step_timeline t_eager = simulate_eager(kernel_us, kernels, LAUNCH_US, QUEUE_DEPTH, eager);
    step_timeline t_serial = simulate_eager(kernel_us, kernels, LAUNCH_US, 1, serial);
    step_timeline t_graph = simulate_graph(kernel_us, kernels, GRAPH_LAUNCH_US, NODE_FLOOR_US, graph);
    printf("   %-34s %12s %10s %13s %13s %10s\n", "predicted, one step", "makespan us", "busy us", "idle (sim)",
           "closed form", "tokens/s");
    print_way("eager, synchronous (queue depth 1)", t_serial, eager_idle_share(LAUNCH_US, mean_us, kernels, 1));
    print_way("eager, asynchronous (depth 1024)", t_eager, eager_idle_share(LAUNCH_US, mean_us, kernels, QUEUE_DEPTH));
    print_way("one CUDA graph", t_graph, graph_idle_share(GRAPH_LAUNCH_US, NODE_FLOOR_US, mean_us, kernels));
    int floored = 0;
    double floor_us = 0;
    for (int k = 0; k < kernels; k++)
        if (kernel_us[k] < NODE_FLOOR_US) floored++, floor_us += NODE_FLOOR_US - kernel_us[k];
    printf("   The node floor lengthens %d of the graph's %d nodes, by %.1f us in all.\n", floored, kernels, floor_us);
    printf("   (closed form: every kernel taken at the mean time; the simulation uses each kernel's own. Floors:\n"
           "   each kernel's time is a roofline bound, so every makespan is a lower bound and every rate an upper\n"
           "   bound; a real launch is not exactly %.0f us.)\n\n", LAUNCH_US);
    if (isfinite(t_eager.makespan_us) && t_eager.makespan_us > 0) write_events(csv, "eager", c, eager, kernel_us, kernels);
    if (isfinite(t_graph.makespan_us) && t_graph.makespan_us > 0) write_events(csv, "graph", c, graph, kernel_us, kernels);

    printf("4. Idle share against the kernel time, %d equal kernels, %.0f us a launch, a graph's node at least\n"
           "   %.2f us (closed form / simulated):\n"
           "   kernel us     eager async       eager sync            graph\n", kernels, LAUNCH_US, NODE_FLOOR_US);
    double *equal = malloc(sizeof(double) * kernels);
    for (int e = -8; e <= 16; e++) {
        double k_us = pow(10.0, e / 8.0);
        for (int k = 0; k < kernels; k++) equal[k] = k_us;
        double shares[6] = {eager_idle_share(LAUNCH_US, k_us, kernels, QUEUE_DEPTH),
                            simulate_eager(equal, kernels, LAUNCH_US, QUEUE_DEPTH, eager).idle_share,
                            eager_idle_share(LAUNCH_US, k_us, kernels, 1),
                            simulate_eager(equal, kernels, LAUNCH_US, 1, serial).idle_share,
                            graph_idle_share(GRAPH_LAUNCH_US, NODE_FLOOR_US, k_us, kernels),
                            simulate_graph(equal, kernels, GRAPH_LAUNCH_US, NODE_FLOOR_US, graph).idle_share};
        if (e % 4 == 0)
            printf("   %9.3g   %6.3f / %6.3f   %6.3f / %6.3f   %6.3f / %6.3f\n", k_us, shares[0], shares[1], shares[2],
                   shares[3], shares[4], shares[5]);
        lab_results_row_or_exit(csv, "sweep,,,,,,,,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", k_us, shares[0], shares[1], shares[2],
                        shares[3], shares[4], shares[5]);
    }
    free(equal), free(eager), free(serial), free(graph), free(kernel_us);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 24 — CUDA graphs: one launch for the whole decode step\n\n");
    lab_results csv = lab_results_open_or_exit(argv[1], "part,mode,kernel,name,host_start_us,host_end_us,gpu_start_us,gpu_end_us,"
                                            "kernel_us,eager_closed,eager_simulated,serial_closed,serial_simulated,"
                                            "graph_closed,graph_simulated");
    toy_part();
    model_part(&csv);
    lab_results_close_or_exit(&csv);
    return 0;
}
