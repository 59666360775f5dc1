/* cuda_runtime_api.h (simulator) — the host API in C, as CUDA's own header of this name
 * is: C files (a lab's lab.h, its tests) may include it to use cudaError_t and friends. */
#include "../sim.h"
