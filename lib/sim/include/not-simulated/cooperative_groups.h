/* cooperative_groups.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cooperative_groups.h is not simulated yet (thread_block, tiled_partition, cg::reduce): use __syncthreads(), __syncwarp() and the __shfl_*_sync, __ballot_sync functions, which are; lib/sim/README.md lists what the simulator runs"
