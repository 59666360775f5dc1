/* cpu_probes.h — the two microbenchmarks that put a CPU on the roofline: how many bytes a
 * second it streams from memory (STREAM's kernels) and how many FLOPs a second it computes
 * (enough independent FMA chains to fill every pipeline). Week 2 measures with them (days
 * 10 and 14) and the performance model uses them for `--hardware cpu`.
 *
 * Both run on the calling thread only: they measure one core, the way the engine runs by
 * default. Both report the best of several runs, as STREAM does: the machine's capability,
 * not its average mood. Both time by the thread's CPU time, so that other programs holding
 * the core for a while do not count (on a quiet machine it equals the wall clock). */
#ifndef PERFMODEL_CPU_PROBES_H
#define PERFMODEL_CPU_PROBES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* STREAM's kernels over arrays of floats, and the bytes each counts per element (STREAM's
 * convention: bytes named in the source, not the extra read of write-allocate caches).
 *   read   s += a[i]            4     (what a matrix-vector product does to its weights)
 *   copy   c[i] = a[i]          8
 *   scale  b[i] = q * c[i]      8
 *   add    c[i] = a[i] + b[i]   12
 *   triad  a[i] = b[i] + q*c[i] 12 */
typedef enum { STREAM_READ, STREAM_COPY, STREAM_SCALE, STREAM_ADD, STREAM_TRIAD } perfmodel_stream_kernel;

const char *perfmodel_stream_kernel_name(perfmodel_stream_kernel kernel);
int perfmodel_stream_arrays(perfmodel_stream_kernel kernel);            /* arrays the kernel touches: 1, 2 or 3 */
int perfmodel_stream_bytes_per_element(perfmodel_stream_kernel kernel); /* as in the table above */

/* The read kernel itself: the sum of a[0 .. n), read as the probe reads, 4 vectors at a time
 * with its cache lines asked for ahead (lanes.h) */
float perfmodel_stream_read(const float *a, size_t n);

/* Bytes per second of `kernel` over a working set of `working_set_bytes` (split among its
 * arrays), best of `repeats` timed passes after one untimed pass. A working set larger than
 * the last-level cache measures DRAM; a smaller one measures the cache that holds it.
 * Returns a negative value when the memory cannot be allocated. */
double perfmodel_stream_bandwidth(perfmodel_stream_kernel kernel, size_t working_set_bytes, int repeats);

/* FP32 FLOP/s of `chains` independent chains of vector FMAs (1 to 16), best of `repeats`
 * runs of about `seconds` each. One chain is bound by the FMA's latency; enough chains
 * (latency x FMA pipes, about 8 on current cores) reach the peak. */
double perfmodel_fma_flops(int chains, double seconds, int repeats);

/* How many chains the peak takes: enough to cover the FMA's latency times its pipes, and
 * few enough that the chains and their two constants stay in vector registers: 16 with
 * AVX-512's 32 registers, 12 with AVX2's 16, where 16 chains spill to memory. */
int perfmodel_peak_chains(void);

/* The peak: perfmodel_fma_flops with perfmodel_peak_chains() chains. */
double perfmodel_peak_fp32_flops(void);

/* FP32 FLOP/s of FMAs whose weight operand is first converted from int8, the inner loop
 * of a weight-only INT8 matrix multiplication (8 chains, weights in L1): the compute
 * ceiling of INT8 decode on this core, below the FMA peak by the cost of the conversion. */
double perfmodel_dequantizing_fma_flops(double seconds, int repeats);

/* Floats in one SIMD register as this library was compiled (16 with AVX-512, else 8). */
int perfmodel_simd_float_lanes(void);

#ifdef __cplusplus
}
#endif

#endif
