/* main.c — Day 03 driver: occupancy of an H100 SXM and an A100 80GB, worked out by your
 * calculator. Do not edit.
 *
 *   build/03-sm-warps/labs-sim/lab RESULTS.csv     (make check DAY=03 runs it)
 *
 * Prints one line per limiting case (the chapter's worked numbers), then writes one row per
 * kernel configuration:
 *   panel,gpu,threads_per_block,registers_per_thread,shared_memory_per_block_kib,
 *   blocks_per_sm,warps_per_sm,occupancy_percent,limited_by
 * panel "registers": H100 SXM, blocks of 32..1024 threads, 32..255 registers per thread, no
 *                    shared memory;
 * panel "shared":    H100 SXM and A100 80GB, 256 threads, 32 registers, 0..228 KiB of shared
 *                    memory per block in steps of 256 bytes.
 * Nothing here is measured: occupancy is arithmetic on the limits of data/gpus.csv. On a real
 * GPU (BACKEND=cuda) it also asks the CUDA runtime the same questions and compares. */
#include "lab.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>

static void print_case(const gpu_limits *gpu, int threads, int registers, int shared_bytes)
{
    kernel_resources kernel = {threads, registers, shared_bytes};
    occupancy o = compute_occupancy(gpu, kernel);
    char names[96];
    printf("  %-13s %5d %5d %8.1f  | %5d %5d %5d %5d | %3d blocks %3d warps %6.2f %%  %s\n", gpu->name, threads,
           registers, shared_bytes / 1024.0, blocks_limited_by_warps(gpu, threads), gpu->max_blocks_per_sm,
           blocks_limited_by_registers(gpu, threads, registers), blocks_limited_by_shared_memory(gpu, shared_bytes),
           o.blocks_per_sm, o.warps_per_sm, 100.0 * o.fraction, limit_names(o.limited_by, names, sizeof names));
}

static void write_row(lab_results *out, const char *panel, const gpu_limits *gpu, int threads, int registers,
                      int shared_bytes)
{
    kernel_resources kernel = {threads, registers, shared_bytes};
    occupancy o = compute_occupancy(gpu, kernel);
    char names[96];
    lab_results_row_or_exit(out, "%s,%s,%d,%d,%.2f,%d,%d,%.4f,%s", panel, gpu->key, threads, registers, shared_bytes / 1024.0,
                o.blocks_per_sm, o.warps_per_sm, 100.0 * o.fraction, limit_names(o.limited_by, names, sizeof names));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    gpu_limits h100, a100;
    if (gpu_limits_load("h100-sxm", &h100) || gpu_limits_load("a100-80gb", &a100)) return 1;

    printf("Resident blocks per SM, by limit (computed by your occupancy.c from data/gpus.csv):\n");
    printf("  %-13s %5s %5s %8s  | %5s %5s %5s %5s |\n", "GPU", "thr", "regs", "smem KiB", "warps", "slots", "regs",
           "smem");
    const int cases[][3] = {
        {768, 24, 0},          /* limited by warps */
        {32, 16, 0},           /* limited by block slots */
        {256, 64, 0},          /* limited by registers */
        {256, 32, 48 * 1024},  /* limited by shared memory */
        {256, 32, 0},          /* warps and registers tie: full */
        {256, 33, 0},          /* one register more */
        {128, 32, 57 * 1024},  /* the 1 KiB reservation costs a block on the H100 */
        {128, 32, 41 * 1024},  /* ... and on the A100 */
        {96, 96, 0},           /* the register file's four quarters */
        {1024, 255, 0},        /* does not fit */
    };
    for (int i = 0; i < 10; i++) {
        print_case(&h100, cases[i][0], cases[i][1], cases[i][2]);
        print_case(&a100, cases[i][0], cases[i][1], cases[i][2]);
    }

    lab_results out = lab_results_open_or_exit(argv[1], "panel,gpu,threads_per_block,registers_per_thread,"
                                        "shared_memory_per_block_kib,blocks_per_sm,warps_per_sm,occupancy_percent,"
                                        "limited_by");
    const int registers[] = {32, 64, 96, 128, 168, 255};
    for (int r = 0; r < 6; r++)
        for (int threads = 32; threads <= 1024; threads += 32) write_row(&out, "registers", &h100, threads, registers[r], 0);
    const gpu_limits *both[] = {&h100, &a100};
    for (int g = 0; g < 2; g++)
        for (int bytes = 0; bytes <= 228 * 1024; bytes += 256) write_row(&out, "shared", both[g], 256, 32, bytes);
    lab_results_close_or_exit(&out);

    runtime_comparison c = compare_with_cuda_runtime();
    if (!c.available) {
        printf("(On a GPU, BACKEND=cuda also compares these answers with cudaOccupancyMaxActiveBlocksPerMultiprocessor.)\n");
    } else {
        printf("%s: your calculator agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor on %d of %d launch "
               "configurations (measured on this GPU).\n", c.device, c.agreements, c.configurations);
        if (c.agreements != c.configurations) printf("  first disagreement: %s\n", c.first_disagreement);
    }
    return 0;
}
