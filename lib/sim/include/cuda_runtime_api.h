/* cuda_runtime_api.h (simulator) — the host API in C, as CUDA's own header of this name
 * is: C files (a lab's lab.h, its tests) may include it to use cudaError_t and friends.
 * sim.h declares the core of it; the parts below are the ones real programs use beyond the
 * book's labs (pitched memory and 2-D copies, pinned and registered host memory, cooperative
 * launches), with CUDA's names, flags and argument orders. */
#ifndef SIM_CUDA_RUNTIME_API_H
#define SIM_CUDA_RUNTIME_API_H

#include "../sim.h"
#include "sim_textures.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pitched memory and 2-D copies (lib/sim/memory.c). A pitch is a multiple of 512 bytes. */
cudaError_t cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMemcpy2D(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                         size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset2D(void *pointer, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *pointer, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream);

/* Pinned and registered host memory: kernels may use it through the host pointer, as a GPU with
 * unified addressing maps it (cudaHostGetDevicePointer gives the same pointer back). */
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
cudaError_t cudaHostAlloc(void **pointer, size_t bytes, unsigned int flags);
cudaError_t cudaHostRegister(void *pointer, size_t bytes, unsigned int flags);
cudaError_t cudaHostUnregister(void *pointer);
cudaError_t cudaHostGetDevicePointer(void **device_pointer, void *host_pointer, unsigned int flags);

/* Unified memory (lib/sim/memory.c): device memory that host code may use too, through the same
 * pointer. Prefetches and advice are checked and change nothing (no pages migrate). CUDA 13's
 * signatures: a location, not a device number. */
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaCpuDeviceId ((int)-1)
enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2, cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4, cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeNone = 0, cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2, cudaMemLocationTypeHostNuma = 3, cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
cudaError_t cudaMallocManaged(void **pointer, size_t bytes, unsigned int flags);
cudaError_t cudaMemPrefetchAsync(const void *pointer, size_t bytes, struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream);
cudaError_t cudaMemAdvise(const void *pointer, size_t bytes, enum cudaMemoryAdvise advice, struct cudaMemLocation location);

/* A cooperative launch (lib/sim/runtime.c): the simulated GPU has none (cudaDevAttrCooperativeLaunch
 * is 0), so it is refused with cudaErrorNotSupported and a message; cuda_runtime.h has the CUDA name. */
cudaError_t sim_launch_cooperative(const void *kernel);

#ifdef __cplusplus
}
#endif

#endif
