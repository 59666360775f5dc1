/* lab.h — Day 05: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY05_LAB_H
#define DAY05_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* EXPERTS: the routed kernels' experts (expert_0 .. expert_3 in work.cuh); WORK_STEPS: the
 * iterations of the loop inside each function of work.cuh. */
enum { EXPERTS = 4, WORK_STEPS = 64 };

/* ---- uniform.cu (yours): launchers that take DEVICE pointers ---- */
/* y[i] = even_work(x[i]) for even i, odd_work(x[i]) for odd i, for every i < n, with every
 * warp running only one of the two; blocks of threads_per_block threads. */
void launch_even_odd_uniform(const float *x, float *y, int n, int threads_per_block);
/* y[i] = expert_work(expert[i], x[i]) for every token i < n, thread t handling token
 * order[t] (order lists the tokens grouped by expert: see group_by_expert). */
void launch_experts_grouped(const float *x, const int *expert, const int *order, float *y, int n);

/* ---- routing.c (yours) ---- */
/* start[0 .. EXPERTS-1]: where each expert's group begins in order, i.e. how many of the n
 * tokens go to the experts before it (start[0] = 0): the exclusive prefix sum (exclusive scan)
 * of the per-expert counts. Writes exactly EXPERTS ints. Every expert[i] is in 0 .. EXPERTS - 1. */
void expert_offsets(const int *expert, int n, int *start);
/* order[0 .. n-1]: the tokens 0 .. n-1 grouped by expert, expert 0's first, and within
 * each expert in increasing token order. Every expert[i] is in 0 .. EXPERTS - 1. */
void group_by_expert(const int *expert, int n, int *order);

/* ---- simt_model.c (yours) ---- */
/* What a branch costs `threads` threads (warps of 32 consecutive threads; the last warp may
 * be partial) when thread t takes path A if (t / group) is even and path B if it is odd,
 * path A being steps_a warp-level steps long and path B steps_b. */
typedef struct branch_cost {
    long long warp_steps;   /* steps the warps issue, summed over warps */
    long long lane_steps;   /* active lanes summed over those steps */
} branch_cost;
branch_cost branch_cost_model(int threads, int group, int steps_a, int steps_b);

/* SIMT efficiency: active lanes per step, as a fraction of the warp's 32. */
static inline double branch_simt_efficiency(branch_cost cost)
{
    return cost.warp_steps > 0 ? (double)cost.lane_steps / (32.0 * (double)cost.warp_steps) : 0.0;
}

/* ---- run.cu (driver): host arrays in, host arrays out ---- */
typedef struct branch_run {
    const char *error;                 /* NULL, or the CUDA error the run ended with */
    long long written_past_end;        /* output elements written at index >= n (must be 0) */
    int counted;                       /* 1 on the simulator, which counted the fields below;
                                          0 on a real GPU, where ncu measures them instead */
    int launches;                      /* kernels launched during the run */
    double simt_efficiency;            /* active lanes / (32 x warp steps), over those launches */
    unsigned long long warp_steps;     /* warp-level steps through basic blocks */
    double load_sectors_per_request;   /* 32-byte sectors per global load request */
} branch_run;

/* Each copies the inputs to the device, poisons the output (and a guard region after it),
 * runs the kernel, waits, copies the output back and reports what the simulator counted. */
branch_run gpu_even_odd_divergent(const float *x, float *y, int n, int threads_per_block);   /* the original */
branch_run gpu_even_odd_uniform(const float *x, float *y, int n, int threads_per_block);     /* yours */
/* x[i] = work(x[i]) in place: an element handled twice comes out as work(work(x)). */
branch_run gpu_even_odd_uniform_in_place(float *x, int n, int threads_per_block);
branch_run gpu_experts_divergent(const float *x, const int *expert, float *y, int n);       /* the original */
branch_run gpu_experts_grouped(const float *x, const int *expert, const int *order, float *y, int n);   /* yours */
branch_run gpu_experts_grouped_in_place(float *x, const int *expert, const int *order, int n);
/* The plot's kernel: `threads` threads in blocks of 256; thread t runs even_work when
 * (t / group) is even and odd_work when it is odd. Writes `threads` outputs into y. */
branch_run gpu_alternating_groups(float *y, int threads, int group);

#ifdef __cplusplus
}
#endif

#endif
