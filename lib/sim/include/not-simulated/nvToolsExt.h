/* nvToolsExt.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "NVTX is not simulated yet: remove the nvtxRangePush/Pop calls for the simulator (they only name ranges for Nsight Systems)"
