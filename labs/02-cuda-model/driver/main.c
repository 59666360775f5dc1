/* main.c — Day 02 driver: which block covers which element? Do not edit.
 *
 *   build/02-cuda-model/labs-sim/lab RESULTS.csv     (make check DAY=02 runs it)
 *
 * Runs your block_owner_map on a 37 x 45 matrix with blocks of 16 x 8 threads (a grid of
 * 3 x 5 blocks whose right and bottom edges hang over the matrix) and writes one row per
 * element:  row,col,block   — the plot colours each element by the block that wrote it.
 * Then runs your matrix_add_from_host once on a 1024 x 1024 matrix and prints how much of
 * the call the kernel took: on a GPU the copies and the allocations take most of it. */
#include "lab.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 37, COLS = 45, BLOCK_X = 16, BLOCK_Y = 8 };

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    static int owner[ROWS * COLS];
    gpu_run run = gpu_block_owner_map(owner, ROWS, COLS, BLOCK_X, BLOCK_Y);
    if (run.error) {
        fprintf(stderr, "block_owner_map failed: %s\n", run.error);
        return 1;
    }
    int grid_x = (COLS + BLOCK_X - 1) / BLOCK_X, grid_y = (ROWS + BLOCK_Y - 1) / BLOCK_Y;
    printf("%d x %d matrix, blocks of %d x %d threads: a grid of %d x %d = %d blocks, %d threads for %d elements\n",
           ROWS, COLS, BLOCK_X, BLOCK_Y, grid_x, grid_y, grid_x * grid_y, grid_x * grid_y * BLOCK_X * BLOCK_Y,
           ROWS * COLS);
    int unwritten = 0;
    lab_results out = lab_results_open_or_exit(argv[1], "row,col,block");
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            lab_results_row_or_exit(&out, "%d,%d,%d", r, c, owner[r * COLS + c]);
            unwritten += owner[r * COLS + c] == -1;
        }
    lab_results_close_or_exit(&out);
    if (unwritten) printf("%d elements were never written (shown as -1 in the plot)\n", unwritten);

    enum { CYCLE_SIDE = 1024 };
    float *a = calloc(CYCLE_SIDE * CYCLE_SIDE, sizeof(float)), *b = calloc(CYCLE_SIDE * CYCLE_SIDE, sizeof(float));
    float *c = malloc(CYCLE_SIDE * CYCLE_SIDE * sizeof(float));
    host_cycle_run cycle = watch_matrix_add_from_host(a, b, c, CYCLE_SIDE, CYCLE_SIDE, 32, 8);
    printf("matrix_add_from_host on %d x %d: the kernel %.3f ms of a %.3f ms call (%s)\n", CYCLE_SIDE, CYCLE_SIDE,
           cycle.kernel_milliseconds, cycle.call_milliseconds,
           cycle.simulated ? "the simulator's clock: this CPU simulating a GPU, not a GPU's time" : "measured on this GPU");
    free(a), free(b), free(c);
    return 0;
}
