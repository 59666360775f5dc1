/* run.cu — Day 15 driver: runs your three cuBLAS calls on device memory, names the convention a
 * wrong answer breaks, and times one GEMM. Do not edit.
 *
 * A and B are copied into buffers of exactly their size; C is poisoned (0xff bytes: NaN) and
 * followed by a guard (lib/lab/device_buffer.cuh), and all m x ldc floats of it come back, so
 * the checks see an element never written, padding that was written, and a write past the end.
 * Each of your functions gets the program's handle in cuBLAS's default math mode, and the run
 * notes the mode it was left in. On the simulator the run also counts the launches your call
 * made (lib/lab/sim_counts.h: the simulator's cuBLAS records each call as the one launch a GPU
 * makes for it, with the FLOPs its sizes imply). On the simulator cuBLAS is OpenBLAS on this
 * CPU (lib/sim/cublas.c), held to one thread here, the caller's, so that its time, read as this
 * thread's CPU time, compares with the driver's one-core CPU loop. */
#include "lab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <device_buffer.cuh>
#include <fcntl.h>
#include <sim_counts.h>   /* LAB_SIMULATED, lab_counts_begin, lab_counts_end */
#include <unistd.h>
#include <timer.h>

/* The simulator's cuBLAS is OpenBLAS, held to one core for the comparison; a GPU's has no such knob. */
#ifdef SIM_CUDA
extern "C" void openblas_set_num_threads(int threads);
static void hold_cublas_to_one_core(void) { openblas_set_num_threads(1); }
#else
static void hold_cublas_to_one_core(void) {}
#endif

static const size_t GUARD_BYTES = 4096;

extern "C" size_t gemm_a_floats(const gemm_case *g) { return (size_t)(g->transpose_a ? g->k : g->m) * g->lda; }
extern "C" size_t gemm_b_floats(const gemm_case *g) { return (size_t)(g->transpose_b ? g->n : g->k) * g->ldb; }
extern "C" size_t gemm_c_floats(const gemm_case *g) { return (size_t)g->m * g->ldc; }

static cublasHandle_t program_handle = NULL;   // one for the whole program, as an application keeps one

/* The program's handle, in cuBLAS's default math mode whatever an earlier call left it in. */
static cublasHandle_t the_handle(cudaError_t *error)
{
    if (*error == cudaSuccess && program_handle == NULL && cublasCreate(&program_handle) != CUBLAS_STATUS_SUCCESS) {
        *error = cudaErrorUnknown;
        program_handle = NULL;
    }
    if (program_handle) cublasSetMathMode(program_handle, CUBLAS_DEFAULT_MATH);
    hold_cublas_to_one_core();
    return program_handle;
}

static cublasMath_t math_mode(cublasHandle_t handle)
{
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (handle) cublasGetMathMode(handle, &mode);
    return mode;
}

/* What the launches counted since `first` say: how many, their FLOPs, the last one's name. */
static void note_counts(gemm_run *run, int first)
{
    lab_counts counts = lab_counts_end(first);
    run->counted = counts.counted;
    run->launches = counts.launches;
    run->flops = counts.total.declared_flops;
    snprintf(run->last_call, sizeof run->last_call, "%s", counts.total.kernel);
}

static gemm_run finish(void *device_c, float *c, size_t bytes, cublasStatus_t status, cudaError_t error)
{
    gemm_run run;
    memset(&run, 0, sizeof run);
    run.status = status;
    run.math_after = math_mode(program_handle);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    run.written_past_end = lab_device_fetch(c, device_c, bytes, GUARD_BYTES, &error);
    if (error != cudaSuccess) {
        run.error = cudaGetErrorString(error);
        if (program_handle) cublasDestroy(program_handle);
        program_handle = NULL;
        cudaDeviceReset();   // a fault inside a kernel is sticky: start the next run afresh
    }
    return run;
}

extern "C" gemm_run gpu_gemm_row_major(const gemm_case *g, const float *a, const float *b, float *c)
{
    cudaError_t error = cudaSuccess;
    size_t c_bytes = sizeof(float) * gemm_c_floats(g);
    cublasHandle_t cublas = the_handle(&error);
    float *device_a = (float *)lab_device_buffer(a, sizeof(float) * gemm_a_floats(g), 0, &error);
    float *device_b = (float *)lab_device_buffer(b, sizeof(float) * gemm_b_floats(g), 0, &error);
    float *device_c = (float *)lab_device_buffer(NULL, c_bytes, GUARD_BYTES, &error);
    cublasStatus_t status = CUBLAS_STATUS_NOT_INITIALIZED;
    int first = lab_counts_begin();
    if (error == cudaSuccess)
        status = gemm_row_major(cublas, g->transpose_a, g->transpose_b, g->m, g->n, g->k, device_a, g->lda, device_b,
                                g->ldb, device_c, g->ldc);
    gemm_run run = finish(device_c, c, c_bytes, status, error);
    note_counts(&run, first);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return run;
}

extern "C" gemm_run gpu_gemm_row_major_bf16(const gemm_case *g, const uint16_t *a, const uint16_t *b, float *c)
{
    cudaError_t error = cudaSuccess;
    size_t c_bytes = sizeof(float) * gemm_c_floats(g);
    cublasHandle_t cublas = the_handle(&error);
    uint16_t *device_a = (uint16_t *)lab_device_buffer(a, 2 * gemm_a_floats(g), 0, &error);
    uint16_t *device_b = (uint16_t *)lab_device_buffer(b, 2 * gemm_b_floats(g), 0, &error);
    float *device_c = (float *)lab_device_buffer(NULL, c_bytes, GUARD_BYTES, &error);
    cublasStatus_t status = CUBLAS_STATUS_NOT_INITIALIZED;
    int first = lab_counts_begin();
    if (error == cudaSuccess)
        status = gemm_row_major_bf16(cublas, g->m, g->n, g->k, device_a, g->lda, device_b, g->ldb, device_c, g->ldc);
    gemm_run run = finish(device_c, c, c_bytes, status, error);
    note_counts(&run, first);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return run;
}

extern "C" gemm_run gpu_gemm_row_major_batched(int m, int n, int k, const float *a, long long stride_a,
                                               const float *b, long long stride_b, float *c, long long stride_c,
                                               int batches)
{
    cudaError_t error = cudaSuccess;
    size_t c_bytes = sizeof(float) * (size_t)stride_c * batches;
    cublasHandle_t cublas = the_handle(&error);
    float *device_a = (float *)lab_device_buffer(a, sizeof(float) * (size_t)stride_a * batches, 0, &error);
    float *device_b = (float *)lab_device_buffer(b, sizeof(float) * (size_t)stride_b * batches, 0, &error);
    float *device_c = (float *)lab_device_buffer(NULL, c_bytes, GUARD_BYTES, &error);
    cublasStatus_t status = CUBLAS_STATUS_NOT_INITIALIZED;
    int first = lab_counts_begin();
    if (error == cudaSuccess)
        status = gemm_row_major_batched(cublas, m, n, k, device_a, stride_a, device_b, stride_b, device_c, stride_c,
                                        batches);
    gemm_run run = finish(device_c, c, c_bytes, status, error);
    note_counts(&run, first);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return run;
}

/* ---------------------------------------------------------------------------------
 * The classic mistakes, made on purpose, to name the one a wrong C matches. */

/* What each mistake means; make_mistake below makes its cuBLAS call, in the same order. The last
 * is the right call with the inputs rounded to TF32, as the math mode CUBLAS_TF32_TENSOR_OP_MATH or
 * the compute type CUBLAS_COMPUTE_32F_FAST_TF32 lets cuBLAS do. */
static const char *const mistakes[] = {
    "C is what cuBLAS computes with A first and B second, as the column-major formula reads: the row-major "
    "trick computes C^T = B^T A^T, so B goes first (with B's flag and ldb), then A",
    "C is what cuBLAS computes with the operands swapped but m and n not: cuBLAS's C is C^T, n x m, so its m is "
    "our n and its n is our m (k stays)",
    "C is what cuBLAS computes with each transpose flag inverted: a row-major array read column-major is already "
    "the transpose, so a flag passes through unchanged (CUBLAS_OP_T where op(X) = X^T)",
    "C is what cuBLAS computes with the operands swapped but each taking the other's transpose flag: a flag "
    "travels with its operand",
    "C is what cuBLAS computes with each leading dimension set to the matrix's width (its columns): the leading "
    "dimension is the row stride of the array, the padded width, which may be larger",
    "C is the right product with A and B rounded to TF32 (10 mantissa bits, about 3 decimal digits), as the "
    "math mode CUBLAS_TF32_TENSOR_OP_MATH or the compute type CUBLAS_COMPUTE_32F_FAST_TF32 allows: faster on "
    "tensor cores, but this lab's cublasSgemm is an FP32 product, held to FP32's rounding",
};
enum { MISTAKES = sizeof mistakes / sizeof mistakes[0], RIGHT_CALL = -1 };

static cublasStatus_t make_mistake(int which, cublasHandle_t handle, const gemm_case *g, const float *a,
                                   const float *b, float *c)
{
    const float one = 1.0f, zero = 0.0f;
    cublasOperation_t op_a = g->transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t op_b = g->transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t not_a = g->transpose_a ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t not_b = g->transpose_b ? CUBLAS_OP_N : CUBLAS_OP_T;
    int width_a = g->transpose_a ? g->m : g->k, width_b = g->transpose_b ? g->k : g->n;
    int m = g->m, n = g->n, k = g->k;
    cublasSetMathMode(handle, which == MISTAKES - 1 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    switch (which) {
    case 0: return cublasSgemm(handle, op_a, op_b, m, n, k, &one, a, g->lda, b, g->ldb, &zero, c, g->ldc);
    case 1: return cublasSgemm(handle, op_b, op_a, m, n, k, &one, b, g->ldb, a, g->lda, &zero, c, g->ldc);
    case 2: return cublasSgemm(handle, not_b, not_a, n, m, k, &one, b, g->ldb, a, g->lda, &zero, c, g->ldc);
    case 3: return cublasSgemm(handle, op_a, op_b, n, m, k, &one, b, g->ldb, a, g->lda, &zero, c, g->ldc);
    case 4: return cublasSgemm(handle, op_b, op_a, n, m, k, &one, b, width_b, a, width_a, &zero, c, n);
    default: return cublasSgemm(handle, op_b, op_a, n, m, k, &one, b, g->ldb, a, g->lda, &zero, c, g->ldc);
    }
}

static int same_floats(const float *x, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (std::isnan(x[i]) && std::isnan(y[i])) continue;
        double scale = std::max(1.0, std::fabs((double)y[i]));
        if (!(std::fabs((double)x[i] - y[i]) <= 1e-5 * scale)) return 0;
    }
    return 1;
}

/* The C one call makes (`which`: a mistake, or RIGHT_CALL), from a poisoned C; 0 when cuBLAS refused it. */
static int candidate_c(int which, cublasHandle_t handle, const gemm_case *g, const float *a, const float *b,
                       float *device_c, float *candidate, size_t c_bytes, cudaError_t *error)
{
    if (*error == cudaSuccess) *error = cudaMemset(device_c, LAB_POISON_BYTE, c_bytes);
    if (*error != cudaSuccess) return 0;
    cublasStatus_t status = make_mistake(which == RIGHT_CALL ? MISTAKES : which, handle, g, a, b, device_c);
    if (*error == cudaSuccess) *error = cudaDeviceSynchronize();
    if (*error == cudaSuccess) *error = cudaMemcpy(candidate, device_c, c_bytes, cudaMemcpyDeviceToHost);
    return *error == cudaSuccess && status == CUBLAS_STATUS_SUCCESS;
}

extern "C" const char *gemm_name_the_mistake(const gemm_case *g, const float *a, const float *b, const float *got)
{
    cudaError_t error = cudaSuccess;
    size_t c_floats = gemm_c_floats(g), c_bytes = sizeof(float) * c_floats;
    cublasHandle_t cublas = the_handle(&error);
    float *device_a = (float *)lab_device_buffer(a, sizeof(float) * gemm_a_floats(g), 0, &error);
    float *device_b = (float *)lab_device_buffer(b, sizeof(float) * gemm_b_floats(g), 0, &error);
    float *device_c = (float *)lab_device_buffer(NULL, c_bytes, 0, &error);
    float *right = (float *)malloc(c_bytes + 1), *candidate = (float *)malloc(c_bytes + 1);
    const char *named = NULL;
    fflush(stderr);   // the mistakes' own complaints (an ld cuBLAS refuses) are not the learner's: silenced
    int saved_stderr = dup(2), nowhere = open("/dev/null", O_WRONLY);
    if (nowhere >= 0) dup2(nowhere, 2), close(nowhere);
    int have_right = candidate_c(RIGHT_CALL, cublas, g, device_a, device_b, device_c, right, c_bytes, &error);
    for (int i = 0; i < MISTAKES && error == cudaSuccess && named == NULL; i++) {
        int made = candidate_c(i, cublas, g, device_a, device_b, device_c, candidate, c_bytes, &error);
        int changes_something = !have_right || !same_floats(candidate, right, c_floats);   // A first, on 1 x 1 x 1: no
        if (made && changes_something && same_floats(got, candidate, c_floats)) named = mistakes[i];
    }
    if (cublas) cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH);
    fflush(stderr);
    if (saved_stderr >= 0) dup2(saved_stderr, 2), close(saved_stderr);
    free(right), free(candidate);
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    return named;
}

/* ---------------------------------------------------------------------------------
 * Timing one GEMM. */

extern "C" int gemm_runs_on_the_cpu(void) { return LAB_SIMULATED; }

extern "C" double gemm_thread_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

extern "C" double gemm_row_major_milliseconds(int transpose_a, int transpose_b, int n, int repeats)
{
    cudaError_t error = cudaSuccess;
    size_t bytes = sizeof(float) * (size_t)n * n;
    cublasHandle_t cublas = the_handle(&error);
    float *device_a = NULL, *device_b = NULL, *device_c = NULL;
    if (error == cudaSuccess) error = cudaMalloc(&device_a, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_b, bytes);
    if (error == cudaSuccess) error = cudaMalloc(&device_c, bytes);
    if (error == cudaSuccess) error = cudaMemset(device_a, 0, bytes);
    if (error == cudaSuccess) error = cudaMemset(device_b, 0, bytes);
    double *samples = (double *)calloc(repeats > 0 ? repeats : 1, sizeof(double));
    for (int r = 0; r <= repeats && error == cudaSuccess; r++) {   // r = 0: the warm-up
        double milliseconds = 0;
        cublasStatus_t status;
        if (LAB_SIMULATED) {   // this thread's CPU time: cuBLAS here is OpenBLAS on this thread, done when it returns
            double start = gemm_thread_seconds();
            status = gemm_row_major(cublas, transpose_a, transpose_b, n, n, n, device_a, n, device_b, n, device_c, n);
            milliseconds = (gemm_thread_seconds() - start) * 1e3;
        } else {
            cudaEvent_t start, stop;
            float elapsed = 0;
            cudaEventCreate(&start), cudaEventCreate(&stop);
            cudaEventRecord(start);
            status = gemm_row_major(cublas, transpose_a, transpose_b, n, n, n, device_a, n, device_b, n, device_c, n);
            cudaEventRecord(stop);
            if (cudaEventSynchronize(stop) == cudaSuccess && cudaEventElapsedTime(&elapsed, start, stop) == cudaSuccess)
                milliseconds = elapsed;
            cudaEventDestroy(start), cudaEventDestroy(stop);
        }
        if (status != CUBLAS_STATUS_SUCCESS) error = cudaErrorUnknown;
        if (r > 0) samples[r - 1] = milliseconds;
    }
    cudaFree(device_a), cudaFree(device_b), cudaFree(device_c);
    double median = error == cudaSuccess && repeats > 0 ? lab_median(samples, repeats) : -1;
    free(samples);
    return median;
}
