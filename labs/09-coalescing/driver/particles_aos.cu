/* particles_aos.cu — Day 09 driver: the particle update as first written, on an array of
 * structs. Correct, and the "before" of today's rewrite. Do not edit.
 *
 * Lane l of a warp reads p[i].vx where i = first + l: the 32 lanes' floats lie
 * sizeof(particle) = 32 bytes apart, one per sector, so each of the six loads (and six
 * stores) of a warp touches 32 sectors to use 4 bytes of each: the access pattern of a
 * stride-8 copy, six times over. */
#include "lab.h"

__global__ void update_particles_aos(particle *p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float vx = p[i].vx, vy = p[i].vy, vz = p[i].vz;    // each field read once, into a register
    vx -= PARTICLE_DRAG * vx * dt;
    vy -= PARTICLE_DRAG * vy * dt;
    vz -= (PARTICLE_GRAVITY + PARTICLE_DRAG * vz) * dt;
    p[i].x = p[i].x + vx * dt;
    p[i].y = p[i].y + vy * dt;
    p[i].z = p[i].z + vz * dt;
    p[i].vx = vx;
    p[i].vy = vy;
    p[i].vz = vz;
}

extern "C" void launch_update_particles_aos(particle *p, int n, float dt, int threads_per_block)
{
    int blocks = (n + threads_per_block - 1) / threads_per_block;
    update_particles_aos<<<blocks, threads_per_block>>>(p, n, dt);
}
