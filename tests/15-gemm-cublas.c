/* 15-gemm-cublas.c — the checks for day 15. gemm_row_major agrees with a double-precision
 * reference (within the rounding bound of a k-long dot product) for every transpose pair, on
 * shapes from 1 x 1 x 1 up that are neither square nor multiples of anything, with packed rows
 * and with padded ones (lda, ldb, ldc larger than the widths, the padding of A and B full of
 * NaN); it writes nothing in C's padding or past its end, returns what cuBLAS returned, makes
 * one cuBLAS call (counted on the simulator) and leaves the handle's math mode as it found it.
 * When C is wrong, the driver calls cuBLAS with each classic mistake's arguments (TF32 inputs
 * among them) and the message names the convention the one that matches breaks; a mistake that
 * changes nothing on the shape is never named. gemm_row_major_bf16 agrees with the reference on
 * the BF16-rounded inputs, through a combination cuBLAS supports; gemm_row_major_batched with it
 * on each matrix of a strided batch whose strides leave gaps, the gaps untouched, in one launch
 * (counted). predict_batch_cost, the day's prediction, equals the launches and FLOPs the
 * simulator counts for the learner's own batch, on sizes whose FLOPs pass 2^31. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"
#include "robust.h"

typedef struct shape { int m, n, k; } shape;
static const shape shapes[] = {{1, 1, 1}, {5, 3, 2}, {2, 7, 5}, {37, 45, 29}, {64, 1, 7}, {1, 64, 7}, {33, 17, 70}};
enum { SHAPES = 7 };
static const char *const pair_names[] = {"NN", "NT", "TN", "TT"};

/* Compares the m x n elements of two arrays with row stride ld (the padding left out). */
static lab_comparison compare_rows(const float *got, const float *want, int m, int n, size_t ld, double tolerance)
{
    float *got_packed = malloc(sizeof(float) * m * n), *want_packed = malloc(sizeof(float) * m * n);
    for (int i = 0; i < m; i++) {
        memcpy(got_packed + (size_t)i * n, got + i * ld, sizeof(float) * n);
        memcpy(want_packed + (size_t)i * n, want + i * ld, sizeof(float) * n);
    }
    lab_comparison result = lab_compare_floats("c", got_packed, want_packed, (size_t)m * n, 0, tolerance);
    free(got_packed), free(want_packed);
    return result;
}

/* What a status other than success says about the call, given the launches it made (counted on
 * the simulator, where a refused call launches nothing) and what the simulator said (it says why it
 * refuses a call). */
static const char *status_advice(cublasStatus_t status, const gemm_run *run, const char *said)
{
    if (status == CUBLAS_STATUS_INVALID_VALUE)
        return "cuBLAS refuses a leading dimension smaller than the rows of its operand as it sees them, "
               "column-major: for a row-major array that is the row stride (lda >= the stored width), and "
               "cuBLAS's m and n are our n and m.";
    if (status == CUBLAS_STATUS_NOT_SUPPORTED && run->counted && !*said)
        return "No cuBLAS call refused anything (the simulator would have said why): your function returned it "
               "itself, as the lab does until the call is written.";
    if (status == CUBLAS_STATUS_NOT_SUPPORTED && run->counted)
        return "cuBLAS answers this to a combination of types and compute type that cublasGemmEx's table does not "
               "list: BF16 A and B with a float C take CUBLAS_COMPUTE_32F; the FAST compute types are for FP32 "
               "matrices.";
    if (status == CUBLAS_STATUS_NOT_SUPPORTED)
        return "cuBLAS answers this to a combination of types and compute type that cublasGemmEx's table does not "
               "list: BF16 A and B with a float C take CUBLAS_COMPUTE_32F; the FAST compute types are for FP32 "
               "matrices. (The lab as shipped returns CUBLAS_STATUS_NOT_SUPPORTED itself until the call is "
               "written.)";
    if (run->counted && run->launches > 0)
        return "cuBLAS computed, but something else was returned: return the status of the call itself.";
    return "Return what the one cuBLAS call returned.";
}

/* cuBLAS's name for a math mode. */
static const char *math_name(cublasMath_t mode)
{
    switch (mode) {
    case CUBLAS_DEFAULT_MATH: return "CUBLAS_DEFAULT_MATH";
    case CUBLAS_TENSOR_OP_MATH: return "CUBLAS_TENSOR_OP_MATH";
    case CUBLAS_PEDANTIC_MATH: return "CUBLAS_PEDANTIC_MATH";
    case CUBLAS_TF32_TENSOR_OP_MATH: return "CUBLAS_TF32_TENSOR_OP_MATH";
    }
    return "(an unknown mode)";
}

/* The contract every function shares: the handle's math mode as it was found, and one cuBLAS call
 * (counted on the simulator) that did the work. `function` names the learner's function. */
static void expect_one_call_and_the_handle_unchanged(const char *what, const char *function, const gemm_run *run)
{
    cr_assert(run->math_after == CUBLAS_DEFAULT_MATH, "%s: %s left the handle in math mode %s; it was handed "
              "CUBLAS_DEFAULT_MATH. The handle is the caller's: every GEMM after yours would run in that mode "
              "(TF32 math rounds FP32 inputs to 10 mantissa bits). Leave its settings as you found them.", what,
              function, math_name(run->math_after));
    if (!run->counted) return;   /* on a GPU nothing is counted */
    cr_assert(run->launches >= 1, "%s: %s returned success without a cuBLAS call that computed anything: C is "
              "not written. Was the call made, with the sizes of the product?", what, function);
    cr_assert(run->launches <= 1, "%s: %s made %d cuBLAS calls (the last %s), each a launch on a GPU: one call "
              "computes the whole product.", what, function, run->launches, run->last_call);
}

/* A and B of g (rows padded by `pad` floats) from their seeds. Each check computes the C it expects after
 * the code under test has returned, from A and B made afresh by this (written over the arrays handed to the
 * driver, whatever became of them), not before: while that code runs there is no answer in memory to copy,
 * and none to make by changing its inputs. */
static void fill_operands(const gemm_case *g, int pad, float *a, float *b)
{
    size_t a_floats = gemm_a_floats(g), b_floats = gemm_b_floats(g);
    fill_matrix(a, a_floats, 21), fill_matrix(b, b_floats, 22);
    for (size_t i = 0; i < a_floats; i++)   /* padding: NaN, so reading it shows */
        if ((int)(i % g->lda) >= g->lda - pad) lab_poison(&a[i], sizeof(float));
    for (size_t i = 0; i < b_floats; i++)
        if ((int)(i % g->ldb) >= g->ldb - pad) lab_poison(&b[i], sizeof(float));
}

/* Runs g (rows padded by `pad` floats) and fails with what is wrong: the status, a write outside
 * C's elements, or the values, with the convention broken where a classic mistake matches. */
static void check_case(int transpose_a, int transpose_b, shape s, int pad)
{
    gemm_case g = {transpose_a, transpose_b, s.m, s.n, s.k, (transpose_a ? s.m : s.k) + pad,
                   (transpose_b ? s.k : s.n) + pad, s.n + pad};
    size_t c_floats = gemm_c_floats(&g);
    float *a = malloc(sizeof(float) * gemm_a_floats(&g)), *b = malloc(sizeof(float) * gemm_b_floats(&g));
    float *c = malloc(sizeof(float) * c_floats);
    fill_operands(&g, pad, a, b);
    int width_a = g.lda - pad, width_b = g.ldb - pad;
    char said[1024], what[256];
    snprintf(what, sizeof what, "%s: C (%d x %d, ldc %d) = op(A) (stored %d x %d, lda %d) op(B) (stored %d x %d, "
             "ldb %d)", pair_names[2 * transpose_a + transpose_b], s.m, s.n, g.ldc, transpose_a ? s.k : s.m,
             width_a, g.lda, transpose_b ? s.n : s.k, width_b, g.ldb);
    lab_capture_stderr();
    gemm_run run = gpu_gemm_row_major(&g, a, b, c);
    lab_release_stderr(said, sizeof said);
    fill_operands(&g, pad, a, b);
    float *want = malloc(sizeof(float) * c_floats);
    lab_poison(want, sizeof(float) * c_floats);
    double tolerance = gemm_reference(&g, a, b, want);
    char want_call[256];
    snprintf(want_call, sizeof want_call, " The row-major trick's call here is cublasSgemm(handle, %s, %s, m = %d, "
             "n = %d, k = %d, &one, B, ldb = %d, A, lda = %d, &zero, C, ldc = %d).", transpose_b ? "CUBLAS_OP_T" :
             "CUBLAS_OP_N", transpose_a ? "CUBLAS_OP_T" : "CUBLAS_OP_N", s.n, s.m, s.k, g.ldb, g.lda, g.ldc);
    cr_assert(run.error == NULL, "%s: the run ended with the CUDA error \"%s\": cuBLAS read or wrote outside an "
              "operand, as the sizes and leading dimensions passed to it say.%s%s%s", what, run.error, want_call,
              SIMULATOR_SAID(said));
    cr_assert(run.status == CUBLAS_STATUS_SUCCESS, "%s: gemm_row_major returned %s. %s%s%s%s", what,
              cublasGetStatusName(run.status), status_advice(run.status, &run, said),
              run.status == CUBLAS_STATUS_INVALID_VALUE ? want_call : "", SIMULATOR_SAID(said));
    expect_one_call_and_the_handle_unchanged(what, "gemm_row_major", &run);
    cr_assert(run.written_past_end == 0, "%s: %lld words written past the end of C", what, run.written_past_end);
    long long padding_written = 0;
    for (size_t i = 0; i < c_floats; i++)
        padding_written += (int)(i % g.ldc) >= s.n && !lab_float_is_poison(c[i]);
    const char *mistake = NULL;
    lab_comparison result = compare_rows(c, want, g.m, g.n, g.ldc, tolerance);
    if (padding_written || result.mismatches) mistake = gemm_name_the_mistake(&g, a, b, c);
    cr_assert(padding_written == 0, "%s: %lld floats written in the padding of C (columns %d .. %d of each row): %s",
              what, padding_written, s.n, g.ldc - 1, mistake ? mistake : "C's leading dimension is ldc, its "
              "width is n");
    cr_assert(result.mismatches == 0, "%s: %s; allowed error %.2g. %s", what, result.message, tolerance,
              mistake ? mistake : "(no classic mistake gives this C: compare your call with C^T = op(B)^T op(A)^T. An "
              "element still NaN, the poison, was never written, or was added to: beta must be 0.)");
    free(a), free(b), free(c), free(want);
}

static void check_pair(int pair, int pad, int square_only)
{
    for (int s = 0; s < SHAPES; s++) {
        shape sh = square_only ? (shape){s + 1, s + 1, s + 1} : shapes[s];
        check_case(pair >> 1, pair & 1, sh, pad);
    }
}

#define HINT_TRICK "A row-major m x k array read column-major is its k x m transpose, so ask cuBLAS for C^T = " \
                   "op(B)^T op(A)^T: B first and then A, each with its own transpose flag and leading dimension; " \
                   "cuBLAS's m is our n, its n our m; ldc is C's row stride."
Test(sgemm, square_no_transpose, .timeout = 30, .description = HINT_TRICK) { check_pair(0, 0, 1); }
Test(sgemm, rectangular_no_transpose, .timeout = 30, .description = HINT_TRICK) { check_pair(0, 0, 0); }
Test(sgemm, transpose_b, .timeout = 30, .description = HINT_TRICK) { check_pair(1, 0, 0); }
Test(sgemm, transpose_a, .timeout = 30, .description = HINT_TRICK) { check_pair(2, 0, 0); }
Test(sgemm, transpose_both, .timeout = 30, .description = HINT_TRICK) { check_pair(3, 0, 0); }
Test(sgemm, padded_leading_dimensions, .timeout = 60,
     .description = "The leading dimension is the row stride of the array, not its number of columns: here every "
                    "row of A, B and C is longer than its width (the padding of A and B holds NaN, C's must stay "
                    "untouched). Pass lda, ldb and ldc through as they are.")
{
    const int pads[] = {1, 3, 16};
    for (int p = 0; p < 3; p++)
        for (int pair = 0; pair < 4; pair++) check_pair(pair, pads[p], 0);
}

Test(sgemm, passes_the_status_on, .timeout = 10,
     .description = "gemm_row_major returns what cublasSgemm returned: a leading dimension smaller than a row is "
                    "CUBLAS_STATUS_INVALID_VALUE, and the caller must hear of it. A refused call changes nothing: C "
                    "is as it was.")
{
    gemm_case g = {0, 0, 4, 6, 5, 2, 6, 6};   /* lda 2 < k = 5 */
    float a[4 * 5] = {0}, b[5 * 6] = {0}, c[4 * 6];
    lab_poison(c, sizeof c);   /* what the driver's C holds before the call: C comes back unchanged or not */
    lab_snapshot before = lab_snapshot_take(c, sizeof c);
    char said[1024];
    lab_capture_stderr();
    gemm_run run = gpu_gemm_row_major(&g, a, b, c);
    lab_release_stderr(said, sizeof said);
    long changed = lab_snapshot_first_change(before);
    cr_assert(run.status == CUBLAS_STATUS_INVALID_VALUE, "A of 4 x 5 with lda 2: gemm_row_major returned %s; want "
              "CUBLAS_STATUS_INVALID_VALUE, cuBLAS's answer to a row longer than its stride",
              cublasGetStatusName(run.status));
    cr_assert(changed < 0, "A of 4 x 5 with lda 2, refused by cuBLAS: yet C changed, from float %ld on (it held the "
              "poison before the call, and now holds %g). A refused call leaves its output as it was: was C written "
              "(cleared?) before cuBLAS was asked?", changed / (long)sizeof(float), c[changed / (long)sizeof(float)]);
}

/* ---------------------------------------------------------------------------------
 * BF16 through cublasGemmEx. */

/* A and B of the BF16 check from their seeds, each value rounded to BF16: as floats, and as the bits
 * handed to the code under test where a16 and b16 are given. */
static void fill_bf16_operands(size_t a_floats, size_t b_floats, float *a, float *b, uint16_t *a16, uint16_t *b16)
{
    fill_matrix(a, a_floats, 31), fill_matrix(b, b_floats, 32);
    for (size_t i = 0; i < a_floats; i++) {
        uint16_t bits = float_to_bf16(a[i]);
        if (a16) a16[i] = bits;
        a[i] = bf16_to_float(bits);
    }
    for (size_t i = 0; i < b_floats; i++) {
        uint16_t bits = float_to_bf16(b[i]);
        if (b16) b16[i] = bits;
        b[i] = bf16_to_float(bits);
    }
}

Test(gemmex, bf16_in_fp32_out, .timeout = 30,
     .description = "The same trick through cublasGemmEx, B first and then A: A and B hold BF16 bits, C is float, "
                    "the sums are FP32, in a combination of types and compute type that cuBLAS's table lists (it "
                    "refuses the rest with CUBLAS_STATUS_NOT_SUPPORTED).")
{
    for (int s = 0; s < SHAPES; s++) {
        shape sh = shapes[s];
        gemm_case g = {0, 0, sh.m, sh.n, sh.k, sh.k + 2, sh.n + 1, sh.n + 3};
        size_t a_floats = gemm_a_floats(&g), b_floats = gemm_b_floats(&g), c_floats = gemm_c_floats(&g);
        float *a = malloc(sizeof(float) * a_floats), *b = malloc(sizeof(float) * b_floats);
        float *c = malloc(sizeof(float) * c_floats);
        uint16_t *a16 = malloc(2 * a_floats), *b16 = malloc(2 * b_floats);
        fill_bf16_operands(a_floats, b_floats, a, b, a16, b16);
        char said[1024];
        lab_capture_stderr();
        gemm_run run = gpu_gemm_row_major_bf16(&g, a16, b16, c);
        lab_release_stderr(said, sizeof said);
        fill_bf16_operands(a_floats, b_floats, a, b, NULL, NULL);   /* afresh: see fill_operands */
        float *want = malloc(sizeof(float) * c_floats);
        lab_poison(want, sizeof(float) * c_floats);
        double tolerance = gemm_reference(&g, a, b, want);
        cr_assert(run.error == NULL && run.status == CUBLAS_STATUS_SUCCESS, "BF16 C (%d x %d, ldc %d) = A (lda %d) "
                  "B (ldb %d): %s%s. %s%s%s", sh.m, sh.n, g.ldc, g.lda, g.ldb, run.error ? run.error :
                  "gemm_row_major_bf16 returned ", run.error ? "" : cublasGetStatusName(run.status),
                  run.error ? "" : status_advice(run.status, &run, said), SIMULATOR_SAID(said));
        char what[96];
        snprintf(what, sizeof what, "BF16 C (%d x %d, ldc %d)", sh.m, sh.n, g.ldc);
        expect_one_call_and_the_handle_unchanged(what, "gemm_row_major_bf16", &run);
        cr_assert(run.written_past_end == 0, "BF16: %lld words written past the end of C", run.written_past_end);
        lab_comparison result = compare_rows(c, want, g.m, g.n, g.ldc, tolerance);
        cr_assert(result.mismatches == 0, "BF16 C (%d x %d, ldc %d) = A (lda %d) B (ldb %d): %s; allowed error %.2g "
                  "(the inputs are the BF16 values; the products are exact in FP32). C^T = B^T A^T here too: B "
                  "first; an element still NaN, the poison, was never written, or was added to: beta must be 0.",
                  sh.m, sh.n, g.ldc, g.lda, g.ldb, result.message, tolerance);
        free(a), free(b), free(c), free(want), free(a16), free(b16);
    }
}

/* ---------------------------------------------------------------------------------
 * A strided batch. */

Test(batched, strided_with_gaps, .timeout = 30,
     .description = "cublasSgemmStridedBatched with the trick: B first with its stride, then A with its; cuBLAS's "
                    "m is our n. Each matrix is packed, so its leading dimension is its number of columns. The "
                    "strides here leave gaps between the matrices, and nothing may be written in C's gaps.")
{
    const shape batch_shapes[] = {{1, 1, 1}, {5, 7, 3}, {8, 3, 11}};
    for (int s = 0; s < 3; s++) {
        shape sh = batch_shapes[s];
        enum { BATCHES = 4 };
        long long stride_a = sh.m * sh.k + 5, stride_b = sh.k * sh.n + 2, stride_c = sh.m * sh.n + 3;
        float *a = malloc(sizeof(float) * stride_a * BATCHES), *b = malloc(sizeof(float) * stride_b * BATCHES);
        float *c = malloc(sizeof(float) * stride_c * BATCHES);
        fill_matrix(a, stride_a * BATCHES, 41), fill_matrix(b, stride_b * BATCHES, 42);
        char said[1024];
        lab_capture_stderr();
        gemm_run run = gpu_gemm_row_major_batched(sh.m, sh.n, sh.k, a, stride_a, b, stride_b, c, stride_c, BATCHES);
        lab_release_stderr(said, sizeof said);
        fill_matrix(a, stride_a * BATCHES, 41), fill_matrix(b, stride_b * BATCHES, 42);   /* see fill_operands */
        float *want = malloc(sizeof(float) * stride_c * BATCHES);
        lab_poison(want, sizeof(float) * stride_c * BATCHES);
        double tolerance = 0;
        for (int i = 0; i < BATCHES; i++) {
            gemm_case g = {0, 0, sh.m, sh.n, sh.k, sh.k, sh.n, sh.n};
            tolerance = fmax(tolerance, gemm_reference(&g, a + i * stride_a, b + i * stride_b, want + i * stride_c));
        }
        cr_assert(run.error == NULL && run.status == CUBLAS_STATUS_SUCCESS, "batch of %d, C_i (%d x %d) = A_i B_i, "
                  "strides %lld, %lld, %lld: %s%s. %s%s%s", BATCHES, sh.m, sh.n, stride_a, stride_b, stride_c,
                  run.error ? run.error : "gemm_row_major_batched returned ",
                  run.error ? "" : cublasGetStatusName(run.status),
                  run.error ? "" : status_advice(run.status, &run, said),
                  SIMULATOR_SAID(said));
        cr_assert(run.written_past_end == 0, "batch: %lld words written past the end of C", run.written_past_end);
        long long gap_written = 0;
        for (long long i = 0; i < stride_c * BATCHES; i++)
            gap_written += i % stride_c >= sh.m * sh.n && !lab_float_is_poison(c[i]);
        cr_assert(gap_written == 0, "batch of %d, C_i (%d x %d), stride_c %lld: %lld floats written in the gaps "
                  "between the C_i: is stride_c the one passed for C?", BATCHES, sh.m, sh.n, stride_c, gap_written);
        lab_comparison result = compare_rows(c, want, BATCHES, sh.m * sh.n, stride_c, tolerance);
        cr_assert(result.mismatches == 0, "batch of %d, C_i (%d x %d) = A_i (%d x %d) B_i (%d x %d), strides %lld, "
                  "%lld, %lld: %s; allowed error %.2g. B first with stride_b, then A with stride_a; beta 0.",
                  BATCHES, sh.m, sh.n, sh.m, sh.k, sh.k, sh.n, stride_a, stride_b, stride_c, result.message, tolerance);
        free(a), free(b), free(c), free(want);
    }
}

/* Runs a batch of `batches` products of zeros (its cost is the question here, not its values); what
 * the simulator said goes into said[size]. */
static gemm_run run_batch(int m, int n, int k, int batches, char *said, size_t size)
{
    long long stride_a = (long long)m * k, stride_b = (long long)k * n, stride_c = (long long)m * n;
    float *a = calloc(stride_a * batches, sizeof(float)), *b = calloc(stride_b * batches, sizeof(float));
    float *c = malloc(sizeof(float) * stride_c * batches);
    cr_assert(a && b && c, "out of host memory for a batch of %d products of %d x %d x %d", batches, m, n, k);
    lab_capture_stderr();
    gemm_run run = gpu_gemm_row_major_batched(m, n, k, a, stride_a, b, stride_b, c, stride_c, batches);
    lab_release_stderr(said, size);
    free(a), free(b), free(c);
    return run;
}

Test(batched, one_launch_for_the_batch, .timeout = 30,
     .description = "A strided batch is one call, so one launch on a GPU, whatever the number of products: a loop "
                    "of separate GEMMs pays a launch (microseconds on a GPU) for each. The simulator counts the "
                    "cuBLAS calls your gemm_row_major_batched makes.")
{
    const int batch_sizes[] = {4, 32};
    for (int i = 0; i < 2; i++) {
        char said[1024];
        gemm_run run = run_batch(5, 7, 3, batch_sizes[i], said, sizeof said);
        cr_assert(run.error == NULL && run.status == CUBLAS_STATUS_SUCCESS, "batch of %d, 5 x 7 x 3: %s%s. %s%s%s",
                  batch_sizes[i], run.error ? run.error : "gemm_row_major_batched returned ",
                  run.error ? "" : cublasGetStatusName(run.status),
                  run.error ? "" : status_advice(run.status, &run, said),
                  SIMULATOR_SAID(said));
        if (!run.counted) cr_skip("counted only on the simulator (on a GPU, nsys lists the launches)");
        cr_assert(run.launches >= 1, "a batch of %d products: gemm_row_major_batched returned success without a "
                  "cuBLAS call that computed anything. Was cublasSgemmStridedBatched called with the batch's sizes?",
                  batch_sizes[i]);
        cr_assert(run.launches <= 1, "a batch of %d products of 5 x 3 by 3 x 7 took %d launches (the last %s): a "
                  "launch a product, as a loop of separate GEMMs makes. cublasSgemmStridedBatched does the whole "
                  "batch in one call, each product found from the strides.", batch_sizes[i], run.launches,
                  run.last_call);
        expect_one_call_and_the_handle_unchanged("the strided batch", "gemm_row_major_batched", &run);
    }
}

/* ---------------------------------------------------------------------------------
 * The prediction: what a batch costs, before the simulator counts it. */

Test(prediction, batch_launches_and_flops, .timeout = 60,
     .description = "predict_batch_cost says, from the chapter, what your gemm_row_major_batched costs: the "
                    "launches a GPU makes for it and its FLOPs (a multiply and an add are 2). The simulator counts "
                    "both for your own batch, on sizes whose FLOPs pass 2^31.")
{
    /* the last: 2 x 1024 x 1024 x 1025 x 2 = 4 299 161 600 FLOPs, and m n k x batches is past 2^31 as well */
    const struct { int m, n, k, batches; } cases[] = {{5, 7, 3, 4}, {1, 1, 1, 1}, {3, 2, 9, 32}, {1024, 1024, 1025, 2}};
    for (int i = 0; i < 4; i++) {
        int m = cases[i].m, n = cases[i].n, k = cases[i].k, batches = cases[i].batches;
        gemm_batch_cost predicted = predict_batch_cost(m, n, k, batches);
        char said[1024];
        gemm_run run = run_batch(m, n, k, batches, said, sizeof said);
        /* Held to what the simulator counted for the learner's own batch; where nothing was counted (a GPU,
         * or a batch that did not run: batched/strided_with_gaps says why), to what a strided batch costs. */
        int counted = run.counted && run.error == NULL && run.status == CUBLAS_STATUS_SUCCESS;
        int launches = counted ? run.launches : 1;
        double flops = counted ? run.flops : 2.0 * m * n * k * batches;
        const char *source = counted ? "the simulator counted for your batch" : "a strided batch costs";
        cr_assert(predicted.launches == launches, "predict_batch_cost(m %d, n %d, k %d, batches %d).launches = %d; "
                  "%s %d launch%s (one a cuBLAS call). %s", m, n, k, batches, predicted.launches, source, launches,
                  launches == 1 ? "" : "es", predicted.launches == 0 ? "Still 0: is it written yet?"
                  : launches == 1 ? "A strided batch is one call: one launch for all its products."
                                  : "One of the two is wrong: a strided batch is one call, one launch.");
        const char *why = predicted.flops == flops / 2 ? "half: a multiply and an add are 2 FLOPs"
                        : predicted.flops * batches == flops ? "one product's: the batch has `batches` of them"
                        : predicted.flops < 0 || lab_wrapped_in_32_bits(predicted.flops, flops)
                            ? "wrapped around: 2 m n k passes 2^31 here; count in double (or int64_t)"
                        : predicted.flops == 0 ? "still 0: is it written yet?" : "";
        cr_assert(predicted.flops == flops, "predict_batch_cost(m %d, n %d, k %d, batches %d).flops = %.17g; %s "
                  "%.17g FLOPs, 2 m n k a product%s%s", m, n, k, batches, predicted.flops, source, flops,
                  *why ? ": yours is " : ".", why);
    }
}
