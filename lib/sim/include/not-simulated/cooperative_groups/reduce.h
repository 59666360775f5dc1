/* cooperative_groups/reduce.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cooperative_groups/reduce.h is not simulated yet: reduce with __shfl_down_sync (day 07); lib/sim/README.md lists what the simulator runs"
