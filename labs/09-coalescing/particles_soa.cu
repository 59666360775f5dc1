/* particles_soa.cu — Day 09: the particle update rewritten for a struct of arrays.
 *
 * What you write today:
 *   update_particles_soa: the step of driver/particles_aos.cu (read it first), on the six
 *   arrays of a particles_soa, one thread per particle: thread i updates particle i.
 *   launch_update_particles_soa: enough blocks of threads_per_block threads for n particles.
 *
 * Why: in the original, lane l reads p[i].vx with i = first + l, 32 bytes from its
 * neighbour's, so every warp-wide load touches 32 sectors to use 4 bytes of each. With one
 * array per field, the 32 lanes read 32 consecutive floats: 4 sectors, every byte used.
 *
 * Rules: the same arithmetic as the original, in the same order (the checks compare your
 * result with the original's, within a few units in the last place); touch only particles
 * 0 .. n-1; read each field once. The checks count, on the simulator, how many bytes of each
 * sector your loads use: at least 95 %.
 *
 * Check:  make check DAY=09        Stuck?  make hint DAY=09
 */
#include "lab.h"

__global__ void update_particles_soa(particles_soa p, int n, float dt)
{
    // TODO: i = this thread's global index; particle i exists only if i < n.
    //       Read its three velocities from p.vx, p.vy, p.vz into registers, update them as
    //       the original does, then the three positions with the new velocities, and write
    //       all six back to their arrays.
}

extern "C" void launch_update_particles_soa(particles_soa p, int n, float dt, int threads_per_block)
{
    // TODO: as launch_update_particles_aos in driver/particles_aos.cu.
    (void)p, (void)n, (void)dt, (void)threads_per_block;
}
