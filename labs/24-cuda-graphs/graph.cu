/* graph.cu — Day 24: capture the toy model's decode step into a CUDA graph, and replay it.
 *
 * Eagerly, a decode step is decode_step_enqueue: 35 launches for the lab's two layers, each a
 * call into the CUDA runtime that costs the host microseconds, often more than the kernel runs.
 * Today's idea: record those launches once (stream capture), and from then on hand the whole
 * step to the GPU in one call. The chapter's section "A graph: record once, launch once" sets
 * out a graph's life, from the recording to the replay; which call does what is yours to find
 * in the CUDA Runtime API's "Graph Management" and "Stream Management" pages.
 *
 * Rules: capture on `stream`, never the legacy default stream (0): work sent there while a
 * blocking stream is being captured invalidates the capture, whatever its mode. Nothing inside
 * the capture may wait for the GPU (no synchronise, no synchronous copy): nothing has run yet.
 * A capture that has begun must end, even when the step failed, or the stream stays capturing.
 *
 * Check:  make check DAY=24        Stuck?  make hint DAY=24
 */
#include "lab.h"

extern "C" cudaError_t decode_graph_capture(const decode_model *model, cudaStream_t stream, decode_graph *graph)
{
    // TODO: task: record one decode step (decode_step_enqueue, which the driver gives you) on `stream`
    //       as a graph, count its nodes into graph->nodes, and instantiate it into graph->exec.
    //       Contract: on success the model's state is as before (capturing runs nothing); on any
    //       error graph->exec is NULL, graph->nodes 0, the first error is returned, the stream is no
    //       longer capturing, and no graph is left allocated.
    //       Idea: between the beginning and the end of a capture a launch is recorded, not run.
    (void)model, (void)stream, (void)graph;
    return cudaErrorNotSupported;   // not written yet
}

extern "C" cudaError_t decode_graph_replay(const decode_graph *graph, cudaStream_t stream)
{
    // TODO: task: run the captured step once on `stream`. Contract: asynchronous, as a launch is (the
    //       caller decides when to wait; a replay may itself be captured); on the stream given;
    //       cudaErrorInvalidValue for a graph with no exec. Idea: one host call for the whole step.
    (void)graph, (void)stream;
    return cudaErrorNotSupported;   // not written yet
}

extern "C" void decode_graph_destroy(decode_graph *graph)
{
    // TODO: task: release the exec. Contract: afterwards exec is NULL and nodes 0, so a second call
    //       does nothing and a later replay is refused.
    (void)graph;
}
