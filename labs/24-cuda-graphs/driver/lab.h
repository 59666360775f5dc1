/* lab.h — Day 24: the interface between your code, the driver and the tests. Driver file: do
 * not edit.
 *
 * Two halves. graph.cu captures the toy model's decode step (model.cu: a chain of small
 * kernels, one token through a tiny decoder) into a CUDA graph and replays it. timeline.c
 * models what a graph saves: the host pays `launch_us` to launch each kernel, the GPU spends
 * kernel_us[i] running kernel i, and every microsecond the GPU waits for a launch is idle; a
 * graph's node holds the GPU for at least `node_floor_us`, however little its kernel does. */
#ifndef DAY24_LAB_H
#define DAY24_LAB_H

#include <stddef.h>
#include <cuda_runtime_api.h>   /* cudaError_t, cudaStream_t, cudaGraphExec_t; usable from C */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- model.cu (driver): the toy decoder and its decode step ---- */

/* A Llama-style decoder: `layers` layers of RMSNorm, Q/K/V projections, RoPE, a KV cache,
 * attention over the cache, the output projection, a residual add, RMSNorm, a SwiGLU MLP and
 * a residual add; then a final RMSNorm, the logits and a greedy argmax. Multi-head attention
 * (as many KV heads as query heads), FP32 weights, no batching. */
typedef struct decode_config {
    int layers, dim, hidden, heads, head_dim, vocab, max_positions;
} decode_config;

/* Every device pointer of the model and its state. The step reads the position it decodes and
 * the token it embeds from device memory (`position`, `tokens`), and ends by writing the next
 * token and adding 1 to the position: nothing a step needs comes from the host, so one graph
 * replays every step. */
typedef struct decode_model decode_model;

/* Builds the model with seeded weights (host `seed`) on the device, the prompt's first token in
 * tokens[0], position 0 and the KV cache empty. NULL when the configuration is not one the
 * kernels take (1 <= layers, heads * head_dim == dim, head_dim even, dim, hidden, vocab >= 1,
 * 1 <= max_positions <= MAX_POSITIONS) or the device fails. */
enum { MAX_POSITIONS = 64 };
decode_model *decode_model_build(decode_config config, unsigned seed);
void decode_model_free(decode_model *model);
/* Back to position 0, an empty cache, the first token; the logits poisoned (0xff: NaN). */
cudaError_t decode_model_reset(decode_model *model);

/* The kernels of one decode step: 1 (embed) + 15 per layer + 4 (final norm, logits, argmax,
 * advance the position). */
int decode_step_kernels(decode_config config);
/* The name of kernel k of the step ("L0 Q projection", "logits", ...), for tables and plots. */
const char *decode_kernel_name(decode_config config, int kernel, char *name, size_t size);

/* Launches the kernels of one decode step, in order, on `stream`, and returns the first
 * error. This is the eager path: each launch is one call into the CUDA runtime. */
cudaError_t decode_step_enqueue(const decode_model *model, cudaStream_t stream);

/* After cudaDeviceSynchronize: the logits of the last step (vocab floats), the position, and the
 * tokens decoded so far (tokens[0 .. position], max_positions + 1 ints at most). */
cudaError_t decode_model_logits(const decode_model *model, float *logits);
cudaError_t decode_model_position(const decode_model *model, int *position);
cudaError_t decode_model_tokens(const decode_model *model, int *tokens, int count);

/* ---- reference.c (driver): the same steps on the CPU ---- */
/* Runs `steps` decode steps of the model built from (config, seed) on the host; writes the
 * logits of every step (steps x vocab floats) and the tokens (steps + 1 ints). */
void decode_reference(decode_config config, unsigned seed, int steps, float *logits, int *tokens);
/* The seeded weights, in the order model.cu uploads them (shared by both). */
size_t decode_weight_count(decode_config config);
void decode_fill_weights(decode_config config, unsigned seed, float *weights);

/* ---- graph.cu (yours) ---- */
typedef struct decode_graph {
    cudaGraphExec_t exec;   /* the instantiated graph of one decode step; NULL when there is none */
    size_t nodes;           /* the nodes the captured graph holds (cudaGraphGetNodes) */
} decode_graph;

/* Captures one decode step (decode_step_enqueue) on `stream` into a graph, counts its nodes and
 * instantiates it into graph->exec. Capturing runs nothing: the model's state is as before.
 * On an error, graph->exec is NULL and the stream is no longer capturing. */
cudaError_t decode_graph_capture(const decode_model *model, cudaStream_t stream, decode_graph *graph);
/* Runs the captured step once on `stream` (asynchronously, as a launch does).
 * cudaErrorInvalidValue for a graph with no exec. */
cudaError_t decode_graph_replay(const decode_graph *graph, cudaStream_t stream);
/* Releases the exec; graph->exec becomes NULL and graph->nodes 0. Safe to call twice. */
void decode_graph_destroy(decode_graph *graph);

/* ---- timeline.c (yours): the timeline of one step, modelled ---- */

/* One kernel of a step, on the timeline (microseconds from the first launch's start):
 * the host is busy launching it over [host_start, host_end); the GPU runs it (a graph: holds
 * its node) over [gpu_start, gpu_end). With a graph every node shares the one graph launch's
 * host interval. */
typedef struct launch_event {
    double host_start, host_end, gpu_start, gpu_end;
} launch_event;

/* A step's totals: from the first launch's start to the last kernel's end (makespan_us), the
 * time the GPU ran kernels (busy_us), and the share of the makespan it ran none:
 * idle_share = 1 - busy_us / makespan_us. */
typedef struct step_timeline {
    double makespan_us, busy_us, idle_share;
} step_timeline;

/* The model, for `kernels` kernels of kernel_us each and a launch cost launch_us each:
 *   eager  the host launches kernel i once it has launched kernel i - 1 AND there are fewer
 *          than queue_depth kernels launched and unfinished (kernel i - queue_depth has ended).
 *          A kernel starts once its launch has ended and the kernel before it has ended.
 *          queue_depth = 1 is a synchronous launch (CUDA_LAUNCH_BLOCKING=1, or a synchronize
 *          after every launch).
 *   graph  the host launches the whole step once (graph_launch_us); then the GPU runs every
 *          node back to back, each holding the GPU for its kernel's time or node_floor_us,
 *          whichever is longer (the GPU's own cost of a node, paid even by an empty kernel).
 *          busy_us counts the kernels' own times only: the rest of a node's floor is idle.
 * Closed forms of the idle share (your derivation; the chapter sets out the rules). Arguments
 * that make no step (kernels < 1, queue_depth < 1, a launch cost or node floor that is
 * negative, infinite or NaN, a kernel time that is not > 0 and finite) give NaN. */
double eager_idle_share(double launch_us, double kernel_us, int kernels, int queue_depth);
double graph_idle_share(double graph_launch_us, double node_floor_us, double kernel_us, int kernels);

/* The event simulation of the same rules, for kernels that may each take their own time: fills
 * events[0 .. kernels) and returns the totals. Invalid arguments (as above, any kernel_us[i])
 * give totals of NaN and leave events untouched. */
step_timeline simulate_eager(const double *kernel_us, int kernels, double launch_us, int queue_depth,
                             launch_event *events);
step_timeline simulate_graph(const double *kernel_us, int kernels, double graph_launch_us, double node_floor_us,
                             launch_event *events);

/* ---- run.cu (driver): timing on a real GPU ---- */
/* Microseconds per decode step, measured: the median of 20 runs of `steps` steps, eager
 * (graph NULL) or replayed from `graph`. -1 on the simulator: its time is this CPU's. */
double decode_step_microseconds(decode_model *model, const decode_graph *graph, int steps);

#ifdef __cplusplus
}
#endif

#endif
