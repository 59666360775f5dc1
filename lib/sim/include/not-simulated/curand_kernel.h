/* curand_kernel.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cuRAND's device API is not simulated: generate the numbers on the host and copy them to the device"
