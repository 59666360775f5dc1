/* streams.c — streams, events and CUDA graphs.
 *
 * Every launch and copy has finished when the call that made it returns, so a stream is
 * an in-order queue that is always empty, and synchronising costs nothing. Events read the
 * host's monotonic clock: on the simulator an elapsed time is the CPU's time to simulate,
 * not a GPU's. Each event also notes how many launches and copies had run, so that what
 * lay between two can be counted (sim_last_event_span). Stream capture records the
 * launches, copies and memsets made on a capturing stream instead of running them (and a graph
 * launched into it, as one child-graph node); an instantiated graph replays them in order. As on
 * a GPU, work sent to the legacy default stream while a capture is in progress is an error that
 * invalidates the capture. */
#include "internal.h"
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------
 * Graphs: what a capture records */

typedef enum { NODE_KERNEL, NODE_MEMCPY, NODE_MEMSET, NODE_EVENT, NODE_GRAPH } node_type;

typedef struct graph_node {
    node_type type;
    sim_launch_request launch;      /* NODE_KERNEL; launch.arguments is the node's own copy */
    void *destination;              /* NODE_MEMCPY, NODE_MEMSET */
    const void *source;
    size_t bytes;
    int value_or_kind;
    cudaEvent_t event;              /* NODE_EVENT */
    struct sim_graph *child;        /* NODE_GRAPH: a graph launched into a capturing stream, its own copy */
} graph_node;

struct sim_graph { graph_node *nodes; size_t count, capacity; };
struct sim_graph_exec { struct sim_graph graph; };

struct sim_stream { struct sim_stream *next; struct sim_graph *capture; int capture_invalid, non_blocking; };
/* An event keeps its time and how many launches and copies had run when it was recorded. */
struct sim_event { double milliseconds; int recorded; unsigned long long launches, copies; };

static struct sim_stream *live_streams;
static struct sim_stream *global_capture;     /* the stream capturing now, if any */

/* Launches and copies run so far, and what lay between the events of the last elapsed time. */
static unsigned long long launches_run, copies_run;
static sim_event_span last_span;

static cudaError_t launch_now(const sim_launch_request *r)
{
    __atomic_fetch_add(&launches_run, 1, __ATOMIC_RELAXED);
    return sim_launch_now(r);
}

static cudaError_t copy_now(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind)
{
    __atomic_fetch_add(&copies_run, 1, __ATOMIC_RELAXED);
    return sim_memcpy_now(destination, source, bytes, kind);
}

static void append_node(struct sim_graph *g, graph_node node)
{
    if (sim_grow((void **)&g->nodes, &g->capacity, g->count, sizeof *g->nodes, 16))
        sim_fatal("out of memory recording a graph of %zu nodes", g->count);
    g->nodes[g->count++] = node;
}

static void free_nodes(struct sim_graph *g)
{
    for (size_t i = 0; i < g->count; i++) {
        if (g->nodes[i].type == NODE_KERNEL) free(g->nodes[i].launch.arguments);
        if (g->nodes[i].type == NODE_GRAPH) {
            free_nodes(g->nodes[i].child);
            free(g->nodes[i].child);
        }
    }
    free(g->nodes);
    g->nodes = NULL;
    g->count = g->capacity = 0;
}

/* A blocking stream (not cudaStreamNonBlocking) being captured, in any mode: the legacy stream waits for
 * every blocking stream, so work sent to it would depend on work that has not run. */
static struct sim_stream *blocking_capture(void)
{
    for (struct sim_stream *s = live_streams; s; s = s->next)
        if (s->capture && !s->non_blocking) return s;
    return NULL;
}

/* Work on `stream`: 1 if it is being captured (record it), 0 to run it now, or an error. */
static cudaError_t capture_state(cudaStream_t stream, int *capturing)
{
    *capturing = 0;
    if (stream && !sim_stream_is_valid(stream)) return cudaErrorInvalidResourceHandle;
    if (stream && stream->capture) {
        if (stream->capture_invalid) return cudaErrorStreamCaptureInvalidated;
        *capturing = 1;
        return cudaSuccess;
    }
    struct sim_stream *captured = stream ? NULL : blocking_capture();
    if (captured) {
        fprintf(stderr, "sim: work sent to the legacy default stream while stream %p is being captured: "
                "the capture is now invalid\n     (launch on the capturing stream: the legacy stream waits for "
                "every blocking stream, so no capture mode allows it)\n", (void *)captured);
        captured->capture_invalid = 1;
        return cudaErrorStreamCaptureImplicit;
    }
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * The entry points that may be captured */

cudaError_t sim_launch(const sim_launch_request *r)
{
    int capturing;
    cudaError_t error = capture_state(r->stream, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    if (!capturing) return launch_now(r);
    graph_node node = {.type = NODE_KERNEL, .launch = *r};
    /* Kernel parameters are trivially copyable (CUDA requires it), so a byte copy keeps them. */
    node.launch.arguments = sim_try_alloc(r->arguments_bytes, 1);
    if (!node.launch.arguments) return sim_record_error(cudaErrorMemoryAllocation);
    memcpy(node.launch.arguments, r->arguments, r->arguments_bytes);
    node.launch.stream = NULL;
    append_node(r->stream->capture, node);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind)
{
    int capturing;
    cudaError_t error = capture_state(NULL, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    return copy_now(destination, source, bytes, kind);
}

cudaError_t cudaMemcpyAsync(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    int capturing;
    cudaError_t error = capture_state(stream, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    if (!capturing) return copy_now(destination, source, bytes, kind);
    append_node(stream->capture, (graph_node){.type = NODE_MEMCPY, .destination = destination, .source = source,
                                              .bytes = bytes, .value_or_kind = (int)kind});
    return cudaSuccess;
}

cudaError_t cudaMemset(void *pointer, int value, size_t bytes)
{
    int capturing;
    cudaError_t error = capture_state(NULL, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    return sim_memset_now(pointer, value, bytes);
}

cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes, cudaStream_t stream)
{
    int capturing;
    cudaError_t error = capture_state(stream, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    if (!capturing) return sim_memset_now(pointer, value, bytes);
    append_node(stream->capture, (graph_node){.type = NODE_MEMSET, .destination = pointer, .bytes = bytes,
                                              .value_or_kind = value});
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Streams */

int sim_stream_is_valid(cudaStream_t stream)
{
    for (struct sim_stream *s = live_streams; s; s = s->next)
        if (s == stream) return 1;
    return 0;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    if (!stream) return sim_record_error(cudaErrorInvalidValue);
    struct sim_stream *s = sim_try_alloc(1, sizeof *s);
    if (!s) return sim_record_error(cudaErrorMemoryAllocation);
    s->next = live_streams;
    live_streams = s;
    *stream = s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    cudaError_t error = cudaStreamCreate(stream);
    if (error == cudaSuccess) (*stream)->non_blocking = (flags & 0x01) != 0;   /* cudaStreamNonBlocking */
    return error;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    for (struct sim_stream **s = &live_streams; *s; s = &(*s)->next)
        if (*s == stream) {
            *s = stream->next;
            if (stream->capture) {
                free_nodes(stream->capture);
                free(stream->capture);
                if (global_capture == stream) global_capture = NULL;
            }
            free(stream);
            return cudaSuccess;
        }
    return sim_record_error(cudaErrorInvalidResourceHandle);
}

/* Waiting for a stream that is being captured, or for the whole device during a global-mode capture,
 * cannot be done: its work is being recorded, not run. CUDA refuses the call and invalidates the
 * capture (cudaStreamEndCapture then returns cudaErrorStreamCaptureInvalidated); so does this. */
static cudaError_t refuse_wait_during_capture(const char *call, struct sim_stream *capturing)
{
    fprintf(stderr, "sim: %s while stream %p is being captured: its work is recorded, not run, so there is\n"
            "     nothing to wait for. CUDA refuses the call, and the capture is now invalid (wait after\n"
            "     cudaStreamEndCapture, or on the replayed graph's stream)\n", call, (void *)capturing);
    capturing->capture_invalid = 1;
    return sim_record_error(cudaErrorStreamCaptureUnsupported);
}

cudaError_t sim_device_synchronize(void)
{
    if (global_capture) return refuse_wait_during_capture("cudaDeviceSynchronize", global_capture);
    return sim_sticky_error();
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (stream && !sim_stream_is_valid(stream)) return sim_record_error(cudaErrorInvalidResourceHandle);
    if (stream && stream->capture) return refuse_wait_during_capture("cudaStreamSynchronize", stream);
    return sim_sticky_error();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    if (!stream) {
        fprintf(stderr, "sim: cudaStreamBeginCapture: the legacy default stream cannot be captured; create a stream\n");
        return sim_record_error(cudaErrorStreamCaptureUnsupported);
    }
    if (!sim_stream_is_valid(stream)) return sim_record_error(cudaErrorInvalidResourceHandle);
    if (stream->capture) return sim_record_error(cudaErrorIllegalState);
    stream->capture = sim_try_alloc(1, sizeof *stream->capture);
    if (!stream->capture) return sim_record_error(cudaErrorMemoryAllocation);
    stream->capture_invalid = 0;
    if (mode == cudaStreamCaptureModeGlobal) global_capture = stream;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    if (!stream || !sim_stream_is_valid(stream) || !graph) return sim_record_error(cudaErrorInvalidValue);
    if (!stream->capture) return sim_record_error(cudaErrorIllegalState);
    if (global_capture == stream) global_capture = NULL;
    struct sim_graph *captured = stream->capture;
    stream->capture = NULL;
    if (stream->capture_invalid) {
        free_nodes(captured);
        free(captured);
        *graph = NULL;
        return sim_record_error(cudaErrorStreamCaptureInvalidated);
    }
    *graph = captured;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status)
{
    if (!status) return sim_record_error(cudaErrorInvalidValue);
    *status = stream && stream->capture ? (stream->capture_invalid ? cudaStreamCaptureStatusInvalidated
                                                                   : cudaStreamCaptureStatusActive)
                                        : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Graphs: instantiate and replay */

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    if (!graph || !count) return sim_record_error(cudaErrorInvalidValue);
    if (nodes)
        for (size_t i = 0; i < *count && i < graph->count; i++) nodes[i] = (cudaGraphNode_t)&graph->nodes[i];
    *count = graph->count;
    return cudaSuccess;
}

/* `to` gets its own copy of every node of `from`: kernel arguments and child graphs included. */
static void copy_nodes(struct sim_graph *to, const struct sim_graph *from)
{
    for (size_t i = 0; i < from->count; i++) {
        graph_node node = from->nodes[i];
        if (node.type == NODE_KERNEL) {
            node.launch.arguments = sim_alloc(node.launch.arguments_bytes, 1);
            memcpy(node.launch.arguments, from->nodes[i].launch.arguments, node.launch.arguments_bytes);
        }
        if (node.type == NODE_GRAPH) {
            node.child = sim_alloc(1, sizeof *node.child);
            copy_nodes(node.child, from->nodes[i].child);
        }
        append_node(to, node);
    }
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    (void)flags;
    if (!exec || !graph) return sim_record_error(cudaErrorInvalidValue);
    struct sim_graph_exec *e = sim_alloc(1, sizeof *e);
    copy_nodes(&e->graph, graph);
    *exec = e;
    return cudaSuccess;
}

static cudaError_t record_event_now(cudaEvent_t event);

/* Runs a graph's nodes in order, a child graph's where its node stands. */
static cudaError_t run_nodes(const struct sim_graph *g)
{
    for (size_t i = 0; i < g->count; i++) {
        graph_node *node = &g->nodes[i];
        cudaError_t error = cudaSuccess;
        switch (node->type) {
        case NODE_KERNEL: error = launch_now(&node->launch); break;
        case NODE_MEMCPY:
            error = copy_now(node->destination, node->source, node->bytes, (cudaMemcpyKind)node->value_or_kind);
            break;
        case NODE_MEMSET: error = sim_memset_now(node->destination, node->value_or_kind, node->bytes); break;
        case NODE_EVENT: error = record_event_now(node->event); break;
        case NODE_GRAPH: error = run_nodes(node->child); break;
        }
        if (error != cudaSuccess) return error;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    if (!exec) return sim_record_error(cudaErrorInvalidValue);
    if (stream && !sim_stream_is_valid(stream)) return sim_record_error(cudaErrorInvalidResourceHandle);
    /* A replay on the legacy stream during a capture is work sent there, as a launch is; one into a
     * capturing stream is recorded, as CUDA records it: one child-graph node, a copy of the graph. */
    int capturing;
    cudaError_t error = capture_state(stream, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    if (capturing) {
        graph_node node = {.type = NODE_GRAPH, .child = sim_alloc(1, sizeof *node.child)};
        copy_nodes(node.child, &exec->graph);
        append_node(stream->capture, node);
        return cudaSuccess;
    }
    return run_nodes(&exec->graph);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    if (!exec) return sim_record_error(cudaErrorInvalidValue);
    free_nodes(&exec->graph);
    free(exec);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    if (!graph) return sim_record_error(cudaErrorInvalidValue);
    free_nodes(graph);
    free(graph);
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Events: host-clock timestamps */

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    if (!event) return sim_record_error(cudaErrorInvalidValue);
    *event = sim_try_alloc(1, sizeof **event);
    return *event ? cudaSuccess : sim_record_error(cudaErrorMemoryAllocation);
}

/* Blocking sync waits alike here; an interprocess event needs timing disabled, as in CUDA. */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if ((flags & ~0x07u) || ((flags & 0x04) && !(flags & 0x02))) {
        fprintf(stderr, "sim: cudaEventCreateWithFlags(0x%x): not a valid set of flags (cudaEventBlockingSync, "
                "cudaEventDisableTiming, and cudaEventInterprocess only with cudaEventDisableTiming)\n", flags);
        return sim_record_error(cudaErrorInvalidValue);
    }
    return cudaEventCreate(event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    free(event);
    return cudaSuccess;
}

static cudaError_t record_event_now(cudaEvent_t event)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    event->milliseconds = (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
    event->recorded = 1;
    event->launches = __atomic_load_n(&launches_run, __ATOMIC_RELAXED);
    event->copies = __atomic_load_n(&copies_run, __ATOMIC_RELAXED);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!event) return sim_record_error(cudaErrorInvalidResourceHandle);
    int capturing;
    cudaError_t error = capture_state(stream, &capturing);
    if (error != cudaSuccess) return sim_record_error(error);
    if (capturing) {
        append_node(stream->capture, (graph_node){.type = NODE_EVENT, .event = event});
        return cudaSuccess;
    }
    return record_event_now(event);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (!event) return sim_record_error(cudaErrorInvalidResourceHandle);
    return sim_sticky_error();
}

cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float *milliseconds, cudaEvent_t start, cudaEvent_t end)
{
    static int told;
    if (!milliseconds || !start || !end) return sim_record_error(cudaErrorInvalidValue);
    if (!start->recorded || !end->recorded) return sim_record_error(cudaErrorInvalidResourceHandle);
    if (!told++ && getenv("SIM_QUIET") == NULL)
        fprintf(stderr, "sim: note: cudaEventElapsedTime measures this CPU simulating the GPU, not a GPU\n");
    *milliseconds = (float)(end->milliseconds - start->milliseconds);
    last_span.elapsed_times++;
    last_span.launches = end->launches - start->launches;
    last_span.copies = end->copies - start->copies;
    return cudaSuccess;
}

sim_event_span sim_last_event_span(void) { return last_span; }
