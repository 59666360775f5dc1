/* 05-divergence.c — the checks for day 05: the even/odd rewrite gives the original's results
 * bit for bit, for sizes that are not multiples of 32, 64 or the block size, and touches
 * every element exactly once; its warps each take one path (SIMT efficiency >= 0.95, counted
 * on the simulator) and issue about half the steps of the original; group_by_expert is a
 * stable counting sort; the grouped expert kernel matches the original and its warps share
 * an expert; the branch-cost model is exact on hand-worked cases and agrees with what the
 * simulator counts. The originals are measured too (<= 0.6), to guard the measurement. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lab.h"

/* ---------------------------------------------------------------------------------
 * Inputs
 *
 * Each check computes what it expects after the code under test has returned: the original kernel's
 * output from inputs made afresh (from their seed, or from the caller's copy of the routes, not the
 * arrays that code was given), the offsets and the order from the caller's copy; the model's hand-worked
 * cases are static const, in the program's data. While it runs there is no answer in its caller's memory to
 * copy (tests/grader/forgeries/reads-expected-values.patch). */

/* Values in [-1, 1], from a seeded generator. */
static void fill_inputs(float *x, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
    }
}

/* Each token to one of the EXPERTS experts, uniformly at random (seeded). */
static void route_tokens(int *expert, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        expert[i] = (int)((seed >> 12) % EXPERTS);
    }
}

/* The tests' own counting sort: the order group_by_expert must produce. */
static void reference_order(const int *expert, int n, int *order)
{
    int k = 0;
    for (int e = 0; e < EXPERTS; e++)
        for (int i = 0; i < n; i++)
            if (expert[i] == e) order[k++] = i;
}

#define SKIP_UNLESS_COUNTED(run) \
    if (!(run).counted) cr_skip("SIMT efficiency is counted only on the simulator (BACKEND=sim); on a GPU, ncu measures it")

/* ---------------------------------------------------------------------------------
 * Even and odd elements */

static const int block_sizes[] = {256, 96, 32};
enum { BLOCK_SIZES = 3, MEASURED_N = 4099 };

#define HINT_EVEN_ODD "The results must stay those of the original, element by element; what changes is which " \
                      "thread computes which element. Every element below n needs exactly one thread, and the grid " \
                      "must hold enough threads for the mapping you chose (not just n). make hint DAY=05 goes step " \
                      "by step."

/* The original kernel's output on the inputs made afresh from `seed` (into x, whatever the code under test
 * left there), into want: run once that code has returned (see Inputs). */
static void original_even_odd(float *x, float *want, int n, unsigned seed)
{
    fill_inputs(x, n, seed);
    branch_run original = gpu_even_odd_divergent(x, want, n, 256);
    cr_assert(original.error == NULL, "n = %d: the original kernel failed: %s", n, original.error);
}

static void check_even_odd(int n)
{
    float *x = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    fill_inputs(x, n, 5u + (unsigned)n);
    for (int k = 0; k < BLOCK_SIZES; k++) {
        lab_poison(y, sizeof(float) * n), lab_poison(want, sizeof(float) * n);
        branch_run run = gpu_even_odd_uniform(x, y, n, block_sizes[k]);
        cr_assert(run.error == NULL, "n = %d, blocks of %d threads: CUDA error \"%s\"", n, block_sizes[k], run.error);
        original_even_odd(x, want, n, 5u + (unsigned)n);
        lab_comparison result = lab_compare_floats("y", y, want, (size_t)n, 0, 0);
        cr_assert(result.mismatches == 0, "n = %d, blocks of %d threads: %s", n, block_sizes[k], result.message);
        cr_assert(run.written_past_end == 0, "n = %d, blocks of %d threads: %lld elements written past y[%d]", n,
                  block_sizes[k], run.written_past_end, n - 1);
    }
    free(x), free(want), free(y);
}

Test(even_odd, n_1, .timeout = 20, .description = HINT_EVEN_ODD) { check_even_odd(1); }
Test(even_odd, n_31, .timeout = 20, .description = HINT_EVEN_ODD) { check_even_odd(31); }
Test(even_odd, n_33, .timeout = 20, .description = HINT_EVEN_ODD) { check_even_odd(33); }
Test(even_odd, n_1000, .timeout = 30, .description = HINT_EVEN_ODD) { check_even_odd(1000); }
Test(even_odd, n_4099, .timeout = 30, .description = HINT_EVEN_ODD) { check_even_odd(4099); }

Test(even_odd, each_element_exactly_once, .timeout = 30,
     .description = "Run in place (y is x), an element handled twice comes out as work(work(x)) and one never "
                    "handled stays x. Each element below n needs exactly one thread: check that your mapping from "
                    "thread to element never sends two threads to one element.")
{
    int sizes[] = {31, 33, 1000, 4099};
    for (int s = 0; s < 4; s++) {
        int n = sizes[s];
        float *x = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
        for (int k = 0; k < BLOCK_SIZES; k++) {
            fill_inputs(y, n, 7u + (unsigned)n);
            lab_poison(want, sizeof(float) * n);
            branch_run run = gpu_even_odd_uniform_in_place(y, n, block_sizes[k]);
            cr_assert(run.error == NULL, "in place, n = %d, blocks of %d: CUDA error \"%s\"", n, block_sizes[k],
                      run.error);
            original_even_odd(x, want, n, 7u + (unsigned)n);
            lab_comparison result = lab_compare_floats("x", y, want, (size_t)n, 0, 0);
            cr_assert(result.mismatches == 0, "in place, n = %d, blocks of %d threads: %s", n, block_sizes[k],
                      result.message);
        }
        free(x), free(want), free(y);
    }
}

Test(even_odd, the_original_diverges, .timeout = 30,
     .description = "This checks the measurement, not your code: the original even/odd kernel must count as "
                    "divergent (about 0.5). If it fails, the simulator no longer sees the branch: report it.")
{
    int n = MEASURED_N;
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    fill_inputs(x, n, 11);
    branch_run original = gpu_even_odd_divergent(x, y, n, 256);
    SKIP_UNLESS_COUNTED(original);
    cr_assert(original.error == NULL, "the original failed: %s", original.error);
    cr_assert(original.simt_efficiency <= 0.6, "the original's SIMT efficiency is %.3f, want <= 0.6",
              original.simt_efficiency);
    free(x), free(y);
}

Test(even_odd, warps_take_one_path, .timeout = 30,
     .description = "Each warp must run only even_work or only odd_work: the 32 lanes of a warp must all hold "
                    "elements of one parity. A warp is 32 consecutive threads of the grid, whatever the block "
                    "size (96-thread blocks included).")
{
    int n = MEASURED_N;
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    fill_inputs(x, n, 13);
    for (int k = 0; k < BLOCK_SIZES; k++) {
        branch_run run = gpu_even_odd_uniform(x, y, n, block_sizes[k]);
        SKIP_UNLESS_COUNTED(run);
        cr_assert(run.error == NULL, "blocks of %d threads: CUDA error \"%s\"", block_sizes[k], run.error);
        cr_assert(run.launches > 0, "blocks of %d threads: launch_even_odd_uniform launched no kernel", block_sizes[k]);
        cr_assert(run.simt_efficiency >= 0.95, "n = %d, blocks of %d threads: SIMT efficiency %.3f (counted), want at "
                  "least 0.95: on average only %.1f of 32 lanes did work in each step", n, block_sizes[k],
                  run.simt_efficiency, 32 * run.simt_efficiency);
    }
    free(x), free(y);
}

Test(even_odd, issues_half_the_steps, .timeout = 30,
     .description = "A warp-uniform rewrite issues each warp one path: about half the warp steps of the original. "
                    "Computing both even_work and odd_work and keeping one keeps every lane busy (high SIMT "
                    "efficiency) but issues both paths: it is divergence paid in full, by other means.")
{
    int n = MEASURED_N;
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    fill_inputs(x, n, 17);
    branch_run original = gpu_even_odd_divergent(x, y, n, 256);
    branch_run run = gpu_even_odd_uniform(x, y, n, 256);
    SKIP_UNLESS_COUNTED(run);
    cr_assert(run.error == NULL && original.error == NULL, "CUDA error \"%s\"", run.error ? run.error : original.error);
    double ratio = original.warp_steps ? (double)run.warp_steps / (double)original.warp_steps : 1;
    cr_assert(ratio <= 0.6, "n = %d, blocks of 256: your kernel issued %llu warp steps, the original %llu (%.2f of "
              "it); want at most 0.6 of it", n, run.warp_steps, original.warp_steps, ratio);
    free(x), free(y);
}

/* ---------------------------------------------------------------------------------
 * Grouping tokens by expert */

#define HINT_GROUP "A counting sort: each expert's group starts where the groups before it end, and the tokens " \
                   "are placed one by one in increasing order, each at its expert's next free position (that " \
                   "keeps every group in token order). The message shows the first elements that differ."
#define HINT_OFFSETS "start[e] is where expert e's group begins: the number of tokens routed to the experts BEFORE " \
                     "e, so expert 0's group begins at 0 (an exclusive prefix sum of the counts). Exactly EXPERTS " \
                     "entries are written, and the counts start from zero on every call."

/* A copy of expert[0 .. n-1] followed by 64 entries of expert 0: a loop that reads one token too
 * many then counts (or places) a token of expert 0 that does not exist, which always shows. */
static int *guarded_experts(const int *expert, int n)
{
    int *copy = malloc(sizeof(int) * (size_t)(n + 64));
    if (n) memcpy(copy, expert, sizeof(int) * (size_t)n);
    memset(copy + n, 0, sizeof(int) * 64);
    return copy;
}

/* Runs expert_offsets into a start array with sentinels behind it. */
static void check_offsets(const char *name, const int *given, int n)
{
    int *expert = guarded_experts(given, n);
    enum { GUARD = 64 };
    int start[EXPERTS + GUARD];
    lab_poison(start, sizeof(int) * EXPERTS);
    for (int i = EXPERTS; i < EXPERTS + GUARD; i++) start[i] = 0x5a5a5a5a;
    expert_offsets(expert, n, start);
    int want[EXPERTS] = {0}, count[EXPERTS] = {0};
    for (int i = 0; i < n; i++) count[given[i]]++;
    for (int e = 1; e < EXPERTS; e++) want[e] = want[e - 1] + count[e - 1];
    int past = 0;
    for (int i = EXPERTS; i < EXPERTS + GUARD; i++) past += start[i] != 0x5a5a5a5a;
    cr_assert(past == 0, "%s: expert_offsets wrote %d int%s past start[%d] (start[%d] = %d): there are %d experts, "
              "so exactly %d starts", name, past, past == 1 ? "" : "s", EXPERTS - 1, EXPERTS, start[EXPERTS], EXPERTS,
              EXPERTS);
    lab_comparison result = lab_compare_ints("start", start, want, EXPERTS);
    cr_assert(result.mismatches == 0, "%s (counts per expert {%d, %d, %d, %d}, so starts {%d, %d, %d, %d}): %s", name,
              count[0], count[1], count[2], count[3], want[0], want[1], want[2], want[3], result.message);
    free(expert);
}

Test(expert_offsets, small_example, .timeout = 10, .description = HINT_OFFSETS)
{
    int expert[] = {2, 0, 1, 0, 3, 2, 0, 1};
    check_offsets("experts {2, 0, 1, 0, 3, 2, 0, 1}", expert, 8);
}

Test(expert_offsets, unused_and_crowded_experts, .timeout = 10, .description = HINT_OFFSETS)
{
    int n = 1000, *expert = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) expert[i] = 3;
    check_offsets("1000 tokens all routed to expert 3", expert, n);
    for (int i = 0; i < n; i++) expert[i] = 0;
    check_offsets("1000 tokens all routed to expert 0", expert, n);
    for (int i = 0; i < n; i++) expert[i] = (i % 7 == 0) ? 1 : 3;
    check_offsets("1000 tokens on experts 1 and 3, none on 0 and 2", expert, n);
    free(expert);
}

Test(expert_offsets, writes_exactly_experts_entries, .timeout = 10, .description = HINT_OFFSETS)
{
    int n = MEASURED_N, *expert = malloc(sizeof(int) * n);
    route_tokens(expert, n, 59);
    check_offsets("4099 tokens routed at random", expert, n);
    check_offsets("no tokens at all", expert, 0);
    route_tokens(expert, n, 61);
    check_offsets("a second call, 4099 other tokens (counts from zero again?)", expert, n);
    free(expert);
}

/* Runs group_by_expert on an order array with a guard region behind it. */
static void check_grouping(const char *name, const int *given, int n)
{
    int *expert = guarded_experts(given, n);
    int guard = n + 64;
    int *order = malloc(sizeof(int) * (size_t)(n + guard)), *want = malloc(sizeof(int) * (size_t)n);
    lab_poison(order, sizeof(int) * (size_t)n);
    for (int i = n; i < n + guard; i++) order[i] = 0x5a5a5a5a;
    group_by_expert(expert, n, order);
    reference_order(given, n, want);
    int past = 0;
    for (int i = n; i < n + guard; i++) past += order[i] != 0x5a5a5a5a;
    lab_comparison result = lab_compare_ints("order", order, want, (size_t)n);
    cr_assert(result.mismatches == 0, "%s: %s%s", name, result.message,
              past ? "; and group_by_expert wrote past the end of order" : "");
    cr_assert(past == 0, "%s: group_by_expert wrote %d element%s past order[%d]", name, past, past == 1 ? "" : "s",
              n - 1);
    free(order), free(want), free(expert);
}

Test(group_by_expert, small_example, .timeout = 10, .description = HINT_GROUP)
{
    int expert[] = {2, 0, 1, 0, 3, 2, 0, 1};
    check_grouping("experts {2, 0, 1, 0, 3, 2, 0, 1} (want order {1, 3, 6, 2, 7, 0, 5, 4})", expert, 8);
}

Test(group_by_expert, one_token, .timeout = 10, .description = HINT_GROUP)
{
    int expert[] = {3};
    check_grouping("one token, routed to expert 3", expert, 1);
}

Test(group_by_expert, random_routes, .timeout = 10, .description = HINT_GROUP)
{
    int n = MEASURED_N, *expert = malloc(sizeof(int) * n);
    route_tokens(expert, n, 19);
    check_grouping("4099 tokens routed at random", expert, n);
    free(expert);
}

Test(group_by_expert, unused_and_crowded_experts, .timeout = 10, .description = HINT_GROUP)
{
    int n = 1000, *expert = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) expert[i] = 3;
    check_grouping("1000 tokens all routed to expert 3", expert, n);
    for (int i = 0; i < n; i++) expert[i] = (i % 7 == 0) ? 1 : 3;
    check_grouping("1000 tokens on experts 1 and 3, none on 0 and 2", expert, n);
    free(expert);
}

Test(group_by_expert, called_twice, .timeout = 10,
     .description = "The counts must start from zero on every call: keep them in local variables, not static ones.")
{
    int n = 500, *expert = malloc(sizeof(int) * n);
    route_tokens(expert, n, 23);
    check_grouping("first call, 500 random tokens", expert, n);
    route_tokens(expert, n, 29);
    check_grouping("second call, 500 other random tokens", expert, n);
    free(expert);
}

/* ---------------------------------------------------------------------------------
 * Tokens routed to experts */

#define HINT_EXPERTS "Thread t now handles the t-th token of the grouped order, not token t: everything about that " \
                     "token (its expert, its input, its output) is found at the token's own place. The message " \
                     "shows the first tokens that differ."

static void check_experts(const char *name, const int *expert, int n)
{
    float *x = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    int *order = malloc(sizeof(int) * n), *routes = malloc(sizeof(int) * n);
    fill_inputs(x, n, 31u + (unsigned)n);
    memcpy(routes, expert, sizeof(int) * n);
    reference_order(expert, n, order);
    lab_poison(y, sizeof(float) * n);
    branch_run run = gpu_experts_grouped(x, routes, order, y, n);
    cr_assert(run.error == NULL, "%s: CUDA error \"%s\"", name, run.error);
    fill_inputs(x, n, 31u + (unsigned)n);
    branch_run original = gpu_experts_divergent(x, expert, want, n);
    cr_assert(original.error == NULL, "%s: the original kernel failed: %s", name, original.error);
    lab_comparison result = lab_compare_floats("y", y, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "%s: %s", name, result.message);
    cr_assert(run.written_past_end == 0, "%s: %lld elements written past y[%d]", name, run.written_past_end, n - 1);
    free(x), free(want), free(y), free(order), free(routes);
}

static void check_random_experts(int n)
{
    int *expert = malloc(sizeof(int) * n);
    route_tokens(expert, n, 37u + (unsigned)n);
    char name[64];
    snprintf(name, sizeof name, "%d tokens routed at random", n);
    check_experts(name, expert, n);
    free(expert);
}

Test(experts, tokens_1, .timeout = 20, .description = HINT_EXPERTS) { check_random_experts(1); }
Test(experts, tokens_33, .timeout = 20, .description = HINT_EXPERTS) { check_random_experts(33); }
Test(experts, tokens_4099, .timeout = 30, .description = HINT_EXPERTS) { check_random_experts(MEASURED_N); }

Test(experts, skewed_routes, .timeout = 30, .description = HINT_EXPERTS)
{
    int n = 1000, *expert = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) expert[i] = (i % 7 == 0) ? 1 : 3;
    check_experts("1000 tokens on experts 1 and 3, none on 0 and 2", expert, n);
    free(expert);
}

Test(experts, each_token_exactly_once, .timeout = 30,
     .description = "Run in place (y is x), a token handled twice comes out as expert(expert(x)) and one never "
                    "handled stays x: some token was given to two threads, or to none.")
{
    int n = MEASURED_N, *expert = malloc(sizeof(int) * n), *order = malloc(sizeof(int) * n);
    float *x = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    route_tokens(expert, n, 41);
    reference_order(expert, n, order);
    fill_inputs(x, n, 43);
    branch_run run = gpu_experts_grouped_in_place(x, expert, order, n);
    cr_assert(run.error == NULL, "in place: CUDA error \"%s\"", run.error);
    int *routes = malloc(sizeof(int) * n);
    float *inputs = malloc(sizeof(float) * n);
    route_tokens(routes, n, 41), fill_inputs(inputs, n, 43);
    gpu_experts_divergent(inputs, routes, want, n);
    lab_comparison result = lab_compare_floats("x", x, want, (size_t)n, 0, 0);
    cr_assert(result.mismatches == 0, "in place, %d tokens: %s", n, result.message);
    free(expert), free(order), free(x), free(want), free(routes), free(inputs);
}

/* The counts of the original and of yours, on 4099 tokens routed at random. */
static void measure_experts(branch_run *original, branch_run *yours)
{
    int n = MEASURED_N, *expert = malloc(sizeof(int) * n), *order = malloc(sizeof(int) * n);
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    route_tokens(expert, n, 47);
    reference_order(expert, n, order);
    fill_inputs(x, n, 53);
    *original = gpu_experts_divergent(x, expert, y, n);
    *yours = gpu_experts_grouped(x, expert, order, y, n);
    free(expert), free(order), free(x), free(y);
}

Test(experts, the_original_diverges, .timeout = 30,
     .description = "This checks the measurement, not your code: the original expert kernel must count as "
                    "divergent (about 0.25 with four experts). If it fails, the simulator no longer sees the "
                    "branch: report it.")
{
    branch_run original, yours;
    measure_experts(&original, &yours);
    SKIP_UNLESS_COUNTED(original);
    cr_assert(original.error == NULL, "the original failed: %s", original.error);
    cr_assert(original.simt_efficiency <= 0.6, "the original's SIMT efficiency is %.3f, want <= 0.6",
              original.simt_efficiency);
}

Test(experts, warps_share_an_expert, .timeout = 30,
     .description = "In the grouped order the tokens of one expert are neighbours, so a warp's 32 lanes share an "
                    "expert except where one group ends and the next begins. Is each thread following the order?")
{
    branch_run original, yours;
    measure_experts(&original, &yours);
    SKIP_UNLESS_COUNTED(yours);
    cr_assert(yours.error == NULL, "CUDA error \"%s\"", yours.error);
    cr_assert(yours.launches > 0, "launch_experts_grouped launched no kernel");
    cr_assert(yours.simt_efficiency >= 0.95, "%d tokens routed at random to %d experts: SIMT efficiency %.3f "
              "(counted), want at least 0.95; the original's is %.3f", MEASURED_N, EXPERTS, yours.simt_efficiency,
              original.simt_efficiency);
    double ratio = original.warp_steps ? (double)yours.warp_steps / (double)original.warp_steps : 1;
    cr_assert(ratio <= 0.5, "your kernel issued %llu warp steps, the original %llu (%.2f of it); a warp that "
              "shares one expert issues one expert's steps, so want at most 0.5 of it", yours.warp_steps,
              original.warp_steps, ratio);
}

/* ---------------------------------------------------------------------------------
 * The branch-cost model */

#define HINT_MODEL "Look at one warp at a time, and at every lane of it that exists: which path each lane takes " \
                   "(A for the even groups, B for the odd), and what each path then costs the warp, in steps and " \
                   "in active lanes. The message names the case and why it comes out as it does."

/* A hand-worked case, kept in a static const table (see Inputs for why). */
typedef struct model_case {
    int threads, group, steps_a, steps_b;
    long long want_steps, want_lanes;
    const char *why;
} model_case;

static void check_model(const model_case *cases, size_t count)
{
    for (const model_case *c = cases; c < cases + count; c++) {
        branch_cost got = branch_cost_model(c->threads, c->group, c->steps_a, c->steps_b);
        cr_assert(got.warp_steps == c->want_steps && got.lane_steps == c->want_lanes,
                  "branch_cost_model(threads %d, group %d, steps %d and %d) = {warp_steps %lld, lane_steps %lld}, "
                  "want {%lld, %lld}, a SIMT efficiency of %.3f: %s", c->threads, c->group, c->steps_a, c->steps_b,
                  got.warp_steps, got.lane_steps, c->want_steps, c->want_lanes,
                  (double)c->want_lanes / (32.0 * (double)c->want_steps), c->why);
    }
}

Test(branch_cost_model, alternating_threads, .timeout = 5, .description = HINT_MODEL)
{
    static const model_case cases[] = {
        {64, 1, 64, 64, 256, 4096, "every warp holds both paths, so each issues 64 + 64 steps, 16 lanes active"},
        {256, 16, 64, 64, 1024, 16384, "groups of 16: still both paths in every warp"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, whole_warps, .timeout = 5, .description = HINT_MODEL)
{
    static const model_case cases[] = {
        {256, 32, 64, 64, 512, 16384, "groups of 32 are whole warps: one path each"},
        {256, 64, 10, 30, 160, 5120, "groups of 64: warps 0, 1, 4, 5 take A (10 steps), 2, 3, 6, 7 take B (30)"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, groups_that_straddle_warps, .timeout = 5, .description = HINT_MODEL)
{
    static const model_case cases[] = {
        {256, 48, 64, 64, 704, 16384, "groups of 48: warps 1, 4 and 7 hold both paths, the other five one"},
        {96, 12, 10, 10, 60, 960, "groups of 12: lanes 0 and 31 of warp 0 both take A, but lanes 12-23 take B"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, unequal_paths_and_an_if_without_else, .timeout = 5, .description = HINT_MODEL)
{
    static const model_case cases[] = {
        {64, 1, 30, 10, 80, 1280, "a split warp issues both paths one after the other: 30 + 10, not max(30, 10)"},
        {64, 1, 40, 0, 80, 1280, "an if without else: path B has no steps, but B's lanes sit idle during A"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, partial_last_warp, .timeout = 5, .description = HINT_MODEL)
{
    static const model_case cases[] = {
        {40, 64, 10, 10, 20, 400, "40 threads: warp 1 has lanes 32-39 only; lanes 40-63 do not exist"},
        {1, 1, 10, 10, 10, 10, "one thread: a warp with one active lane"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, one_lane_paths, .timeout = 5, .description = HINT_MODEL)
{
    /* A path that a single lane takes is issued for the whole warp all the same.
     * 32 threads, groups of 31: lanes 0-30 take A, lane 31 alone takes B: 10 + 20 = 30 steps,
     * 31 x 10 + 1 x 20 = 330 lanes. 64 threads, groups of 33: warp 0 is all A (10 steps, 320
     * lanes); in warp 1 lane 0 (thread 32) alone takes A and lanes 1-31 take B: 10 + 20 steps,
     * 10 + 31 x 20 = 630 lanes. 33 threads, groups of 64: warp 1 is one thread, on A. */
    static const model_case cases[] = {
        {32, 31, 10, 20, 30, 330, "lane 31 alone takes path B, and the warp issues B for it"},
        {64, 33, 10, 20, 40, 950, "in warp 1, thread 32 alone takes path A, and the warp issues A for it"},
        {33, 64, 10, 20, 20, 330, "warp 1 holds one thread, on path A"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, path_a_is_the_even_groups, .timeout = 5, .description = HINT_MODEL)
{
    /* Groups 0, 2, 4, ... take path A, groups 1, 3, ... path B: with unequal paths, swapping them
     * changes the answer. 96 threads, groups of 64: warps 0 and 1 are group 0 (A, 10 steps each),
     * warp 2 is group 1 (B, 30 steps): 50 steps, 1600 lanes. 32 threads, groups of 32: one warp,
     * group 0, path A: 10 steps. 128 threads, groups of 96: warps 0-2 on A, warp 3 on B. */
    static const model_case cases[] = {
        {96, 64, 10, 30, 50, 1600, "group 0 (warps 0 and 1) takes A, group 1 (warp 2) takes B"},
        {32, 32, 10, 30, 10, 320, "one warp, group 0: path A"},
        {128, 96, 10, 30, 60, 1920, "warps 0-2 are group 0 (A), warp 3 is group 1 (B)"},
    };
    check_model(cases, sizeof cases / sizeof cases[0]);
}

Test(branch_cost_model, agrees_with_the_simulator, .timeout = 60,
     .description = "The model predicts, the simulator counts: they should agree within 0.03 (the simulator also "
                    "counts the steps outside the branch, all lanes active). Check the cases above first.")
{
    int groups[] = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
    int threads = 2048;
    float *y = malloc(sizeof(float) * threads);
    for (int k = 0; k < 12; k++) {
        /* the model first: while it runs, the count it is compared with does not exist yet */
        double predicted = branch_simt_efficiency(branch_cost_model(threads, groups[k], WORK_STEPS, WORK_STEPS));
        branch_run run = gpu_alternating_groups(y, threads, groups[k]);
        SKIP_UNLESS_COUNTED(run);
        cr_assert(run.error == NULL, "CUDA error \"%s\"", run.error);
        cr_assert(predicted > run.simt_efficiency - 0.03 && predicted < run.simt_efficiency + 0.03,
                  "groups of %d thread%s: your model predicts SIMT efficiency %.3f, the simulator counted %.3f",
                  groups[k], groups[k] == 1 ? "" : "s", predicted, run.simt_efficiency);
    }
    free(y);
}
