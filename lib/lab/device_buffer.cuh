/* device_buffer.cuh — the device buffers that the labs' drivers hand to a learner's kernels,
 * with the two traps that make a GPU's silent mistakes visible. Included by the drivers'
 * .cu files (header-only: it is CUDA host code, built by nvcc or by the simulator's compiler).
 *
 *   [ body: `bytes` of input, or the poison 0xff.. ][ guard: `guard_bytes` of the sentinel 0x5a.. ]
 *
 * An output element still poisoned afterwards (0xff bytes: a float NaN) was never written; a
 * guard word that changed was written out of bounds. The sentinel is a finite float (about
 * 1.5e16), not a NaN, because NaN arithmetic can give back the same NaN: a kernel that read
 * past the end of a poisoned input and wrote the sum past the end of its output would leave
 * no trace. Every call takes the error of the calls before it and does nothing once it is set,
 * so a driver can chain them and look at the error once. */
#ifndef LAB_DEVICE_BUFFER_CUH
#define LAB_DEVICE_BUFFER_CUH

#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>

enum { LAB_POISON_BYTE = 0xff, LAB_SENTINEL_BYTE = 0x5a };

/* A device buffer of `bytes` copied from host (poisoned when host is NULL), followed by a
 * guard of `guard_bytes` (a multiple of 4; 0 for none) filled with the sentinel. */
static inline void *lab_device_buffer(const void *host, size_t bytes, size_t guard_bytes, cudaError_t *error)
{
    void *device = NULL;
    if (*error == cudaSuccess) *error = cudaMalloc(&device, bytes + guard_bytes);
    if (*error == cudaSuccess) *error = cudaMemset(device, LAB_POISON_BYTE, bytes);
    if (*error == cudaSuccess && guard_bytes)
        *error = cudaMemset((char *)device + bytes, LAB_SENTINEL_BYTE, guard_bytes);
    if (*error == cudaSuccess && host) *error = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    return device;
}

/* Copies the body of a buffer made by lab_device_buffer back into host and returns how many
 * 4-byte words of its guard are no longer the sentinel (0 when an error is already set). */
static inline long long lab_device_fetch(void *host, const void *device, size_t bytes, size_t guard_bytes,
                                         cudaError_t *error)
{
    long long changed = 0;
    unsigned char *back = (unsigned char *)malloc(bytes + guard_bytes + 1);   /* +1: never malloc(0) */
    if (back == NULL && *error == cudaSuccess) *error = cudaErrorMemoryAllocation;
    if (*error == cudaSuccess) *error = cudaMemcpy(back, device, bytes + guard_bytes, cudaMemcpyDeviceToHost);
    if (*error == cudaSuccess) {
        memcpy(host, back, bytes);
        for (size_t i = bytes; i + 4 <= bytes + guard_bytes; i += 4)
            changed += back[i] != LAB_SENTINEL_BYTE || back[i + 1] != LAB_SENTINEL_BYTE ||
                       back[i + 2] != LAB_SENTINEL_BYTE || back[i + 3] != LAB_SENTINEL_BYTE;
    }
    free(back);
    return changed;
}

#endif
