/* device_launch_parameters.h (simulator) — in the CUDA toolkit, the declarations of the built-in
 * variables (threadIdx, blockIdx, blockDim, gridDim, warpSize), which some programs include by name.
 * Here cuda_runtime.h provides them, as it does for every .cu file. */
#ifndef SIM_DEVICE_LAUNCH_PARAMETERS_H
#define SIM_DEVICE_LAUNCH_PARAMETERS_H

#include "cuda_runtime.h"

#endif
