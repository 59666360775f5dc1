/* cuda_runtime_api.h (simulator) — the simulator has no driver API; this only brings in the runtime's names. */
#include "cuda_runtime.h"
