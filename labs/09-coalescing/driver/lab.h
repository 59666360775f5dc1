/* lab.h — Day 09: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY09_LAB_H
#define DAY09_LAB_H

#include <cuda_runtime_api.h>   /* cudaError_t; usable from C as well as CUDA */

#ifdef __cplusplus
extern "C" {
#endif

/* A warp has 32 lanes; global memory moves in 32-byte sectors, four to a 128-byte line. */
enum { WARP_LANES = 32, SECTOR_BYTES = 32, LINE_BYTES = 128 };

/* ---- strided_copy.cu (yours): a launcher that takes DEVICE pointers ---- */
/* out[i] = in[offset + i * stride] for every i < n (stride >= 0, offset >= 0), one thread per
 * element, blocks of threads_per_block threads. `in` holds copy_input_elements(...) floats. */
void launch_strided_copy(const float *in, float *out, int n, int stride, int offset, int threads_per_block);

/* The input the copy reads: up to and including in[offset + (n - 1) * stride]. */
static inline long long copy_input_elements(int n, int stride, int offset)
{
    return n > 0 ? (long long)offset + (long long)(n - 1) * stride + 1 : 0;
}

/* ---- particles: one time step of n particles, two layouts of the same data ---- */
/* Array of structs: one particle's fields side by side, 32 bytes a particle. The update reads
 * and writes the first six; mass and charge ride along (other kernels would use them). */
typedef struct particle {
    float x, y, z, vx, vy, vz, mass, charge;
} particle;

/* Struct of arrays: one array per field, n floats each (device pointers), only the fields
 * the update touches. */
typedef struct particles_soa {
    float *x, *y, *z, *vx, *vy, *vz;
} particles_soa;

/* The step (semi-implicit Euler): the velocity first, under gravity along -z and a drag
 * proportional to the velocity, then the position with the new velocity:
 *   v' = v - (DRAG * v + GRAVITY * e_z) * dt,   x' = x + v' * dt */
#define PARTICLE_GRAVITY 9.81f
#define PARTICLE_DRAG 0.5f

/* particles_aos.cu (driver): the original, on the array of structs. */
void launch_update_particles_aos(particle *p, int n, float dt, int threads_per_block);
/* particles_soa.cu (yours): the same step on the struct of arrays. */
void launch_update_particles_soa(particles_soa p, int n, float dt, int threads_per_block);

/* ---- sector_model.c (yours): predicting the counts before counting them ---- */
/* The distinct 32-byte sectors one warp-wide load touches when lane l (0..31) reads the
 * element_bytes-byte element number offset_elements + l * stride_elements of an array
 * that starts on a sector boundary (cudaMalloc's memory does). */
int sectors_per_request(int stride_elements, int offset_elements, int element_bytes);
/* The copy's useful bandwidth, predicted: each warp reads 32 elements and writes 32, and moves
 * load_sectors_per_request + store_sectors_per_request sectors to do it; if memory moves
 * sectors at bandwidth_gb_per_s, how many GB/s of elements read and written is that? */
double copy_predicted_gb_per_s(double bandwidth_gb_per_s, int element_bytes, double load_sectors_per_request,
                               double store_sectors_per_request);

/* ---- run.cu (driver): host arrays in, host arrays out, counts ---- */
/* What one run did. The counted fields are filled on the simulator only (counted = 1); on a
 * GPU Nsight Compute measures the same quantities (the chapter names the metrics). */
typedef struct access_run {
    const char *error;                 /* NULL, or the CUDA error the run ended with */
    long long written_past_end;        /* copy: output elements written at index >= n (must be 0) */
    int counted;                       /* 1 when the simulator counted the fields below */
    int launches;                      /* kernel launches the run made */
    int blocks;                        /* the grid of the first of them, in blocks */
    int block_threads;                 /* threads in the largest block launched */
    double load_requests, store_requests;                    /* warp-level requests */
    double load_sectors_per_request, store_sectors_per_request;
    double load_efficiency, store_efficiency;                /* bytes asked for / (32 x sectors moved) */
} access_run;

/* Copies `in` (copy_input_elements(n, stride, offset) floats, allocated at exactly that size)
 * to the device, poisons out (and a guard region after it), runs launch_strided_copy and
 * copies out back. With count_metrics, the simulator counts the launch. */
access_run gpu_strided_copy(const float *in, float *out, int n, int stride, int offset, int threads_per_block,
                            int count_metrics);
/* The copy where the indices pass 2^31: `in` holds copy_input_elements(n, stride, offset) floats,
 * more than 2^31 of them, of which only the n the copy reads hold values: in[offset + i * stride]
 * = i + 0.5; every other element is 0. On the simulator `in` is address space the host never
 * fills (an untouched page reads as zeros, so it costs no memory); on a GPU it is device memory
 * (the run reports cudaErrorMemoryAllocation where the GPU has too little). out is poisoned and
 * guarded as in gpu_strided_copy. */
access_run gpu_strided_copy_past_2_31(float *out, int n, int stride, int offset, int threads_per_block);
static inline float past_2_31_value(int i) { return (float)i + 0.5f; }

/* p[0 .. n-1] are updated in place, on the device, by the AoS original or by your SoA rewrite
 * (the driver splits the six fields into six arrays of exactly n floats and joins them back;
 * mass and charge come back as they went in). */
access_run gpu_update_particles_aos(particle *p, int n, float dt, int threads_per_block, int count_metrics);
access_run gpu_update_particles_soa(particle *p, int n, float dt, int threads_per_block, int count_metrics);

/* The simulator's count for the load that sectors_per_request models: one warp, lane l loading
 * element offset_elements + l * stride_elements (element_bytes 1, 2, 4, 8 or 16). -1 on a GPU. */
int counted_sectors_per_request(int stride_elements, int offset_elements, int element_bytes);

/* On a real GPU: the median time in milliseconds of `repeats` runs (events, after a warm-up).
 * On the simulator: -1, because its time is this CPU's, not a GPU's. */
double gpu_strided_copy_milliseconds(int n, int stride, int offset, int repeats);
double gpu_update_particles_milliseconds(int soa, int n, int repeats);

#ifdef __cplusplus
}
#endif

#endif
