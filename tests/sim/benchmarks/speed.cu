/* speed.cu — how fast the simulator runs CUDA threads, against the same work as a plain C
 * loop. Prints `name: value unit` lines (make bench runs it through tests/sim/bench).
 *   barrier-free: c[i] = a[i] + b[i] over 8 M threads (every access checked)
 *   barrier-heavy: 16 rounds of write-shared / __syncthreads / read-neighbour / __syncthreads
 *   the same two with metrics counted (sim_metrics_enable), and what counting costs: each
 *   launch is timed with and without metrics in turn, so that both see the same machine
 * The slowdowns compare with speed_c.c: the same work as plain C loops, compiled with -O2.
 * `speed --seconds` prints only the best times of the two launches, checks on, for tests/sim/bench
 * to compare one worker with one per core (SIM_THREADS). */
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sim_metrics.h>

__global__ void add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

const int ROUNDS = 8;

__global__ void exchange(float *x)
{
    __shared__ float slot[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    float v = x[i];
    for (int r = 0; r < ROUNDS; r++) {
        slot[t] = v;
        __syncthreads();
        v += slot[(t + 1) % 256];
        __syncthreads();
    }
    x[i] = v;
}

static double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The same computations as plain C, compiled as ordinary C (speed_c.c), for the slowdown. */
extern "C" void add_in_c(const float *a, const float *b, float *c, int n);
extern "C" void exchange_in_c(float *x, int n, float *slot, int rounds);

static double best_of(int repeats, double (*run)(void *), void *context)
{
    double best = 1e30;
    for (int k = 0; k < repeats; k++) {
        double t = run(context);
        best = t < best ? t : best;
    }
    return best;
}

/* The best times of `run` with checks alone and with metrics counted, taken in turn. */
static void best_without_and_with_metrics(int repeats, double (*run)(void *), void *context, double *checked,
                                          double *counted)
{
    *checked = *counted = 1e30;
    for (int k = 0; k < repeats; k++) {
        sim_metrics_enable(0);
        double t = run(context);
        *checked = t < *checked ? t : *checked;
        sim_metrics_enable(1);
        t = run(context);
        *counted = t < *counted ? t : *counted;
    }
    sim_metrics_enable(0);
}

struct buffers { float *a, *b, *c, *ha, *hb, *hc, slot[256]; int n; };

static double time_add(void *p)
{
    buffers *b = (buffers *)p;
    double t0 = now();
    add<<<b->n / 256, 256>>>(b->a, b->b, b->c, b->n);
    return now() - t0;
}
static double time_exchange(void *p)
{
    buffers *b = (buffers *)p;
    double t0 = now();
    exchange<<<b->n / 256, 256>>>(b->c);
    return now() - t0;
}
static double time_add_in_c(void *p)
{
    buffers *b = (buffers *)p;
    double t0 = now();
    add_in_c(b->ha, b->hb, b->hc, b->n);
    return now() - t0;
}
static double time_exchange_in_c(void *p)
{
    buffers *b = (buffers *)p;
    double t0 = now();
    exchange_in_c(b->hc, b->n, b->slot, ROUNDS);
    return now() - t0;
}

int main(int argc, char **argv)
{
    int seconds_only = argc > 1 && strcmp(argv[1], "--seconds") == 0;
    buffers b;
    b.n = 1 << 23;
    cudaMalloc(&b.a, b.n * sizeof(float)), cudaMalloc(&b.b, b.n * sizeof(float)), cudaMalloc(&b.c, b.n * sizeof(float));
    cudaMemset(b.a, 0, b.n * sizeof(float)), cudaMemset(b.b, 0, b.n * sizeof(float)), cudaMemset(b.c, 0, b.n * sizeof(float));
    b.ha = new float[b.n](), b.hb = new float[b.n](), b.hc = new float[b.n]();

    int add_threads = 1 << 23, barrier_threads = 1 << 20;
    if (seconds_only) {
        b.n = add_threads;
        double add_seconds = best_of(3, time_add, &b);
        b.n = barrier_threads;
        printf("add %.6f\nexchange %.6f\n", add_seconds, best_of(3, time_exchange, &b));
        return 0;
    }
    b.n = add_threads;
    double sim_add, counted_add, c_add = best_of(3, time_add_in_c, &b);
    best_without_and_with_metrics(3, time_add, &b, &sim_add, &counted_add);
    b.n = barrier_threads;
    double sim_exchange, counted_exchange, c_exchange = best_of(3, time_exchange_in_c, &b);
    best_without_and_with_metrics(3, time_exchange, &b, &sim_exchange, &counted_exchange);
    double thread_barriers = (double)barrier_threads * 2 * ROUNDS;

    printf("sim_barrier_free_threads_per_second: %.1f million threads/s (target >= 30)\n", add_threads / sim_add / 1e6);
    printf("sim_barrier_free_slowdown_vs_c: %.0f x\n", sim_add / c_add);
    printf("sim_thread_barriers_per_second: %.1f million thread-barriers/s (target >= 20)\n", thread_barriers / sim_exchange / 1e6);
    printf("sim_barrier_heavy_slowdown_vs_c: %.0f x\n", sim_exchange / c_exchange);
    printf("sim_counting_threads_per_second: %.1f million threads/s (metrics on)\n", add_threads / counted_add / 1e6);
    printf("sim_counting_thread_barriers_per_second: %.1f million thread-barriers/s (metrics on)\n",
           thread_barriers / counted_exchange / 1e6);
    printf("sim_counting_cost_barrier_free: %.2f x the time with checks alone (target <= 2)\n", counted_add / sim_add);
    printf("sim_counting_cost_barrier_heavy: %.2f x the time with checks alone (target <= 2)\n",
           counted_exchange / sim_exchange);
    return 0;
}
