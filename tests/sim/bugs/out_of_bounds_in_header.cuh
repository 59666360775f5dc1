/* out_of_bounds_in_header.cuh — the kernel of the planted bug out_of_bounds_in_header.cu and the
 * function that launches it, kept in a header as NVIDIA's samples keep theirs: a tiled copy
 * whose last block writes past the end. */
#pragma once

#define TILE 64

__global__ void copy_tiles(const float *in, float *out, int n)
{
    __shared__ float tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    out[i] = tile[threadIdx.x];   /* the bug: no i < n here */
}

inline void copy_in_tiles(const float *in, float *out, int n)
{
    copy_tiles<<<(n + TILE - 1) / TILE, TILE>>>(in, out, n);
}
