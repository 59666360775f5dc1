/* lab.h — Day 06: the interface between your code, the driver and the tests.
 * Driver file: do not edit. */
#ifndef DAY06_LAB_H
#define DAY06_LAB_H

#include <stdint.h>

#ifdef __cplusplus
#include <cuda_fp16.h>
extern "C" {
#endif

/* ---- formats.c (yours): the 16-bit formats, by hand ---- */
/* IEEE binary16 ("half", FP16): 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
uint16_t float_to_half(float x);        /* round to nearest, ties to even; NaN -> 0x7fff */
float half_to_float(uint16_t h);        /* exact */
/* bfloat16 (BF16): the top 16 bits of a float: 1 sign, 8 exponent (bias 127), 7 mantissa bits. */
uint16_t float_to_bfloat16(float x);    /* round to nearest, ties to even; NaN -> 0x7fff */
float bfloat16_to_float(uint16_t b);    /* exact */

/* The format the running sum of a dot product is kept in. */
typedef enum accumulator { ACCUMULATE_FP32, ACCUMULATE_FP16, ACCUMULATE_BF16 } accumulator;

/* sum of a[i] * b[i] for i < n, where a and b hold FP16 bit patterns. Each product is
 * computed in float (exactly: 11 x 11 significant bits fit in float's 24); the running
 * sum is a float, rounded to `format` after every add. Returns the final sum. */
float dot_product(const uint16_t *a, const uint16_t *b, long n, accumulator format);

/* ---- mma.cu (yours), called by run.cu ---- */
enum { TILE = 16 };   /* D = A B + C for 16 x 16 tiles, K = 16: one Tensor Core-sized step */
#ifdef __cplusplus
/* `tiles` independent tiles, one after another in each array (TILE * TILE elements each,
 * row-major): D_t = A_t B_t + C_t with FP16 A and B and FP32 C and D. Device pointers. */
void launch_mma_tiles(const __half *a, const __half *b, const float *c, float *d, int tiles);
#endif

/* ---- run.cu (driver): host arrays in, host arrays out ---- */
typedef struct gpu_run {
    const char *error;            /* NULL, or the CUDA error the run ended with */
    long long written_past_end;   /* floats written after the end of d (must be 0) */
} gpu_run;

/* Copies A and B (FP16 bit patterns) and C to the device, poisons D and a guard region
 * after it, calls your launch_mma_tiles, waits, and copies D back. */
gpu_run gpu_mma_tiles(const uint16_t *a, const uint16_t *b, const float *c, float *d, int tiles);

/* CUDA's own conversions, run on the device (__float2half_rn, __float2bfloat16_rn): on a
 * GPU the hardware's answer, on the simulator its bit-exact copy. The driver compares yours
 * with them; the tests use their own reference instead. */
gpu_run gpu_float_to_half(const float *x, uint16_t *out, int n);
gpu_run gpu_float_to_bfloat16(const float *x, uint16_t *out, int n);

/* One m x n x k GEMM in cuBLAS, the same FP32 inputs given to it four ways; each result's
 * relative error ||C - C_exact|| / ||C_exact|| (Frobenius norms) against a double-precision
 * product of the FP32 inputs. */
typedef struct gemm_errors {
    const char *error;            /* NULL, or what failed */
    double fp32;                  /* FP32 inputs, CUBLAS_COMPUTE_32F */
    double tf32;                  /* FP32 inputs, CUBLAS_COMPUTE_32F_FAST_TF32 (rounded to TF32) */
    double fp16;                  /* inputs rounded to FP16, FP32 accumulation */
    double bf16;                  /* inputs rounded to BF16, FP32 accumulation */
} gemm_errors;
gemm_errors cublas_gemm_errors(int m, int n, int k, unsigned seed);

#ifdef __cplusplus
}
#endif

#endif
