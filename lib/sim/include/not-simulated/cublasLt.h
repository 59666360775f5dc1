/* cublasLt.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cublasLt.h (cuBLASLt) is not simulated: the simulator's cuBLAS has cublasSgemm, cublasGemmEx, cublasSgemmStridedBatched and cublasSgemv (cublas_v2.h); lib/sim/README.md lists them"
