/* mma.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "mma.h (WMMA, Tensor Core fragments) is not simulated: day 06 computes the same tile product in ordinary code; compile this file with nvcc for a real GPU"
