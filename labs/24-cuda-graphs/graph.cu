/* graph.cu — Day 24: capture the toy model's decode step into a CUDA graph, and replay it.
 *
 * Eagerly, a decode step is decode_step_enqueue: 35 launches for the lab's two layers, each a
 * call into the CUDA runtime that costs the host microseconds, often more than the kernel runs.
 * A graph records those launches once and hands the whole step to the GPU in one call:
 *
 *   cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal)
 *   decode_step_enqueue(model, stream)        recorded, not run: nothing happens on the GPU
 *   cudaStreamEndCapture(stream, &graph)      the recording: one node per launch
 *   cudaGraphGetNodes(graph, NULL, &count)    how many nodes it holds
 *   cudaGraphInstantiate(&exec, graph, 0)     checked and prepared once, replayable many times
 *   cudaGraphDestroy(graph)                   the exec keeps what it needs
 *   ...
 *   cudaGraphLaunch(exec, stream)             one decode step, one call
 *
 * Rules: capture on `stream`, never the legacy default stream (0): work sent there while a
 * blocking stream is being captured invalidates the capture, whatever its mode. Nothing inside the
 * capture may wait for the GPU (no cudaStreamSynchronize, cudaDeviceSynchronize or synchronous
 * cudaMemcpy): nothing has run yet.
 * A capture that has begun must end, even when the step failed, or the stream stays capturing.
 *
 * Check:  make check DAY=24        Stuck?  make hint DAY=24
 */
#include "lab.h"

extern "C" cudaError_t decode_graph_capture(const decode_model *model, cudaStream_t stream, decode_graph *graph)
{
    // TODO: start with graph->exec = NULL and graph->nodes = 0.
    // TODO: cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal); on an error, return it.
    // TODO: record the step: decode_step_enqueue(model, stream). Keep its error, but do not return yet:
    //       first end the capture, cudaStreamEndCapture(stream, &captured), whatever the step said.
    // TODO: if both succeeded: cudaGraphGetNodes(captured, NULL, &graph->nodes), then
    //       cudaGraphInstantiate(&graph->exec, captured, 0). Destroy `captured` (cudaGraphDestroy) once
    //       instantiated (or on failure, if EndCapture gave one). On any error: exec NULL, nodes 0,
    //       and return the first error.
    (void)model, (void)stream, (void)graph;
    return cudaErrorNotSupported;   // not written yet
}

extern "C" cudaError_t decode_graph_replay(const decode_graph *graph, cudaStream_t stream)
{
    // TODO: cudaErrorInvalidValue when there is no graph or no exec; otherwise launch the exec on stream.
    (void)graph, (void)stream;
    return cudaErrorNotSupported;   // not written yet
}

extern "C" void decode_graph_destroy(decode_graph *graph)
{
    // TODO: cudaGraphExecDestroy the exec if there is one; then exec = NULL and nodes = 0.
    (void)graph;
}
