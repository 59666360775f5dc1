/* lab.h — Day 01: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY01_LAB_H
#define DAY01_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- vector_add.cu (yours): launchers that take DEVICE pointers ---- */
void launch_vector_add(const float *a, const float *b, float *c, int n);
void launch_saxpy(float alpha, const float *x, float *y, int n);

/* ---- flops.c (yours) ---- */
long long flops_vector_add(long long n);
long long flops_saxpy(long long n);
long long flops_matmul(long long m, long long n, long long k);
void matmul_naive(const float *a, const float *b, float *c, int n);

/* ---- run.cu (driver): host arrays in, host arrays out ---- */
typedef struct gpu_run {
    const char *error;            /* NULL, or the CUDA error the run ended with */
    long long written_past_end;   /* output elements written at index >= n (must be 0) */
    /* What the launches of the run were, as the simulator counted them (sim_metrics.h); on a
     * real GPU nothing is counted (counted = 0) and Nsight Systems shows the launches instead. */
    int counted;                  /* 1 on the simulator */
    int launches;                 /* kernels launched */
    long long blocks;             /* blocks launched, summed over the launches */
    long long threads;            /* threads launched (blocks x threads per block), summed */
    int threads_per_block;        /* the largest block launched */
} gpu_run;

/* Copies the inputs to the device, poisons the output (and a guard region after it),
 * calls your launcher, waits, and copies the output back. */
gpu_run gpu_vector_add(const float *a, const float *b, float *c, int n);
gpu_run gpu_saxpy(float alpha, const float *x, float *y, int n);

#ifdef __cplusplus
}
#endif

#endif
