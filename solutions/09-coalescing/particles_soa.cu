/* particles_soa.cu — Day 09: the particle update rewritten for a struct of arrays.
 *
 * What you write today:
 *   update_particles_soa: the step of driver/particles_aos.cu (read it first), on the six
 *   arrays of a particles_soa, one thread per particle.
 *   launch_update_particles_soa: the launch, over n particles, in the blocks the caller asks for.
 *
 * Why: in the original, lane l reads p[i].vx with i = first + l, 32 bytes from its
 * neighbour's, so every warp-wide load touches 32 sectors to use 4 bytes of each. With one
 * array per field, the 32 lanes read 32 consecutive floats: 4 sectors, every byte used.
 *
 * Rules: the same arithmetic as the original, in the same order (the checks compare your
 * result with the original's, within a few units in the last place); touch only particles
 * 0 .. n-1; read each field once. The checks count, on the simulator, how many bytes of each
 * sector your loads and stores use (at least 95 %), the requests per warp, the blocks and
 * their size.
 *
 * Check:  make check DAY=09        Stuck?  make hint DAY=09
 */
#include "lab.h"

__global__ void update_particles_soa(particles_soa p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float vx = p.vx[i], vy = p.vy[i], vz = p.vz[i];   // lane l reads float first + l: coalesced
    vx -= PARTICLE_DRAG * vx * dt;
    vy -= PARTICLE_DRAG * vy * dt;
    vz -= (PARTICLE_GRAVITY + PARTICLE_DRAG * vz) * dt;
    p.x[i] = p.x[i] + vx * dt;
    p.y[i] = p.y[i] + vy * dt;
    p.z[i] = p.z[i] + vz * dt;
    p.vx[i] = vx;
    p.vy[i] = vy;
    p.vz[i] = vz;
}

extern "C" void launch_update_particles_soa(particles_soa p, int n, float dt, int threads_per_block)
{
    int blocks = (n + threads_per_block - 1) / threads_per_block;
    update_particles_soa<<<blocks, threads_per_block>>>(p, n, dt);
}
