/* samples_graph_in_capture.cu — a CUDA graph launched into a stream that is being captured, as programs
 * that build a step from smaller captured graphs do: cudaGraphLaunch on a capturing stream does not run
 * the graph, it records it as one child-graph node of the new graph (a copy: the executable graph it came
 * from may be destroyed before the new one runs). The outer graph then replays kernel, child, kernel.
 *   lib/sim/tools/simcc -o graph_in_capture tests/sim/programs/samples_graph_in_capture.cu && ./graph_in_capture
 *   nvcc -o graph_in_capture tests/sim/programs/samples_graph_in_capture.cu && ./graph_in_capture   (on a GPU) */
#include <cstdio>
#include <cstdlib>

#define checkCudaErrors(call)                                                                                          \
    do {                                                                                                               \
        cudaError_t status_ = (call);                                                                                  \
        if (status_ != cudaSuccess) {                                                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_));                           \
            exit(EXIT_FAILURE);                                                                                        \
        }                                                                                                              \
    } while (0)

__global__ void scale(float *x, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

__global__ void add(float *x, float amount, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += amount;
}

int main(void)
{
    const int n = 1000;
    float *d_x, h_x[n];
    checkCudaErrors(cudaMalloc(&d_x, n * sizeof(float)));
    checkCudaErrors(cudaMemset(d_x, 0, n * sizeof(float)));
    cudaStream_t stream;
    checkCudaErrors(cudaStreamCreate(&stream));

    /* The inner graph: x = x * 2 + 1. */
    cudaGraph_t inner;
    cudaGraphExec_t inner_exec;
    checkCudaErrors(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale<<<(n + 255) / 256, 256, 0, stream>>>(d_x, 2.0f, n);
    add<<<(n + 255) / 256, 256, 0, stream>>>(d_x, 1.0f, n);
    checkCudaErrors(cudaStreamEndCapture(stream, &inner));
    checkCudaErrors(cudaGraphInstantiate(&inner_exec, inner, 0));

    /* The outer graph: x = 10, the inner graph, then x = x + 0.5. */
    cudaGraph_t outer;
    checkCudaErrors(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale<<<(n + 255) / 256, 256, 0, stream>>>(d_x, 0.0f, n);
    add<<<(n + 255) / 256, 256, 0, stream>>>(d_x, 10.0f, n);
    checkCudaErrors(cudaGraphLaunch(inner_exec, stream));
    add<<<(n + 255) / 256, 256, 0, stream>>>(d_x, 0.5f, n);
    checkCudaErrors(cudaStreamEndCapture(stream, &outer));
    checkCudaErrors(cudaMemcpy(h_x, d_x, sizeof h_x, cudaMemcpyDeviceToHost));
    printf("after capturing: x[0] = %.1f (nothing ran)\n", h_x[0]);
    size_t nodes = 0;
    checkCudaErrors(cudaGraphGetNodes(outer, NULL, &nodes));
    printf("the outer graph has %zu nodes: two kernels, the inner graph as one node, a kernel\n", nodes);

    cudaGraphExec_t outer_exec;
    checkCudaErrors(cudaGraphInstantiate(&outer_exec, outer, 0));
    checkCudaErrors(cudaGraphExecDestroy(inner_exec)); /* the outer graph holds its own copy */
    checkCudaErrors(cudaGraphDestroy(inner));
    int all_wrong = 0;
    for (int replay = 1; replay <= 2; replay++) {
        checkCudaErrors(cudaGraphLaunch(outer_exec, stream));
        checkCudaErrors(cudaStreamSynchronize(stream));
        checkCudaErrors(cudaMemcpy(h_x, d_x, sizeof h_x, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int i = 0; i < n; i++) wrong += h_x[i] != 21.5f;
        printf("replay %d: x[0] = %.1f (10 * 2 + 1 + 0.5), %d of %d differ\n", replay, h_x[0], wrong, n);
        all_wrong += wrong;
    }
    checkCudaErrors(cudaGraphExecDestroy(outer_exec));
    checkCudaErrors(cudaGraphDestroy(outer));
    checkCudaErrors(cudaStreamDestroy(stream));
    checkCudaErrors(cudaFree(d_x));
    printf("%s\n", all_wrong ? "Test failed" : "Test passed");
    return all_wrong ? EXIT_FAILURE : 0;
}
