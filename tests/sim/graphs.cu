/* graphs.cu — stream capture, graph instantiation and replay, and the capture errors CUDA
 * reports when work escapes to the legacy stream or the program waits while capturing. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <sim_metrics.h>

__global__ void add_one(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

Test(graphs, capture_records_and_replay_runs, .timeout = 10)
{
    int n = 100, *x, host[100] = {0};
    cudaMalloc(&x, n * sizeof(int));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cr_assert_eq(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(stream, &status);
    cr_assert_eq(status, cudaStreamCaptureStatusActive);
    cudaMemsetAsync(x, 0, n * sizeof(int), stream);
    for (int k = 0; k < 3; k++) add_one<<<1, 128, 0, stream>>>(x, n);
    cudaMemcpyAsync(host, x, n * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaGraph_t graph;
    cr_assert_eq(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cr_assert_eq(host[0], 0, "capturing must not run anything");
    size_t nodes = 0;
    cudaGraphGetNodes(graph, NULL, &nodes);
    cr_assert_eq(nodes, 5, "memset, three kernels, one copy: %zu nodes", nodes);
    cudaGraphExec_t exec;
    cr_assert_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    cudaGraphDestroy(graph);   /* the executable graph keeps its own copy */
    for (int replay = 0; replay < 2; replay++) {
        cr_assert_eq(cudaGraphLaunch(exec, stream), cudaSuccess);
        cudaStreamSynchronize(stream);
        for (int i = 0; i < n; i++) cr_assert_eq(host[i], 3, "replay %d: host[%d] = %d", replay, i, host[i]);
        host[0] = -1;
    }
    cudaGraphExecDestroy(exec);
    cudaStreamDestroy(stream);
}

Test(graphs, a_replayed_event_counts_the_replayed_launches, .timeout = 10, .init = cr_redirect_stderr)
{
    int *x;
    cudaMalloc(&x, 32 * sizeof(int));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaEvent_t start, stop;
    cudaEventCreate(&start), cudaEventCreate(&stop);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    cudaEventRecord(start, stream);
    for (int k = 0; k < 3; k++) add_one<<<1, 32, 0, stream>>>(x, 32);
    cudaEventRecord(stop, stream);
    cudaGraph_t graph;
    cr_assert_eq(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    cr_assert_eq(cudaGraphLaunch(exec, stream), cudaSuccess);
    float ms;
    cr_assert_eq(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    sim_event_span span = sim_last_event_span();
    cr_assert(span.launches == 3 && span.copies == 0, "the replay ran %llu launches and %llu copies between its "
              "events, want 3 and 0", span.launches, span.copies);
    cudaGraphExecDestroy(exec), cudaGraphDestroy(graph);
    cudaEventDestroy(start), cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
}

Test(graphs, legacy_stream_work_during_capture_invalidates_it, .timeout = 10, .init = cr_redirect_stderr)
{
    int *x;
    cudaMalloc(&x, 32 * sizeof(int));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    add_one<<<1, 32>>>(x, 32);   /* the legacy default stream */
    cr_assert_eq(cudaGetLastError(), cudaErrorStreamCaptureImplicit);
    cudaGraph_t graph;
    cr_assert_eq(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureInvalidated);
    cr_assert_eq(cudaStreamBeginCapture(NULL, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
    cr_assert_eq(cudaMemset(x, 0, 32 * sizeof(int)), cudaErrorStreamCaptureImplicit,
                 "a relaxed capture of a blocking stream still forbids the legacy stream");
    cr_assert_eq(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    cudaStream_t non_blocking;
    cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking);
    cudaStreamBeginCapture(non_blocking, cudaStreamCaptureModeRelaxed);
    cr_assert_eq(cudaMemset(x, 0, 32 * sizeof(int)), cudaSuccess,
                 "the legacy stream does not wait for a non-blocking stream: its capture lets it through");
    cr_assert_eq(cudaStreamEndCapture(non_blocking, &graph), cudaSuccess);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(non_blocking);
}

Test(graphs, waiting_during_capture_is_refused_and_invalidates_it, .timeout = 10, .init = cr_redirect_stderr)
{
    int *x;
    cudaMalloc(&x, 32 * sizeof(int));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaGraph_t graph;
    for (int which = 0; which < 2; which++) {   /* the whole device, then the capturing stream itself */
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
        add_one<<<1, 32, 0, stream>>>(x, 32);
        cudaError_t waited = which == 0 ? cudaDeviceSynchronize() : cudaStreamSynchronize(stream);
        cr_assert_eq(waited, cudaErrorStreamCaptureUnsupported, "waiting during a capture must be refused");
        cr_assert_eq(cudaStreamEndCapture(stream, &graph), cudaErrorStreamCaptureInvalidated,
                     "the capture must be invalid after the refused wait");
        cr_assert_null(graph);
    }
    cudaGetLastError();
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "after the capture ends, waiting is allowed again");
    cudaStreamDestroy(stream);
}
