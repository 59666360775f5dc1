/* 09-coalescing.c — the checks for day 09: the sector model counts what the simulator counts
 * for every stride, offset and element size of a test grid, and predicts the copy's bandwidth
 * from the sectors; the strided copy writes out[i] = in[offset + i * stride] for sizes that
 * are not multiples of 32 or of the block, and nothing past the end; counted on the simulator,
 * its warp-wide load touches 4 sectors when coalesced, 8 at stride 2, 32 from stride 8 on and
 * 5 when the start is one float off, while its stores stay at 4 and its grid has no idle
 * block; the struct-of-arrays particle update gives the original's results and uses at least
 * 95 % of every byte it moves.
 * A run that the simulator stops (an access past the end of an array) fails with the
 * simulator's own message. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
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

static void expect_model(int stride, int offset, int element_bytes, int want, const char *why)
{
    int got = sectors_per_request(stride, offset, element_bytes);
    cr_assert(got == want, "sectors_per_request(stride %d, offset %d, %d-byte elements) = %d, want %d: %s", stride,
              offset, element_bytes, got, want, why);
}

Test(model, coalesced_fp32_is_4_sectors, .timeout = 10, .description = HINT_MODEL)
{
    expect_model(1, 0, 4, 4, "32 consecutive floats are 128 bytes, one line of four sectors");
}

Test(model, strided_fp32, .timeout = 10,
     .description = "Stride s puts the lanes 4s bytes apart: the warp spans 32 x 4s bytes. Once the lanes are a "
                    "sector or more apart, each has a sector of its own, and the count stops growing.")
{
    expect_model(2, 0, 4, 8, "stride 2 spans 256 bytes, eight sectors, each half used");
    expect_model(3, 0, 4, 12, "stride 3 spans 384 bytes");
    expect_model(4, 0, 4, 16, "stride 4 spans 512 bytes");
    expect_model(7, 0, 4, 28, "stride 7: lanes 28 bytes apart, so no sector is skipped");
    static const int wide[] = {8, 9, 16, 33, 1000};
    for (int k = 0; k < 5; k++) expect_model(wide[k], 0, 4, 32, "lanes a sector or more apart: one sector each");
}

Test(model, misaligned_start_is_5_sectors, .timeout = 10,
     .description = "An offset moves the warp's 128 bytes off the sector boundary: they straddle one more sector, "
                    "unless the offset is a whole number of sectors (8 floats).")
{
    for (int offset = 1; offset < 8; offset++) expect_model(1, offset, 4, 5, "128 bytes starting inside a sector");
    expect_model(1, 8, 4, 4, "8 floats in, the warp starts on a sector boundary again");
    expect_model(1, 9, 4, 5, "9 floats in is one float past a boundary");
    expect_model(1, 32, 4, 4, "32 floats in is a whole line in");
    expect_model(2, 1, 4, 8, "stride 2 from float 1: bytes 4 to 255, still eight sectors");
}

Test(model, other_element_sizes, .timeout = 10,
     .description = "A warp reading 32 consecutive elements of b bytes spans 32·b bytes; a stride of 0 is one "
                    "element, read by every lane: one sector.")
{
    expect_model(1, 0, 1, 1, "32 bytes");
    expect_model(1, 0, 2, 2, "64 bytes");
    expect_model(1, 0, 8, 8, "256 bytes");
    expect_model(1, 0, 16, 16, "512 bytes");
    expect_model(2, 1, 16, 32, "16-byte elements 32 bytes apart, each in the second half of its own sector");
    expect_model(0, 5, 4, 1, "every lane reads the same float");
    expect_model(0, 7, 8, 1, "every lane reads the same double");
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
                int counted = counted_sectors_per_request(stride, offset, sizes[z]);
                int got = sectors_per_request(stride, offset, sizes[z]);
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
        cr_assert(fabs(got - cases[k].want) <= 1e-9 * cases[k].want, "copy_predicted_gb_per_s(%.0f GB/s, %d-byte "
                  "elements, %.0f load and %.0f store sectors per request) = %.6g, want %.6g (%s)", cases[k].bandwidth,
                  cases[k].bytes, cases[k].load, cases[k].store, got, cases[k].want, cases[k].why);
    }
}

/* ---------------------------------------------------------------------------------
 * The strided copy: every element, nothing past the end */

static const int sizes[] = {1, 31, 32, 33, 1000, 4099};
static const int block_sizes[] = {128, 256};
enum { SIZES = 6, BLOCK_SIZES = 2, COUNTED_N = 2048, COUNTED_THREADS = 256 };

#define HINT_COPY "One thread per output element: i from the block and thread index, a bounds test on i against " \
                  "n, then one read at offset + i * stride and one write at i. Round the number of blocks up."

/* Runs the copy and checks every element exactly; returns what was counted. */
static access_run check_copy(int n, int stride, int offset, int threads, int count_metrics)
{
    long long in_elements = copy_input_elements(n, stride, offset);
    float *in = malloc(sizeof(float) * (size_t)in_elements), *out = malloc(sizeof(float) * (size_t)n);
    float *want = malloc(sizeof(float) * (size_t)n);
    for (long long k = 0; k < in_elements; k++) in[k] = (float)k + 0.5f;   /* each element its own value */
    for (int i = 0; i < n; i++) want[i] = in[offset + (long long)i * stride];
    char said[2048];
    lab_capture_stderr();
    access_run run = gpu_strided_copy(in, out, n, stride, offset, threads, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "n = %d, stride %d, offset %d, blocks of %d threads: the run ended with the CUDA "
              "error \"%s\".%s%s", n, stride, offset, threads, run.error, SIMULATOR_SAID(said));
    cr_assert(run.written_past_end == 0, "n = %d, stride %d, offset %d, blocks of %d threads: %lld elements written "
              "past out[n - 1]; threads with i >= n must not write", n, stride, offset, threads, run.written_past_end);
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

/* ---------------------------------------------------------------------------------
 * The copy, counted: what one warp-wide load costs */

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

static void expect_load_sectors(int stride, int offset, double want, const char *why)
{
    access_run run = counted_copy(stride, offset);
    cr_assert(run.load_sectors_per_request == want, "stride %d, offset %d: %.2f sectors per load request (load "
              "efficiency %.3f), want %.0f: %s", stride, offset, run.load_sectors_per_request, run.load_efficiency,
              want, why);
}

Test(counts, coalesced_fp32_is_4_sectors, .timeout = 20,
     .description = "Counted: lane l of each warp reads the float after lane l - 1's, so a warp reads 128 "
                    "consecutive bytes. Read in[offset + i * stride] with i the thread's global index.")
{
    expect_load_sectors(1, 0, 4, "32 consecutive floats fill 4 sectors");
}

Test(counts, stride_2_is_8_sectors, .timeout = 20,
     .description = "Counted: at stride 2 a warp's floats spread over 256 bytes.")
{
    expect_load_sectors(2, 0, 8, "256 bytes are 8 sectors, each half used");
}

Test(counts, stride_8_and_up_is_32_sectors, .timeout = 20,
     .description = "Counted: from stride 8 on, the lanes are a sector or more apart, so each lane's 4 bytes cost "
                    "a 32-byte sector of their own.")
{
    static const int strides[] = {8, 16, 64};
    for (int k = 0; k < 3; k++) expect_load_sectors(strides[k], 0, 32, "one sector per lane");
}

Test(counts, misaligned_start_is_5_sectors, .timeout = 20,
     .description = "Counted: starting one float in, a warp's 128 bytes straddle five sectors.")
{
    expect_load_sectors(1, 1, 5, "bytes 4 to 131 touch sectors 0 to 4");
    expect_load_sectors(1, 8, 4, "8 floats in, the warp is back on a sector boundary");
}

Test(counts, stores_stay_coalesced, .timeout = 20,
     .description = "Counted: the write is out[i], with i the thread's global index, whatever the stride: "
                    "4 sectors per store request.")
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
        int want = (counts[k] + COUNTED_THREADS - 1) / COUNTED_THREADS;
        cr_assert(run.launches == 1 && run.blocks == want, "n = %d, blocks of %d threads: %d launch(es), the first "
                  "of %d blocks; want one launch of %d blocks", counts[k], COUNTED_THREADS, run.launches, run.blocks,
                  want);
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

#define HINT_SOA "Thread i updates particle i: its velocities from p.vx[i], p.vy[i], p.vz[i], then its positions " \
                 "with the new velocities, as in driver/particles_aos.cu. Round the blocks up; test i < n."

/* Runs both layouts from the same start; checks the rewrite's every field against the original's. */
static access_run check_particles(int n, int threads, int count_metrics)
{
    particle *original = malloc(sizeof(particle) * (size_t)n), *rewrite = malloc(sizeof(particle) * (size_t)n);
    make_particles(original, n, 17u + (unsigned)n);
    memcpy(rewrite, original, sizeof(particle) * (size_t)n);
    access_run before = gpu_update_particles_aos(original, n, DT, threads, 0);
    cr_assert(before.error == NULL, "the original AoS update failed (%s): the driver or the simulator is broken",
              before.error);
    char said[2048];
    lab_capture_stderr();
    access_run run = gpu_update_particles_soa(rewrite, n, DT, threads, count_metrics);
    lab_release_stderr(said, sizeof said);
    cr_assert(run.error == NULL, "n = %d, blocks of %d threads: the run ended with the CUDA error \"%s\".%s%s", n,
              threads, run.error, SIMULATOR_SAID(said));
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
                    "per load request, every byte used. Index each array with the thread's global index.")
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
        int want = (counts[k] + COUNTED_THREADS - 1) / COUNTED_THREADS;
        cr_assert(run.launches == 1 && run.blocks == want, "n = %d, blocks of %d threads: %d launch(es), the first "
                  "of %d blocks; want one launch of %d blocks", counts[k], COUNTED_THREADS, run.launches, run.blocks,
                  want);
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
