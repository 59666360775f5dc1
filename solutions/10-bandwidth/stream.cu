/* stream.cu — Day 10: STREAM's four kernels in CUDA.
 *
 * What you write today: the kernels scale, add and triad, one element per thread, as
 * stream_copy below does it. launch_stream (given) covers n elements with blocks of 256.
 *   copy   c[i] = a[i]                 (given)
 *   scale  b[i] = q * c[i]             (TODO)
 *   add    c[i] = a[i] + b[i]          (TODO)
 *   triad  a[i] = b[i] + q * c[i]      (TODO)
 *
 * Rules: each kernel reads each of its inputs once and writes its output once: the checks
 * count, on the simulator, the bytes each kernel moves, and hold them against STREAM's count
 * and against your stream_bytes_per_element.
 *
 * Check:  make check DAY=10        Stuck?  make hint DAY=10
 */
#include "lab.h"

static const int threads_per_block = 256;

__global__ void stream_copy(const double *a, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i];   // one 8-byte load, one 8-byte store
}

__global__ void stream_scale(double q, const double *c, double *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = q * c[i];
}

__global__ void stream_add(const double *a, const double *b, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void stream_triad(double q, const double *b, const double *c, double *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + q * c[i];
}

extern "C" cudaError_t launch_stream(int kernel, double q, double *a, double *b, double *c, int n)
{
    int blocks = (n + threads_per_block - 1) / threads_per_block;
    switch (kernel) {
    case STREAM_COPY: stream_copy<<<blocks, threads_per_block>>>(a, c, n); break;
    case STREAM_SCALE: stream_scale<<<blocks, threads_per_block>>>(q, c, b, n); break;
    case STREAM_ADD: stream_add<<<blocks, threads_per_block>>>(a, b, c, n); break;
    case STREAM_TRIAD: stream_triad<<<blocks, threads_per_block>>>(q, b, c, a, n); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
