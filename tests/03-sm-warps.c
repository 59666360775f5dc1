/* 03-sm-warps.c — the checks for day 03: an occupancy calculator over the per-SM limits of
 * data/gpus.csv, against answers worked out by hand for the H100 SXM and the A100 80GB (and
 * a few other rows), one test per limiting resource and per allocation rule, in the order
 * the lab is written. Every expected number is derived in the comment above its case.
 *
 * The two GPUs the cases lean on (rows h100-sxm and a100-80gb of data/gpus.csv):
 *                                  H100 SXM            A100 80GB
 *   warp slots per SM              64                  64
 *   block slots per SM             32                  32
 *   registers per SM               65 536 = 4 x 16 384 (four quarters, one per warp scheduler)
 *   register allocation unit       256 per warp        256 per warp
 *   shared memory per SM           228 KiB = 233 472 B 164 KiB = 167 936 B
 *   shared memory per block        227 KiB = 232 448 B 163 KiB = 166 912 B (opted in)
 *   shared-memory unit, reserved   128 B, 1 KiB        128 B, 1 KiB */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "lab.h"

static gpu_limits gpu(const char *key)
{
    gpu_limits limits;
    cr_assert(gpu_limits_load(key, &limits) == 0, "data/gpus.csv has no usable row %s (the message above says why)",
              key);
    return limits;
}

/* Every case's expected answer is static const, in the test program's data, and reaches its check by a
 * pointer to its case: never a local array, or an argument in the test's own stack frame or registers,
 * while the code under test runs, where it could read its caller's locals and return them
 * (tests/grader/forgeries/reads-expected-values.patch). CASES gives a check such a table and its length. */
#define CASES(array) (array), sizeof (array) / sizeof (array)[0]

/* ------------------------------------------------------------------------------------
 * The table: the limits every case below is computed from */

Test(gpus_csv, has_the_limits_the_calculator_needs, .timeout = 5,
     .description = "data/gpus.csv itself is wrong or incomplete: this is not your code. Restore data/ from the book.")
{
    gpu_limits h100 = gpu("h100-sxm"), a100 = gpu("a100-80gb");
    cr_assert(h100.max_warps_per_sm == 64 && h100.max_blocks_per_sm == 32 && h100.registers_per_sm == 65536,
              "H100 SXM: 64 warps, 32 blocks, 65536 registers per SM expected");
    cr_assert(h100.sm_subpartitions == 4 && h100.register_allocation_unit == 256 && h100.max_registers_per_thread == 255,
              "H100 SXM: 4 sub-partitions, registers in units of 256, at most 255 per thread expected");
    cr_assert(h100.shared_memory_per_sm_bytes == 233472 && h100.max_shared_memory_per_block_bytes == 232448,
              "H100 SXM: 228 KiB of shared memory per SM, 227 KiB per block expected");
    cr_assert(h100.shared_memory_allocation_unit_bytes == 128 && h100.shared_memory_reserved_per_block_bytes == 1024,
              "H100 SXM: shared memory in units of 128 B, 1 KiB reserved per block expected");
    cr_assert(a100.shared_memory_per_sm_bytes == 167936 && a100.max_shared_memory_per_block_bytes == 166912 &&
              a100.shared_memory_reserved_per_block_bytes == 1024, "A100 80GB: 164 KiB per SM, 163 KiB per block, 1 KiB "
              "reserved expected");
}

/* ------------------------------------------------------------------------------------
 * 1. Warps per block */

Test(warps_per_block, rounds_up, .timeout = 5,
     .description = "A warp is gpu->warp_size threads, and a block always takes whole warps, even when the last "
                    "one is nearly empty.")
{
    gpu_limits h100 = gpu("h100-sxm");
    /* ceil(threads / 32) */
    static const int cases[][2] = {{1, 1}, {31, 1}, {32, 1}, {33, 2}, {100, 4}, {256, 8}, {1000, 32}, {1024, 32}};
    for (int i = 0; i < 8; i++) {
        int got = warps_per_block(&h100, cases[i][0]);
        cr_assert(got == cases[i][1], "warps_per_block(gpu, %d) = %d, want %d", cases[i][0], got, cases[i][1]);
    }
}

/* ------------------------------------------------------------------------------------
 * 2. The warp limit */

#define HINT_WARPS "The SM's warp slots are handed out a block at a time, in whole warps, and only whole blocks " \
                   "count. Count in warps, not threads (a 100-thread block holds as many slots as a 128-thread " \
                   "one). A block larger than the GPU allows gets nothing; the smallest block, one thread, is a " \
                   "block like any other."

Test(blocks_limited_by_warps, h100_and_a100, .timeout = 5, .description = HINT_WARPS)
{
    /* 64 warp slots on both. 32 threads: 64 / 1 = 64 (the block-slot limit, 32, is a separate
     * limit); 48 threads = 2 warps: 32 (not 2048 / 48 = 42); 100 threads = 4 warps: 16 (not
     * 2048 / 100 = 20); 256 = 8 warps: 8; 768 = 24 warps: 64 / 24 = 2; 1024 = 32 warps: 2;
     * 1025 threads: more than a block may have, so none. */
    static const int cases[][2] = {{32, 64}, {48, 32}, {100, 16}, {256, 8}, {768, 2}, {1024, 2}, {1025, 0}};
    const char *keys[] = {"h100-sxm", "a100-80gb"};
    for (int g = 0; g < 2; g++) {
        gpu_limits limits = gpu(keys[g]);
        for (int i = 0; i < 7; i++) {
            int got = blocks_limited_by_warps(&limits, cases[i][0]);
            cr_assert(got == cases[i][1], "%s: blocks_limited_by_warps(gpu, %d) = %d, want %d", limits.name, cases[i][0],
                      got, cases[i][1]);
        }
    }
}

Test(blocks_limited_by_warps, one_thread_block, .timeout = 5, .description = HINT_WARPS)
{
    /* A 1-thread block still takes one warp slot (31 lanes empty): 64 on an H100, 48 on an L4,
     * 32 on a T4. (The block-slot limit, 32 or 16, is a separate limit.) */
    const char *keys[] = {"h100-sxm", "l4", "t4"};
    static const int want[] = {64, 48, 32};
    for (int g = 0; g < 3; g++) {
        gpu_limits limits = gpu(keys[g]);
        int got = blocks_limited_by_warps(&limits, 1);
        cr_assert(got == want[g], "%s: blocks_limited_by_warps(gpu, 1 thread) = %d, want %d: a block of one thread "
                  "is a valid block of one warp", limits.name, got, want[g]);
    }
}

Test(blocks_limited_by_warps, gpus_with_fewer_warp_slots, .timeout = 5, .description = HINT_WARPS)
{
    /* L4 (compute capability 8.9): 48 warp slots. 256 threads: 48 / 8 = 6; 1024: 48 / 32 = 1;
     * 100 threads = 4 warps: 12 (not 1536 / 100 = 15).
     * T4 (7.5): 32 warp slots. 1024 threads: 1; 96 threads = 3 warps: 32 / 3 = 10. */
    static const struct { const char *key; int threads, want; } cases[] = {
        {"l4", 256, 6}, {"l4", 1024, 1}, {"l4", 100, 12}, {"t4", 1024, 1}, {"t4", 96, 10},
    };
    for (int i = 0; i < 5; i++) {
        gpu_limits limits = gpu(cases[i].key);
        int got = blocks_limited_by_warps(&limits, cases[i].threads);
        cr_assert(got == cases[i].want, "%s (%d warp slots): blocks_limited_by_warps(gpu, %d) = %d, want %d",
                  limits.name, limits.max_warps_per_sm, cases[i].threads, got, cases[i].want);
    }
}

/* ------------------------------------------------------------------------------------
 * 3. Registers per warp */

Test(registers_per_warp, rounds_up_to_the_allocation_unit, .timeout = 5,
     .description = "Registers are given to a warp, for all its threads at once, and only in whole allocation units "
                    "(gpu->register_allocation_unit): a warp often gets a little more than it uses.")
{
    gpu_limits h100 = gpu("h100-sxm");
    /* round_up(r x 32, 256): 1 -> 32 -> 256; 8 -> 256; 9 -> 288 -> 512; 32 -> 1024;
     * 33 -> 1056 -> 1280; 64 -> 2048; 96 -> 3072; 168 -> 5376 (= 21 x 256); 255 -> 8160 -> 8192. */
    static const int cases[][2] = {{1, 256}, {8, 256}, {9, 512}, {32, 1024}, {33, 1280}, {64, 2048}, {96, 3072},
                                   {168, 5376}, {255, 8192}, {0, 0}};
    for (int i = 0; i < 10; i++) {
        int got = registers_per_warp(&h100, cases[i][0]);
        cr_assert(got == cases[i][1], "registers_per_warp(gpu, %d) = %d, want %d (%d x 32 = %d, "
                  "rounded up to a multiple of 256)", cases[i][0], got, cases[i][1], cases[i][0], cases[i][0] * 32);
    }
}

/* ------------------------------------------------------------------------------------
 * 4. The register limit */

typedef struct register_case {
    const char *key;
    int threads, registers, want;
    const char *why;
} register_case;

static void check_register_blocks(const register_case *cases, size_t count)
{
    for (const register_case *c = cases; c < cases + count; c++) {
        gpu_limits limits = gpu(c->key);
        int got = blocks_limited_by_registers(&limits, c->threads, c->registers);
        cr_assert(got == c->want, "%s: blocks_limited_by_registers(gpu, %d threads, %d registers) = %d, want %d (%s)",
                  limits.name, c->threads, c->registers, got, c->want, c->why);
    }
}

#define HINT_REGISTERS "Registers are given per warp, not per thread or per block, and a warp takes all of its " \
                       "registers from ONE of the sm_subpartitions quarters of the file: what is left over in one " \
                       "quarter cannot be pooled with another's. Only whole warps, and whole blocks, count."

Test(blocks_limited_by_registers, h100_and_a100_64_registers, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 64 registers: 2048 per warp; a quarter holds 16384 / 2048 = 8 warps; the SM 32; a
     * 256-thread block has 8 warps: 4 blocks. The same on both GPUs. */
    static const register_case cases[] = {
        {"h100-sxm", 256, 64, 4, "a warp takes 2048 registers; 32 warps fit, 8 per block"},
        {"a100-80gb", 256, 64, 4, "a warp takes 2048 registers; 32 warps fit, 8 per block"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, allocation_unit_changes_the_answer, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 33 registers: 1056 per warp, rounded up to 1280; a quarter holds 16384 / 1280 = 12
     * warps (12.8); the SM 48; 48 / 8 = 6 blocks of 256 threads. Without the rounding:
     * 16384 / 1056 = 15 warps a quarter, 60 an SM, 7 blocks. */
    static const register_case cases[] = {
        {"h100-sxm", 256, 33, 6, "33 x 32 = 1056 registers a warp is allocated as 1280"},
        {"a100-80gb", 256, 33, 6, "33 x 32 = 1056 registers a warp is allocated as 1280"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, counted_per_warp_not_per_thread, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 100 threads occupy 4 warps, and the 28 empty lanes of the last one get registers too:
     * 64 registers -> 32 warps an SM -> 32 / 4 = 8 blocks. Counting 64 x 100 = 6400 registers
     * a block gives 65536 / 6400 = 10, which the hardware cannot place. */
    static const register_case cases[] = {
        {"h100-sxm", 100, 64, 8, "4 warps of 2048 registers each, empty lanes included"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, each_quarter_of_the_file_on_its_own, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 96 registers: 3072 a warp. A quarter holds 16384 / 3072 = 5 warps (5.33): 20 an SM;
     * 96-thread blocks have 3 warps: 20 / 3 = 6 blocks. The whole file at once would give
     * 65536 / 3072 = 21 warps and 7 blocks: the three spare thirds of a warp in three quarters
     * cannot be pooled into one warp. Likewise 40 registers (1280 a warp): 12 a quarter, 48
     * an SM, 24 blocks of 64 threads, not 65536 / 1280 = 51 warps and 25 blocks. */
    static const register_case cases[] = {
        {"h100-sxm", 96, 96, 6, "5 warps per quarter, 20 per SM, 3 per block"},
        {"a100-80gb", 64, 40, 24, "12 warps per quarter, 48 per SM, 2 per block"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, a_block_that_cannot_get_its_registers, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 1024 threads (32 warps) x 64 registers: exactly 32 warps fit, 1 block.
     * 1024 x 65: 2080 -> 2304 a warp, 7 a quarter, 28 an SM < 32: none (the launch fails with
     * "too many resources requested for launch").
     * 1024 x 255: 8192 a warp, 2 a quarter, 8 an SM: none.
     * 672 threads (21 warps) x 96: 5 a quarter, 20 an SM: none, although 96 x 672 = 64 512 is
     * less than 65 536.
     * 256 registers per thread: more than the 255 a thread may have: none. */
    static const register_case cases[] = {
        {"h100-sxm", 1024, 64, 1, "32 warps of 2048 registers fill the file exactly"},
        {"h100-sxm", 1024, 65, 0, "only 28 warps of 2304 registers fit, the block has 32"},
        {"h100-sxm", 1024, 255, 0, "only 8 warps of 8192 registers fit, the block has 32"},
        {"h100-sxm", 672, 96, 0, "5 warps per quarter, 20 per SM, but the block has 21"},
        {"h100-sxm", 32, 256, 0, "more than max_registers_per_thread (255)"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, the_most_a_thread_may_have, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 255 registers is allowed (max_registers_per_thread is the largest allowed, not the first
     * refused): 8160 a warp, allocated as 8192; 2 a quarter, 8 an SM. 32-thread blocks: 8;
     * 256-thread blocks (8 warps): 1; a 1-thread block: 8. A V100 and a T4 allow 255 too. */
    static const register_case cases[] = {
        {"h100-sxm", 32, 255, 8, "255 registers is the most a thread may have, not too many"},
        {"h100-sxm", 256, 255, 1, "8 warps of 8192 registers fill the file exactly"},
        {"h100-sxm", 1, 255, 8, "a 1-thread block is one warp"},
        {"v100", 64, 255, 4, "2 warps a block, 8 an SM"},
        {"t4", 32, 255, 8, "255 registers is allowed on a T4 too"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, one_thread_block, .timeout = 5, .description = HINT_REGISTERS)
{
    /* 1 thread is one warp: 32 registers -> 1024 a warp, 16 a quarter, 64 an SM: 64 blocks
     * (the block-slot limit is a separate limit). 1 register -> 256 a warp, 256 an SM. */
    static const register_case cases[] = {
        {"h100-sxm", 1, 32, 64, "one warp of 1024 registers a block"},
        {"h100-sxm", 1, 1, 256, "one warp of 256 registers a block"},
    };
    check_register_blocks(CASES(cases));
}

Test(blocks_limited_by_registers, no_registers, .timeout = 5,
     .description = "A kernel of 0 registers per thread gives its warps 0 registers: a crash with signal 8 here is a "
                    "division by those 0 registers. lab.h says what a limit that limits nothing returns.")
{
    /* A kernel that uses no register at all (registers_per_thread = 0: an empty kernel) takes
     * 0 registers a warp: the register file limits nothing, as lab.h's INT_MAX convention says,
     * and nothing may be divided by those 0 registers. */
    static const register_case cases[] = {
        {"h100-sxm", 256, 0, INT_MAX, "0 registers a warp: registers are no limit, return INT_MAX"},
        {"v100", 1024, 0, INT_MAX, "0 registers a warp: registers are no limit, return INT_MAX"},
    };
    check_register_blocks(CASES(cases));
}

/* ------------------------------------------------------------------------------------
 * 5. Shared memory per block */

Test(shared_memory_per_block, adds_the_reservation_and_rounds_up, .timeout = 5,
     .description = "Two rules make a block's share larger than its request: the driver's own reservation per block, "
                    "and the allocation unit. Which comes first changes the answer.")
{
    /* H100: round_up(request + 1024, 128): 0 -> 1024; 1 -> 1025 -> 1152; 128 -> 1152;
     * 1000 -> 2024 -> 2048; 45666 -> 46690 -> 46720; 48 KiB = 49152 -> 50176 (49 KiB).
     * V100 (7.0): nothing reserved, units of 256: 0 -> 0; 1 -> 256; 1000 -> 1024; 49152. */
    static const struct { const char *key; int request, want; } cases[] = {
        {"h100-sxm", 0, 1024}, {"h100-sxm", 1, 1152}, {"h100-sxm", 128, 1152}, {"h100-sxm", 1000, 2048},
        {"h100-sxm", 45666, 46720}, {"h100-sxm", 49152, 50176},
        {"v100", 0, 0}, {"v100", 1, 256}, {"v100", 1000, 1024}, {"v100", 49152, 49152},
    };
    for (int i = 0; i < 10; i++) {
        gpu_limits limits = gpu(cases[i].key);
        int got = shared_memory_per_block(&limits, cases[i].request);
        cr_assert(got == cases[i].want, "%s: shared_memory_per_block(gpu, %d) = %d, want %d", limits.name,
                  cases[i].request, got, cases[i].want);
    }
}

/* ------------------------------------------------------------------------------------
 * 6. The shared-memory limit */

typedef struct shared_case {
    const char *key;
    int request, want;
    const char *why;
} shared_case;

static void check_shared_blocks(const shared_case *cases, size_t count)
{
    for (const shared_case *c = cases; c < cases + count; c++) {
        gpu_limits limits = gpu(c->key);
        int got = blocks_limited_by_shared_memory(&limits, c->request);
        cr_assert(got == c->want, "%s: blocks_limited_by_shared_memory(gpu, %d) = %d, want %d (%s)", limits.name,
                  c->request, got, c->want, c->why);
    }
}

#define HINT_SHARED "Whole blocks' shares (reservation and rounding included) must fit in the SM's shared memory. " \
                    "A request above what one block may have gets nothing; a block given no bytes at all is not " \
                    "limited by shared memory (lab.h says what to return, and nothing may divide by 0)."

Test(blocks_limited_by_shared_memory, h100_and_a100_48_kib, .timeout = 5, .description = HINT_SHARED)
{
    /* 48 KiB + 1 KiB reserved = 50176 B a block. H100: 233472 / 50176 = 4 (4.65).
     * A100: 167936 / 50176 = 3 (3.35). */
    static const shared_case cases[] = {
        {"h100-sxm", 48 * 1024, 4, "49 KiB a block in 228 KiB"},
        {"a100-80gb", 48 * 1024, 3, "49 KiB a block in 164 KiB"},
    };
    check_shared_blocks(CASES(cases));
}

Test(blocks_limited_by_shared_memory, reservation_changes_the_answer, .timeout = 5, .description = HINT_SHARED)
{
    /* H100, 57 KiB: 4 x 57 = 228 would fit exactly, but each block takes 58 KiB with the
     * reservation: 233472 / 59392 = 3 (3.93). A100, 41 KiB: 4 x 41 = 164, but 42 KiB a block:
     * 167936 / 43008 = 3 (3.90). */
    static const shared_case cases[] = {
        {"h100-sxm", 57 * 1024, 3, "57 KiB + 1 KiB reserved = 58 KiB a block; 4 x 58 > 228"},
        {"a100-80gb", 41 * 1024, 3, "41 KiB + 1 KiB reserved = 42 KiB a block; 4 x 42 > 164"},
    };
    check_shared_blocks(CASES(cases));
}

Test(blocks_limited_by_shared_memory, allocation_unit_changes_the_answer, .timeout = 5, .description = HINT_SHARED)
{
    /* H100, 45666 B: 46690 with the reservation, 46720 once rounded to 128 B.
     * 5 x 46690 = 233450 would fit in 233472; 5 x 46720 = 233600 does not: 4 blocks.
     * A100, 32556 B: 33580, rounded to 33664. 5 x 33580 = 167900 fits in 167936;
     * 5 x 33664 = 168320 does not: 4 blocks. */
    static const shared_case cases[] = {
        {"h100-sxm", 45666, 4, "46690 bytes are allocated as 46720; five of those exceed 233472"},
        {"a100-80gb", 32556, 4, "33580 bytes are allocated as 33664; five of those exceed 167936"},
    };
    check_shared_blocks(CASES(cases));
}

Test(blocks_limited_by_shared_memory, the_per_block_limit, .timeout = 5, .description = HINT_SHARED)
{
    /* H100: 227 KiB is the most a block may ask for; with the 1 KiB reserved it fills the
     * SM's 228 KiB: 1 block. One byte more is refused: 0. A100: 163 KiB -> 1; 163 KiB + 1 -> 0.
     * V100 (no reservation): 96 KiB -> 1. T4: 32 KiB -> 2. */
    static const shared_case cases[] = {
        {"h100-sxm", 227 * 1024, 1, "227 KiB + 1 KiB reserved = the SM's 228 KiB"},
        {"h100-sxm", 227 * 1024 + 1, 0, "more than the 227 KiB a block may have"},
        {"a100-80gb", 163 * 1024, 1, "163 KiB + 1 KiB reserved = the SM's 164 KiB"},
        {"a100-80gb", 163 * 1024 + 1, 0, "more than the 163 KiB a block may have"},
        {"v100", 96 * 1024, 1, "96 KiB of 96 KiB, nothing reserved on compute capability 7.0"},
        {"t4", 32 * 1024, 2, "two 32 KiB blocks in 64 KiB"},
    };
    check_shared_blocks(CASES(cases));
}

Test(blocks_limited_by_shared_memory, no_shared_memory_at_all, .timeout = 5, .description = HINT_SHARED)
{
    /* H100, no request: each block still takes the reserved 1 KiB: 233472 / 1024 = 228.
     * V100 reserves nothing: a block is given 0 bytes, and shared memory limits nothing:
     * INT_MAX (and no division by zero). */
    static const shared_case cases[] = {
        {"h100-sxm", 0, 228, "every block takes the reserved 1 KiB"},
        {"v100", 0, INT_MAX, "0 bytes a block: shared memory is no limit, return INT_MAX"},
    };
    check_shared_blocks(CASES(cases));
}

/* ------------------------------------------------------------------------------------
 * 7. Occupancy: one test per limiting resource */

typedef struct occupancy_case {
    const char *key;
    int threads, registers, shared, want_blocks, want_warps;
    double want_fraction;
    int want_limits;
    const char *why;
} occupancy_case;

static void check_occupancy(const occupancy_case *cases, size_t count)
{
    for (const occupancy_case *c = cases; c < cases + count; c++) {
        gpu_limits limits = gpu(c->key);
        int threads = c->threads, registers = c->registers, shared = c->shared;
        kernel_resources kernel = {threads, registers, shared};
        occupancy got = compute_occupancy(&limits, kernel);
        char got_names[96], want_names[96];
        limit_names(got.limited_by, got_names, sizeof got_names);
        limit_names(c->want_limits, want_names, sizeof want_names);
        cr_assert(got.blocks_per_sm == c->want_blocks, "%s, kernel {%d threads, %d registers, %d B shared}: "
                  "blocks_per_sm = %d, want %d (%s)", limits.name, threads, registers, shared, got.blocks_per_sm,
                  c->want_blocks, c->why);
        cr_assert(got.warps_per_sm == c->want_warps, "%s, kernel {%d threads, %d registers, %d B shared}: "
                  "warps_per_sm = %d, want %d (%d blocks of %d warps)", limits.name, threads, registers, shared,
                  got.warps_per_sm, c->want_warps, c->want_blocks, c->want_blocks ? c->want_warps / c->want_blocks : 0);
        cr_assert(fabs(got.fraction - c->want_fraction) < 1e-12, "%s, kernel {%d threads, %d registers, %d B shared}: "
                  "fraction = %g, want %g (%d of %d warp slots)", limits.name, threads, registers, shared, got.fraction,
                  c->want_fraction, c->want_warps, limits.max_warps_per_sm);
        cr_assert(got.limited_by == c->want_limits, "%s, kernel {%d threads, %d registers, %d B shared}: limited_by = "
                  "%s, want %s", limits.name, threads, registers, shared, got_names, want_names);
    }
}

#define HINT_OCCUPANCY "A block is resident only when EVERY resource has room for it; occupancy counts warps, not " \
                       "blocks, against the SM's warp slots; and limited_by names every resource that stops the " \
                       "next block (ties are common)."

Test(occupancy, limited_by_warps, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 768 threads (24 warps), 24 registers, no shared memory.
     *   warps: 64 / 24 = 2      blocks: 32
     *   registers: 768 a warp, 16384 / 768 = 21 a quarter, 84 an SM, 84 / 24 = 3
     *   shared: 1 KiB reserved a block: 228 (H100), 164 (A100)
     * -> 2 blocks, 48 warps of 64: 75 %, limited by warps. On an L4 (48 warp slots) the same
     * kernel fills the SM: 48 / 24 = 2 blocks, 48 of 48 warps, 100 %. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 768, 24, 0, 2, 48, 0.75, LIMIT_WARPS, "64 warp slots hold two 24-warp blocks"},
        {"a100-80gb", 768, 24, 0, 2, 48, 0.75, LIMIT_WARPS, "64 warp slots hold two 24-warp blocks"},
        {"l4", 768, 24, 0, 2, 48, 1.0, LIMIT_WARPS, "48 warp slots hold two 24-warp blocks"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, limited_by_blocks, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 32 threads (1 warp), 16 registers, no shared memory.
     *   warps: 64      blocks: 32      registers: 512 a warp, 32 a quarter, 128 an SM: 128
     *   shared: 228 (H100), 164 (A100)
     * -> 32 blocks of one warp: 32 of 64 warp slots, 50 %, limited by the block slots.
     * T4: 16 block slots, 32 warp slots: 16 blocks, 16 warps, 50 %. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 32, 16, 0, 32, 32, 0.5, LIMIT_BLOCKS, "only 32 blocks may be resident"},
        {"a100-80gb", 32, 16, 0, 32, 32, 0.5, LIMIT_BLOCKS, "only 32 blocks may be resident"},
        {"t4", 32, 16, 0, 16, 16, 0.5, LIMIT_BLOCKS, "only 16 blocks may be resident on a T4"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, limited_by_registers, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 256 threads (8 warps), 64 registers, no shared memory.
     *   warps: 8      blocks: 32      registers: 2048 a warp, 8 a quarter, 32 an SM: 4
     * -> 4 blocks, 32 warps: 50 %, limited by registers. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 256, 64, 0, 4, 32, 0.5, LIMIT_REGISTERS, "the file holds 32 warps of 2048 registers"},
        {"a100-80gb", 256, 64, 0, 4, 32, 0.5, LIMIT_REGISTERS, "the file holds 32 warps of 2048 registers"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, limited_by_shared_memory, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 256 threads (8 warps), 32 registers, 48 KiB of shared memory.
     *   warps: 8      blocks: 32      registers: 1024 a warp, 16 a quarter, 64 an SM: 8
     *   shared: 49 KiB a block: 233472 / 50176 = 4 (H100), 167936 / 50176 = 3 (A100)
     * -> H100: 4 blocks, 32 warps, 50 %; A100: 3 blocks, 24 warps, 37.5 %. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 256, 32, 48 * 1024, 4, 32, 0.5, LIMIT_SHARED_MEMORY, "4 blocks of 49 KiB in 228 KiB"},
        {"a100-80gb", 256, 32, 48 * 1024, 3, 24, 0.375, LIMIT_SHARED_MEMORY, "3 blocks of 49 KiB in 164 KiB"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, register_allocation_unit_changes_the_answer, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 256 threads, 33 registers: one register more than the last test's 32 costs a quarter of
     * the occupancy. 1056 a warp -> 1280; 12 a quarter, 48 an SM: 6 blocks, 48 warps, 75 %.
     * (Without rounding: 15 a quarter, 60 an SM, 7 blocks, 56 warps, 87.5 %.) */
    static const occupancy_case cases[] = {
        {"h100-sxm", 256, 33, 0, 6, 48, 0.75, LIMIT_REGISTERS, "33 registers are allocated as 40"},
        {"a100-80gb", 256, 33, 0, 6, 48, 0.75, LIMIT_REGISTERS, "33 registers are allocated as 40"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, shared_memory_reservation_changes_the_answer, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 128 threads (4 warps), 32 registers. warps: 16; registers: 64 / 4 = 16.
     *   H100, 57 KiB: 58 KiB a block with the reservation, 3 fit (not 4)
     *   A100, 41 KiB: 42 KiB a block, 3 fit (not 4)
     * -> 3 blocks, 12 warps of 64: 18.75 %, limited by shared memory. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 128, 32, 57 * 1024, 3, 12, 0.1875, LIMIT_SHARED_MEMORY,
         "57 KiB + 1 KiB reserved: 3 x 58 KiB fit in 228 KiB, not 4"},
        {"a100-80gb", 128, 32, 41 * 1024, 3, 12, 0.1875, LIMIT_SHARED_MEMORY,
         "41 KiB + 1 KiB reserved: 3 x 42 KiB fit in 164 KiB, not 4"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, ties_name_every_limit, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 256 threads, 32 registers, no shared memory: warps 8, registers 8 (1024 a warp, 64 an
     * SM), blocks 32, shared 228 -> 8 blocks, 64 warps, 100 %, limited by warps AND registers:
     * one register more and the registers alone would decide (previous tests).
     * 64 threads, 16 registers: warps 32, blocks 32, registers 64, shared 228 -> 32 blocks,
     * 64 warps, 100 %, limited by warps and blocks. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 256, 32, 0, 8, 64, 1.0, LIMIT_WARPS | LIMIT_REGISTERS,
         "warp slots and registers both allow exactly 8"},
        {"h100-sxm", 64, 16, 0, 32, 64, 1.0, LIMIT_WARPS | LIMIT_BLOCKS,
         "warp slots and block slots both allow exactly 32"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, edge_cases, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 1 thread, 32 registers, no shared memory: warps 64, blocks 32, registers 64 (1024 a warp),
     * shared 228 -> 32 blocks of 1 warp: 32 of 64 warp slots, 50 %, limited by the block slots.
     * 32 threads, 255 registers: warps 64, blocks 32, registers 8 (8192 a warp), shared 228 ->
     * 8 blocks, 8 warps, 12.5 %, limited by registers.
     * 256 threads, 0 registers: warps 8, blocks 32, registers INT_MAX, shared 228 -> 8 blocks, 64
     * warps, 100 %, limited by warps alone. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 1, 32, 0, 32, 32, 0.5, LIMIT_BLOCKS, "a 1-thread block is a block of one warp"},
        {"h100-sxm", 32, 255, 0, 8, 8, 0.125, LIMIT_REGISTERS, "255 registers is allowed: 8 warps fit"},
        {"h100-sxm", 256, 0, 0, 8, 64, 1.0, LIMIT_WARPS, "no registers: the registers limit nothing"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, a_block_that_does_not_fit, .timeout = 5, .description = HINT_OCCUPANCY)
{
    /* 1024 threads x 255 registers: 8 warps fit, the block has 32: nothing is resident (the
     * launch fails), limited by registers only (the warp slots would take 2 blocks).
     * 1025 threads: no block that large exists: limited by warps (registers would allow 1).
     * 228 KiB of shared memory: above the 227 KiB a block may have (H100); 164 KiB on an A100. */
    static const occupancy_case cases[] = {
        {"h100-sxm", 1024, 255, 0, 0, 0, 0.0, LIMIT_REGISTERS, "8 warps of 8192 registers fit, not 32"},
        {"h100-sxm", 1025, 32, 0, 0, 0, 0.0, LIMIT_WARPS, "more than 1024 threads per block"},
        {"h100-sxm", 256, 32, 228 * 1024, 0, 0, 0.0, LIMIT_SHARED_MEMORY, "more than 227 KiB per block"},
        {"a100-80gb", 256, 32, 164 * 1024, 0, 0, 0.0, LIMIT_SHARED_MEMORY, "more than 163 KiB per block"},
    };
    check_occupancy(CASES(cases));
}

Test(occupancy, consistent_with_its_parts_on_every_gpu, .timeout = 20,
     .description = "compute_occupancy must be built from YOUR six functions, over every GPU of the table: the message "
                    "names the kernel, the four limits your functions give, and what they add up to.")
{
    /* Over every row of data/gpus.csv and a grid of kernels: the result agrees with the
     * parts, and no GPU is ever more than full. */
    const char *keys[] = {"h100-sxm", "h100-pcie", "h200", "a100-80gb", "a100-40gb", "l4", "l40s", "rtx-4090", "v100", "t4"};
    int threads[] = {1, 17, 32, 33, 64, 96, 100, 128, 160, 192, 256, 320, 384, 480, 512, 640, 768, 1000, 1024};
    int registers[] = {16, 24, 32, 33, 40, 48, 64, 72, 96, 128, 168, 200, 255};
    int shared[] = {0, 1000, 8192, 20000, 49152, 65536, 100000};
    for (int g = 0; g < 10; g++) {
        gpu_limits limits = gpu(keys[g]);
        for (int t = 0; t < 19; t++)
            for (int r = 0; r < 13; r++)
                for (int s = 0; s < 7; s++) {
                    kernel_resources kernel = {threads[t], registers[r], shared[s]};
                    occupancy got = compute_occupancy(&limits, kernel);
                    int by[4] = {blocks_limited_by_warps(&limits, threads[t]), limits.max_blocks_per_sm,
                                 blocks_limited_by_registers(&limits, threads[t], registers[r]),
                                 blocks_limited_by_shared_memory(&limits, shared[s])};
                    int least = by[0], flags = 0;
                    for (int i = 1; i < 4; i++) least = by[i] < least ? by[i] : least;
                    for (int i = 0; i < 4; i++) flags |= by[i] == least ? 1 << i : 0;
                    int warps = least * warps_per_block(&limits, threads[t]);
                    char got_names[96], want_names[96];
                    cr_assert(got.blocks_per_sm == least && got.warps_per_sm == warps && got.limited_by == flags,
                              "%s, kernel {%d threads, %d registers, %d B shared}: got %d blocks, %d warps, limited by %s; your "
                              "four limits (warps %d, blocks %d, registers %d, shared memory %d) give %d blocks, %d "
                              "warps, limited by %s", limits.name, threads[t], registers[r], shared[s], got.blocks_per_sm,
                              got.warps_per_sm, limit_names(got.limited_by, got_names, sizeof got_names), by[0], by[1],
                              by[2], by[3], least, warps, limit_names(flags, want_names, sizeof want_names));
                    cr_assert(fabs(got.fraction - (double)warps / limits.max_warps_per_sm) < 1e-12 &&
                              got.fraction <= 1.0, "%s, kernel {%d threads, %d registers, %d B shared}: fraction %g, want %d / "
                              "%d", limits.name, threads[t], registers[r], shared[s], got.fraction, warps,
                              limits.max_warps_per_sm);
                }
    }
}
