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
 * Rules: capture on `stream`, never the legacy default stream (0): work sent there during a
 * global capture invalidates it. Nothing inside the capture may wait for the GPU (no
 * cudaStreamSynchronize, cudaDeviceSynchronize or synchronous cudaMemcpy): nothing has run yet.
 * A capture that has begun must end, even when the step failed, or the stream stays capturing.
 *
 * Check:  make check DAY=24        Stuck?  make hint DAY=24
 */
#include "lab.h"

extern "C" cudaError_t decode_graph_capture(const decode_model *model, cudaStream_t stream, decode_graph *graph)
{
    graph->exec = NULL;
    graph->nodes = 0;
    cudaError_t error = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    if (error != cudaSuccess) return error;
    cudaError_t step_error = decode_step_enqueue(model, stream);
    cudaGraph_t captured = NULL;
    error = cudaStreamEndCapture(stream, &captured);   // always: a failed step must not leave it capturing
    if (step_error != cudaSuccess) error = step_error;
    if (error == cudaSuccess) error = cudaGraphGetNodes(captured, NULL, &graph->nodes);
    if (error == cudaSuccess) error = cudaGraphInstantiate(&graph->exec, captured, 0);
    if (captured) cudaGraphDestroy(captured);
    if (error != cudaSuccess) {
        graph->exec = NULL;
        graph->nodes = 0;
    }
    return error;
}

extern "C" cudaError_t decode_graph_replay(const decode_graph *graph, cudaStream_t stream)
{
    if (!graph || !graph->exec) return cudaErrorInvalidValue;
    return cudaGraphLaunch(graph->exec, stream);
}

extern "C" void decode_graph_destroy(decode_graph *graph)
{
    if (graph->exec) cudaGraphExecDestroy(graph->exec);
    graph->exec = NULL;
    graph->nodes = 0;
}
