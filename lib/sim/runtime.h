/* runtime.h — what the parts of the simulator's runtime tell one another. */
#ifndef SIM_RUNTIME_H
#define SIM_RUNTIME_H

#include "sim.h"

/* The runtime's own shorthand for the tagged types sim.h declares as CUDA's C headers do. */
typedef enum cudaMemcpyKind cudaMemcpyKind;
typedef struct cudaDeviceProp cudaDeviceProp;
typedef enum cudaStreamCaptureMode cudaStreamCaptureMode;
typedef enum cudaStreamCaptureStatus cudaStreamCaptureStatus;

/* The error that a failed kernel leaves behind: every later call returns it. */
cudaError_t sim_sticky_error(void);

/* The most dynamic shared memory a launch of `kernel` may ask for. */
size_t sim_max_dynamic_shared(const void *kernel);

int sim_stream_is_valid(cudaStream_t stream);
/* cudaDeviceSynchronize: the sticky error, or refused (and the capture invalidated) while a global-mode
 * stream capture is in progress, as CUDA refuses it. */
cudaError_t sim_device_synchronize(void);

/* Frees every allocation (cudaDeviceReset). */
void sim_free_all_allocations(void);

/* The copies and memsets themselves, after streams.c has decided they run now. */
cudaError_t sim_memcpy_now(void *destination, const void *source, size_t bytes, cudaMemcpyKind kind);
cudaError_t sim_memset_now(void *pointer, int value, size_t bytes);

#endif
