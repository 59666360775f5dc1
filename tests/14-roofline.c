/* 14-roofline.c — the checks for day 14: the roofline functions are their definitions
 * (attainable = min(peak, I x BW) to 12 digits, over intensities from 1/1000 to 10^5, at the
 * ridge and at 0: a min, a branch on the ridge, any route that computes it); the ridge points
 * of the H100 SXM, A100 80 GB and H200 come from data/gpus.csv in the right units; the least
 * time is the larger of the compute and the memory time; Llama-2-7B's decode falls left of
 * every ridge and its prefill right of it; the prediction of a number of FMA chains' rate is
 * Little's law capped by the pipes, and matches the driver's 1, 2 and 4 chains measured beside
 * its 12; and the FMA probe counts its FLOPs right, computes what its chains compute, and runs
 * as fast as the driver's 12 independent chains timed beside it. Nothing here asserts a speed
 * by itself: each timed check compares rates measured side by side in the same process, in a
 * band a probe at half the peak falls out of, and tries up to three times, never wider. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "compare.h"
#include "lab.h"
#include "table.h"

/* ---------------------------------------------------------------------------------
 * Machines to check against: the three GPUs of the chapter, each with both ceilings, and two
 * made-up ones with awkward numbers (not powers of ten, a ridge below 1). */

typedef struct test_machine { const char *what; double tflops, gb_per_s; } test_machine;
static const test_machine made_up[] = {{"a made-up CPU core", 0.0987654, 17.3}, {"a made-up slow-compute part", 0.0021, 512.5}};
static const char *gpu_keys[] = {"h100-sxm", "a100-80gb", "h200"};
enum { MADE_UP = 2, GPUS = 3 };

/* Each check computes what it expects after the code under test has returned (or keeps it in static storage),
 * not beforehand in its own locals: while that code runs there is no answer on the stack to copy. */
static roofline exact(double tflops, double gb_per_s) { return (roofline){tflops * 1e12, gb_per_s * 1e9}; }
static double exact_min(double a, double b) { return a < b ? a : b; }
/* Right to 12 digits: another order of the same arithmetic (a branch on the ridge instead of a
 * min, TFLOP/s x 1000 x 10^9) may round the last bit differently, and is as right. */
static int agrees(double got, double want) { return fabs(got - want) <= 1e-12 * fabs(want); }

#define HINT_DATASHEET "roofline_from_datasheet: the struct holds base units, FLOP/s and byte/s; a datasheet's " \
                       "tera is 10^12 and its giga 10^9 (decimal, not 2^40 or 2^30)."
#define HINT_RIDGE "The ridge point is where the slope (bytes/s x FLOP/byte) reaches the ceiling (FLOP/s): solve " \
                   "for the intensity. Its unit is FLOP/byte, and it grows with the peak."
#define HINT_ATTAINABLE "A kernel of intensity I can never go faster than the bytes can feed it (I x bandwidth) nor " \
                        "than the arithmetic can go (the peak): the attainable rate is the lower of the two."
#define HINT_TIME "The least time: the FLOPs need flops / peak seconds, the bytes bytes / bandwidth; a kernel that " \
                  "overlaps loads with arithmetic (every good one does) takes as long as the longer of the two."
#define HINT_BOUND "Memory-bound means left of the ridge point: intensity below it. At the ridge itself both limits " \
                   "are equal, and the book calls it compute-bound (0)."

Test(datasheet, converts_to_base_units, .timeout = 5, .description = HINT_DATASHEET)
{
    for (int m = 0; m < MADE_UP; m++) {
        roofline got = roofline_from_datasheet(made_up[m].tflops, made_up[m].gb_per_s);
        roofline want = exact(made_up[m].tflops, made_up[m].gb_per_s);
        cr_assert(agrees(got.peak_flop_per_s, want.peak_flop_per_s) &&
                  agrees(got.bandwidth_byte_per_s, want.bandwidth_byte_per_s),
                  "%s, %g TFLOP/s and %g GB/s: got peak %.6g FLOP/s and bandwidth %.6g byte/s, want %.6g and %.6g "
                  "(ratios %.3g and %.3g)", made_up[m].what, made_up[m].tflops, made_up[m].gb_per_s,
                  got.peak_flop_per_s, got.bandwidth_byte_per_s, want.peak_flop_per_s, want.bandwidth_byte_per_s,
                  got.peak_flop_per_s / want.peak_flop_per_s, got.bandwidth_byte_per_s / want.bandwidth_byte_per_s);
    }
}

/* The ridge of each GPU row and ceiling, as the chapter's table gives it. */
Test(ridge, h100_a100_h200_from_gpus_csv, .timeout = 5, .description = HINT_RIDGE " " HINT_DATASHEET)
{
    static const char *ceilings[] = {"fp16_tensor_tflops", "fp32_tflops"};
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    for (int g = 0; g < GPUS; g++)
        for (int c = 0; c < 2; c++) {
            int row = lab_table_find(gpus, "key", gpu_keys[g]);
            cr_assert(row >= 0, "data/gpus.csv has no row %s", gpu_keys[g]);
            double tflops = lab_table_number_or_exit(gpus, row, ceilings[c]);
            double gb_per_s = lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s");
            double got = roofline_ridge_point(roofline_from_datasheet(tflops, gb_per_s));
            double want = tflops * 1e12 / (gb_per_s * 1e9);
            lab_comparison result = lab_compare_doubles("ridge", &got, &want, 1, 1e-12, 0);
            cr_assert(result.mismatches == 0, "%s, %s = %g and memory_bandwidth_gb_per_s = %g: ridge point %.6g "
                      "FLOP/byte, want %.6g (%s)", lab_table_text_or_exit(gpus, row, "name"), ceilings[c], tflops, gb_per_s,
                      got, want, result.message);
        }
    lab_table_free(gpus);
}

Test(ridge, of_made_up_machines, .timeout = 5, .description = HINT_RIDGE)
{
    for (int m = 0; m < MADE_UP; m++) {
        roofline machine = exact(made_up[m].tflops, made_up[m].gb_per_s);
        double got = roofline_ridge_point(machine), want = machine.peak_flop_per_s / machine.bandwidth_byte_per_s;
        lab_comparison result = lab_compare_doubles("ridge", &got, &want, 1, 1e-12, 0);
        cr_assert(result.mismatches == 0, "%s (%.6g FLOP/s, %.6g byte/s): ridge point %.6g FLOP/byte, want %.6g",
                  made_up[m].what, machine.peak_flop_per_s, machine.bandwidth_byte_per_s, got, want);
    }
}

/* min(peak, I x BW), to 12 digits: a definition, not a measurement. */
static void check_attainable(roofline machine, const char *what)
{
    double ridge = machine.peak_flop_per_s / machine.bandwidth_byte_per_s;
    double intensities[40];
    int count = 0;
    for (double i = 1e-3; i < 1.5e5; i *= 2.37) intensities[count++] = i;
    intensities[count++] = 0, intensities[count++] = ridge, intensities[count++] = ridge * 0.999;
    intensities[count++] = ridge * 1.001;
    for (int k = 0; k < count; k++) {
        double got = roofline_attainable(machine, intensities[k]);
        double want = exact_min(machine.peak_flop_per_s, intensities[k] * machine.bandwidth_byte_per_s);
        cr_assert(agrees(got, want), "%s (peak %.6g FLOP/s, bandwidth %.6g byte/s, ridge %.4g FLOP/byte), intensity "
                  "%.6g FLOP/byte: attainable %.12g FLOP/s, want %.12g (%s)", what, machine.peak_flop_per_s,
                  machine.bandwidth_byte_per_s, ridge, intensities[k], got, want,
                  intensities[k] < ridge ? "left of the ridge: the bandwidth line" : "at or right of the ridge: the peak");
    }
}

Test(attainable, is_min_of_peak_and_bandwidth_line, .timeout = 5, .description = HINT_ATTAINABLE)
{
    for (int m = 0; m < MADE_UP; m++) check_attainable(exact(made_up[m].tflops, made_up[m].gb_per_s), made_up[m].what);
    check_attainable(exact(989.4, 3350), "H100 SXM, FP16 Tensor");
    check_attainable(exact(19.5, 2039), "A100 SXM 80GB, FP32");
}

Test(predicted_time, is_the_larger_of_compute_and_memory_time, .timeout = 5, .description = HINT_TIME)
{
    static const double cases[][2] = {{2e6, 12e6}, {4.2e9, 1.1e6}, {1e9, 1e9}, {0, 4096}, {1e12, 0}, {7e6, 3.3e5}};
    for (int m = 0; m < MADE_UP; m++)
        for (int c = 0; c < 6; c++) {
            roofline machine = exact(made_up[m].tflops, made_up[m].gb_per_s);
            double flops = cases[c][0], bytes = cases[c][1], got = roofline_predicted_seconds(machine, flops, bytes);
            double compute = flops / machine.peak_flop_per_s, memory = bytes / machine.bandwidth_byte_per_s;
            double want = compute > memory ? compute : memory;
            lab_comparison result = lab_compare_doubles("seconds", &got, &want, 1, 1e-12, 0);
            cr_assert(result.mismatches == 0, "%s, %g FLOPs and %g bytes: %.6g s, want %.6g s (compute alone %.6g s, "
                      "memory alone %.6g s)", made_up[m].what, flops, bytes, got, want, compute, memory);
        }
}

Test(bound, memory_left_of_the_ridge, .timeout = 5, .description = HINT_BOUND)
{
    for (int m = 0; m < MADE_UP; m++) {
        roofline machine = exact(made_up[m].tflops, made_up[m].gb_per_s);
        double ridge = machine.peak_flop_per_s / machine.bandwidth_byte_per_s;
        double intensities[] = {0, ridge / 100, ridge * 0.999, ridge * 1.001, ridge * 100};
        static const int want[] = {1, 1, 1, 0, 0};   /* not on the stack (exact, above, says why) */
        for (int k = 0; k < 5; k++) {
            int got = roofline_is_memory_bound(machine, intensities[k]);
            cr_assert(got == want[k], "%s, ridge %.6g FLOP/byte, intensity %.6g: roofline_is_memory_bound = %d, "
                      "want %d", made_up[m].what, ridge, intensities[k], got, want[k]);
        }
    }
    /* At the ridge itself, on machines whose ridge is exact (1.5e12 / 250e9 = 6, 4.8e11 / 3e10 = 16,
     * and 6 x 250e9 = 1.5e12 exactly): both limits are equal there, and the book says compute-bound. */
    static const roofline exact_ridges[] = {{1.5e12, 250e9}, {4.8e11, 3e10}};
    for (int m = 0; m < 2; m++) {
        double ridge = exact_ridges[m].peak_flop_per_s / exact_ridges[m].bandwidth_byte_per_s;
        int got = roofline_is_memory_bound(exact_ridges[m], ridge);
        cr_assert(got == 0, "peak %.6g FLOP/s, bandwidth %.6g byte/s: at the ridge, intensity %g, "
                  "roofline_is_memory_bound = %d, want 0: there the bytes just keep up, and the book calls it "
                  "compute-bound", exact_ridges[m].peak_flop_per_s, exact_ridges[m].bandwidth_byte_per_s, ridge, got);
    }
}

/* ---------------------------------------------------------------------------------
 * The week's kernels on the GPUs' rooflines: the chapter's headline. */

#define HINT_LLAMA "Decode multiplies each FP16 weight (2 bytes) once: about 1 FLOP/byte, far left of every GPU's " \
                   "ridge. Prefill reuses each weight for 512 tokens. If this fails, the checks above say which " \
                   "function is wrong."
Test(kernels, llama_decode_memory_bound_prefill_compute_bound, .timeout = 30, .description = HINT_LLAMA)
{
    week_kernel kernels[WEEK_KERNELS];
    cr_assert(week_kernels(kernels) == NULL, "a kernel of run.cu failed");
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    for (int g = 0; g < GPUS; g++) {
        int row = lab_table_find(gpus, "key", gpu_keys[g]);
        roofline machine = roofline_from_datasheet(lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops"),
                                                   lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s"));
        const week_kernel *decode = &kernels[KERNEL_LLAMA_DECODE], *prefill = &kernels[KERNEL_LLAMA_PREFILL];
        double decode_i = decode->flops / kernel_bytes(decode), prefill_i = prefill->flops / kernel_bytes(prefill);
        int decode_bound = roofline_is_memory_bound(machine, decode_i);
        int prefill_bound = roofline_is_memory_bound(machine, prefill_i);
        double got = roofline_predicted_seconds(machine, decode->flops, kernel_bytes(decode));
        roofline want_machine = exact(lab_table_number_or_exit(gpus, row, "fp16_tensor_tflops"),
                                      lab_table_number_or_exit(gpus, row, "memory_bandwidth_gb_per_s"));
        cr_assert(decode_bound && !prefill_bound,
                  "%s, FP16 Tensor: decode at %.3g FLOP/byte gave memory-bound = %d (want 1), prefill at %.4g gave %d "
                  "(want 0); the ridge is %.4g", lab_table_text_or_exit(gpus, row, "name"), decode_i, decode_bound,
                  prefill_i, prefill_bound, want_machine.peak_flop_per_s / want_machine.bandwidth_byte_per_s);
        double want = kernel_bytes(decode) / want_machine.bandwidth_byte_per_s;
        lab_comparison result = lab_compare_doubles("decode seconds", &got, &want, 1, 1e-9, 0);
        cr_assert(result.mismatches == 0, "%s: one decode step of Llama-2-7B's linear maps (%.4g bytes): %.6g ms, "
                  "want %.6g ms, the time to read the weights once", lab_table_text_or_exit(gpus, row, "name"),
                  kernel_bytes(decode), got * 1e3, want * 1e3);
    }
    lab_table_free(gpus);
}

Test(kernels, counted_bytes_match_the_chapter_formulas, .timeout = 30,
     .description = "The driver's kernels and the chapter's formulas disagree: the driver is broken (make reset "
                    "DAY=14 restores it). Nothing of yours is checked here.")
{
    week_kernel kernels[WEEK_KERNELS];
    cr_assert(week_kernels(kernels) == NULL, "a kernel of run.cu failed");
    if (kernels[KERNEL_TRIAD].counted_bytes < 0) cr_skip("bytes are counted only on the simulator");
    for (int k = 0; k <= KERNEL_MATMUL_TILED; k++)
        cr_assert(kernels[k].counted_bytes == kernels[k].formula_bytes, "%s: counted %.0f bytes, the formula says %.0f",
                  kernels[k].name, kernels[k].counted_bytes, kernels[k].formula_bytes);
}

/* ---------------------------------------------------------------------------------
 * The prediction: the rate of independent FMA chains, from latency and pipes. */

#define HINT_PREDICTED "FMAs in flight = latency x FMAs started a cycle (Little's law): c chains keep c FMAs in " \
                       "flight, so the core starts c / latency a cycle, but never more than its pipes. Each FMA is " \
                       "2 FLOPs a lane; the clock is in GHz."

Test(prediction, fma_rate_from_latency_and_pipes, .timeout = 5, .description = HINT_PREDICTED)
{
    static const struct { int chains, latency, pipes, lanes; double ghz, want; } cases[] = {
        {1, 4, 2, 8, 2.596, 10.384e9},   /* 1/4 FMA a cycle x 8 lanes x 2 x 2.596 GHz: the chapter's one chain */
        {4, 4, 2, 8, 3.0, 48e9},         /* 1 a cycle: half the pipes */
        {8, 4, 2, 8, 3.0, 96e9},         /* 2 a cycle: both pipes, the peak */
        {12, 4, 2, 8, 3.0, 96e9},        /* 3 would be in reach, the pipes start 2: still the peak */
        {6, 4, 2, 8, 1.0, 24e9},         /* 1.5 a cycle: chains need not divide by the latency */
        {3, 5, 1, 4, 2.0, 9.6e9},        /* 0.6 a cycle, one pipe, 4 lanes */
        {10, 3, 4, 16, 1.5, 160e9},      /* 10/3 a cycle, under 4 pipes, 16 lanes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = fma_predicted_flop_per_s(cases[i].chains, cases[i].latency, cases[i].pipes, cases[i].lanes,
                                              cases[i].ghz);
        double in_flight = (double)cases[i].chains / cases[i].latency;
        cr_assert(fabs(got - cases[i].want) <= 1e-9 * cases[i].want, "fma_predicted_flop_per_s(%d chains, latency "
                  "%d, %d pipes, %d lanes, %g GHz) = %.6g FLOP/s, want %.6g: %.4g FMAs a cycle in reach (chains / "
                  "latency), %d at most (the pipes)%s", cases[i].chains, cases[i].latency, cases[i].pipes,
                  cases[i].lanes, cases[i].ghz, got, cases[i].want, in_flight, cases[i].pipes,
                  got == 0 ? ". 0: not written yet, or chains / latency in integer arithmetic?" : "");
    }
}

/* Held against the driver's 1, 2 and 4 chains, each timed side by side with its 12: on a core
 * whose FMA takes 4 cycles and which has 2 pipes (the chapter's, every current x86 core's), c
 * chains reach c/8 of the 12. The band, 0.7x to 1.4x the prediction, holds a core with a
 * latency of 3 or 5 too; a busy machine gets three tries, never a wider band. */
Test(prediction, matches_chains_measured_side_by_side, .timeout = 30, .description = HINT_PREDICTED)
{
#if !defined(__x86_64__)
    cr_skip("the chapter's latency (4 cycles) and pipes (2) are x86 cores'; this CPU's may differ");
#endif
    if (!simd_target_supported()) cr_skip("this CPU has no AVX2 and FMA, which the probes are compiled for");
    const int lanes = simd_hardware_lanes(), chains[] = {1, 2, 4};
    double reference_predicted = fma_predicted_flop_per_s(REFERENCE_CHAINS, 4, 2, lanes, 1.0);
    for (int i = 0; i < 3; i++) {
        double predicted = fma_predicted_flop_per_s(chains[i], 4, 2, lanes, 1.0) / reference_predicted;
        double measured = 0, rate = 0, reference = 0;
        for (int attempt = 0; attempt < 3; attempt++) {
            best_fma_rates_side_by_side(fma_chains_probe(chains[i]), fma_chains_probe(REFERENCE_CHAINS), 0.001, 10,
                                        &rate, &reference);
            measured = rate / reference;
            if (measured >= 0.7 * predicted && measured <= 1.4 * predicted) break;
        }
        cr_assert(measured >= 0.7 * predicted && measured <= 1.4 * predicted, "%d chain%s: measured %.3f of %d "
                  "chains' rate (%.1f against %.1f GFLOP/s, side by side, best of 10 rounds of 1 ms, 3 tries); your "
                  "fma_predicted_flop_per_s, at latency 4 and 2 pipes, says %.3f; want the measurement within 0.7x "
                  "to 1.4x of it. %s", chains[i], chains[i] > 1 ? "s" : "", measured, REFERENCE_CHAINS, rate / 1e9,
                  reference / 1e9, predicted, predicted > 0 && isfinite(predicted) ? "If the check above passes, "
                  "this core's FMA latency or pipes differ from the chapter's: exercise 4 measures them." : "No "
                  "prediction to compare: the check above, on fma_predicted_flop_per_s, comes first.");
    }
}

/* ---------------------------------------------------------------------------------
 * The peak probe. */

#define HINT_CHAINS "One chain waits the FMA's latency (about 4 cycles) between FMAs, and the core has two FMA " \
                    "pipes: to keep both busy every cycle, latency x pipes FMAs must be in flight, in independent " \
                    "accumulators, and they must fit in the 16 vector registers."
#define HINT_FLOPS "Count what the loop does: per iteration, per chain, one FMA on each of SIMD_FLOATS lanes, and " \
                   "an FMA is 2 FLOPs (a multiply and an add)."
#define HINT_VALUE "Every lane of every chain starts at start and repeats acc = acc * multiplier + addend, once per " \
                   "iteration; *lane_sum is the sum of every lane of every chain (simd_sum_lanes of their sum)."

#define SKIP_WITHOUT_SIMD() \
    do { if (!simd_target_supported()) cr_skip("this CPU has no AVX2 and FMA, which the probe is compiled for"); } while (0)

Test(peak, flops_and_lane_sum_are_what_the_chains_did, .timeout = 10, .description = HINT_FLOPS " " HINT_VALUE)
{
    SKIP_WITHOUT_SIMD();
    /* 2^24 + 1: the first count a float cannot hold, so the FLOPs must be counted in double */
    static const long iterations[] = {1, 7, 1000, 20000, (1L << 24) + 1};
    static const float starts[] = {0.5f, -3.0f, 2.0f, 0.25f, 1.0f};
    for (int t = 0; t < 5; t++) {
        float multiplier = 0.999f, addend = 0.001f, lane_sum = NAN, one = NAN;
        double flops = fma_peak_run(iterations[t], starts[t], multiplier, addend, &lane_sum);
        fma_chains_probe(1)(iterations[t], starts[t], multiplier, addend, &one);   /* one chain: SIMD_FLOATS lanes */
        double per_iteration = 2.0 * SIMD_FLOATS;
        double chains = flops / (per_iteration * (double)iterations[t]);
        cr_assert(chains >= 1 && chains == floor(chains) && chains <= 64, "%ld iterations: fma_peak_run returned %.6g "
                  "FLOPs, %.9g per iteration; want a whole number of chains x %g (2 FLOPs x %d lanes)", iterations[t],
                  flops, flops / (double)iterations[t], per_iteration, SIMD_FLOATS);
        float want = (float)(chains * one);   /* every chain computes what the single chain does */
        lab_comparison result = lab_compare_floats("lane_sum", &lane_sum, &want, 1, 1e-5, 1e-6);
        cr_assert(result.mismatches == 0, "%ld iterations from start %g: *lane_sum = %.7g, want %.7g, which is %g "
                  "chains (from the FLOPs you returned) x %.7g, the lane sum of one chain (%s)", iterations[t],
                  starts[t], lane_sum, want, chains, one, result.message);
    }
}

/* Timed side by side with the driver's 12 independent chains: the same FMAs, so the same rate
 * when both reach the peak. A probe at half the peak (4 chains) is 0.5x; the band is 0.8x to
 * 1.25x, best of 16 rounds of 1 ms, and a busy machine gets three tries, never a wider band. */
Test(peak, as_fast_as_the_reference_chains, .timeout = 30, .description = HINT_CHAINS)
{
    SKIP_WITHOUT_SIMD();
    double mine = 0, reference = 0, ratio = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        best_fma_rates_side_by_side(fma_peak_run, fma_chains_probe(REFERENCE_CHAINS), 0.001, 16, &mine, &reference);
        ratio = mine / reference;
        if (ratio >= 0.8 && ratio <= 1.25) break;
    }
    cr_assert(ratio >= 0.8 && ratio <= 1.25, "fma_peak_run reached %.1f GFLOP/s, the driver's %d independent chains "
              "%.1f GFLOP/s, timed side by side (best of 16 rounds of 1 ms, 3 tries): %.2fx, want 0.8x to 1.25x. %s",
              mine / 1e9, REFERENCE_CHAINS, reference / 1e9, ratio, ratio < 0.8 ? "Too slow: c chains reach about "
              "min(c / latency, pipes) / pipes of the peak (your fma_predicted_flop_per_s says how many it takes); "
              "more than about 14 accumulators no longer fit in the 16 vector registers and spill to memory."
              : "Faster than the same FMAs can go: are the FLOPs counted right?");
}
