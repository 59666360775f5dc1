/* cub/cub.cuh — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "CUB is not simulated: write the block reduction or scan yourself (day 07 shows how); lib/sim/README.md lists what the simulator runs"
