/* lab.h — Day 23: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY23_LAB_H
#define DAY23_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* The chain, for `rows` rows (tokens) of n floats (the hidden size), row-major:
 *   v = activation(x + bias)                  x: a matmul's output, bias: n floats
 *   h = residual + v                          h: the new residual stream, an output
 *   y = h / sqrt(mean over i of h_i^2 + eps) * weight      (day 17's RMSNorm of h)
 * Both h and y are outputs: the next layer normalises y and adds its own result to h. */
enum activation { ACTIVATION_NONE = 0, ACTIVATION_SILU = 1, ACTIVATION_GELU = 2, ACTIVATIONS = 3 };

/* One block of ROW_THREADS threads per row for the fused kernel and the chain's RMSNorm; the
 * chain's elementwise kernels use blocks of ROW_THREADS over all rows x n elements. The fused
 * kernel keeps its row of h in dynamic shared memory, so n is at most FUSED_MAX_HIDDEN: the
 * 48 KiB a block may use by default, less the 128 bytes of its reduction's 32 partial sums. */
enum { ROW_THREADS = 256, FUSED_MAX_HIDDEN = (48 * 1024 - 32 * 4) / 4 };

/* ---- fused.cu (yours; the unfused chain in it is given) ---- */
/* The unfused chain: one kernel per step (bias add, activation unless ACTIVATION_NONE, residual
 * add, RMSNorm), through `intermediate`, a device buffer of rows x n floats. */
cudaError_t chain_unfused(const float *x, const float *bias, const float *residual, const float *weight,
                          float *intermediate, float *h, float *y, int rows, int n, float eps, int activation);
/* The same outputs from one launch, with no intermediate buffer. */
cudaError_t chain_fused(const float *x, const float *bias, const float *residual, const float *weight, float *h,
                        float *y, int rows, int n, float eps, int activation);
/* Both return the launch's error: cudaErrorInvalidValue for rows < 1, n < 1, an activation
 * that does not exist, or (fused) n > FUSED_MAX_HIDDEN. */
/* Your prediction, before anything is counted: the row transfers per row (one row transfer is n
 * floats loaded from or stored to global memory) of the unfused chain (fused = 0) or of the fused
 * kernel (fused = 1), with `activation`, counted from the steps as the chapter counts them. -1
 * for an activation that does not exist. The checks hold the simulator's counts to it. */
int predicted_row_transfers(int fused, int activation);

/* ---- run.cu (driver): host arrays in and out ---- */
typedef struct chain_inputs {
    const float *x, *residual;     /* rows x n */
    const float *bias, *weight;    /* n */
    int rows, n, activation;
    float eps;
} chain_inputs;

typedef struct chain_run {
    const char *error;             /* NULL, or the CUDA error the run ended with */
    long long written_past_end;    /* floats written in the guards after h and y (must be 0) */
    int counted;                   /* 1 when the simulator counted the fields below */
    int launches;                  /* kernel launches the run made */
    double global_load_bytes;      /* 32 x the global sectors loaded, all launches */
    double global_store_bytes;     /* 32 x the global sectors stored */
    double predicted_seconds;      /* the launches' roofline estimates summed, on an H100 SXM (-1: none) */
} chain_run;

/* Copies the inputs to the device, poisons h and y (and guards after them), runs the unfused
 * chain (fused = 0) or the fused kernel (fused = 1), copies h and y back. With count_metrics,
 * the simulator counts the launches, and each one's roofline estimate on the H100 SXM of
 * data/gpus.csv (sim_roofline_estimate_seconds: counted sectors at the memory bandwidth) is
 * summed into predicted_seconds. */
chain_run gpu_chain(int fused, const chain_inputs *in, float *h, float *y, int count_metrics);
/* On a real GPU: the median microseconds of `repeats` runs (events, after a warm-up) of the
 * chain or the fused kernel on rows x n zeros. On the simulator: -1 (its time is this CPU's). */
double gpu_chain_microseconds(int fused, int rows, int n, int activation, int repeats);

/* ---- reference.c (driver): double precision on the host ---- */
/* The chain, computed in double from the float inputs, rounded to float at the end. GELU is
 * the exact one, 0.5 v (1 + erf(v / sqrt 2)); SiLU is v / (1 + exp(-v)). */
void chain_reference(const chain_inputs *in, float *h, float *y);

#ifdef __cplusplus
}
#endif

#endif
