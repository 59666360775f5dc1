/* blocked.c — Day 12: the same reuse on a CPU, where the "shared memory" is the caches and
 * the registers.
 *
 * C (m x n) = A (m x k) · B (k x n), row-major floats, in two steps:
 *
 *   1. matmul_loop_order: the three loops in the order i, p, j. The innermost loop then walks
 *      a row of B and a row of C, consecutive floats, which the compiler turns into vector
 *      instructions; the naive order i, j, p (driver/cpu.c) walks a column of B, one cache
 *      line per float.
 *   2. matmul_blocked: the GotoBLAS / BLIS structure. A KC x NC block of B and an MC x KC block
 *      of A are copied ("packed") into small contiguous buffers that stay in the caches while
 *      they are reused, and a micro-kernel computes an MR x NR piece of C in registers: each
 *      float of A it loads is used NR times, each float of B MR times.
 *
 *      for each KC-deep slice of k:                      B's slice, packed: lives in L2
 *        for each NC-wide slice of C's columns:
 *          pack B[slice of k][slice of columns] into NR-wide panels
 *          for each MC-tall slice of C's rows:           A's block, packed: lives in L1/L2
 *            pack A[slice of rows][slice of k] into MR-tall panels
 *            for each NR-wide panel, for each MR-tall panel:
 *              micro_kernel: C[MR x NR] += A panel (MR x kc) · B panel (kc x NR)
 *
 * Rules: plain C, no libraries, no threads. m, n, k are any sizes from 1 up. Every element of
 * C is written (the driver poisons C first, so an element never written shows as NaN). The
 * build compiles this file with -O2 for any x86-64 (SSE2: 4 floats a register); the wrapper
 * micro_kernel_avx2 below (given) lets the compiler use AVX2 and FMA (8 floats a register, a
 * multiply-add in one instruction) on CPUs that have them.
 *
 * Check:  make check DAY=12        Stuck?  make hint DAY=12
 */
#include "lab.h"

#include <stdlib.h>

// ----------------------------------------------------------------------------
// Step 1: the loop order.

void matmul_loop_order(const float *a, const float *b, float *c, int m, int n, int k)
{
    // TODO: C = A·B with the three loops in the order that makes the innermost one walk a row
    //       of B and a row of C (consecutive floats, which the compiler vectorises) instead of a
    //       column of B.
    //       Contract: every element of C set (it holds NaN when you get it); nothing outside C
    //       written. The idea: the same sums in another order, each A[i][p] fetched once and
    //       used across a whole row.
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}

// ----------------------------------------------------------------------------
// Step 2: blocking for the caches and the registers.

enum {
    MR = 6,     // rows of C the micro-kernel keeps in registers
    NR = 16,    // columns: 6 x 16 floats = 12 AVX registers of accumulators, 3 more for A and B
    KC = 256,   // depth of a packed slice: an NR-wide panel of B is 16 KiB, it stays in L1
    MC = 96,    // rows of A packed at once: 96 x 256 floats = 96 KiB, in L2
    NC = 1024,  // columns of B packed at once: 256 x 1024 floats = 1 MiB, in L2 or L3
};

static int min_int(int x, int y) { return x < y ? x : y; }

// Copies rows [0, rows) x columns [0, depth) of A into MR-tall panels: panel after panel, and
// inside a panel column p's MR floats together, as the micro-kernel reads them. Rows past
// `rows` are zeros.
static void pack_a(const float *a, int lda, int rows, int depth, float *packed)
{
    // TODO: the copy described above, in exactly the order the micro-kernel will read it; the
    //       last panel may be partial, and its missing rows are zeros. Nothing of A outside the
    //       rows x depth block is read.
    //       The idea: after packing, the micro-kernel reads A strictly in order, no strides.
    (void)a, (void)lda, (void)rows, (void)depth, (void)packed;
}

// Copies rows [0, depth) x columns [0, cols) of B into NR-wide panels: inside a panel row p's
// NR floats together. Columns past `cols` are zeros.
static void pack_b(const float *b, int ldb, int depth, int cols, float *packed)
{
    // TODO: the copy described above, panel after panel, in the order the micro-kernel reads
    //       it; the missing columns of a partial last panel are zeros. Nothing of B outside the
    //       depth x cols block is read.
    (void)b, (void)ldb, (void)depth, (void)cols, (void)packed;
}

// C[rows x cols] += A panel · B panel over `depth` steps. The accumulator has fixed sizes, so
// the compiler keeps it in registers and vectorises the j loop; only the valid part of it is
// added to C.
static inline __attribute__((always_inline)) void micro_kernel_body(int depth, const float *a_panel,
                                                                    const float *b_panel, float *c, int ldc,
                                                                    int rows, int cols)
{
    // TODO: C[rows x cols] += (A panel) · (B panel) over `depth` steps, the MR x NR partial sums
    //       kept in a local accumulator of fixed size (so the compiler keeps it in registers and
    //       vectorises it), and only its valid rows x cols added into C (row r of C starts at
    //       c + r * ldc). C holds the earlier slices of k: add to it.
    //       The idea: register blocking: per step, MR + NR floats loaded for MR x NR
    //       multiply-adds.
    (void)depth, (void)a_panel, (void)b_panel, (void)c, (void)ldc, (void)rows, (void)cols;
}

// Given: the same micro-kernel compiled twice, for any x86-64 and for CPUs with AVX2 and FMA.
static void micro_kernel_portable(int depth, const float *a_panel, const float *b_panel, float *c, int ldc,
                                  int rows, int cols)
{
    micro_kernel_body(depth, a_panel, b_panel, c, ldc, rows, cols);
}
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2,fma"))) static void micro_kernel_avx2(int depth, const float *a_panel,
                                                                  const float *b_panel, float *c, int ldc,
                                                                  int rows, int cols)
{
    micro_kernel_body(depth, a_panel, b_panel, c, ldc, rows, cols);
}
static int cpu_has_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#else
#define micro_kernel_avx2 micro_kernel_portable
static int cpu_has_avx2(void) { return 0; }
#endif

void matmul_blocked(const float *a, const float *b, float *c, int m, int n, int k)
{
    void (*micro_kernel)(int, const float *, const float *, float *, int, int, int) =
        cpu_has_avx2() ? micro_kernel_avx2 : micro_kernel_portable;
    float *a_packed = malloc(sizeof(float) * (MC + MR) * KC);   // room for a partial last panel
    float *b_packed = malloc(sizeof(float) * KC * (NC + NR));
    // TODO: C = A·B by the loop nest at the top of this file: C zeroed, then slices of k, of C's
    //       columns (pack B's block once per slice), of C's rows (pack A's block), and the
    //       micro-kernel on every MR x NR piece of that block of C, each with its own panels.
    //       Contract: any m, n, k from 1 up; at every level the last slice or panel may be
    //       partial; nothing read or written outside A, B and C; the two buffers above hold one
    //       packed block each.
    //       The idea: each level of slicing keeps what it reuses in one level of the memory
    //       hierarchy, as the GPU's tiles do in shared memory.
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k, (void)pack_a, (void)pack_b, (void)min_int, (void)micro_kernel;
    free(a_packed), free(b_packed);
}
