/* lab.h — Day 14: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY14_LAB_H
#define DAY14_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __cplusplus   /* the SIMD part is C only: run.cu (C++, CUDA) needs the kernels' part */
/* ---- the SIMD type of the FMA probe ----
 * Eight floats, one 256-bit AVX2 register. On x86-64 the probe is compiled for AVX2 + FMA
 * (SIMD_TARGET), the widest width that every current x86 core issues two of per cycle; other
 * CPUs get their compiler's default (NEON on ARM runs it as two 128-bit halves). */
enum { SIMD_FLOATS = 8 };
typedef float simd_floats __attribute__((vector_size(SIMD_FLOATS * sizeof(float))));
#if defined(__x86_64__)
#define SIMD_TARGET __attribute__((target("avx2,fma")))
#else
#define SIMD_TARGET
#endif

/* Every lane set to x. */
static inline SIMD_TARGET simd_floats simd_broadcast(float x) { return (simd_floats){0} + x; }
/* The sum of the lanes. */
static inline SIMD_TARGET float simd_sum_lanes(simd_floats v)
{
    float sum = 0.0f;
    for (int lane = 0; lane < SIMD_FLOATS; lane++) sum += v[lane];
    return sum;
}

/* ---- roofline.c (yours) ---- */
/* A machine as the roofline sees it: two numbers, in base units. */
typedef struct roofline {
    double peak_flop_per_s;         /* the compute ceiling */
    double bandwidth_byte_per_s;    /* the memory slope */
} roofline;

/* From a datasheet's units: TFLOP/s and GB/s (data/gpus.csv: fp16_tensor_tflops,
 * memory_bandwidth_gb_per_s). */
roofline roofline_from_datasheet(double peak_tflop_per_s, double bandwidth_gb_per_s);
/* The intensity (FLOP/byte) where the slope meets the ceiling. */
double roofline_ridge_point(roofline machine);
/* The most FLOP/s a kernel of `intensity` FLOP/byte can reach on `machine`. */
double roofline_attainable(roofline machine, double intensity);
/* The least time a kernel doing `flops` and moving `bytes` can take: a lower bound. */
double roofline_predicted_seconds(roofline machine, double flops, double bytes);
/* 1 when a kernel of `intensity` is memory-bound on `machine` (left of the ridge), else 0. */
int roofline_is_memory_bound(roofline machine, double intensity);

/* The peak probe: independent chains of SIMD FMAs, acc = acc * multiplier + addend, every lane
 * of every chain starting at `start`, `iterations` times. Writes the sum of every lane of every
 * chain into *lane_sum (so that no FMA can be optimised away) and returns the FLOPs done
 * (an FMA is 2 FLOPs a lane). */
SIMD_TARGET double fma_peak_run(long iterations, float start, float multiplier, float addend, float *lane_sum);

/* The prediction, made before anything is timed: the FLOP/s of `chains` independent chains of
 * FMAs on one core whose FMA gives its result `latency_cycles` after it starts and which can
 * start `pipes` FMAs a cycle, each FMA `lanes` floats wide, at `clock_ghz`. Every argument is
 * positive; the chains need not be a multiple of anything. */
double fma_predicted_flop_per_s(int chains, int latency_cycles, int pipes, int lanes, double clock_ghz);

/* ---- fma_probe.c (driver) ---- */
/* The same FMAs in `chains` independent chains, for chains = 1, 2, 4, 8 and REFERENCE_CHAINS:
 * the probe of that many chains, or NULL for any other number. The reference, 12 chains, covers
 * latency x pipes on every current x86 core and fits in its 16 vector registers. */
enum { REFERENCE_CHAINS = 12 };
typedef double (*fma_probe)(long iterations, float start, float multiplier, float addend, float *lane_sum);
fma_probe fma_chains_probe(int chains);
/* 1 when this CPU runs code compiled for SIMD_TARGET (x86-64: AVX2 and FMA). */
int simd_target_supported(void);
/* The SIMD lanes of one FMA instruction as compiled: 8 with AVX2, 4 elsewhere (128-bit). */
int simd_hardware_lanes(void);
/* The clock the OS reports, in GHz: cpufreq's maximum when it exists, else the highest
 * "cpu MHz" of /proc/cpuinfo; 0 when neither is readable. */
double os_clock_ghz(void);
/* What the roofline of one core should be: clock x lanes x 2 FLOPs x 2 FMA pipes. */
double derived_peak_flop_per_s(void);
/* Best FLOP rate of `repeats` runs of `probe`, each with enough iterations to take about
 * `seconds`. */
double best_fma_rate(fma_probe probe, double seconds, int repeats);
/* The best rates of two probes timed side by side: `rounds` rounds, each timing a, then b, so
 * that a busy moment of the machine slows both alike. */
void best_fma_rates_side_by_side(fma_probe a, fma_probe b, double seconds, int rounds, double *rate_a,
                                 double *rate_b);
#endif

/* ---- kernels.c and run.cu (driver): the week's kernels, their FLOPs and bytes ---- */
typedef enum { PRECISION_FP32, PRECISION_FP16 } precision;
typedef struct week_kernel {
    const char *name;        /* e.g. "triad" */
    int day;                 /* the day that wrote it */
    precision arithmetic;    /* which ceiling applies on a GPU: FP32 cores or FP16 Tensor Cores */
    double flops;            /* from the kernel's shape */
    double formula_bytes;    /* from the chapter's formula */
    double counted_bytes;    /* 32 x the sectors the simulator counted; -1 when not counted */
    const char *shape;       /* what was run, in words */
} week_kernel;
enum { WEEK_KERNELS = 7 };
enum { KERNEL_TRIAD, KERNEL_STRIDED_SCALE, KERNEL_TRANSPOSE_NAIVE, KERNEL_TRANSPOSE_TILED, KERNEL_MATMUL_TILED,
       KERNEL_LLAMA_DECODE, KERNEL_LLAMA_PREFILL };
/* Fills kernels[WEEK_KERNELS]; the first five are run on the device (on the simulator their
 * bytes are counted), the Llama-2-7B ones come from data/models.csv. Returns NULL, or the CUDA
 * error a kernel run ended with. */
const char *week_kernels(week_kernel kernels[WEEK_KERNELS]);
/* The bytes a kernel moves: counted when the simulator counted them, else the formula's. */
double kernel_bytes(const week_kernel *kernel);

/* run.cu: runs kernel `which` (KERNEL_TRIAD .. KERNEL_MATMUL_TILED) at its lab size; on the
 * simulator writes the counted global bytes into *counted_bytes (else -1). NULL or an error. */
const char *run_week_kernel(int which, double *counted_bytes);
/* The sizes run.cu uses. */
enum { TRIAD_N = 1 << 16, SCALE_N = 1 << 16, SCALE_STRIDE = 4, TRANSPOSE_N = 256, TRANSPOSE_TILE = 32,
       MATMUL_N = 128, MATMUL_TILE = 16, PREFILL_TOKENS = 512 };

#ifdef __cplusplus
}
#endif

#endif
