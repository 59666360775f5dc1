/* work.cuh — Day 05 driver: the work behind each branch. Do not edit.
 *
 * Stand-ins for real per-element work. Each is a loop of WORK_STEPS (64) arithmetic steps in
 * a function the compiler may not inline (__noinline__), so the branch that chooses between
 * them stays a real branch: on the GPU with nvcc and on the simulator alike, a warp whose
 * lanes disagree runs one function, then the other. (A branch around two or three
 * instructions would be compiled into a select or predicated instructions instead, and
 * nothing would diverge: see the chapter.) Every function is deterministic, so the
 * original kernels and your rewrites give bit-identical results. */
#ifndef DAY05_WORK_CUH
#define DAY05_WORK_CUH

#include "lab.h"   /* WORK_STEPS: the iterations of each loop below; EXPERTS */

/* The work for an element at an even index, and at an odd index. */
static __device__ __noinline__ float even_work(float x)
{
    float sum = 0.0f;
    for (int k = 0; k < WORK_STEPS; k++) sum = sum * x + 1.0f / (float)(k + 1);
    return sum;
}

static __device__ __noinline__ float odd_work(float x)
{
    float sum = x;
    for (int k = 0; k < WORK_STEPS; k++) sum = sum * 0.75f + x * (float)(k % 5);
    return sum;
}

/* The four experts of the routed kernels: each a different function of its token. */
static __device__ __noinline__ float expert_0(float x)
{
    float h = x;
    for (int k = 0; k < WORK_STEPS; k++) h = h * 0.5f + x;
    return h;
}

static __device__ __noinline__ float expert_1(float x)
{
    float h = 1.0f;
    for (int k = 0; k < WORK_STEPS; k++) h = h * x * 0.9f + 0.25f;
    return h;
}

static __device__ __noinline__ float expert_2(float x)
{
    float h = -x;
    for (int k = 0; k < WORK_STEPS; k++) h = 0.8f * h - x * x + 0.125f * (float)(k & 7);
    return h;
}

static __device__ __noinline__ float expert_3(float x)
{
    float h = 0.0f;
    for (int k = 0; k < WORK_STEPS; k++) h = h * 0.625f + (k % 2 ? x : -x) * 0.5f;
    return h;
}

/* Runs token x through expert number `expert` (0 .. EXPERTS - 1). Lanes of one warp that
 * pass different experts take different cases of the switch: up to four paths, one after
 * another. */
static __device__ float expert_work(int expert, float x)
{
    switch (expert) {
    case 0: return expert_0(x);
    case 1: return expert_1(x);
    case 2: return expert_2(x);
    default: return expert_3(x);
    }
}

#endif
