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
    // TODO: One time step of one particle per thread: the original's step, on six arrays.
    //       Contract: particles 0 .. n-1 only, each updated once; the original's arithmetic in
    //       its order (checked to 1e-6 relative); each of the six fields read once, written once.
    //       Idea: one array per field makes a warp's 32 reads of a field 128 consecutive bytes.
}

extern "C" void launch_update_particles_soa(particles_soa p, int n, float dt, int threads_per_block)
{
    // TODO: Launch update_particles_soa for n particles (n >= 1) in blocks of threads_per_block.
    //       Contract: the block size given; every particle a thread, and no block without work.
    //       Idea: the same grid as the copy's: whole blocks, the last one partial.
    (void)p, (void)n, (void)dt, (void)threads_per_block;
}
