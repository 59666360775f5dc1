/* cuda_pipeline.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cuda_pipeline.h (asynchronous copies) is not simulated: copy with ordinary loads and __syncthreads(); lib/sim/README.md lists what the simulator runs"
