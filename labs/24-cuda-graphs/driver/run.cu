/* run.cu — Day 24 driver: on a real GPU, how long a decode step takes, eager and replayed. Do
 * not edit.
 *
 * Each of 20 runs resets the model (untimed), then times `steps` steps between two events on one
 * stream: launched one kernel at a time (decode_step_enqueue) or replayed from the graph. The
 * events see the GPU's whole timeline, gaps included, so a step that waits for its launches
 * takes longer. The median of the runs, divided by the steps. On the simulator there is nothing
 * to time: its clock measures this CPU simulating, and the answer is -1. */
#include "lab.h"
#include "sim_counts.h"   /* LAB_SIMULATED */

#include <algorithm>

extern "C" double decode_step_microseconds(decode_model *model, const decode_graph *graph, int steps)
{
    if (LAB_SIMULATED) return -1;   /* the simulator's time is this CPU's time to simulate, not a GPU's */
    enum { RUNS = 20 };
    double times[RUNS];
    cudaStream_t stream;
    cudaEvent_t start, stop;
    cudaError_t error = cudaStreamCreate(&stream);
    cudaEventCreate(&start), cudaEventCreate(&stop);
    for (int r = 0; r <= RUNS && error == cudaSuccess; r++) {   /* run 0 warms up */
        error = decode_model_reset(model);
        if (error == cudaSuccess) error = cudaEventRecord(start, stream);
        for (int s = 0; s < steps && error == cudaSuccess; s++)
            error = graph ? decode_graph_replay(graph, stream) : decode_step_enqueue(model, stream);
        if (error == cudaSuccess) error = cudaEventRecord(stop, stream);
        if (error == cudaSuccess) error = cudaEventSynchronize(stop);
        float milliseconds = 0;
        if (error == cudaSuccess) error = cudaEventElapsedTime(&milliseconds, start, stop);
        if (r > 0) times[r - 1] = milliseconds * 1e3 / steps;
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
    if (error != cudaSuccess) return -1;
    std::sort(times, times + RUNS);
    return times[RUNS / 2];
}
