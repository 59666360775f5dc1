/* sim.h — the C interface between the CUDA names (include/cuda_runtime.h) and the
 * simulator's runtime (the .c files beside it). Learners never include this directly.
 *
 * How a launch runs on the CPU: the launch statement `k<<<grid, block, smem, s>>>(args)`
 * is rewritten by tools/cu2sim into a call that packs the arguments and calls
 * sim_launch(). sim_launch checks the configuration the way a GPU does, then runs the
 * blocks, shared out among one worker per core (threads.c). Inside a block every CUDA
 * thread is a fiber (fiber.h): threads run in order of their linear index until each one
 * ends or reaches a barrier; when every live thread waits at the same barrier they are all
 * released.
 * The built-in variables are thread-local variables the scheduler updates before it
 * switches into a thread. */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uint3 { unsigned int x, y, z; } uint3;

/* The built-in variables of the thread that is running now (see threads.c). One
 * thread-local structure, so that the access checks can tell kernel reads of it apart. */
typedef struct sim_builtin_variables { uint3 thread_idx, block_idx, block_dim, grid_dim; } sim_builtin_variables;
extern __thread sim_builtin_variables sim_builtins;

/* The shape of a shared array, to name an element in messages: tile[4][17]. */
typedef struct sim_shape { size_t element_bytes; int rank; size_t extents[4]; } sim_shape;

/* Error codes: the numeric values are CUDA's own, so printed codes match a GPU's. */
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorAssert = 710,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorIllegalInstruction = 715,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorIllegalState = 401,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorUnknown = 999
} cudaError_t;

/* As in CUDA's own C headers, these types have no typedef: C code writes `enum cudaMemcpyKind`
 * and `struct cudaDeviceProp` (C++ needs neither keyword), so C that builds here builds with nvcc. */
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

typedef struct sim_stream *cudaStream_t;
typedef struct sim_event *cudaEvent_t;
typedef struct sim_graph *cudaGraph_t;
typedef struct sim_graph_exec *cudaGraphExec_t;
typedef struct sim_graph_node *cudaGraphNode_t;
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1, cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1, cudaStreamCaptureStatusInvalidated = 2
};

/* The fields of CUDA 13's cudaDeviceProp that the simulator fills in. (CUDA 13 removed
 * clockRate and memoryClockRate; they are absent here too, so code that compiles here
 * compiles with nvcc.) */
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    size_t sharedMemPerBlockOptin;
    size_t sharedMemPerMultiprocessor;
    size_t reservedSharedMemPerBlock;
    int regsPerBlock;
    int regsPerMultiprocessor;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major, minor;
    int multiProcessorCount;
    int l2CacheSize;
    int maxThreadsPerMultiProcessor;
    int maxBlocksPerMultiProcessor;
    int memoryBusWidth;
    int cooperativeLaunch;          /* 0: the simulator runs no cooperative launch */
    int canUseHostPointerForRegisteredMem;
    int canMapHostMemory;           /* 1: pinned memory is mapped (cudaHostAllocMapped, cudaDeviceMapHost) */
    int unifiedAddressing;          /* 1: one address space */
    int integrated;                 /* 0: a discrete GPU */
    int concurrentKernels;          /* 0: launches run one after another here */
    int managedMemory;              /* as cudaDevAttrManagedMemory */
};

/* Device flags (cudaSetDeviceFlags), CUDA's values: how a host thread waits for the device, and
 * whether pinned memory is mapped. The simulator runs every launch on the calling thread, so each way
 * of waiting waits alike; the flags are checked as CUDA checks them and kept for cudaGetDeviceFlags. */
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04   /* CUDA's older name for cudaDeviceScheduleBlockingSync */
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff

/* What CUDA's own headers define, so code that tests for them (NVIDIA's samples' helper_cuda.h
 * defines checkCudaErrors only under __DRIVER_TYPES_H__ and findCudaDevice under __CUDA_RUNTIME_H__)
 * finds them here too. CUDART_VERSION is the runtime whose API the simulator follows. */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 13000
#endif

/* The device attributes a program may ask for one at a time (their values are CUDA's own);
 * cudaDeviceGetAttribute answers from the same row of data/gpus.csv as cudaGetDeviceProperties. */
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6, cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8, cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13, cudaDevAttrTextureAlignment = 14,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrMemoryClockRate = 36, cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39, cudaDevAttrUnifiedAddressing = 41, cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81, cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83, cudaDevAttrCanUseHostPointerForRegisteredMem = 91, cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrHostRegisterSupported = 99,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106, cudaDevAttrReservedSharedMemoryPerBlock = 111
};
enum cudaComputeMode {
    cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

/* The host API, as CUDA declares it. */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);

cudaError_t cudaMalloc(void **pointer, size_t bytes);
cudaError_t cudaFree(void *pointer);
cudaError_t cudaMallocHost(void **pointer, size_t bytes);
cudaError_t cudaFreeHost(void *pointer);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaMemcpy(void *destination, const void *source, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *destination, const void *source, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemset(void *pointer, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes, cudaStream_t stream);

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *milliseconds, cudaEvent_t start, cudaEvent_t end);

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);

/* Used by the templates for cudaMemcpyToSymbol/FromSymbol. */
cudaError_t sim_memcpy_symbol(void *symbol, size_t symbol_bytes, void *host, size_t bytes,
                              size_t offset, int to_symbol);
int sim_is_device_pointer(const void *pointer);

/* Everything a launch needs, filled in by the launch statement. */
typedef struct sim_launch_request {
    const char *kernel_name;      /* as written in the source, e.g. "vector_add" */
    const char *file;             /* where the launch statement is */
    int line;
    const void *kernel;           /* the kernel's address: identifies its attributes */
    uint3 grid, block;
    size_t dynamic_shared_bytes;
    cudaStream_t stream;
    void (*run_thread)(void *arguments);   /* calls the kernel with the arguments */
    void *arguments;
    size_t arguments_bytes;                /* kernel code may read them: they are its parameters */
} sim_launch_request;

/* A kernel in the program's list (lib/sim/tools/cu2sim lists each kernel a .cu file defines, unless
 * it is a template or overloaded there): what cudaLaunchKernel needs to launch it from a `void *`.
 * The entries are data in the section sim_kernels, so no code runs before main to register them. */
typedef struct sim_listed_kernel {
    const char *name;
    const void *(*address)(void);
    cudaError_t (*launch)(const char *name, const char *file, int line, uint3 grid, uint3 block, void **arguments,
                          size_t shared_bytes, cudaStream_t stream);
} sim_listed_kernel;
const sim_listed_kernel *sim_find_listed_kernel(const void *kernel);   /* NULL if it is not listed */
/* A shared library's own list (lib/sim/code_module.c): the main program's is found without it. */
void sim_add_kernel_list(const sim_listed_kernel *start, const sim_listed_kernel *stop);
cudaError_t sim_unlisted_kernel(const void *kernel, const char *file, int line);   /* says why, returns the error */

/* Runs a whole grid; returns what the launch would return on a GPU, and records it for
 * cudaGetLastError(). */
cudaError_t sim_launch(const sim_launch_request *request);

/* The barrier: __syncthreads() passes where it is written, for messages. */
void sim_syncthreads_at(const char *file, int line) __attribute__((convergent));
/* clock() and clock64() in a kernel: the running CUDA thread's steps (basic blocks of code) since it
 * started, not cycles — the simulator has no clock of the GPU's; differences between two readings of
 * one thread still say which code ran longer. clock() in host code is the C library's. */
clock_t sim_clock(void);
long long sim_clock64(void);

/* Shared memory of the running block. A static `__shared__` declaration is rewritten
 * into a call of sim_shared_static() with a key unique to the declaration: the first
 * thread of the block to reach it allocates, the others get the same storage. */
void *sim_shared_static(const void *declaration_key, size_t bytes, size_t alignment, const char *name,
                        const sim_shape *shape);
void *sim_shared_dynamic(const char *name, size_t element_bytes);

/* Warp collectives: every lane named in `mask` must arrive; then each gets its result. */
typedef enum sim_collective_kind {
    COLLECTIVE_SHFL, COLLECTIVE_SHFL_UP, COLLECTIVE_SHFL_DOWN, COLLECTIVE_SHFL_XOR,
    COLLECTIVE_BALLOT, COLLECTIVE_ANY, COLLECTIVE_ALL, COLLECTIVE_SYNCWARP, COLLECTIVE_COALESCE
} sim_collective_kind;
unsigned long long sim_warp_collective(sim_collective_kind kind, unsigned mask, unsigned long long value, int argument,
                                       int width, const char *file, int line) __attribute__((convergent));
unsigned sim_activemask(void);
/* Cooperative groups' coalesced_threads() (groups.c): the lanes of the warp that arrive at this place together. */
unsigned sim_coalesced_threads(const char *file, int line) __attribute__((convergent));
/* Cooperative groups' tiles of several warps (tiles.c): tile.sync() of a tile of `size` threads (64 to 1024);
 * the check that a block made without block_tile_memory may be cut into them (compute capability 8.0 and
 * later); and the values a tile's collectives pass between its warps, one slot of 32 bytes per warp. */
void sim_tile_sync(unsigned size, const char *file, int line) __attribute__((convergent));
void sim_tile_check_scratch(int has_scratch, unsigned size, const char *file, int line);
void sim_tile_deposit(unsigned warp, const void *value, unsigned bytes);
void sim_tile_read(unsigned warp, void *value, unsigned bytes);

/* Atomics (atomics.c), one function per type; the CUDA names are overloads in the header. */
typedef enum sim_atomic_op {
    SIM_ATOMIC_ADD, SIM_ATOMIC_SUB, SIM_ATOMIC_EXCH, SIM_ATOMIC_MIN, SIM_ATOMIC_MAX, SIM_ATOMIC_INC,
    SIM_ATOMIC_DEC, SIM_ATOMIC_CAS, SIM_ATOMIC_AND, SIM_ATOMIC_OR, SIM_ATOMIC_XOR
} sim_atomic_op;
int sim_atomic_int(sim_atomic_op op, int *address, int value, int compare);
unsigned int sim_atomic_uint(sim_atomic_op op, unsigned int *address, unsigned int value, unsigned int compare);
long long sim_atomic_ll(sim_atomic_op op, long long *address, long long value, long long compare);
unsigned long long sim_atomic_ull(sim_atomic_op op, unsigned long long *address, unsigned long long value,
                                  unsigned long long compare);
float sim_atomic_float(sim_atomic_op op, float *address, float value);
double sim_atomic_double(sim_atomic_op op, double *address, double value);

/* Kernel attributes set with cudaFuncSetAttribute(). */
cudaError_t sim_set_max_dynamic_shared(const void *kernel, int bytes);

/* Stops the running kernel with `error` after printing a message that names the
 * kernel, the block and the thread. Does not return. */
void sim_kernel_fail(cudaError_t error, const char *format, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* Records an error from a runtime call and returns it (the cudaGetLastError state). */
cudaError_t sim_record_error(cudaError_t error);

#ifdef __cplusplus
}
#endif

#endif
