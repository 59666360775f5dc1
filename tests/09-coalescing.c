/* 09-coalescing.c — the checks for day 09: the sector model (the learner's prediction) counts
 * what the simulator counts for every stride, offset and element size of a test grid, and where
 * the byte addresses pass 2^31, and predicts the copy's bandwidth from the sectors (to 1e-6
 * relative, so float arithmetic passes); the strided copy writes out[i] = in[offset + i * stride]
 * for sizes that are not multiples of 32 or of the block, nothing past the end, and the right
 * elements of an input of more than 2^31 floats; counted on the simulator, its warp-wide load
 * touches 4 sectors when coalesced, 8 at stride 2, 32 from stride 8 on and 5 when the start is
 * one float off, while its stores stay at 4, and its grid is one launch of blocks of the size
 * asked for, none idle; the struct-of-arrays particle update moves every particle, gives the
 * original's results and uses at least 95 % of every byte it moves.
 * An output left untouched is reported as such ("was the kernel launched?"); a run that the
 * simulator stops (an access past the end of an array) fails with the simulator's own message. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "compare.h"
#include "lab.h"

#define SKIP_UNLESS_COUNTED(run) \
    if (!(run).counted) cr_skip("counted only on the simulator (BACKEND=sim); on a GPU, ncu measures it")

/* ---------------------------------------------------------------------------------
 * The model: exact on hand-worked cases, and equal to what the simulator counts */

#define HINT_MODEL "sectors_per_request: list the bytes each lane reads, divide by 32 to get sectors, count the " \
                   "distinct ones. The array starts on a sector boundary; the offset moves every lane."

/* A hand-worked case. Each test keeps its cases static const, in the test program's data: the expected
 * count is never in a local or a register of the caller while sectors_per_request runs, to be copied. */
typedef struct model_case { int stride, offset, element_bytes, want; const char *why; } model_case;

static void expect_models(const model_case *cases, int count)
{
    for (int k = 0; k < count; k++) {
        const model_case *c = &cases[k];
        int got = sectors_per_request(c->stride, c->offset, c->element_bytes);
        cr_assert(got == c->want, "sectors_per_request(stride %d, offset %d, %d-byte elements) = %d, want %d: %s",
                  c->stride, c->offset, c->element_bytes, got, c->want, c->why);
    }
}
#define EXPECT_MODELS(cases) expect_models(cases, (int)(sizeof cases / sizeof cases[0]))

Test(model, coalesced_fp32_is_4_sectors, .timeout = 10, .description = HINT_MODEL)
{
    static const model_case cases[] = {{1, 0, 4, 4, "32 consecutive floats are 128 bytes, one line of four sectors"}};
    EXPECT_MODELS(cases);
}

#define WIDE "lanes a sector or more apart: one sector each"
Test(model, strided_fp32, .timeout = 10,
     .description = "Stride s puts the lanes 4s bytes apart: the warp spans 32 x 4s bytes. Once the lanes are a "
                    "sector or more apart, each has a sector of its own, and the count stops growing.")
{
    static const model_case cases[] = {
        {2, 0, 4, 8, "stride 2 spans 256 bytes, eight sectors, each half used"},
        {3, 0, 4, 12, "stride 3 spans 384 bytes"},
        {4, 0, 4, 16, "stride 4 spans 512 bytes"},
        {7, 0, 4, 28, "stride 7: lanes 28 bytes apart, so no sector is skipped"},
        {8, 0, 4, 32, WIDE}, {9, 0, 4, 32, WIDE}, {16, 0, 4, 32, WIDE}, {33, 0, 4, 32, WIDE}, {1000, 0, 4, 32, WIDE},
    };
    EXPECT_MODELS(cases);
}

#define INSIDE "128 bytes starting inside a sector"
Test(model, misaligned_start_is_5_sectors, .timeout = 10,
     .description = "An offset moves the warp's 128 bytes off the sector boundary: they straddle one more sector, "
                    "unless the offset is a whole number of sectors (8 floats).")
{
    static const model_case cases[] = {
        {1, 1, 4, 5, INSIDE}, {1, 2, 4, 5, INSIDE}, {1, 3, 4, 5, INSIDE}, {1, 4, 4, 5, INSIDE},
        {1, 5, 4, 5, INSIDE}, {1, 6, 4, 5, INSIDE}, {1, 7, 4, 5, INSIDE},
        {1, 8, 4, 4, "8 floats in, the warp starts on a sector boundary again"},
        {1, 9, 4, 5, "9 floats in is one float past a boundary"},
        {1, 32, 4, 4, "32 floats in is a whole line in"},
        {2, 1, 4, 8, "stride 2 from float 1: bytes 4 to 255, still eight sectors"},
    };
    EXPECT_MODELS(cases);
}

Test(model, other_element_sizes, .timeout = 10,
     .description = "A warp reading 32 consecutive elements of b bytes spans 32·b bytes; a stride of 0 is one "
                    "element, read by every lane: one sector.")
{
    static const model_case cases[] = {
        {1, 0, 1, 1, "32 bytes"},
        {1, 0, 2, 2, "64 bytes"},
        {1, 0, 8, 8, "256 bytes"},
        {1, 0, 16, 16, "512 bytes"},
        {2, 1, 16, 32, "16-byte elements 32 bytes apart, each in the second half of its own sector"},
        {0, 5, 4, 1, "every lane reads the same float"},
        {0, 7, 8, 1, "every lane reads the same double"},
    };
    EXPECT_MODELS(cases);
}

Test(model, byte_addresses_past_2_31, .timeout = 10,
     .description = "A lane's byte address is (offset + lane x stride) x element size: for a large stride or offset it "
                    "passes 2^31 even though every argument is an int. Compute the addresses in 64 bits.")
{
    static const model_case cases[] = {
        {1 << 26, 0, 4, 32, "lanes 256 MiB apart, one sector each; lane 8's byte address is 2^31"},
        {(1 << 28) + 1, 3, 8, 32, "lanes 2 GiB apart; lane 1's byte address is past 2^31"},
        {1, (1 << 29) + 1, 16, 17, "512 bytes starting 16 bytes into a sector, 8 GiB in"},
    };
    EXPECT_MODELS(cases);
}

Test(model, matches_the_simulator, .timeout = 30,
     .description = "The simulator counts every lane's bytes: where your count differs, work that case by hand, "
                    "lane by lane (its first and last byte, and which sectors lie between them).")
{
    static const int sizes[] = {1, 2, 4, 8, 16};
    if (counted_sectors_per_request(1, 0, 4) < 0) cr_skip("counted only on the simulator (BACKEND=sim)");
    for (int z = 0; z < 5; z++)
        for (int stride = 0; stride <= 40; stride++)
            for (int offset = 0; offset <= 40; offset += stride > 8 ? 7 : 1) {
                int got = sectors_per_request(stride, offset, sizes[z]);   /* first: the count is not yet made */
                int counted = counted_sectors_per_request(stride, offset, sizes[z]);
                cr_assert(got == counted, "stride %d, offset %d, %d-byte elements: your model says %d sectors, the "
                          "simulator counted %d", stride, offset, sizes[z], got, counted);
            }
}

Test(model, predicted_copy_bandwidth, .timeout = 10,
     .description = "A warp of the copy uses 32 elements read and 32 written; it moves its sectors, loaded and "
                    "stored, at the memory's bandwidth. Useful bytes over moved bytes, times the bandwidth.")
{
    static const struct { double bandwidth; int bytes; double load, store, want; const char *why; } cases[] = {
        {3350, 4, 4, 4, 3350, "coalesced: every byte moved is used"},
        {3350, 4, 8, 4, 3350 * 256.0 / 384, "stride 2: 384 bytes moved for 256 used"},
        {3350, 4, 32, 4, 3350 * 256.0 / 1152, "stride 8: 1152 bytes moved for 256 used"},
        {3350, 4, 5, 4, 3350 * 256.0 / 288, "misaligned: one sector more per load"},
        {2039, 8, 8, 8, 2039, "coalesced doubles"},
        {1000, 2, 1, 2, 1000 * 128.0 / 96, "a half-filled load sector"},
    };
    for (int k = 0; k < 6; k++) {
        double got = copy_predicted_gb_per_s(cases[k].bandwidth, cases[k].bytes, cases[k].load, cases[k].store);
        double relative_error = (got - cases[k].want) / cases[k].want;   /* 1e-6: float arithmetic passes */
        cr_assert(fabs(relative_error) <= 1e-6, "copy_predicted_gb_per_s(%.0f GB/s, %d-byte elements, %.0f load and "
                  "%.0f store sectors per request) = %.9g, want %.9g (%+.2g relative; %s)", cases[k].bandwidth,
                  cases[k].bytes, cases[k].load, cases[k].store, got, cases[k].want, relative_error, cases[k].why);
    }
}

/* ---------------------------------------------------------------------------------
 * The strided copy: every element, nothing past the end */

static const int sizes[] = {1, 31, 32, 33, 1000, 4099};
static const int block_sizes[] = {128, 256};
enum { SIZES = 6, BLOCK_SIZES = 2, COUNTED_N = 2048, COUNTED_THREADS = 256 };

#define HINT_COPY "One thread per output element, the threads numbered across the whole grid; a grid rounded up " \
                  "so the last, partial block exists, and its spare threads doing nothing."

/* An output left wholly poisoned means no thread wrote: say so before comparing values. */
static void expect_some_written(const float *out, int n, int stride, int offset, int threads)
{
    int written = 0;
    for (int i = 0; i < n; i++) written += !lab_float_is_poison(out[i]);
    cr_assert(written > 0, "n = %d, stride %d, offset %d, blocks of %d threads: not one element of out was written. "
              "Was the kernel launched (launch_strided_copy), with at least one block?", n, stride, offset, threads);
}

/* Each input element its own value. What out must hold is made from this after the copy has returned,
 * not from the array it was given: while it runs there is no answer in memory to copy. */
static float copy_value(long long k) { return (float)k + 0.5f; }

/* Runs the copy and checks every element exactly; returns what was counted. */
static access_run check_copy(int n, int stride, int offset, int threads, int count_metrics)
{
    long long in_elements = copy_input_elements(n, stride, offset);
    float *in = malloc(sizeof(float) * (size_t)in_elements), *out = malloc(sizeof(float) * (size_t)n);
    for (long long k = 0; k < in_elements; k++) in[k] = copy_value(k);
    char said[2048];
    lab_capture_stderr();
    access_run run = gpu_strided_copy(in, out, n, stride, offset, threads, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "n = %d, stride %d, offset %d, blocks of %d threads: the run ended with the CUDA "
              "error \"%s\".%s%s", n, stride, offset, threads, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "n = %d, stride %d, offset %d, blocks of %d threads: %lld elements written "
              "past out[n - 1]; threads with i >= n must not write", n, stride, offset, threads, run.written_past_end);
    expect_some_written(out, n, stride, offset, threads);
    float *want = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) want[i] = copy_value(offset + (long long)i * stride);
    lab_comparison result = lab_compare_floats("out", out, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "n = %d, stride %d, offset %d, blocks of %d threads: %s", n, stride, offset,
              threads, result.message);
    free(in), free(out), free(want);
    return run;
}

static void check_copy_everywhere(int stride, int offset)
{
    for (int s = 0; s < SIZES; s++)
        for (int b = 0; b < BLOCK_SIZES; b++) check_copy(sizes[s], stride, offset, block_sizes[b], 0);
}

Test(copy, stride_1, .timeout = 20, .description = HINT_COPY) { check_copy_everywhere(1, 0); }
Test(copy, strides_2_3_8_33, .timeout = 20, .description = HINT_COPY)
{
    static const int strides[] = {2, 3, 8, 33};
    for (int k = 0; k < 4; k++) check_copy_everywhere(strides[k], 0);
}
Test(copy, offsets, .timeout = 20,
     .description = "The offset is added to every thread's index, once: out[0] is in[offset].")
{
    check_copy_everywhere(1, 1);
    check_copy_everywhere(1, 7);
    check_copy_everywhere(3, 5);
}
Test(copy, stride_0_broadcast, .timeout = 20,
     .description = "Stride 0: every thread reads the same element, in[offset].")
{
    check_copy_everywhere(0, 5);
}

Test(copy, indices_past_2_31, .timeout = 30,
     .description = "An input of more than 2^31 floats (8 GiB): offset + i * stride passes 2^31, the largest int, "
                    "though n, stride and offset are all ints. Compute the index in 64 bits.")
{
    static const struct { int n, stride, offset; } cases[] = {
        {40, (1 << 26) + 3, 0},            /* i * stride passes 2^31 from i = 32 */
        {64, 1, INT_MAX - 39},             /* offset + i passes 2^31 from i = 40 */
        {40, (1 << 26) + 3, 5},
    };
    for (int k = 0; k < 3; k++) {
        int n = cases[k].n, stride = cases[k].stride, offset = cases[k].offset;
        long long last = copy_input_elements(n, stride, offset) - 1;
        float *out = malloc(sizeof(float) * (size_t)n);
        char said[2048];
        lab_capture_stderr();
        access_run run = gpu_strided_copy_past_2_31(out, n, stride, offset, 32);
        lab_release_stderr(said, sizeof said);
        if (run.error && strcmp(run.error, "out of memory") == 0 && counted_sectors_per_request(1, 0, 4) < 0)
            cr_skip("this GPU cannot hold the %lld-float input (%s)", last + 1, run.error);
        cr_assert(run.error == NULL, "n = %d, stride %d, offset %d: the largest index is %lld, past 2^31 = 2147483648, "
                  "and the run ended with the CUDA error \"%s\". An index computed in int wraps to a negative number "
                  "there: compute offset + i * stride in 64 bits.%s%s", n, stride, offset, last, run.error,
                  SIMULATOR_SAID(said));
        cr_assert(run.written_past_end == 0, "n = %d, stride %d, offset %d: %lld elements written past out[n - 1]", n,
                  stride, offset, run.written_past_end);
        expect_some_written(out, n, stride, offset, 32);
        float *want = malloc(sizeof(float) * (size_t)n);   /* made after the copy has returned, as check_copy's */
        for (int i = 0; i < n; i++) want[i] = past_2_31_value(i);
        lab_comparison result = lab_compare_floats("out", out, want, (size_t)n, 0, 0);
        cr_assert(result.mismatches == 0, "n = %d, stride %d, offset %d (indices up to %lld, past 2^31): %s. A wrong "
                  "value here is an index that wrapped: compute offset + i * stride in 64 bits.", n, stride, offset,
                  last, result.message);
        free(out), free(want);
    }
}

/* ---------------------------------------------------------------------------------
 * The copy, counted: what one warp-wide load costs */

/* The launch a run made: one, of threads_per_block threads a block, as many blocks as the work needs. */
static void expect_launch(access_run run, const char *launcher, int n, int threads)
{
    int want = (n + threads - 1) / threads;
    cr_assert(run.launches == 1, "n = %d, blocks of %d threads: %d launches, want one", n, threads, run.launches);
    cr_assert(run.block_threads == threads, "n = %d: %s was asked for blocks of %d threads and launched blocks of %d: "
              "launch with the threads_per_block it is given (the caller picks it, for occupancy or for a GPU "
              "whose limits differ)", n, launcher, threads, run.block_threads);
    cr_assert(run.blocks == want, "n = %d, blocks of %d threads: %d blocks launched, want %d (n divided by the block "
              "size, rounded up)%s", n, threads, run.blocks, want,
              run.blocks > want ? ": a block with no work is wasted" : ": some elements get no thread");
}

static access_run counted_copy(int stride, int offset)
{
    access_run run = check_copy(COUNTED_N, stride, offset, COUNTED_THREADS, 1);
    SKIP_UNLESS_COUNTED(run);
    cr_assert(run.load_requests == COUNTED_N / WARP_LANES && run.store_requests == COUNTED_N / WARP_LANES,
              "stride %d, offset %d, n = %d: %.0f load and %.0f store requests, want %d of each: one load and one "
              "store per thread, so one request of each per warp", stride, offset, COUNTED_N, run.load_requests,
              run.store_requests, COUNTED_N / WARP_LANES);
    return run;
}

/* A hand-worked count, static const in each test as the model's cases are: not in the caller's locals
 * while the kernel runs. */
typedef struct load_case { int stride, offset; double want; const char *why; } load_case;

static void expect_load_sectors(const load_case *cases, int count)
{
    for (int k = 0; k < count; k++) {
        access_run run = counted_copy(cases[k].stride, cases[k].offset);
        cr_assert(run.load_sectors_per_request == cases[k].want, "stride %d, offset %d: %.2f sectors per load request "
                  "(load efficiency %.3f), want %.0f: %s", cases[k].stride, cases[k].offset,
                  run.load_sectors_per_request, run.load_efficiency, cases[k].want, cases[k].why);
    }
}
#define EXPECT_LOAD_SECTORS(cases) expect_load_sectors(cases, (int)(sizeof cases / sizeof cases[0]))

Test(counts, coalesced_fp32_is_4_sectors, .timeout = 20,
     .description = "Counted: at stride 1 lane l of each warp reads the float after lane l - 1's, so a warp reads "
                    "128 consecutive bytes. A warp's lanes are consecutive threadIdx.x: does your index follow it?")
{
    static const load_case cases[] = {{1, 0, 4, "32 consecutive floats fill 4 sectors"}};
    EXPECT_LOAD_SECTORS(cases);
}

Test(counts, stride_2_is_8_sectors, .timeout = 20,
     .description = "Counted: at stride 2 a warp's floats spread over 256 bytes.")
{
    static const load_case cases[] = {{2, 0, 8, "256 bytes are 8 sectors, each half used"}};
    EXPECT_LOAD_SECTORS(cases);
}

Test(counts, stride_8_and_up_is_32_sectors, .timeout = 20,
     .description = "Counted: from stride 8 on, the lanes are a sector or more apart, so each lane's 4 bytes cost "
                    "a 32-byte sector of their own.")
{
    static const load_case cases[] = {{8, 0, 32, "one sector per lane"}, {16, 0, 32, "one sector per lane"},
                                      {64, 0, 32, "one sector per lane"}};
    EXPECT_LOAD_SECTORS(cases);
}

Test(counts, misaligned_start_is_5_sectors, .timeout = 20,
     .description = "Counted: starting one float in, a warp's 128 bytes straddle five sectors.")
{
    static const load_case cases[] = {{1, 1, 5, "bytes 4 to 131 touch sectors 0 to 4"},
                                      {1, 8, 4, "8 floats in, the warp is back on a sector boundary"}};
    EXPECT_LOAD_SECTORS(cases);
}

Test(counts, stores_stay_coalesced, .timeout = 20,
     .description = "Counted: whatever the stride of the reads, the writes go to consecutive elements, one warp's "
                    "to 128 consecutive bytes: 4 sectors per store request.")
{
    static const struct { int stride, offset; } cases[] = {{1, 0}, {2, 0}, {8, 0}, {1, 1}};
    for (int k = 0; k < 4; k++) {
        access_run run = counted_copy(cases[k].stride, cases[k].offset);
        cr_assert(run.store_sectors_per_request == 4, "stride %d, offset %d: %.2f sectors per store request, want 4",
                  cases[k].stride, cases[k].offset, run.store_sectors_per_request);
    }
}

Test(counts, just_enough_blocks, .timeout = 20,
     .description = "Counted: one thread per element and no block without work: the number of blocks is n divided "
                    "by the block size, rounded up.")
{
    static const int counts[] = {COUNTED_N, 1000};
    for (int k = 0; k < 2; k++) {
        access_run run = check_copy(counts[k], 2, 0, COUNTED_THREADS, 1);
        SKIP_UNLESS_COUNTED(run);
        expect_launch(run, "launch_strided_copy", counts[k], COUNTED_THREADS);
    }
}

Test(counts, blocks_of_the_size_given, .timeout = 20,
     .description = "Counted: the launcher uses the block size it is given, whatever it is, and enough blocks of it.")
{
    static const int threads[] = {32, 96, 128, 512};
    for (int k = 0; k < 4; k++) {
        access_run run = check_copy(1000, 2, 0, threads[k], 1);
        SKIP_UNLESS_COUNTED(run);
        expect_launch(run, "launch_strided_copy", 1000, threads[k]);
    }
}

/* ---------------------------------------------------------------------------------
 * The particle update: the rewrite's results, and what its loads use */

static const char *field_names[8] = {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"};
static const float DT = 0.01f;

/* Positions in [-100, 100), velocities, mass and charge in [-10, 10). */
static void make_particles(particle *p, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        float *fields = &p[i].x;
        for (int f = 0; f < 8; f++) {
            seed = seed * 1664525u + 1013904223u;
            float unit = (float)(seed >> 8) / 16777216.0f;
            fields[f] = f < 3 ? 200 * unit - 100 : 20 * unit - 10;
        }
    }
}

#define HINT_SOA "The same step as driver/particles_aos.cu, in the same order, with each field read from its own " \
                 "array; one thread per particle, and every particle with a thread."

/* A step changes every particle (gravity alone moves vz): one left exactly as it started got no thread. */
static void expect_every_particle_moved(const particle *after, const particle *start, int n, int threads)
{
    int unchanged = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (memcmp(&after[i], &start[i], sizeof(particle)) == 0) unchanged++, first = first < 0 ? i : first;
    cr_assert(unchanged < n, "n = %d, blocks of %d threads: every particle is unchanged from its start. Was the "
              "kernel launched (launch_update_particles_soa), with at least one block?", n, threads);
    cr_assert(unchanged == 0, "n = %d, blocks of %d threads: %d of the particles are unchanged from their start, the "
              "first of them particle %d: did every particle get a thread?", n, threads, unchanged, first);
}

/* Runs both layouts from the same start; checks the rewrite's every field against the original's. The
 * original runs after the rewrite has returned, on the start made afresh from its seed: while the rewrite
 * runs there is no answer in memory to copy. */
static access_run check_particles(int n, int threads, int count_metrics)
{
    particle *original = malloc(sizeof(particle) * (size_t)n), *rewrite = malloc(sizeof(particle) * (size_t)n);
    make_particles(rewrite, n, 17u + (unsigned)n);
    char said[2048];
    lab_capture_stderr();
    access_run run = gpu_update_particles_soa(rewrite, n, DT, threads, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "n = %d, blocks of %d threads: the run ended with the CUDA error \"%s\".%s%s", n,
              threads, run.error, SIMULATOR_SAID(said));
    make_particles(original, n, 17u + (unsigned)n);
    expect_every_particle_moved(rewrite, original, n, threads);
    access_run before = gpu_update_particles_aos(original, n, DT, threads, 0);
    cr_assert(before.error == NULL, "the original AoS update failed (%s): the driver or the simulator is broken",
              before.error);
    float *got = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)n);
    for (int f = 0; f < 8; f++) {
        for (int i = 0; i < n; i++) got[i] = (&rewrite[i].x)[f], want[i] = (&original[i].x)[f];
        lab_comparison result = lab_compare_floats(field_names[f], got, want, (size_t)n, 1e-6, 1e-6);
        cr_assert(result.mismatches == 0, "n = %d, blocks of %d threads: field %s differs from the original's "
                  "step in %zu of the particles: %s", n, threads, field_names[f], result.mismatches, result.message);
    }
    free(original), free(rewrite), free(got), free(want);
    return run;
}

Test(particles, soa_equals_aos, .timeout = 30, .description = HINT_SOA)
{
    static const int counts[] = {1, 31, 33, 1000, 4099};
    for (int s = 0; s < 5; s++)
        for (int b = 0; b < BLOCK_SIZES; b++) check_particles(counts[s], block_sizes[b], 0);
}

Test(particles, aos_original_is_strided, .timeout = 20,
     .description = "Given (driver/particles_aos.cu): neighbouring lanes read floats sizeof(particle) = 32 bytes "
                    "apart, one sector each. If this fails, the driver or the simulator is broken.")
{
    particle *p = malloc(sizeof(particle) * COUNTED_N);
    make_particles(p, COUNTED_N, 5);
    access_run run = gpu_update_particles_aos(p, COUNTED_N, DT, COUNTED_THREADS, 1);
    free(p);
    cr_assert(run.error == NULL, "the original AoS update failed: %s", run.error);
    SKIP_UNLESS_COUNTED(run);
    cr_assert(run.load_sectors_per_request == 32 && run.load_efficiency == 0.125, "the original: %.2f sectors per "
              "load request, load efficiency %.3f; want 32 and 0.125", run.load_sectors_per_request,
              run.load_efficiency);
}

static access_run counted_particles(void)
{
    access_run run = check_particles(COUNTED_N, COUNTED_THREADS, 1);
    SKIP_UNLESS_COUNTED(run);
    return run;
}

Test(particles, soa_load_efficiency_at_least_95_percent, .timeout = 20,
     .description = "Counted: with one array per field, lane l reads the float after lane l - 1's: 4 sectors "
                    "per load request, every byte used, if the index follows threadIdx.x.")
{
    access_run run = counted_particles();
    cr_assert(run.load_efficiency >= 0.95, "the rewrite: load efficiency %.3f (%.2f sectors per load request), want "
              "at least 0.95", run.load_efficiency, run.load_sectors_per_request);
}

Test(particles, soa_store_efficiency_at_least_95_percent, .timeout = 20,
     .description = "Counted: the stores are coalesced too when lane l writes element first + l of each array.")
{
    access_run run = counted_particles();
    cr_assert(run.store_efficiency >= 0.95, "the rewrite: store efficiency %.3f (%.2f sectors per store request), "
              "want at least 0.95", run.store_efficiency, run.store_sectors_per_request);
}

Test(particles, just_enough_blocks, .timeout = 20,
     .description = "Counted: one thread per particle and no block without work: n divided by the block size, "
                    "rounded up.")
{
    static const int counts[] = {COUNTED_N, 1000};
    for (int k = 0; k < 2; k++) {
        access_run run = check_particles(counts[k], COUNTED_THREADS, 1);
        SKIP_UNLESS_COUNTED(run);
        expect_launch(run, "launch_update_particles_soa", counts[k], COUNTED_THREADS);
    }
}

Test(particles, blocks_of_the_size_given, .timeout = 20,
     .description = "Counted: the launcher uses the block size it is given, whatever it is, and enough blocks of it.")
{
    static const int threads[] = {32, 96, 512};
    for (int k = 0; k < 3; k++) {
        access_run run = check_particles(1000, threads[k], 1);
        SKIP_UNLESS_COUNTED(run);
        expect_launch(run, "launch_update_particles_soa", 1000, threads[k]);
    }
}

Test(particles, soa_reads_each_field_once, .timeout = 20,
     .description = "Counted: read the six fields into registers once, then compute; reading a field again after "
                    "a store to another array is another request (the compiler must assume the arrays overlap).")
{
    access_run run = counted_particles();
    double warps = COUNTED_N / WARP_LANES;
    cr_assert(run.load_requests == 6 * warps && run.store_requests == 6 * warps, "the rewrite: %.0f load and %.0f "
              "store requests for %.0f warps; want 6 per warp of each (x, y, z, vx, vy, vz)", run.load_requests,
              run.store_requests, warps);
}
