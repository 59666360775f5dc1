/* main.c — Day 05 driver: how full are the warps? Do not edit.
 *
 *   build/05-divergence/labs-sim/lab RESULTS.csv     (make check DAY=05 runs it)
 *
 * 1. Checks your two rewrites against the originals (4099 elements, blocks of 256; the
 *    experts with your group_by_expert), then prints what the simulator counted for each:
 *    SIMT efficiency, warp-level steps, sectors per global load request.
 * 2. Runs 2048 threads in which groups of `group` consecutive threads alternate between two
 *    paths of equal length, for group = 1 .. 128, and writes one row per group:
 *      group_threads, counted_simt_efficiency, predicted_simt_efficiency,
 *      counted_relative_steps, predicted_relative_steps
 *    "counted" comes from the simulator (empty on a GPU, where ncu measures it); "predicted"
 *    from your branch_cost_model. The steps are relative to warp-uniform groups of 32: how
 *    many times longer the warps spend issuing the branch. Counted, never timed. */
#include "compare.h"
#include "lab.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>

enum { N = 4099, THREADS = 2048, MAX_GROUP = 128 };

static void fill(float *x, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
    }
}

static void print_counts(const char *who, branch_run run)
{
    if (!run.counted) {
        printf("  %-44s (not counted on a GPU: measure it with ncu, see the chapter)\n", who);
        return;
    }
    printf("  %-44s %8.3f %12llu %12.2f\n", who, run.simt_efficiency, run.warp_steps, run.load_sectors_per_request);
}

/* Correctness before counting: a fast wrong answer measures nothing. */
static void compare_rewrites(void)
{
    float *x = malloc(sizeof(float) * N), *want = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    int *expert = malloc(sizeof(int) * N);
    int *order = malloc(sizeof(int) * 3 * N);   /* room behind: a group_by_expert that overruns is reported, not a crash */
    fill(x, N, 3);
    printf("%-46s %8s %12s %12s\n", "counted on the simulator, n = 4099", "SIMT eff", "warp steps", "sectors/load");

    branch_run original = gpu_even_odd_divergent(x, want, N, 256);
    print_counts("even/odd, original (element i on thread i)", original);
    lab_poison(y, sizeof(float) * N);
    branch_run yours = gpu_even_odd_uniform(x, y, N, 256);
    lab_comparison result = lab_compare_floats("y", y, want, N, 0, 0);
    if (yours.error || result.mismatches)
        printf("  even/odd, yours: not right yet (%s); make check DAY=05 says which test fails\n",
               yours.error ? yours.error : result.message);
    else
        print_counts("even/odd, yours", yours);

    unsigned seed = 7;
    for (int i = 0; i < N; i++) seed = seed * 1664525u + 1013904223u, expert[i] = (int)((seed >> 12) % EXPERTS);
    original = gpu_experts_divergent(x, expert, want, N);
    print_counts("experts, original (token t on thread t)", original);
    lab_poison(order, sizeof(int) * N);
    group_by_expert(expert, N, order);
    int is_permutation = 1;
    char *seen = calloc(N, 1);
    for (int t = 0; t < N && is_permutation; t++) {
        is_permutation = order[t] >= 0 && order[t] < N && !seen[order[t]];
        if (is_permutation) seen[order[t]] = 1;
    }
    free(seen);
    if (!is_permutation) {
        printf("  experts, yours: group_by_expert does not list every token once yet; not running the kernel\n");
    } else {
        lab_poison(y, sizeof(float) * N);
        yours = gpu_experts_grouped(x, expert, order, y, N);
        result = lab_compare_floats("y", y, want, N, 0, 0);
        if (yours.error || result.mismatches)
            printf("  experts, yours: not right yet (%s)\n", yours.error ? yours.error : result.message);
        else
            print_counts("experts, yours (grouped by expert)", yours);
    }
    free(x), free(want), free(y), free(expert), free(order);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    compare_rewrites();

    static double counted[MAX_GROUP + 1], counted_steps[MAX_GROUP + 1];
    static branch_cost predicted[MAX_GROUP + 1];
    int is_counted = 1;
    float *y = malloc(sizeof(float) * THREADS);
    for (int group = 1; group <= MAX_GROUP; group++) {
        branch_run run = gpu_alternating_groups(y, THREADS, group);
        if (run.error) {
            fprintf(stderr, "the alternating-groups kernel failed: %s\n", run.error);
            return 1;
        }
        is_counted = run.counted;
        counted[group] = run.simt_efficiency;
        counted_steps[group] = (double)run.warp_steps;
        predicted[group] = branch_cost_model(THREADS, group, WORK_STEPS, WORK_STEPS);
    }
    free(y);

    lab_results out = lab_results_open_or_exit(argv[1], "group_threads,counted_simt_efficiency,predicted_simt_efficiency,"
                                        "counted_relative_steps,predicted_relative_steps");
    for (int group = 1; group <= MAX_GROUP; group++) {
        /* An unwritten model predicts 0 (a flat line at the bottom of the plot); nothing is
         * counted on a GPU, so those cells stay empty there. */
        double relative = predicted[32].warp_steps > 0
                              ? (double)predicted[group].warp_steps / (double)predicted[32].warp_steps : 0.0;
        if (is_counted)
            lab_results_row_or_exit(&out, "%d,%.4f,%.4f,%.4f,%.4f", group, counted[group],
                        branch_simt_efficiency(predicted[group]), counted_steps[group] / counted_steps[32], relative);
        else
            lab_results_row_or_exit(&out, "%d,,%.4f,,%.4f", group, branch_simt_efficiency(predicted[group]), relative);
    }
    lab_results_close_or_exit(&out);

    printf("\n%d threads, groups of g consecutive threads alternating between two %d-step paths:\n", THREADS, WORK_STEPS);
    printf("  %6s %18s %20s\n", "g", "counted SIMT eff", "your model predicts");
    int shown[] = {1, 2, 4, 8, 16, 24, 32, 48, 64, 128};
    for (int k = 0; k < 10; k++) {
        int g = shown[k];
        char c[16] = "-";
        if (is_counted) snprintf(c, sizeof c, "%.3f", counted[g]);
        printf("  %6d %18s %20.3f\n", g, c, branch_simt_efficiency(predicted[g]));
    }
    if (!is_counted) printf("(on a GPU nothing is counted here: ncu measures SIMT efficiency, see the chapter)\n");
    return 0;
}
