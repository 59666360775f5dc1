/* 02-cuda-model.c — the checks for day 02: blocks_needed rounds up for every int; the
 * 2-D matrix_add is exact for odd shapes and every block shape tried, writes nothing out
 * of bounds and touches each element exactly once (run in place, a second visit shows as
 * a + 2b); the block map matches the grid; the grid-stride loop covers every element once
 * for grids smaller and larger than the array; a failed CUDA call is reported, with the
 * file and line, and stops the program; the whole host-side cycle (device memory, copies, a
 * launch timed between events, the copy back) gives a + b in host memory, writes nothing
 * past the host array, leaves no device memory behind and times the kernel. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "lab.h"

static const int shapes[][2] = {{1, 1}, {31, 33}, {1000, 3}, {3, 1000}, {257, 129}};
static const int blocks[][2] = {{32, 8}, {16, 16}, {8, 32}, {256, 1}, {1, 256}, {7, 13}, {32, 32}};
enum { SHAPES = 5, BLOCK_SHAPES = 7 };

/* Whole numbers in [-1000, -1] and [1, 1000]: exact in float, and never 0, so that scaling
 * an element twice, or not at all, always shows. Each check computes what it expects after the
 * code under test has returned, from these formulas, not from the arrays that code was given, and
 * poisons it again before the next run: while it runs there is no answer in memory to copy
 * (tests/grader/forgeries/reads-expected-values.patch). */
static float value(int i, int salt)
{
    int v = (i * 13 + salt) % 2000 - 1000;
    return (float)(v >= 0 ? v + 1 : v);
}

#define HINT_2D "Two coordinates, two jobs: one of x and y runs along a row (the column), the other down the " \
                "matrix (the row), and the grid needs enough blocks along EACH to cover its edge. The edge blocks " \
                "hang over the matrix on two sides. make hint DAY=02 goes step by step."
#define HINT_BLOCKS "Rounding up must be exact for every int the function can be given: look at what each step of " \
                    "your arithmetic can hold (an int near 2^31, a float's 24 bits of mantissa)."

Test(blocks_needed, rounds_up, .timeout = 5, .description = HINT_BLOCKS)
{
    static const int cases[][3] = {   /* static: not on the stack (value above says why) */
        {1, 256, 1}, {256, 256, 1}, {257, 256, 2}, {1000003, 256, 3907}, {0, 256, 0}, {33, 32, 2}, {31, 32, 1},
    };
    for (int i = 0; i < 7; i++) {
        int got = blocks_needed(cases[i][0], cases[i][1]);
        cr_assert(got == cases[i][2], "blocks_needed(%d, %d) = %d, want %d", cases[i][0], cases[i][1], got, cases[i][2]);
    }
}

Test(blocks_needed, near_int_max, .timeout = 5, .description = HINT_BLOCKS)
{
    int got = blocks_needed(2147483647, 1024);
    cr_assert(got == 2097152, "blocks_needed(2147483647, 1024) = %d, want 2097152", got);
}

Test(blocks_needed, beyond_float_precision, .timeout = 5, .description = HINT_BLOCKS)
{
    /* A float holds every integer only up to 2^24 = 16 777 216: (float)100000001 is 100000000, so a
     * rounding-up done in float loses the odd element. 2^31 - 1 itself becomes 2^31 in float,
     * which 1024 divides, so near_int_max alone cannot tell. */
    static const int cases[][3] = {{100000001, 2, 50000001}, {16777217, 1, 16777217}, {2147483647, 2, 1073741824},
                                   {2147483647, 1, 2147483647}, {2147483647, 1000, 2147484}};
    for (int i = 0; i < 5; i++) {
        int got = blocks_needed(cases[i][0], cases[i][1]);
        cr_assert(got == cases[i][2], "blocks_needed(%d, %d) = %d, want %d: integers this large are not all exact "
                  "in a float", cases[i][0], cases[i][1], got, cases[i][2]);
    }
}

static void check_matrix_add(int shape)
{
    int rows = shapes[shape][0], cols = shapes[shape][1], n = rows * cols;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    float *c = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) a[i] = value(i, 1), b[i] = value(i, 2);
    for (int k = 0; k < BLOCK_SHAPES; k++) {
        lab_poison(c, sizeof(float) * n), lab_poison(want, sizeof(float) * n);
        gpu_run run = gpu_matrix_add(a, b, c, rows, cols, blocks[k][0], blocks[k][1]);
        cr_assert(run.error == NULL, "%d x %d matrix, %d x %d blocks: CUDA error \"%s\"", rows, cols, blocks[k][0],
                  blocks[k][1], run.error);
        for (int i = 0; i < n; i++) want[i] = value(i, 1) + value(i, 2);
        lab_comparison result = lab_compare_floats("c", c, want, (size_t)n, 0, 0);
        cr_assert(result.mismatches == 0, "%d x %d matrix, %d x %d blocks: %s", rows, cols, blocks[k][0], blocks[k][1],
                  result.message);
        cr_assert(run.written_past_end == 0, "%d x %d matrix, %d x %d blocks: %lld elements written past the end of c",
                  rows, cols, blocks[k][0], blocks[k][1], run.written_past_end);
    }
    free(a), free(b), free(c), free(want);
}

Test(matrix_add, shape_1x1, .timeout = 20, .description = HINT_2D) { check_matrix_add(0); }
Test(matrix_add, shape_31x33, .timeout = 20, .description = HINT_2D) { check_matrix_add(1); }
Test(matrix_add, shape_1000x3, .timeout = 20, .description = HINT_2D) { check_matrix_add(2); }
Test(matrix_add, shape_3x1000, .timeout = 20, .description = HINT_2D) { check_matrix_add(3); }
Test(matrix_add, shape_257x129, .timeout = 30, .description = HINT_2D) { check_matrix_add(4); }

Test(matrix_add, each_element_exactly_once, .timeout = 30,
     .description = "Run in place (c is a), an element added twice comes out as a + 2b: some element belongs to two "
                    "threads. A thread outside the matrix must do nothing, whichever edge it hangs over, and x and "
                    "y must not be mixed up.")
{
    for (int s = 0; s < SHAPES; s++) {
        int rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
        float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
        for (int k = 0; k < BLOCK_SHAPES; k++) {
            for (int i = 0; i < n; i++) a[i] = value(i, 3), b[i] = value(i, 4);
            lab_poison(want, sizeof(float) * n);
            gpu_run run = gpu_matrix_add_in_place(a, b, rows, cols, blocks[k][0], blocks[k][1]);
            cr_assert(run.error == NULL, "%d x %d, blocks %d x %d: CUDA error \"%s\"", rows, cols, blocks[k][0],
                      blocks[k][1], run.error);
            for (int i = 0; i < n; i++) want[i] = value(i, 3) + value(i, 4);
            lab_comparison result = lab_compare_floats("a", a, want, (size_t)n, 0, 0);
            cr_assert(result.mismatches == 0, "in place, %d x %d matrix, %d x %d blocks: %s", rows, cols, blocks[k][0],
                      blocks[k][1], result.message);
        }
        free(a), free(b), free(want);
    }
}

Test(block_owner_map, matches_the_grid, .timeout = 30,
     .description = "Blocks are numbered row by row of the GRID (the lab's comment gives the order), and an element "
                    "belongs to the block whose threads cover its column along x and its row along y.")
{
    for (int s = 0; s < SHAPES; s++) {
        int rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
        int *owner = malloc(sizeof(int) * n), *want = malloc(sizeof(int) * n);
        for (int k = 0; k < BLOCK_SHAPES; k++) {
            int bx = blocks[k][0], by = blocks[k][1], grid_x = (cols + bx - 1) / bx;
            lab_poison(owner, sizeof(int) * n), lab_poison(want, sizeof(int) * n);
            gpu_run run = gpu_block_owner_map(owner, rows, cols, bx, by);
            cr_assert(run.error == NULL, "%d x %d, blocks %d x %d: CUDA error \"%s\"", rows, cols, bx, by, run.error);
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++) want[r * cols + c] = (r / by) * grid_x + c / bx;
            lab_comparison result = lab_compare_ints("owner", owner, want, (size_t)n);
            cr_assert(result.mismatches == 0, "%d x %d matrix, %d x %d blocks: %s", rows, cols, bx, by, result.message);
            cr_assert(run.written_past_end == 0, "%d x %d matrix, %d x %d blocks: %lld elements written past the end",
                      rows, cols, bx, by, run.written_past_end);
        }
        free(owner), free(want);
    }
}

static void check_grid_stride(int grid, int threads)
{
    int n = 1000003;
    float *x = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) x[i] = value(i, 5);
    gpu_run run = gpu_scale_grid_stride(x, n, 2.0f, grid, threads);
    cr_assert(run.error == NULL, "grid of %d x %d threads: CUDA error \"%s\"", grid, threads, run.error);
    float *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) want[i] = 2.0f * value(i, 5);
    lab_comparison result = lab_compare_floats("x", x, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = %d, a grid of %d blocks x %d threads (an element scaled twice comes out "
              "x4, one missed x1): %s", n, grid, threads, result.message);
    cr_assert(run.written_past_end == 0, "grid of %d x %d threads: %lld elements written past x[%d]", grid, threads,
              run.written_past_end, n);
    free(x), free(want);
}

#define HINT_STRIDE "The grid may have far fewer threads than elements, or more: each thread starts at its own " \
                    "element and moves on by a step that no other thread's sequence shares, until it passes n. " \
                    "Launch exactly the blocks and threads you are given."
Test(grid_stride, grid_much_smaller_than_n, .timeout = 60, .description = HINT_STRIDE) { check_grid_stride(4, 128); }
Test(grid_stride, one_thread, .timeout = 60, .description = HINT_STRIDE) { check_grid_stride(1, 1); }
Test(grid_stride, odd_grid, .timeout = 60, .description = HINT_STRIDE) { check_grid_stride(3, 96); }
Test(grid_stride, grid_larger_than_n, .timeout = 60, .description = HINT_STRIDE) { check_grid_stride(8000, 256); }

/* Runs `action` in a child process; returns its exit status and what it wrote to stderr. */
static int run_in_child(void (*action)(void), char *err, size_t size)
{
    int pipe_ends[2];
    cr_assert(pipe(pipe_ends) == 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        dup2(pipe_ends[1], 2);
        close(pipe_ends[0]);
        action();
        _exit(0);
    }
    close(pipe_ends[1]);
    size_t used = 0;
    for (ssize_t got; used + 1 < size && (got = read(pipe_ends[0], err + used, size - 1 - used)) > 0;) used += (size_t)got;
    err[used] = 0;
    close(pipe_ends[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void report_an_error(void) { cuda_check(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)", "example.cu", 42); }
static void report_success(void) { cuda_check(cudaSuccess, "cudaFree(p)", "example.cu", 7); }
static void launch_too_many_threads(void)
{
    float a[4] = {0}, b[4] = {0}, c[4];
    gpu_matrix_add(a, b, c, 2, 2, 64, 32);   /* 64 x 32 = 2048 threads per block: more than 1024 */
}

#define HINT_CHECK "A failed call must be reported on stderr in the form the lab's comment gives (where, which call, " \
                   "the error's name and its sentence) and must stop the program; a successful one is silent."

Test(cuda_check, reports_file_line_call_and_error, .timeout = 10, .description = HINT_CHECK)
{
    char err[2048];
    int status = run_in_child(report_an_error, err, sizeof err);
    cr_assert(status != 0, "cuda_check(cudaErrorInvalidValue, ...) returned instead of stopping the program");
    const char *needed[] = {"example.cu:42", "cudaMemcpy(dst, src, n, kind)", "cudaErrorInvalidValue", "invalid argument"};
    for (int i = 0; i < 4; i++)
        cr_assert(strstr(err, needed[i]), "the message should contain \"%s\"; it was: \"%s\"", needed[i], err);
}

Test(cuda_check, stays_quiet_on_success, .timeout = 10, .description = HINT_CHECK)
{
    char err[2048];
    int status = run_in_child(report_success, err, sizeof err);
    cr_assert(status == 0 && err[0] == 0, "cuda_check(cudaSuccess, ...) must do nothing; it exited with %d and "
              "printed \"%s\"", status, err);
}

Test(cuda_check, a_bad_launch_is_reported_not_ignored, .timeout = 10,
     .description = "A launch returns no error by itself: a bad configuration waits, unreported, until something "
                    "asks for it, and the kernel silently never runs. Who asks, right after each launch?")
{
    char err[4096];
    int status = run_in_child(launch_too_many_threads, err, sizeof err);
    cr_assert(status != 0, "launching 64 x 32 = 2048 threads per block must be reported and stop the program; it "
              "went on");
    cr_assert(strstr(err, "invalid configuration argument") && strstr(err, "indexing.cu:"),
              "the report should name indexing.cu and the line, and say \"invalid configuration argument\"; it "
              "was: \"%s\"", err);
}

/* ----------------------------------------------------------------------------------
 * The whole cycle on the host side */

#define HINT_CYCLE "matrix_add_from_host gets HOST arrays: the kernel can only touch device memory, so the data " \
                   "must go over, the result come back, and what was allocated be given back. The TODO lists the " \
                   "calls in order; each one's arguments (bytes or elements? which direction?) are where the " \
                   "mistakes hide. make hint DAY=02 goes step by step."
enum { HOST_GUARD = 1024 };

static void check_host_cycle(int rows, int cols)
{
    int n = rows * cols;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    float *c = malloc(sizeof(float) * (n + HOST_GUARD));
    for (int i = 0; i < n; i++) a[i] = value(i, 6), b[i] = value(i, 7);
    lab_poison(c, sizeof(float) * n);
    for (int i = n; i < n + HOST_GUARD; i++) c[i] = 12345.0f;
    host_cycle_run run = watch_matrix_add_from_host(a, b, c, rows, cols, 32, 8);
    cr_assert(run.error == NULL, "%d x %d: the call left the CUDA error \"%s\"", rows, cols, run.error);
    float *want = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) want[i] = value(i, 6) + value(i, 7);
    lab_comparison result = lab_compare_floats("c", c, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "%d x %d matrix: c in host memory after the call: %s", rows, cols, result.message);
    int past_end = 0;
    for (int i = n; i < n + HOST_GUARD; i++) past_end += c[i] != 12345.0f;
    cr_assert(past_end == 0, "%d x %d matrix: %d floats written past the end of the host array c (the copy back "
              "moved more than rows x cols floats)", rows, cols, past_end);
    for (int i = 0; i < n; i++)
        cr_assert(a[i] == value(i, 6) && b[i] == value(i, 7), "%d x %d matrix: the input a[%d] or b[%d] changed; "
                  "the inputs are only read", rows, cols, i, i);
    free(a), free(b), free(c), free(want);
}

Test(host_cycle, adds_host_matrices, .timeout = 30, .description = HINT_CYCLE)
{
    check_host_cycle(1, 1);
    check_host_cycle(31, 33);
    check_host_cycle(257, 129);
}

Test(host_cycle, gives_back_device_memory, .timeout = 30,
     .description = "Every cudaMalloc needs its cudaFree: a function called in a loop that keeps its buffers runs "
                    "the GPU out of memory after a few thousand calls.")
{
    int rows = 1024, cols = 1024;
    int n = rows * cols;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n), *c = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) a[i] = 1.0f, b[i] = 2.0f;
    for (int call = 0; call < 2; call++) {
        lab_poison(c, sizeof(float) * n);
        host_cycle_run run = watch_matrix_add_from_host(a, b, c, rows, cols, 32, 8);
        cr_assert(run.error == NULL, "the call left the CUDA error \"%s\"", run.error);
        cr_assert(c[0] == 3.0f && c[n - 1] == 3.0f, "a %d x %d matrix of 1 + 2 came back with c[0] = %g and "
                  "c[%d] = %g: make host_cycle/adds_host_matrices pass first", rows, cols, c[0], n - 1, c[n - 1]);
        /* a real GPU's allocator may round what it reports; the simulator's count is exact */
        long long allowed = run.simulated ? 0 : 1 << 20;
        cr_assert(run.device_bytes_kept <= allowed, "after matrix_add_from_host of a %d x %d matrix, %lld more bytes "
                  "of device memory are in use than before: %.1f of its three %zu-byte buffers were not freed", rows,
                  cols, run.device_bytes_kept, run.device_bytes_kept / (4.0 * rows * cols), sizeof(float) * rows * cols);
    }
    free(a), free(b), free(c);
}

Test(host_cycle, times_the_kernel, .timeout = 30,
     .description = "The two events go into the stream around the launch, and the time between them is read only "
                    "once the second has happened: record, launch, record, wait for the second event, then ask for "
                    "the milliseconds.")
{
    int rows = 512, cols = 512;
    float *a = calloc((size_t)rows * cols, sizeof(float)), *b = calloc((size_t)rows * cols, sizeof(float));
    float *c = malloc(sizeof(float) * rows * cols);
    host_cycle_run run = watch_matrix_add_from_host(a, b, c, rows, cols, 32, 8);
    cr_assert(run.error == NULL, "the call left the CUDA error \"%s\"", run.error);
    float ms = run.kernel_milliseconds;
    cr_assert(isfinite(ms) && ms > 0, "matrix_add_from_host returned %g milliseconds: the kernel's time between two "
              "events is more than 0", ms);
    cr_assert(ms <= run.call_milliseconds + 0.05, "matrix_add_from_host returned %g ms, but the whole call took %.3f ms "
              "on the host's clock: cudaEventElapsedTime gives milliseconds already", ms, run.call_milliseconds);
    /* The simulator counts what ran between the two events; a GPU's events cannot say. */
    if (run.simulated) {
        cr_assert(run.timed_launches >= 0, "matrix_add_from_host returned %g ms without calling "
                  "cudaEventElapsedTime: the milliseconds come from the two events", ms);
        cr_assert(run.timed_launches == 1, "the two events enclosed %lld kernel launches: record the first just "
                  "before launch_matrix_add and the second just after it (both before, or both after, time "
                  "nothing)", run.timed_launches);
        cr_assert(run.timed_copies == 0, "the two events enclosed the kernel and %lld cudaMemcpy calls: the time "
                  "is then the copies' as well as the kernel's. Record them around the launch alone",
                  run.timed_copies);
    }
    free(a), free(b), free(c);
}
