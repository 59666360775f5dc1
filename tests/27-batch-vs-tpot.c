/* 27-batch-vs-tpot.c — the checks for day 27, in the order of lab.h: one decode step of a
 * batch counted by hand on a model small enough for paper (written out beside each case);
 * your FLOPs, bytes and TPOT against lib/perfmodel's estimate for Llama-2-7B, Llama-2-70B
 * and Llama-3-8B on an H100 and an A100; the seed's question (TPOT flat from batch 1 to 64,
 * rising from 64 to 256 on an A100); the knee in closed form, against perfmodel's verdict on
 * either side of it, against the FLOPs-alone knee within the chapter's epsilon, and none at
 * long contexts; your batched decode against the engine's counters and against each sequence
 * decoded alone; timed by the thread's CPU time (a sleep in the middle of the steps that a
 * wall clock would count); and, measured in one run on this CPU, throughput that rises with the batch
 * up to this CPU's knee and TPOT that rises after it. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "lab.h"
#include "robust.h"

static char error[512];

/* The hand model: 1000 bytes of weights, 10 bytes of embedding row a token, 200 FLOPs a token
 * through the matrices, 2 attention FLOPs and 4 KV bytes per position. The hand machine: 100
 * FLOP/s and 10 byte/s, ridge 10 FLOP/byte. */
static const decode_model hand = {1000, 10, 200, 2, 4};
static const machine hand_machine = {100, 10};

static int close_to(double got, double want, double relative) { return fabs(got - want) <= relative * fabs(want); }

/* ---------------------------------------------------------------------------------
 * 1. The step, by hand */

Test(step, hand_flops, .timeout = 5,
     .description = "FLOPs of a step: every token of the batch through the matrices and attending its context: "
                    "B x (flops_per_token + attention_flops_per_position x context).")
{
    /* batch 3, context 5: 3 x (200 + 2 x 5) = 630 */
    double got = step_flops(&hand, 3, 5);
    cr_assert(got == 630, "step_flops(hand, batch 3, context 5) = %g, want 630 = 3 x (200 + 2 x 5)%s", got,
              got == 210 ? " (one token's FLOPs: multiply by the batch)" : got == 600 ? " (attention's FLOPs are missing)" : "");
    cr_assert(step_flops(&hand, 1, 0) == 200, "batch 1, context 0: want 200, got %g", step_flops(&hand, 1, 0));
}

Test(step, hand_bytes, .timeout = 5,
     .description = "Bytes of a step: the weights once for the whole batch; per sequence its embedding row, its "
                    "context read from the cache and one new position written: W + B x (row + (context + 1) x kv).")
{
    /* batch 3, context 5: 1000 + 3 x (10 + 6 x 4) = 1102 */
    double got = step_bytes(&hand, 3, 5);
    const char *why = got == 3102 ? " (the weights counted once per sequence: a batch reads them once)"
                      : got == 1030 ? " (the KV cache is missing)"
                      : got == 1090 ? " (the new position's write is missing: context + 1 positions)"
                      : got == 1034 ? " (the KV traffic counted once, not per sequence: each has its own cache)"
                      : got == 1072 ? " (the embedding rows are missing)" : "";
    cr_assert(got == 1102, "step_bytes(hand, batch 3, context 5) = %g, want 1102 = 1000 + 3 x (10 + 6 x 4)%s", got, why);
    cr_assert(step_bytes(&hand, 1, 0) == 1014, "batch 1, context 0: want 1014 = 1000 + 10 + 4, got %g",
              step_bytes(&hand, 1, 0));
}

Test(tpot, hand_memory_and_compute_bound, .timeout = 5,
     .description = "TPOT is the roofline's time: max(FLOPs / peak, bytes / bandwidth) — the two overlap, so neither "
                    "their sum nor the smaller.")
{
    /* batch 1, context 5: 210 FLOPs (2.1 s), 1034 bytes (103.4 s): memory-bound, 103.4 s.
     * batch 100: 21 000 FLOPs (210 s), 4400 bytes (440 s). batch 1000: 2100 s against 3500 s.
     * context 0, batch 1000: 200 000 FLOPs (2000 s), 15 000 bytes (1500 s): compute-bound. */
    /* static: in the program's data, not in a local the code under test could read off its caller's stack */
    static const struct { int batch; double context, want; } cases[] = {{1, 5, 103.4}, {100, 5, 440}, {1000, 0, 2000}};
    for (int i = 0; i < 3; i++) {
        double got = predicted_tpot(&hand, &hand_machine, cases[i].batch, cases[i].context);
        double flops = step_flops(&hand, cases[i].batch, cases[i].context) / 100;
        double bytes = step_bytes(&hand, cases[i].batch, cases[i].context) / 10;
        cr_assert(close_to(got, cases[i].want, 1e-12),
                  "predicted_tpot(hand, batch %d, context %g) = %g s, want %g s%s", cases[i].batch, cases[i].context, got,
                  cases[i].want, close_to(got, flops + bytes, 1e-12) ? " (the sum of the compute and memory times)"
                                 : close_to(got, fmin(flops, bytes), 1e-12) ? " (the smaller of the two times)" : "");
    }
}

Test(tpot, tokens_per_second_of_the_batch, .timeout = 5,
     .description = "A step gives every sequence of the batch one token: tokens/s = batch / TPOT.")
{
    double got = predicted_tokens_per_s(&hand, &hand_machine, 100, 5), want = 100 / 440.0;
    cr_assert(close_to(got, want, 1e-12), "predicted_tokens_per_s(hand, batch 100, context 5) = %g, want %g = 100 / 440 s%s",
              got, want, close_to(got, 1 / 440.0, 1e-12) ? " (one sequence's rate: the batch gets 100 tokens a step)" : "");
}

/* ---------------------------------------------------------------------------------
 * 2. Against lib/perfmodel */

static void load(const char *model, const char *gpu, perfmodel_shape *m, perfmodel_hardware *h)
{
    cr_assert(perfmodel_load_model_shape(model, m, error, sizeof error) == 0, "%s", error);
    cr_assert(perfmodel_load_gpu(gpu, h, error, sizeof error) == 0, "%s", error);
}

static perfmodel_prediction estimate(const perfmodel_shape *m, const perfmodel_hardware *h, perfmodel_dtype type, int batch, int prompt, int gen)
{
    perfmodel_workload w = {.weights = type, .kv = type, .batch = batch, .prompt = prompt, .gen = gen};
    perfmodel_prediction e;
    perfmodel_estimate(m, h, &w, &e);
    return e;
}

/* The positions perfmodel_estimate's decode step attends (its mean step, lib/perfmodel/estimate.c), worked out
 * here: an estimate also holds the step's FLOPs and bytes, the very counts the code under test must find, so
 * none is made until that code has returned; expect_context then holds this to the estimate's own. */
static double decode_context(int prompt, int gen) { return gen > 1 ? prompt + gen / 2.0 : prompt + 1.0; }

static void expect_context(const perfmodel_prediction *e, int prompt, int gen)
{
    cr_assert(e->decode_context == decode_context(prompt, gen), "the test's own decode context for a %d-token prompt "
              "and %d generated is %g; perfmodel_estimate's is %g", prompt, gen, decode_context(prompt, gen),
              e->decode_context);
}

static void against_perfmodel(const char *model, const char *gpu, perfmodel_dtype type, int prompt, int gen)
{
    perfmodel_shape m;
    perfmodel_hardware h;
    load(model, gpu, &m, &h);
    decode_model d = decode_model_of(&m, type, type);
    machine hw = machine_of(&m, &h, type);
    const int batches[] = {1, 7, 64, 300, 2048};
    for (int i = 0; i < 5; i++) {
        double context = decode_context(prompt, gen);
        double flops = step_flops(&d, batches[i], context), bytes = step_bytes(&d, batches[i], context);
        double tpot = predicted_tpot(&d, &hw, batches[i], context);
        perfmodel_prediction e = estimate(&m, &h, type, batches[i], prompt, gen);
        expect_context(&e, prompt, gen);
        cr_assert(close_to(flops, e.decode_step_flops, 1e-12), "%s on %s, batch %d, context %g: step_flops %.6g, "
                  "perfmodel's decode_step_flops %.6g (%.4g times it)", model, gpu, batches[i], context, flops,
                  e.decode_step_flops, flops / e.decode_step_flops);
        cr_assert(close_to(bytes, e.decode_step_bytes, 1e-12), "%s on %s, batch %d, context %g: step_bytes %.6g, "
                  "perfmodel's decode_step_bytes %.6g (%.4g times it)", model, gpu, batches[i], context, bytes,
                  e.decode_step_bytes, bytes / e.decode_step_bytes);
        cr_assert(close_to(tpot, e.tpot_s, 1e-12), "%s on %s, batch %d: predicted_tpot %.6g s, perfmodel's tpot %.6g s "
                  "(%s-bound)", model, gpu, batches[i], tpot, e.tpot_s, e.decode_bound);
    }
}

Test(perfmodel, llama2_7b_h100_and_a100, .timeout = 10,
     .description = "Llama-2-7B in FP16 (untied, 32 KV heads): your step's FLOPs, bytes and TPOT equal "
                    "perfmodel_estimate's for batches 1 to 2048, short and long contexts, on an H100 SXM and an A100.")
{
    against_perfmodel("Llama-2-7B", "h100-sxm", DTYPE_FP16, 16, 16);
    against_perfmodel("Llama-2-7B", "a100-80gb", DTYPE_FP16, 512, 128);
}

Test(perfmodel, grouped_query_models, .timeout = 10,
     .description = "Llama-2-70B and Llama-3-8B (8 KV heads for 64 and 32 query heads: an eighth and a quarter of the cache) in "
                    "FP16 and BF16: the same equality.")
{
    against_perfmodel("Llama-2-70B", "h100-sxm", DTYPE_FP16, 1024, 256);
    against_perfmodel("Llama-3-8B", "a100-80gb", DTYPE_BF16, 64, 64);
}

Test(tpot, the_seed_question_on_an_a100, .timeout = 10,
     .description = "The seed's question: Llama-2-7B in FP16 on an A100, a short context: TPOT at batch 64 within 10 % "
                    "of batch 1's, and at batch 256 more than 1.5 times batch 64's (past the ridge).")
{
    perfmodel_shape m;
    perfmodel_hardware h;
    load("Llama-2-7B", "a100-80gb", &m, &h);
    decode_model d = decode_model_of(&m, DTYPE_FP16, DTYPE_FP16);
    machine hw = machine_of(&m, &h, DTYPE_FP16);
    double t1 = predicted_tpot(&d, &hw, 1, 24), t64 = predicted_tpot(&d, &hw, 64, 24), t256 = predicted_tpot(&d, &hw, 256, 24);
    cr_assert(t1 > 0 && t64 / t1 < 1.1, "TPOT %.3g ms at batch 1 and %.3g ms at batch 64: want batch 64 within 10 %% "
              "(the weights are read once for the whole batch)", 1e3 * t1, 1e3 * t64);
    cr_assert(t256 / t64 > 1.5, "TPOT %.3g ms at batch 64 and %.3g ms at batch 256: want more than 1.5 times (256 x "
              "13.5 GFLOP at 312 TFLOP/s is 11 ms)", 1e3 * t64, 1e3 * t256);
}

/* ---------------------------------------------------------------------------------
 * 3. The knee */

Test(knee, hand_closed_form, .timeout = 5,
     .description = "The knee: B f / P = (W + B k) / BW, with f and k one sequence's FLOPs and bytes, so "
                    "B = (W / BW) / (f / P - k / BW).")
{
    /* context 0: f = 200, k = 14; f / P = 2 s, k / BW = 1.4 s, W / BW = 100 s: B = 100 / 0.6 = 166.67 */
    double got = knee_batch(&hand, &hand_machine, 0), want = 100 / 0.6;
    cr_assert(close_to(got, want, 1e-12), "knee_batch(hand, context 0) = %.17g, want %.17g = 100 s / (2 s - 1.4 s)%s", got,
              want, close_to(got, 50, 1e-9) ? " (the KV and embedding bytes are left out: the FLOPs alone would cross at 50)" : "");
    /* context 2: f = 204, k = 22: B = 100 / (2.04 - 2.2) < 0: no knee */
}

Test(knee, flops_alone_cross_the_ridge, .timeout = 5,
     .description = "Without a KV cache or embedding rows the knee is where B x flops_per_token / weight_bytes "
                    "reaches the ridge: B = ridge x W / f.")
{
    decode_model bare = {1000, 0, 200, 0, 0};
    double got = knee_batch(&bare, &hand_machine, 7);
    cr_assert(close_to(got, 50, 1e-12), "knee_batch of a model without KV traffic = %g, want 50 = ridge 10 x 1000 "
              "bytes / 200 FLOPs%s", got, close_to(got, 0.02, 1e-9) ? " (inverted)" : "");
}

Test(knee, none_when_the_cache_outweighs_the_flops, .timeout = 5,
     .description = "When one more sequence adds more memory time (its KV traffic) than compute time, the step stays "
                    "memory-bound at every batch: knee_batch returns INFINITY, never a negative batch.")
{
    double got = knee_batch(&hand, &hand_machine, 2);
    cr_assert(isinf(got) && got > 0, "knee_batch(hand, context 2) = %g: f / P = 2.04 s, k / BW = 2.2 s, so no batch "
              "crosses; want INFINITY", got);
    decode_model balanced = {1000, 0, 200, 0, 20};   /* 20 bytes of KV a position: exactly the FLOPs' time */
    got = knee_batch(&balanced, &hand_machine, 0);
    cr_assert(isinf(got) && got > 0, "a sequence adding exactly as much memory time as compute time never crosses "
              "either: want INFINITY, got %g", got);
}

Test(knee, closed_form_in_double_on_an_awkward_model, .timeout = 5,
     .description = "The closed form to the last digit on a model whose counts need more than a float's 24 bits (13.5 "
                    "GB of weights, 13.48 GFLOP and 13.4 MB of KV traffic a sequence at context 24.5, on an A100-like "
                    "machine): one sequence's FLOPs f and bytes k, and the times, in double.")
{
    const decode_model awkward = {13476839427.0, 8191, 13476831233.0, 16385, 524289};
    const machine a100 = {312e12, 2.039e12};
    double context = 24.5;
    double got = knee_batch(&awkward, &a100, context);
    double f = 13476831233.0 + 16385 * context, k = 8191 + (context + 1) * 524289;
    double want = (13476839427.0 / 2.039e12) / (f / 312e12 - k / 2.039e12);
    cr_assert(close_to(got, want, 1e-12), "knee_batch(awkward model, context 24.5) = %.17g, want %.17g (off by %.2g of it): "
              "f = %.1f FLOPs and k = %.1f bytes a sequence are more than a float holds exactly; keep them in double",
              got, want, fabs(got - want) / want, f, k);
}

/* perfmodel's bound at batch b, this context */
static const char *bound_at(const perfmodel_shape *m, const perfmodel_hardware *h, int batch, int prompt, int gen)
{
    return estimate(m, h, DTYPE_FP16, batch, prompt, gen).decode_bound;
}

Test(knee, perfmodel_changes_its_verdict_there, .timeout = 10,
     .description = "perfmodel_estimate calls a decode step memory-bound at the batch just below your knee and "
                    "compute-bound just above it (Llama-2-7B, 16-token prompt, on an H100 and an A100).")
{
    const char *gpus[] = {"h100-sxm", "a100-80gb"};
    for (int g = 0; g < 2; g++) {
        perfmodel_shape m;
        perfmodel_hardware h;
        load("Llama-2-7B", gpus[g], &m, &h);
        decode_model d = decode_model_of(&m, DTYPE_FP16, DTYPE_FP16);
        machine hw = machine_of(&m, &h, DTYPE_FP16);
        double knee = knee_batch(&d, &hw, decode_context(16, 16));
        perfmodel_prediction e = estimate(&m, &h, DTYPE_FP16, 1, 16, 16);
        expect_context(&e, 16, 16);
        cr_assert(knee > 1 && knee < 5000, "%s: knee_batch = %g, want a batch between 1 and 5000", gpus[g], knee);
        int below = (int)floor(knee), above = below + 1;
        cr_assert(strcmp(bound_at(&m, &h, below, 16, 16), "memory") == 0 && strcmp(bound_at(&m, &h, above, 16, 16), "compute") == 0,
                  "%s: your knee is %.2f, but perfmodel calls batch %d %s-bound and batch %d %s-bound", gpus[g], knee, below,
                  bound_at(&m, &h, below, 16, 16), above, bound_at(&m, &h, above, 16, 16));
    }
}

Test(knee, where_the_flops_alone_cross_within_epsilon, .timeout = 10,
     .description = "The knee lies where B x 2 x parameters FLOPs over the weights' bytes reach the ridge, shifted by "
                    "the chapter's epsilon (one sequence's KV and embedding bytes over its FLOPs' worth at the ridge): "
                    "between that batch and it over (1 - epsilon), within 3 % for the embedding table.")
{
    const char *gpus[] = {"h100-sxm", "a100-80gb"};
    const int prompts[] = {1, 16, 64};
    for (int g = 0; g < 2; g++)
        for (int p = 0; p < 3; p++) {
            perfmodel_shape m;
            perfmodel_hardware h;
            load("Llama-2-7B", gpus[g], &m, &h);
            decode_model d = decode_model_of(&m, DTYPE_FP16, DTYPE_FP16);
            machine hw = machine_of(&m, &h, DTYPE_FP16);
            double knee = knee_batch(&d, &hw, decode_context(prompts[p], 16));
            /* the bounds from the estimate and a decode_model made afresh, not from the d it was given */
            perfmodel_prediction e = estimate(&m, &h, DTYPE_FP16, 1, prompts[p], 16);
            expect_context(&e, prompts[p], 16);
            decode_model fresh = decode_model_of(&m, DTYPE_FP16, DTYPE_FP16);
            double ridge = e.ridge_flop_per_byte, params = (double)perfmodel_shape_parameters(&m);
            double naive = ridge * e.weights_bytes / (2 * params);
            double f = fresh.flops_per_token + fresh.attention_flops_per_position * e.decode_context;
            double epsilon = (fresh.token_bytes + (e.decode_context + 1) * fresh.kv_bytes_per_position) * ridge / f;
            cr_assert(epsilon < 1, "the test's own case: epsilon %g", epsilon);
            cr_assert(knee >= 0.97 * naive && knee <= 1.03 * naive / (1 - epsilon),
                      "%s, %d-token prompt: your knee %.1f; the FLOPs alone cross the ridge at %.1f and the KV traffic "
                      "(epsilon %.3f) moves that to %.1f: want the knee between them (3 %% margin)", gpus[g], prompts[p],
                      knee, naive, epsilon, naive / (1 - epsilon));
        }
}

Test(knee, none_at_a_long_context, .timeout = 10,
     .description = "Llama-2-7B (32 KV heads, 0.5 MB of cache a position in FP16) with a 1024-token prompt: each "
                    "sequence's cache outweighs its FLOPs, no knee, and perfmodel says memory-bound at batch 4096.")
{
    perfmodel_shape m;
    perfmodel_hardware h;
    load("Llama-2-7B", "h100-sxm", &m, &h);
    decode_model d = decode_model_of(&m, DTYPE_FP16, DTYPE_FP16);
    machine hw = machine_of(&m, &h, DTYPE_FP16);
    double context = decode_context(1024, 128), knee = knee_batch(&d, &hw, context);
    perfmodel_prediction e = estimate(&m, &h, DTYPE_FP16, 1, 1024, 128);
    expect_context(&e, 1024, 128);
    cr_assert(isinf(knee) && knee > 0, "knee_batch at %g positions = %g, want INFINITY", context, knee);
    cr_assert(strcmp(bound_at(&m, &h, 4096, 1024, 128), "memory") == 0, "perfmodel disagrees: batch 4096 is %s-bound",
              bound_at(&m, &h, 4096, 1024, 128));
}

/* ---------------------------------------------------------------------------------
 * 4. Batched decode on the engine */

static llama_config named(const char *name)
{
    llama_config c;
    cr_assert(llama_named_shape(name, &c, error, sizeof error) == 0, "%s", error);
    return c;
}

/* a session of `batch` sequences, sequence i prefilled with its own `prompt` tokens */
static void prefilled(llama_session *s, const llama_transformer *t, int batch, int prompt, int capacity)
{
    cr_assert(llama_build_session(s, t, batch, capacity, 1, error, sizeof error) == 0, "%s", error);
    for (int i = 0; i < batch; i++) {
        int tokens[64];
        for (int p = 0; p < prompt; p++) tokens[p] = (i * 37 + p * 11 + 3) % t->config.vocab_size;
        cr_assert(llama_prefill(s, i, tokens, prompt, error, sizeof error), "%s", error);
    }
}

static void check_batched(const char *name, int batch, int steps)
{
    enum { PROMPT = 5 };
    llama_config c = named(name);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 27, error, sizeof error) == 0, "%s", error);
    llama_session s;
    prefilled(&s, &t, batch, PROMPT, PROMPT + steps + 1);
    int tokens[64], first[64];
    for (int i = 0; i < batch; i++) tokens[i] = first[i] = (i * 5 + 2) % c.vocab_size;
    tokens[batch] = -27;   /* a marker just past the batch's tokens */
    memset(&s.counters, 0, sizeof s.counters);
    decode_run run = decode_steps(&s, batch, steps, tokens);
    cr_assert(run.error == NULL, "decode_steps reported an error: %s", run.error);
    cr_assert(tokens[batch] == -27, "%s, batch %d: decode_steps wrote tokens[%d] (%d), one past the batch's tokens: "
              "sequences 0 .. batch - 1", name, batch, batch, tokens[batch]);
    cr_assert(s.counters.steps == steps, "%s, batch %d, %d steps: the engine ran %lld forward steps, want %d: one "
              "llama_decode_batch call per step for all the sequences together%s", name, batch, steps,
              (long long)s.counters.steps, steps,
              s.counters.steps == (int64_t)steps * batch ? " (you decode them one at a time: the weights are then read "
                                                           "once per sequence, and batching gains nothing)" : "");
    cr_assert(s.counters.rows == (int64_t)batch * steps, "%s: %lld token rows, want batch x steps = %d",
              name, (long long)s.counters.rows, batch * steps);
    for (int i = 0; i < batch; i++)
        cr_assert(s.cache.length[i] == PROMPT + steps, "%s: sequence %d holds %d tokens after %d steps, want %d", name, i,
                  s.cache.length[i], steps, PROMPT + steps);
    cr_assert(run.seconds_per_step > 0 && isfinite(run.seconds_per_step),
              "seconds_per_step = %g: time the steps with lab_thread_seconds()", run.seconds_per_step);

    /* each sequence alone, greedy: the batch must generate the same tokens */
    for (int i = 0; i < batch; i++) {
        llama_session alone;
        cr_assert(llama_build_session(&alone, &t, 1, PROMPT + steps + 1, 1, error, sizeof error) == 0, "%s", error);
        int prompt[64];
        for (int p = 0; p < PROMPT; p++) prompt[p] = (i * 37 + p * 11 + 3) % c.vocab_size;
        cr_assert(llama_prefill(&alone, 0, prompt, PROMPT, error, sizeof error), "%s", error);
        int token = first[i];
        for (int step = 0; step < steps; step++) {
            const float *logits = llama_decode_batch(&alone, (int[]){0}, &token, 1, error, sizeof error);
            cr_assert(logits, "%s", error);
            token = llama_argmax(logits, c.vocab_size);
        }
        cr_assert(tokens[i] == token, "%s, batch %d: after %d steps sequence %d's token is %d in your batch and %d "
                  "decoded alone. tokens[i] must become the argmax of row i of the logits (row i x vocab_size), after "
                  "every step", name, batch, steps, i, tokens[i], token);
        llama_free_session(&alone);
    }
    llama_free_session(&s);
    llama_free_transformer(&t);
}

Test(run, one_forward_step_per_step_for_the_batch, .timeout = 30,
     .description = "decode_steps runs the whole batch in one llama_decode_batch call per step (the engine's counters: "
                    "steps forward steps, batch x steps rows), every sequence advances by `steps` tokens, and only "
                    "tokens[0 .. batch - 1] are written.")
{
    check_batched("tiny", 3, 4);
}

Test(run, the_batch_generates_what_each_sequence_alone_would, .timeout = 30,
     .description = "Batching changes the speed, not the tokens: 5 sequences of '260K' decoded together for 6 steps give "
                    "each the greedy tokens it gets decoded alone.")
{
    check_batched("260K", 5, 6);
}

Test(run, a_batch_of_one_and_one_step, .timeout = 30,
     .description = "The smallest case: one sequence, one step.")
{
    check_batched("tiny", 1, 1);
}

/* ---------------------------------------------------------------------------------
 * 5. Timed on this CPU: by the thread's CPU time, and ratios in one run */

/* A pause that the wall clock sees and the thread's CPU time does not: a signal handler that
 * sleeps, fired by a CPU-time timer while decode_steps runs. */
enum { PAUSE_MS = 100 };
static volatile sig_atomic_t paused;
static void pause_in_handler(int signal_number)
{
    (void)signal_number;
    struct timespec pause = {0, PAUSE_MS * 1000000L};
    nanosleep(&pause, NULL);
    paused = 1;
}

Test(timing, timed_by_the_threads_cpu_time, .timeout = 60,
     .description = "decode_steps times by this thread's CPU time (lab_thread_seconds): the thread is made to sleep "
                    "100 ms in the middle of the steps, and seconds_per_step x steps must stay within the thread's CPU "
                    "time around the call, which the sleep does not add to. A wall clock counts the sleep.")
{
    enum { PROMPT = 5, BATCH = 4 };
    llama_config c = named("15M");
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 27, error, sizeof error) == 0, "%s", error);
    for (int steps = 4; !paused && steps <= 64; steps *= 2) {
        llama_session s;
        prefilled(&s, &t, BATCH, PROMPT, PROMPT + steps + 1);
        int tokens[BATCH];
        for (int i = 0; i < BATCH; i++) tokens[i] = (i * 5 + 2) % c.vocab_size;
        signal(SIGPROF, pause_in_handler);
        struct itimerval once = {{0, 0}, {0, 1000}};   /* after 1 ms of CPU time, once */
        double start = lab_thread_seconds();
        setitimer(ITIMER_PROF, &once, NULL);
        decode_run run = decode_steps(&s, BATCH, steps, tokens);
        setitimer(ITIMER_PROF, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
        double cpu_seconds = lab_thread_seconds() - start;
        signal(SIGPROF, SIG_DFL);
        cr_assert(run.error == NULL, "%s", run.error);
        if (paused)
            cr_assert(run.seconds_per_step * steps <= cpu_seconds + 1e-6,
                      "%d steps timed at %.1f ms in all, but the thread ran them in %.1f ms of CPU time: it slept "
                      "%d ms in between, and your clock counted the sleep. Time by lab_thread_seconds() (this thread's "
                      "CPU time), not by a wall clock (CLOCK_MONOTONIC, CLOCK_REALTIME, gettimeofday)", steps,
                      1e3 * run.seconds_per_step * steps, 1e3 * cpu_seconds, PAUSE_MS);
        llama_free_session(&s);
    }
    cr_assert(paused, "the test's CPU-time timer never fired during decode_steps (64 steps took under 1 ms?)");
    llama_free_transformer(&t);
}

Test(timing, throughput_rises_until_this_cpus_knee, .timeout = 180,
     .description = "The 15M model in FP32 on one thread, best of 3: batch 8 gives more than 1.5 times the tokens/s of "
                    "batch 1 (this CPU's knee is near 8), and past the knee a step of 64 takes more than twice a step of 16.")
{
    /* The knee is where this CPU's weight reads stop being the cost: an emulator has no such point. */
    lab_skip_timing_under_emulator("this CPU's knee");
    enum { PROMPT = 8, STEPS = 3, ROUNDS = 3 };
    const int batches[] = {1, 8, 16, 64};
    llama_config c = named("15M");
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 27, error, sizeof error) == 0, "%s", error);
    llama_session s[4];
    double best[4];
    int tokens[64];
    for (int b = 0; b < 4; b++) prefilled(&s[b], &t, batches[b], PROMPT, PROMPT + STEPS + 1), best[b] = INFINITY;
    for (int r = 0; r < ROUNDS; r++)
        for (int b = 0; b < 4; b++) {
            for (int i = 0; i < batches[b]; i++) {
                cr_assert(llama_truncate_sequence(&s[b], i, PROMPT, error, sizeof error) == 0, "%s", error);
                tokens[i] = (i * 7 + r + 1) % c.vocab_size;
            }
            decode_run run = decode_steps(&s[b], batches[b], STEPS, tokens);
            cr_assert(run.error == NULL, "%s", run.error);
            best[b] = fmin(best[b], run.seconds_per_step);
        }
    double rate1 = 1 / best[0], rate8 = 8 / best[1];
    cr_assert(best[0] > 0, "no time measured: time the steps with lab_thread_seconds()");
    cr_assert(rate8 > 1.5 * rate1, "batch 1: %.0f tokens/s, batch 8: %.0f tokens/s (%.2f times): want more than 1.5 "
              "times (about 3 on a quiet core): a batch must share each read of the weights (one llama_decode_batch "
              "for all its sequences)", rate1, rate8, rate8 / rate1);
    cr_assert(best[3] > 2 * best[2], "a step of batch 16 took %.3g ms and of batch 64 %.3g ms: past this CPU's knee "
              "the step should grow with the batch (about 3.4 times here); is seconds_per_step per step?",
              1e3 * best[2], 1e3 * best[3]);
    for (int b = 0; b < 4; b++) llama_free_session(&s[b]);
    llama_free_transformer(&t);
}
