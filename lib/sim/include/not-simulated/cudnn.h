/* cudnn.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cuDNN is not simulated; lib/sim/README.md lists what the simulator runs"
