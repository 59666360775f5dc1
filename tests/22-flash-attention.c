/* 22-flash-attention.c — the checks for day 22. First the prediction: flash_predicted_bytes against
 * the loop structure's bytes, in closed form, over many shapes. FlashAttention on the GPU, for
 * tiles of 8, 16 and 32, and the tiled CPU version, for tiles of 1 to 32, agree with day 18's
 * double-precision reference (relative 1e-5, with 1e-6 absolute for outputs near 0), with and
 * without the causal mask, for head dimensions 64 and 128 and odd ones (1, 3, 17, 100), on sequence
 * lengths that are not multiples of the tile (so a missing rescale of the running sum, which only
 * matters from the second key tile on, is caught), with logits up to about +-300, and with every
 * score from 100 to 101 or from -200 to -199 (tests/support/robust.h), which no softmax survives
 * without its running max. Nothing is left unwritten or written past the end (the CPU's arrays end
 * at a guard page). Counted on the simulator: one launch that stores out and nothing else (4 n d
 * bytes: no score matrix), global bytes at most the loop structure's (causal and not, n = 100),
 * falling by half in their K and V part each time the tile doubles, and under half of the score
 * matrix's traffic. Counted on the CPU: copy_tile copies exactly what tiles of the given size
 * need, so a version without tiles, or with another tile, fails though its answer is right. A
 * missing __syncthreads() between tiles is a race the simulator stops, and the checks print what
 * it said. No check is timed; each has a .timeout. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"
#include "robust.h"

static const double RELATIVE = 1e-5, ABSOLUTE = 1e-6, LARGE_LOGITS_RELATIVE = 1e-3;
static const int gpu_tiles[] = {8, 16, 32};

/* ---------------------------------------------------------------------------------
 * Inputs that end at an inaccessible page, so that reading one float past the end of q, k or v,
 * or writing one past out, crashes (and the check fails) instead of passing unseen. */

static float *guarded_floats(size_t count)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = count * sizeof(float);
    size_t rounded = (bytes + page - 1) / page * page;
    char *base = mmap(NULL, rounded + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(base != MAP_FAILED, "mmap failed: out of memory?");
    mprotect(base + rounded, page, PROT_NONE);
    return (float *)(base + rounded - bytes);
}

static void free_guarded(float *x, size_t count)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = count * sizeof(float);
    size_t rounded = (bytes + page - 1) / page * page;
    munmap((char *)x + bytes - rounded, rounded + page);
}

typedef struct problem {
    int n, d, causal;
    float spread;
    float *q, *k, *v, *out, *want;   /* want: expected_output, once the code under test has returned */
} problem;

static unsigned seed_of(int n, int d) { return (unsigned)(n * 131 + d); }

static problem make_problem(int n, int d, int causal, float spread)
{
    size_t count = (size_t)n * d;
    problem p = {n, d, causal, spread, guarded_floats(count), guarded_floats(count), guarded_floats(count),
                 guarded_floats(count), NULL};
    fill_attention_inputs(p.q, p.k, p.v, n, d, spread, seed_of(n, d));
    lab_poison(p.out, sizeof(float) * count);
    return p;
}

/* What out must hold, computed after the code under test has returned, from inputs made afresh (the same
 * seed), not from the arrays it was given: while it runs there is no answer in memory to copy. */
static const float *expected_output(problem *p)
{
    size_t count = (size_t)p->n * p->d;
    float *q = malloc(sizeof(float) * count), *k = malloc(sizeof(float) * count), *v = malloc(sizeof(float) * count);
    cr_assert(q && k && v, "out of memory");
    fill_attention_inputs(q, k, v, p->n, p->d, p->spread, seed_of(p->n, p->d));
    free(p->want);
    p->want = malloc(sizeof(float) * count);
    cr_assert(p->want, "out of memory");
    attention_reference(q, k, v, p->want, p->n, p->d, p->causal);
    free(q), free(k), free(v);
    return p->want;
}

static void free_problem(problem *p)
{
    size_t count = (size_t)p->n * p->d;
    free_guarded(p->q, count), free_guarded(p->k, count), free_guarded(p->v, count), free_guarded(p->out, count);
    free(p->want);
}

static const char *kind(int causal) { return causal ? "causal" : "non-causal"; }

/* ---------------------------------------------------------------------------------
 * The loop structure's bytes, in closed form (the test's own): q and out once, 8 n d; k and v 8 d bytes for each
 * key row a query tile visits: all n rows for each of the ceil(n / T) query tiles, or with the mask the rows of
 * key tiles 0 .. b for query tile b, T (b + 1) of them but n for the last. */
static double loop_structure_bytes(int n, int d, int causal, int tile)
{
    double tiles = (n + tile - 1) / tile;
    double key_rows = causal ? (double)tile * (tiles - 1) * tiles / 2 + n : tiles * n;
    return 8.0 * n * d + 8.0 * d * key_rows;
}

/* What a prediction that differs from the loop structure's bytes probably forgot. */
static const char *prediction_mistake(double got, int n, int d, int causal, int tile)
{
    double want = loop_structure_bytes(n, d, causal, tile), tiles = (n + tile - 1) / tile;
    double full_last = 8.0 * n * d + 8.0 * d * tile * (causal ? tiles * (tiles + 1) / 2 : tiles * tiles);
    double floor_tiles = floor((double)n / tile);
    if (lab_wrapped_in_32_bits(got, want))
        return ": its low 32 bits are right and the rest are lost: the count went through an int, which wraps "
               "past 2^31. Count in double";
    if (got == want - 4.0 * n * d) return ": out's 4 n d bytes, stored once, are missing";
    if (got == want - 8.0 * n * d) return ": q's and out's 8 n d bytes are missing";
    if (got == want / 4) return ": that counts floats; 4 bytes each";
    if (causal && got == loop_structure_bytes(n, d, 0, tile)) return ": with the mask, key tiles right of the "
                                                                     "diagonal are not loaded";
    if (got == full_last) return ": the last tile of n is partial; it loads n - (tiles - 1) T rows, not T";
    if (!causal && got == 8.0 * n * d + 8.0 * d * n * floor_tiles) return ": ceil(n / T) query tiles, not n / T "
                                                                        "rounded down";
    return "";
}

Test(prediction, bytes_before_counting, .timeout = 10,
     .description = "flash_predicted_bytes, from the loop structure alone: q loaded and out stored once (4 n d bytes "
                    "each), and each key tile's rows of k and v (8 d bytes a row) once per query tile that visits it; "
                    "with the mask only the tiles up to the diagonal. For n = 1 to 70, 100, 4097, d = 1, 64, 128, "
                    "tiles 1, 5, 8, 16, 32, causal and not.")
{
    const int dims[] = {1, 64, 128}, tiles[] = {1, 5, 8, 16, 32};
    int lengths[72];
    for (int l = 0; l < 70; l++) lengths[l] = l + 1;
    lengths[70] = 100, lengths[71] = 4097;
    for (int l = 0; l < 72; l++)
        for (int h = 0, n = lengths[l]; h < 3; h++)
            for (int t = 0; t < 5; t++)
                for (int causal = 0; causal <= 1; causal++) {
                    double got = flash_predicted_bytes(n, dims[h], causal, tiles[t]);
                    double want = loop_structure_bytes(n, dims[h], causal, tiles[t]);
                    cr_assert(got == want, "%s, n = %d, d = %d, tile %d: you predict %.0f bytes; the loop structure "
                              "requests %.0f (%.0f of q and out, %.0f of k and v)%s", kind(causal), n, dims[h],
                              tiles[t], got, want, 8.0 * n * dims[h], want - 8.0 * n * dims[h],
                              prediction_mistake(got, n, dims[h], causal, tiles[t]));
                }
}

/* ---------------------------------------------------------------------------------
 * The GPU kernel. */

#define FAILED_RUN "%s FlashAttention, tile %d, n = %d, d = %d: the run ended with the CUDA error \"%s\".%s%s"

/* Runs the kernel on p (counted or not), checks out, and returns the run. */
static attention_run run_flash(problem *p, int tile, double relative, int count)
{
    char said[1536];
    lab_capture_stderr();
    attention_run run = gpu_attention(p->q, p->k, p->v, p->out, p->n, p->d, p->causal, tile, count);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, FAILED_RUN, kind(p->causal), tile, p->n, p->d, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "%s FlashAttention, tile %d, n = %d, d = %d: %lld floats written past the "
              "end of out (the guard after it changed)", kind(p->causal), tile, p->n, p->d, run.written_past_end);
    lab_comparison result = lab_compare_floats("out", p->out, expected_output(p), (size_t)p->n * p->d, relative, ABSOLUTE);
    cr_assert(result.mismatches == 0, "%s FlashAttention, tile %d, n = %d, d = %d (query tiles: %d, rows in the last: "
              "%d), against day 18's reference: %s", kind(p->causal), tile, p->n, p->d, (p->n + tile - 1) / tile,
              p->n - (p->n - 1) / tile * tile, result.message);
    return run;
}

static void check_flash(int n, int d, int causal, int tile, float spread, double relative)
{
    problem p = make_problem(n, d, causal, spread);
    run_flash(&p, tile, relative, 0);
    free_problem(&p);
}

static void check_flash_lengths(const int *lengths, int count, int d, int causal)
{
    for (int t = 0; t < 3; t++)
        for (int l = 0; l < count; l++) check_flash(lengths[l], d, causal, gpu_tiles[t], 1, RELATIVE);
}

static const int lengths_d64[] = {5, 8, 33, 100}, lengths_d128[] = {7, 45, 100};

/* ---------------------------------------------------------------------------------
 * Scores a softmax survives only with its running max subtracted (tests/support/robust.h). */

enum { LARGE_N = 77, LARGE_D = 16 };

typedef struct large_scores {
    float *q, *k, *v, *out;
    double want[LARGE_N * LARGE_D];
    float base;
    int causal;
} large_scores;

/* Every query row's scores are exactly base + j / n (q = 4 e_0, k_j = s_j e_0, scale 1/4); want is out in double. */
static void make_large_scores(large_scores *x, float base, int causal)
{
    float scores[LARGE_N];
    double weights[LARGE_N];
    size_t count = (size_t)LARGE_N * LARGE_D;
    x->q = guarded_floats(count), x->k = guarded_floats(count), x->v = guarded_floats(count);
    x->out = guarded_floats(count), x->base = base, x->causal = causal;
    lab_fill_large_scores(scores, LARGE_N, base);
    for (int j = 0; j < LARGE_N; j++)
        for (int c = 0; c < LARGE_D; c++) {
            x->q[j * LARGE_D + c] = c == 0 ? 4.0f : 0.0f;
            x->k[j * LARGE_D + c] = c == 0 ? scores[j] : 0.0f;
            x->v[j * LARGE_D + c] = (float)((j * 29 + c * 13) % 37) / 18.0f - 1.0f;
        }
    lab_poison(x->out, sizeof(float) * count);
    for (int i = 0; i < LARGE_N; i++) {
        int keys = causal ? i + 1 : LARGE_N;
        lab_softmax_reference(scores, keys, weights);
        for (int c = 0; c < LARGE_D; c++) {
            x->want[i * LARGE_D + c] = 0;
            for (int j = 0; j < keys; j++) x->want[i * LARGE_D + c] += weights[j] * x->v[j * LARGE_D + c];
        }
    }
}

static void check_large_scores(large_scores *x, const char *who, int tile)
{
    size_t count = (size_t)LARGE_N * LARGE_D;
    int where;
    double worst = lab_max_abs_error(x->out, x->want, (int)count, &where);
    unsigned bits;
    memcpy(&bits, &x->out[where], sizeof bits);
    const char *why = bits == 0xffffffffu ? ": never written (the poison it started with)"
                      : !isnan(x->out[where]) ? ""
                      : x->base > 88.7f ? ": expf of a score above 88.7 is inf, and inf / inf NaN: every expf must be "
                                          "of a score minus the running max"
                                        : ": expf of a score below -103.9 is 0, and 0 / 0 NaN: subtract the running "
                                          "max, which starts at -INFINITY, not 0";
    cr_assert(worst < 1e-5, "%s, %s, tile %d, n = %d, d = %d, every score from %g to %g: out[%d][%d] = %.7g, want "
              "%.7g%s", who, kind(x->causal), tile, LARGE_N, LARGE_D, x->base, x->base + 1, where / LARGE_D,
              where % LARGE_D, x->out[where], x->want[where], why);
    free_guarded(x->q, count), free_guarded(x->k, count), free_guarded(x->v, count), free_guarded(x->out, count);
}

#define HINT_FLASH "One block per tile of TILE queries, one thread per query row. For each tile of keys: load the " \
                   "K and V tiles, __syncthreads(), each thread computes its row's scores into registers, then " \
                   "new_max = max(running_max, tile max), rescale = expf(running_max - new_max), and BOTH the " \
                   "running sum and the output accumulator are multiplied by rescale before this tile's " \
                   "exp(s - new_max) terms are added; __syncthreads() again. A shape that fails only when n > TILE " \
                   "is a rescale that is missing or wrong: with one key tile, rescale is 0 and hides it."
Test(one_token, output_is_v, .timeout = 60,
     .description = "n = 1: the only weight is exactly 1, so out must equal v, whatever q and k are. If not, look "
                    "at the end of the kernel: out = acc / running_sum, staged in the Q tile and stored by all "
                    "threads with store_tile.")
{
    check_flash(1, 1, 0, 8, 1, RELATIVE);
    check_flash(1, 64, 1, 32, 1, RELATIVE);
}
Test(flash, noncausal_d64, .timeout = 60, .description = HINT_FLASH) { check_flash_lengths(lengths_d64, 4, 64, 0); }
Test(flash, causal_d64, .timeout = 60,
     .description = "Causal: query i sees keys j <= i. A query tile needs the key tiles up to and including the "
                    "diagonal one (blockIdx.x + 1 of them), and in the diagonal tile only keys up to i: "
                    "min(keys, i - first_key + 1) of them.")
{
    check_flash_lengths(lengths_d64, 4, 64, 1);
}
Test(flash, noncausal_d128, .timeout = 60,
     .description = "Head dimension 128 (Llama-2-7B's): the tiles are [TILE][MAX_HEAD_DIM] and a row uses its first "
                    "d floats; the accumulator has d entries.")
{
    check_flash_lengths(lengths_d128, 3, 128, 0);
}
Test(flash, causal_d128, .timeout = 60, .description = "Causal, head dimension 128.")
{
    check_flash_lengths(lengths_d128, 3, 128, 1);
}
Test(flash, odd_head_dims, .timeout = 60,
     .description = "d = 1, 3, 17 and 100: nothing may assume d is a multiple of 8 or of the tile. load_tile and "
                    "store_tile already handle any d; the loops over c run to d.")
{
    const int dims[] = {1, 3, 17, 100};
    for (int i = 0; i < 4; i++)
        for (int causal = 0; causal <= 1; causal++) check_flash(19 + 10 * i, dims[i], causal, 16, 1, RELATIVE);
}
Test(flash, first_query_sees_only_itself, .timeout = 60,
     .description = "Causal, query 0 sees key 0 alone: its weight is exactly 1, so out[0] must be exactly v[0].")
{
    for (int t = 0; t < 3; t++) {
        problem p = make_problem(40, 16, 1, 1);
        run_flash(&p, gpu_tiles[t], RELATIVE, 0);
        for (int c = 0; c < 16; c++)
            cr_assert(p.out[c] == p.v[c], "causal, tile %d, n = 40: out[0][%d] = %.9g, want exactly v[0][%d] = %.9g",
                      gpu_tiles[t], c, p.out[c], c, p.v[c]);
        free_problem(&p);
    }
}
Test(flash, large_logits, .timeout = 60,
     .description = "q and k up to +-20: scores up to about +-300, where exp overflows float. Every exp must be of "
                    "a score minus the running max (at most 0), and the max must start at -INFINITY, not 0. "
                    "(Tolerance relative 1e-3 here: a score of 300 is itself rounded by about 2e-5.)")
{
    for (int causal = 0; causal <= 1; causal++) check_flash(50, 64, causal, 16, 20, LARGE_LOGITS_RELATIVE);
}
Test(flash, large_scores_subtract_the_running_max, .timeout = 60,
     .description = "Every score base + j / n, for bases 100 (every expf(score) overflows) and -200 (every one "
                    "underflows): the online softmax subtracts the running max before each expf, the max starting at "
                    "-INFINITY, and rescales what it kept as the max grows with every tile.")
{
    static large_scores x;
    const float bases[] = {100.0f, -200.0f};
    for (int b = 0; b < 2; b++)
        for (int causal = 0; causal <= 1; causal++)
            for (int t = 0; t < 3; t++) {
                make_large_scores(&x, bases[b], causal);
                attention_run run = gpu_attention(x.q, x.k, x.v, x.out, LARGE_N, LARGE_D, causal, gpu_tiles[t], 0);
                cr_assert(run.error == NULL, "%s FlashAttention, tile %d, large scores: the run ended with \"%s\"",
                          kind(causal), gpu_tiles[t], run.error);
                check_large_scores(&x, "FlashAttention", gpu_tiles[t]);
            }
}
Test(flash, other_arguments_refused, .timeout = 10,
     .description = "flash_attention_forward takes tiles of 8, 16 and 32, n >= 1 and 1 <= d <= 128; for anything "
                    "else it launches nothing and returns cudaErrorInvalidValue.")
{
    const int bad[][3] = {{16, 16, 0}, {16, 16, 4}, {16, 16, 64}, {16, 0, 16}, {16, 129, 16}, {0, 16, 16}};
    for (int i = 0; i < 6; i++) {
        cudaError_t error = flash_attention_forward(NULL, NULL, NULL, NULL, bad[i][0], bad[i][1], 0, bad[i][2]);
        cudaGetLastError();
        cr_assert(error == cudaErrorInvalidValue, "flash_attention_forward(n = %d, d = %d, tile = %d) returned "
                  "\"%s\"; want \"%s\"", bad[i][0], bad[i][1], bad[i][2], cudaGetErrorString(error),
                  cudaGetErrorString(cudaErrorInvalidValue));
    }
}

/* ---------------------------------------------------------------------------------
 * Counted on the simulator. */

static attention_run counted(int n, int d, int causal, int tile)
{
    problem p = make_problem(n, d, causal, 1);
    attention_run run = run_flash(&p, tile, RELATIVE, 1);
    free_problem(&p);
    if (!run.counted) cr_skip("counted only on the simulator");
    return run;
}

static double total(const attention_run *run) { return run->global_load_bytes + run->global_store_bytes; }

Test(counted, one_launch_stores_only_out, .timeout = 60,
     .description = "Counted: FlashAttention is one kernel, and the only thing it writes to global memory is out, "
                    "once: 4 n d bytes. The scores and the running max and sum live in registers; each output "
                    "row is staged in shared memory and stored by all threads together (store_tile), coalesced.")
{
    int n = 64, d = 64;
    for (int t = 0; t < 3; t++) {
        attention_run run = counted(n, d, 0, gpu_tiles[t]);
        cr_assert(run.launches == 1, "tile %d: %d kernel launches counted; want 1", gpu_tiles[t], run.launches);
        cr_assert(run.global_store_bytes == 4.0 * n * d, "tile %d, n = %d, d = %d: %.0f bytes stored to global "
                  "memory, counted; want exactly 4 n d = %.0f (out, once, coalesced)", gpu_tiles[t], n, d,
                  run.global_store_bytes, 4.0 * n * d);
    }
}
Test(counted, bytes_follow_the_formula, .timeout = 60,
     .description = "Counted: at most the loop structure's bytes (flash_predicted_bytes): Q loaded once (4 n d), "
                    "out stored once (4 n d), and each tile of K and V once per query tile that visits it; with the "
                    "causal mask only the key tiles up to the diagonal are loaded at all. Read q from the Q tile in "
                    "shared memory, never from global memory inside the loops; load each K and V tile once per key "
                    "step, with load_tile.")
{
    int n = 100, d = 64;
    for (int causal = 0; causal <= 1; causal++)
        for (int t = 0; t < 3; t++) {
            attention_run run = counted(n, d, causal, gpu_tiles[t]);
            char what[160];
            snprintf(what, sizeof what, "%s, tile %d, n = %d, d = %d: global bytes against the loop structure's "
                     "(your flash_predicted_bytes: %.0f)", kind(causal), gpu_tiles[t], n, d,
                     flash_predicted_bytes(n, d, causal, gpu_tiles[t]));
            lab_expect_bytes_at_most(what, total(&run), loop_structure_bytes(n, d, causal, gpu_tiles[t]),
                                     "q read from global memory inside the loop, a K or V tile loaded more than once "
                                     "per query tile, or key tiles right of the diagonal?");
        }
}
Test(counted, kv_bytes_halve_when_the_tile_doubles, .timeout = 60,
     .description = "Counted: each query tile reads all of K and V once, so their bytes are 8 n d x n / TILE: "
                    "doubling the tile halves them (the Theta(n^2 d^2 / M) of the chapter, with M the shared "
                    "memory a tile takes). q and out, 8 n d, do not change.")
{
    int n = 128, d = 64;
    double previous = 0;
    for (int t = 0; t < 3; t++) {
        attention_run run = counted(n, d, 0, gpu_tiles[t]);
        double kv = total(&run) - 8.0 * n * d;
        if (previous > 0)
            cr_assert(previous / kv >= 1.9 && previous / kv <= 2.1, "non-causal, n = %d, d = %d: the K and V bytes went "
                      "from %.0f (tile %d) to %.0f (tile %d), counted: %.2f times fewer; want 2 (1.9 to 2.1)", n, d,
                      previous, gpu_tiles[t - 1], kv, gpu_tiles[t], previous / kv);
        previous = kv;
    }
}
Test(counted, under_the_score_matrix, .timeout = 60,
     .description = "Counted, causal, n = 256, d = 64, tiles of 32: any attention that keeps the n x n scores in "
                    "memory moves them six times (written twice, read four times), 24 n^2 bytes, however well "
                    "its matmuls are tiled. FlashAttention must request at most half that, everything included.")
{
    int n = 256, d = 64;
    attention_run flash = counted(n, d, 1, 32);
    double matrix = 24.0 * n * n;
    cr_assert(total(&flash) <= matrix / 2, "causal, n = %d, d = %d, tile 32: FlashAttention requested %.0f bytes "
              "(counted), %.2f times the score matrix's 24 n^2 = %.0f; want at most half of it. More means the "
              "scores, or K and V once per query, go through global memory", n, d, total(&flash),
              total(&flash) / matrix, matrix);
}

/* ---------------------------------------------------------------------------------
 * The CPU version. */

static void check_cpu(int n, int d, int causal, int tile, float spread, double relative)
{
    problem p = make_problem(n, d, causal, spread);
    attention_tiles *tiles = malloc(sizeof *tiles);
    lab_poison(tiles, sizeof *tiles);   /* garbage, as the rules say: every buffer must be set before use */
    attention_tiled_cpu(p.q, p.k, p.v, p.out, n, d, causal, tile, tiles);
    lab_comparison result = lab_compare_floats("out", p.out, expected_output(&p), (size_t)n * d, relative, ABSOLUTE);
    cr_assert(result.mismatches == 0, "attention_tiled_cpu, %s, tile %d, n = %d, d = %d (rows in the last tile: %d), "
              "against day 18's reference: %s", kind(causal), tile, n, d, n - (n - 1) / tile * tile, result.message);
    free(tiles);
    free_problem(&p);
}

static void check_cpu_shapes(int causal)
{
    const int tiles[] = {1, 5, 8, 32}, lengths[] = {1, 7, 33, 100}, dims[] = {3, 64, 128};
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < 4; l++)
            for (int h = 0; h < 3; h++) check_cpu(lengths[l], dims[h], causal, tiles[t], 1, RELATIVE);
}

#define HINT_CPU "The same steps as the kernel, one query tile at a time: copy the Q tile in, set each row's " \
                 "running max to -INFINITY, its sum and its output row to 0 (the buffers start as garbage), " \
                 "then for each key tile copy K and V in and fold it into every row: scores, new max, rescale the " \
                 "sum AND the output row, add the tile's terms. Divide by the sum at the end. A crash is a read " \
                 "past the end of q, k or v (a last tile of fewer rows) or a write past out."
Test(cpu, noncausal, .timeout = 60, .description = HINT_CPU) { check_cpu_shapes(0); }
Test(cpu, causal, .timeout = 60,
     .description = "Causal on the CPU: a query tile needs the key tiles up to the diagonal one, no further (do "
                    "not even copy those right of it); a row folds in only the keys j <= i.")
{
    check_cpu_shapes(1);
}
Test(cpu, first_query_sees_only_itself, .timeout = 30,
     .description = "Causal, query 0 sees key 0 alone: out[0] must be exactly v[0].")
{
    problem p = make_problem(40, 16, 1, 1);
    attention_tiles *tiles = malloc(sizeof *tiles);
    lab_poison(tiles, sizeof *tiles);
    attention_tiled_cpu(p.q, p.k, p.v, p.out, 40, 16, 1, 8, tiles);
    for (int c = 0; c < 16; c++)
        cr_assert(p.out[c] == p.v[c], "causal, tile 8, n = 40: out[0][%d] = %.9g, want exactly v[0][%d] = %.9g", c,
                  p.out[c], c, p.v[c]);
    free(tiles);
    free_problem(&p);
}
Test(cpu, large_logits, .timeout = 30,
     .description = "Scores up to about +-300 on the CPU: exp only of a score minus the running max.")
{
    for (int causal = 0; causal <= 1; causal++) check_cpu(50, 64, causal, 16, 20, LARGE_LOGITS_RELATIVE);
}
Test(cpu, large_scores_subtract_the_running_max, .timeout = 30,
     .description = "Every score base + j / n, for bases 100 and -200, on the CPU: every expf of a score minus the "
                    "running max, the max starting at -INFINITY.")
{
    static large_scores x;
    const float bases[] = {100.0f, -200.0f};
    const int tiles[] = {1, 5, 32};
    for (int b = 0; b < 2; b++)
        for (int causal = 0; causal <= 1; causal++)
            for (int t = 0; t < 3; t++) {
                make_large_scores(&x, bases[b], causal);
                attention_tiles *buffers = malloc(sizeof *buffers);
                lab_poison(buffers, sizeof *buffers);
                attention_tiled_cpu(x.q, x.k, x.v, x.out, LARGE_N, LARGE_D, causal, tiles[t], buffers);
                free(buffers);
                check_large_scores(&x, "attention_tiled_cpu", tiles[t]);
            }
}

Test(cpu, copies_follow_the_tiles, .timeout = 60,
     .description = "Counted: copy_tile is the CPU version's load from HBM, and it copies exactly what tiles of "
                    "`tile` rows need: your flash_predicted_bytes less out's 4 n d. Fewer means q, k or v were read "
                    "where they lie (no tiles) or with a tile other than the one asked for; more, a tile copied "
                    "twice or one that no row needs.")
{
    const int tiles[] = {1, 5, 8, 32}, lengths[] = {1, 7, 33, 100}, dims[] = {3, 64};
    attention_tiles *buffers = malloc(sizeof *buffers);
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < 4; l++)
            for (int h = 0; h < 2; h++)
                for (int causal = 0; causal <= 1; causal++) {
                    int n = lengths[l], d = dims[h], tile = tiles[t];
                    problem p = make_problem(n, d, causal, 1);
                    lab_poison(buffers, sizeof *buffers);
                    long long before = copied_tile_bytes();
                    attention_tiled_cpu(p.q, p.k, p.v, p.out, n, d, causal, tile, buffers);
                    double copied = (double)(copied_tile_bytes() - before);
                    double want = loop_structure_bytes(n, d, causal, tile) - 4.0 * n * d;
                    lab_comparison result = lab_compare_floats("out", p.out, expected_output(&p), (size_t)n * d,
                                                               RELATIVE, ABSOLUTE);
                    cr_assert(result.mismatches == 0, "attention_tiled_cpu, %s, tile %d, n = %d, d = %d: %s",
                              kind(causal), tile, n, d, result.message);
                    cr_assert(copied == want, "attention_tiled_cpu, %s, tile %d, n = %d, d = %d: copy_tile copied "
                              "%.0f bytes; with tile = %d the tiles copy exactly %.0f (q once, k and v once per "
                              "query tile that visits their tile)%s", kind(causal), tile, n, d, copied, tile, want,
                              copied == 0 ? ": nothing at all, so q, k and v were read where they lie: one pass "
                                            "over every key is right, but it is not the tiled algorithm"
                              : copied < want ? ": fewer, so some rows were read without copy_tile, or the tiles "
                                                "are larger than `tile`"
                                              : ": more: the Q tile copied for every key tile, a key tile right of "
                                                "the diagonal, or one key row at a time for each query?");
                    free_problem(&p);
                }
    free(buffers);
}
