/* errors.c — CUDA's error state: the last error, the sticky error, and their names.
 *
 * On a GPU, a launch-configuration mistake is reported once (cudaGetLastError()
 * returns it and clears it), but a fault inside a kernel, such as an illegal address,
 * corrupts the context: every later call returns the same error until
 * cudaDeviceReset(). The simulator keeps both states the same way. */
#include "internal.h"
#include "sim.h"
#include "runtime.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static cudaError_t last_error = cudaSuccess;
static cudaError_t sticky_error = cudaSuccess;

static int is_sticky(cudaError_t error)
{
    return error == cudaErrorIllegalAddress || error == cudaErrorLaunchFailure ||
           error == cudaErrorAssert || error == cudaErrorIllegalInstruction ||
           error == cudaErrorLaunchTimeout;
}

cudaError_t sim_record_error(cudaError_t error)
{
    if (error != cudaSuccess) last_error = error;
    if (is_sticky(error)) sticky_error = error;
    return error;
}

cudaError_t sim_sticky_error(void) { return sticky_error; }

cudaError_t cudaGetLastError(void)
{
    cudaError_t error = last_error;
    last_error = sticky_error;
    return error;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

void sim_clear_errors(void) { last_error = sticky_error = cudaSuccess; }

static const struct { cudaError_t code; const char *name, *text; } error_table[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const char *cudaGetErrorName(cudaError_t error)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == error) return error_table[i].name;
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == error) return error_table[i].text;
    return "unrecognized error code";
}

/* Makes room for one more element of an array that grows by doubling (from `first`): 0, or -1
 * when the memory cannot be had, the array left as it was. Every growing array of the simulator
 * grows through here, so none forgets the check. */
int sim_grow(void **array, size_t *capacity, size_t count, size_t element_bytes, size_t first)
{
    if (count < *capacity) return 0;
    size_t wanted = *capacity ? 2 * *capacity : first;
    if (wanted < *capacity || wanted > (size_t)-1 / element_bytes) return -1;
    void *grown = realloc(*array, wanted * element_bytes);
    if (!grown) return -1;
    *array = grown;
    *capacity = wanted;
    return 0;
}

/* Memory the simulator needs for itself (a graph's node, a stream, a printf buffer): zeroed, or the
 * program ends through sim_fatal, since nothing after could run. */
void *sim_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) sim_fatal("out of memory (%zu x %zu bytes)", count, size);
    return p;
}

/* Memory a CUDA call allocates on the program's behalf (cudaHostAlloc, a cuBLAS handle): zeroed, or
 * NULL, which the call returns as CUDA's own allocation error. */
void *sim_try_alloc(size_t count, size_t size) { return calloc(count ? count : 1, size ? size : 1); }

/* A CUDA program broke CUDA's rules where a GPU would crash it (host code reading device memory,
 * __syncthreads() outside a kernel): "sim: " and what happened, then SIGABRT, a crash as the GPU's. */
void sim_crash(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("sim: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    abort();
}

/* The simulator's way to give up: "sim: " and the reason on stderr, then exit status 2.
 * For what no CUDA program could recover from (a missing GPU table, a simulator limit). */
void sim_fatal(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("sim: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}
