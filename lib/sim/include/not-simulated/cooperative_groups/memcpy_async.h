/* cooperative_groups/memcpy_async.h — a CUDA header the simulator does not provide: including it is a clear error, never
 * a silent fall-through to a CUDA toolkit installed on this machine (lib/sim/README.md). */
#error "cooperative_groups/memcpy_async.h (cg::memcpy_async, cg::wait) is not simulated: copy to shared memory with ordinary loads and block.sync(), which are; lib/sim/README.md lists what the simulator runs"
