/* thrust/transform.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "Thrust is not simulated: allocate with cudaMalloc, copy with cudaMemcpy and write the kernel; lib/sim/README.md lists what the simulator runs"
