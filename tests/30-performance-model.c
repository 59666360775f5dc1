/* 30-performance-model.c — the checks for day 30, in the order of lab.h: the memory budget (by
 * hand on a shape small enough for paper, the KV formula's 2 GiB, Llama-2-70B not fitting one
 * 80 GB H100, the largest batch at its exact edge); the two phases counted, by hand and then
 * against lib/perfmodel's estimate for every dense row of data/models.csv and the toy engine's
 * tied shape, FP32 to FP8, batch 1 to 64; the roofline bound; the Day 30 article's worked
 * numbers; the checklist, row by row, and the symptoms a prediction shows against the advice
 * lib/perfmodel prints; and, measured in one run, the toy engine on this CPU against your
 * prediction, with margins a busy machine cannot cross. Counts are whole numbers (or halves)
 * far below 2^53, so the comparisons with lib/perfmodel are exact up to the order of additions
 * (1e-12 relative). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lab.h"
#include "robust.h"

static char error[2048];

/* The hand shape: 2 layers, hidden 8, 4 query heads of head_dim 2 sharing 2 KV heads (kv width
 * 4), MLP 12 wide, vocab 10, untied. Per layer: Wq 64 + Wk 32 + Wv 32 + Wo 64 = 192, the MLP
 * 3 x 96 = 288, two norms 16; embeddings and classifier 80 each; a final norm 8: 1160 in all. */
static perfmodel_shape hand_shape(int tied)
{
    perfmodel_shape m = {.layers = 2, .hidden = 8, .heads = 4, .kv_heads = 2, .head_dim = 2, .intermediate = 12, .vocab = 10,
                    .experts = 1, .experts_per_token = 1, .tied_embeddings = tied, .listed_parameters = -1};
    snprintf(m.name, sizeof m.name, "hand%s", tied ? " (tied)" : "");
    return m;
}

static perfmodel_shape model(const char *name)
{
    perfmodel_shape m;
    cr_assert(perfmodel_load_model_shape(name, &m, error, sizeof error) == 0, "%s", error);
    return m;
}

static perfmodel_hardware gpu(const char *key)
{
    perfmodel_hardware h;
    cr_assert(perfmodel_load_gpu(key, &h, error, sizeof error) == 0, "%s", error);
    return h;
}

/* a made-up GPU with awkward numbers (77.77 TFLOP/s of FP16 and BF16, no FP8, 333.3 GB/s, 50 GB) */
static perfmodel_hardware made_up_gpu(void)
{
    perfmodel_hardware h = {.bandwidth = 333.3e9, .memory_bytes = 50e9, .fp32_flops = 7.1e12, .fp16_tensor_flops = 77.77e12,
                  .bf16_tensor_flops = 77.77e12, .fp8_tensor_flops = NAN, .dequantizing_flops = NAN};
    snprintf(h.name, sizeof h.name, "a made-up GPU");
    return h;
}

static perfmodel_prediction book(const perfmodel_shape *m, const perfmodel_hardware *h, perfmodel_workload w)
{
    cr_assert(perfmodel_validate_workload(m, &w, error, sizeof error) == 0, "%s", error);
    perfmodel_prediction e;
    perfmodel_estimate(m, h, &w, &e);
    return e;
}

/* What a check expects exists only once the code under test has returned: lib/perfmodel's estimate is made
 * after the call, from the inputs that code was given, which it must have left as they were (fingerprint,
 * before and after: an answer made by changing them is caught); a hand-worked answer is a constant written in
 * the check, or static; never a local that the code could read off its caller's stack. */
/* the shape, the hardware (NULL where the code is given none) and the workload of a call */
static uint64_t inputs_of(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w)
{
    uint64_t shape_and_workload = lab_fingerprint(m, sizeof *m, lab_fingerprint(w, sizeof *w, 1));
    return h ? lab_fingerprint(h, sizeof *h, shape_and_workload) : shape_and_workload;
}

static void expect_inputs_unchanged(const char *what, uint64_t before, uint64_t after)
{
    cr_assert(before == after, "%s changed its inputs (the shape, the hardware or the workload): it only reads them",
              what);
}

static int same(double got, double want) { return got == want || fabs(got - want) <= 1e-12 * fabs(want); }

/* got against want, and what the ratio suggests */
static void expect(const char *what, double got, double want, const char *idea)
{
    if (same(got, want)) return;
    char times[96] = "still 0: is it written yet";
    if (got != 0) snprintf(times, sizeof times, "%.6g times it", got / want);
    cr_assert(0, "%s = %.17g, want %.17g: %s (%s)", what, got, want, times, idea);
}

#define IDEA_WEIGHTS "every parameter once (perfmodel_shape_parameters) x the bytes of one element of the type"
#define IDEA_KV "2 (K and V) x layers x kv_heads x head_dim x bytes: KV heads, not query heads"
#define IDEA_DECODE_BYTES "the weights once for the whole batch (an untied embedding table: only one row per " \
                          "sequence; a tied one is the classifier, read in full), plus batch x (context + 1) x KV " \
                          "bytes per token: each sequence reads the positions it attends and writes one"
#define IDEA_DECODE_FLOPS "batch x (2 x layers x one layer's matrix parameters + 2 x vocab x hidden + 4 x layers x " \
                          "heads x head_dim x context): the context of the mean step"
#define IDEA_PREFILL_FLOPS "batch x (prompt x 2 x the layers' matrix parameters + 2 x vocab x hidden for the last " \
                           "token + 2 x layers x heads x head_dim x prompt x (prompt + 1)): token t attends t + 1 positions"
#define IDEA_PREFILL_BYTES "the weights once for the step (an untied table: one row per token), plus 2 x batch x " \
                           "prompt x KV bytes per token (written, and read back)"

/* ---------------------------------------------------------------------------------
 * 1. The memory budget */

Test(budget, by_hand, .timeout = 5,
     .description = "Weights: every parameter once at the type's bytes (1160 parameters in FP32 are 4640 bytes). The "
                    "KV cache: 2 x layers x KV heads x head_dim x bytes a token (2 x 2 x 2 x 2 x 4 = 64), times batch "
                    "x (prompt + gen) tokens.")
{
    perfmodel_shape m = hand_shape(0);
    expect("weights_bytes(hand, FP32)", weights_bytes(&m, DTYPE_FP32), 4640, IDEA_WEIGHTS);
    expect("weights_bytes(hand, FP8)", weights_bytes(&m, DTYPE_FP8), 1160, IDEA_WEIGHTS);
    expect("kv_bytes_per_token(hand, FP32)", kv_bytes_per_token(&m, DTYPE_FP32), 64, IDEA_KV);
    expect("kv_bytes_per_token(hand, FP16)", kv_bytes_per_token(&m, DTYPE_FP16), 32, IDEA_KV);
    memory_plan p = plan_memory(&m, &(perfmodel_workload){DTYPE_FP32, DTYPE_FP32, 3, 5, 2}, 1e6);
    expect("plan_memory(hand, batch 3, 5 + 2 tokens).kv_bytes_total", p.kv_bytes_total, 3 * 7 * 64,
           "batch x (prompt + gen) x KV bytes per token: the whole context of every sequence is reserved");
    expect("plan_memory(...).needed_bytes", p.needed_bytes, 4640 + 3 * 7 * 64, "weights + the KV cache");
    expect("plan_memory(...).weights_bytes", p.weights_bytes, 4640, IDEA_WEIGHTS);
    expect("plan_memory(...).kv_bytes_per_token", p.kv_bytes_per_token, 64, IDEA_KV);
}

Test(budget, kv_formula_2_gib_and_gqa, .timeout = 5,
     .description = "The article's formula: Llama-2-7B (32 layers, 32 KV heads of 128) in FP16 holds 512 KiB a token, "
                    "exactly 2 GiB for 4096 tokens. Llama-2-70B shares 8 KV heads among 64 query heads: 320 KiB a "
                    "token, not 2560.")
{
    perfmodel_shape m7 = model("Llama-2-7B"), m70 = model("Llama-2-70B");
    memory_plan p = plan_memory(&m7, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 4000, 96}, 1e15);
    expect("Llama-2-7B FP16, 4096 tokens: kv_bytes_total", p.kv_bytes_total, 2147483648.0, IDEA_KV);
    expect("Llama-2-70B FP16: kv_bytes_per_token", kv_bytes_per_token(&m70, DTYPE_FP16), 327680, IDEA_KV);
    p = plan_memory(&m70, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP8, 64, 1000, 24}, 1e15);
    expect("Llama-2-70B, FP8 KV, 64 x 1024 tokens: kv_bytes_total", p.kv_bytes_total, 64.0 * 1024 * 163840, IDEA_KV);
}

Test(budget, llama2_70b_does_not_fit_one_h100, .timeout = 5,
     .description = "138 GB of FP16 weights on an 80 GiB card (data/gpus.csv's memory_gib: 85.9 GB, 77.3 GB usable): fits = 0, "
                    "and max_batch = 0 because the weights alone do not fit, whatever the batch.")
{
    perfmodel_shape m = model("Llama-2-70B");
    perfmodel_hardware h = gpu("h100-sxm");
    plan p = predict(&m, &h, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 128, 128});
    expect("Llama-2-70B FP16 weights_bytes", p.memory.weights_bytes, 2.0 * 68976648192.0, IDEA_WEIGHTS);
    cr_assert(!p.memory.fits, "Llama-2-70B in FP16 needs %.1f GB; the H100 has %.1f GB: fits must be 0",
              p.memory.needed_bytes * 1e-9, h.memory_bytes * 1e-9);
    cr_assert(p.memory.max_batch == 0, "max_batch = %lld: when the weights alone exceed the memory, no batch fits (0)",
              (long long)p.memory.max_batch);
    p = predict(&m, &(perfmodel_hardware){.memory_bytes = 160e9, .bandwidth = 4.8e12, .fp16_tensor_flops = 989.4e12},
                &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 128, 128});
    cr_assert(p.memory.fits && p.memory.max_batch > 1, "on a 160 GB card (144 GB usable) it fits (fits %d, max_batch %lld)", p.memory.fits,
              (long long)p.memory.max_batch);
}

Test(budget, max_batch_at_its_edge, .timeout = 5,
     .description = "max_batch = floor((capacity - weights) / ((prompt + gen) x KV bytes per token)): with room for "
                    "exactly 3 sequences it is 3 (batch 3 fits, 4 does not), one byte less 2 — round down, and "
                    "subtract the weights first.")
{
    perfmodel_shape m = hand_shape(0);
    double exact_room = 4640 + 3 * 7 * 64.0;
    perfmodel_workload three = {DTYPE_FP32, DTYPE_FP32, 3, 5, 2}, four = {DTYPE_FP32, DTYPE_FP32, 4, 5, 2};
    memory_plan p = plan_memory(&m, &three, exact_room);
    cr_assert(p.max_batch == 3, "capacity = weights + exactly 3 sequences of 7 tokens: max_batch %lld, want 3",
              (long long)p.max_batch);
    cr_assert(p.fits, "batch 3 in exactly its room: fits must be 1 (needed <= capacity)");
    cr_assert(!plan_memory(&m, &four, exact_room).fits, "batch 4 in the room of 3: fits must be 0");
    p = plan_memory(&m, &three, exact_room - 1);
    cr_assert(p.max_batch == 2 && !p.fits, "one byte short of 3 sequences: max_batch %lld (want 2), fits %d (want 0)",
              (long long)p.max_batch, p.fits);
    p = plan_memory(&m, &three, 4639);
    cr_assert(p.max_batch == 0 && !p.fits, "a byte less than the weights: max_batch %lld, want 0", (long long)p.max_batch);
    p = plan_memory(&m, &three, 4640 + 447);
    cr_assert(p.max_batch == 0, "room for less than one sequence (448 bytes): max_batch %lld, want 0", (long long)p.max_batch);
}

Test(budget, max_batch_beside_lib_perfmodel, .timeout = 5,
     .description = "Llama-2-7B FP16 with 4096-token sequences on an A100 80GB: 80 GiB less the runtime's tenth is 77.31 GB; "
                    "(77.31e9 - 13.48e9) / 2 GiB = 29.7, so 29 (33 when the reserve is forgotten). lib/perfmodel also "
                    "counts the activations, so its answer is the same or one less.")
{
    perfmodel_shape m = model("Llama-2-7B");
    perfmodel_hardware h = gpu("a100-80gb");
    perfmodel_workload w = {DTYPE_FP16, DTYPE_FP16, 1, 4000, 96};
    uint64_t inputs = inputs_of(&m, &h, &w);
    plan p = predict(&m, &h, &w);
    expect_inputs_unchanged("predict", inputs, inputs_of(&m, &h, &w));
    perfmodel_prediction e = book(&m, &h, w);
    cr_assert(p.memory.max_batch == 29,
              "max_batch %lld, want 29%s", (long long)p.memory.max_batch,
              p.memory.max_batch == 33 ? ": the whole 80 GiB was used; the book's budget leaves the runtime a tenth "
                                         "(h->memory_bytes x PERFMODEL_MEMORY_UTILIZATION)"
                                       : "");
    cr_assert(p.memory.max_batch - e.max_batch >= 0 && p.memory.max_batch - e.max_batch <= 1,
              "yours %lld, lib/perfmodel %lld", (long long)p.memory.max_batch, (long long)e.max_batch);
}

/* ---------------------------------------------------------------------------------
 * 2. The phases, counted */

Test(phases, mean_decode_context, .timeout = 5,
     .description = "The gen - 1 decode steps attend prompt + 1 ... prompt + gen - 1 positions, and their own: the mean "
                    "is prompt + gen / 2 (128 + 128 -> 192; 10 + 3 -> 11.5). With gen = 1 there is no step: prompt + 1.")
{
    expect("mean_decode_context(128, 128)", mean_decode_context(128, 128), 192, "prompt + gen / 2, in double");
    expect("mean_decode_context(10, 3)", mean_decode_context(10, 3), 11.5, "prompt + gen / 2, in double: not 11");
    expect("mean_decode_context(1, 2)", mean_decode_context(1, 2), 2, "prompt + gen / 2");
    expect("mean_decode_context(128, 1)", mean_decode_context(128, 1), 129, "gen = 1: the next step, prompt + 1");
}

Test(phases, decode_by_hand, .timeout = 5,
     .description = "A decode step of the hand shape, batch 2, at context 4 (prompt 3, gen 2): FLOPs 2 x (2 x 2 x 480 + "
                    "2 x 80 + 4 x 16 x 4) = 4672; bytes 4 x (1160 - 80 + 2 x 8) + 2 x 5 x 64 = 5024: the weights once, "
                    "the embedding table only as the two rows looked up, each sequence's KV read and one written.")
{
    perfmodel_shape m = hand_shape(0);
    perfmodel_workload w = {DTYPE_FP32, DTYPE_FP32, 2, 3, 2};
    phase_cost c = decode_step_cost(&m, &w);
    expect("decode_step_cost(hand, batch 2, context 4).flops", c.flops, 4672, IDEA_DECODE_FLOPS);
    expect("decode_step_cost(hand, batch 2, context 4).bytes", c.bytes, 5024, IDEA_DECODE_BYTES);
    perfmodel_shape tied = hand_shape(1);   /* tied: 1080 parameters, the table read in full as the classifier */
    c = decode_step_cost(&tied, &w);
    expect("decode_step_cost(hand tied, batch 2).bytes", c.bytes, 4 * 1080 + 2 * 5 * 64.0,
           "a tied table is the classifier: every weight is read, and no extra rows. " IDEA_DECODE_BYTES);
}

Test(phases, prefill_by_hand, .timeout = 5,
     .description = "The prefill of 2 prompts of 3 tokens, hand shape: FLOPs 2 x (3 x 2 x 960 + 2 x 80 + 2 x 16 x 3 x 4) "
                    "= 12608; bytes 4 x (1160 - 80 + 6 x 8) + 2 x 6 x 64 = 5280.")
{
    perfmodel_shape m = hand_shape(0);
    phase_cost c = prefill_cost(&m, &(perfmodel_workload){DTYPE_FP32, DTYPE_FP32, 2, 3, 5});
    expect("prefill_cost(hand, 2 x 3 tokens).flops", c.flops, 12608, IDEA_PREFILL_FLOPS);
    expect("prefill_cost(hand, 2 x 3 tokens).bytes", c.bytes, 5280, IDEA_PREFILL_BYTES);
}

/* The dense rows of data/models.csv but Qwen2-7B: for its Q/K/V biases lib/perfmodel's step bytes count
 * the biases twice (as layer matrices and as vectors, 0.002 % of a step), which yours need not copy. */
static const char *dense_models[] = {"Llama-2-7B", "Llama-2-13B", "Llama-2-70B", "Llama-3-8B", "Llama-3-70B", "Mistral-7B"};
enum { DENSE = sizeof dense_models / sizeof dense_models[0] };

static perfmodel_shape toy_shape(void)
{
    llama_config c;
    cr_assert(llama_named_shape("15M", &c, error, sizeof error) == 0, "%s", error);
    perfmodel_shape m;
    perfmodel_shape_from_config(&c, "15M", &m);
    return m;
}

Test(phases, decode_equals_lib_perfmodel, .timeout = 10,
     .description = "Every dense model of data/models.csv and the toy engine's tied 15M shape, FP32 to FP8, batch 1 to 64: your decode step's FLOPs and bytes are lib/perfmodel's.")
{
    perfmodel_hardware h = made_up_gpu();
    perfmodel_dtype types[] = {DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8};
    int batch_sizes[] = {1, 8, 64};
    for (int i = 0; i <= DENSE; i++) {
        perfmodel_shape m = i < DENSE ? model(dense_models[i]) : toy_shape();
        for (int t = 0; t < 4; t++)
            for (int b = 0; b < 3; b++) {
                perfmodel_workload w = {types[t], types[(t + 1) % 4], batch_sizes[b], i < DENSE ? 1000 : 100, i < DENSE ? 501 : 51};
                uint64_t inputs = inputs_of(&m, NULL, &w);
                phase_cost c = decode_step_cost(&m, &w);
                expect_inputs_unchanged("decode_step_cost", inputs, inputs_of(&m, NULL, &w));
                perfmodel_prediction e = book(&m, &h, w);
                char what[160];
                snprintf(what, sizeof what, "%s, %s weights, %s KV, batch %d: decode step flops", m.name,
                         perfmodel_dtype_name(w.weights), perfmodel_dtype_name(w.kv), w.batch);
                expect(what, c.flops, e.decode_step_flops, IDEA_DECODE_FLOPS);
                snprintf(what, sizeof what, "%s, %s weights, %s KV, batch %d: decode step bytes", m.name,
                         perfmodel_dtype_name(w.weights), perfmodel_dtype_name(w.kv), w.batch);
                expect(what, c.bytes, e.decode_step_bytes, IDEA_DECODE_BYTES);
            }
    }
}

Test(phases, prefill_equals_lib_perfmodel, .timeout = 10,
     .description = "The prefill's FLOPs and bytes are lib/perfmodel's for every model and prompt on a GPU, past "
                    "512 rows too: one GEMM per matrix reads each weight once (only the book's CPU engine reads them "
                    "again every 512 rows).")
{
    perfmodel_hardware h = made_up_gpu();
    for (int i = 0; i <= DENSE; i++) {
        perfmodel_shape m = i < DENSE ? model(dense_models[i]) : toy_shape();
        perfmodel_workload shapes[] = {{DTYPE_FP16, DTYPE_FP16, 1, 1, 1}, {DTYPE_BF16, DTYPE_FP8, 4, 100, 10},
                             {DTYPE_FP32, DTYPE_FP32, 1, 255, 1}, {DTYPE_FP16, DTYPE_FP16, 3, 170, 8},
                             {DTYPE_FP16, DTYPE_FP16, 5, 120, 8}};
        for (int s = 0; s < 5; s++) {
            perfmodel_workload w = shapes[s];
            uint64_t inputs = inputs_of(&m, NULL, &w);
            phase_cost c = prefill_cost(&m, &w);
            expect_inputs_unchanged("prefill_cost", inputs, inputs_of(&m, NULL, &w));
            perfmodel_prediction e = book(&m, &h, w);
            char what[160];
            snprintf(what, sizeof what, "%s, batch %d x prompt %d: prefill flops", m.name, w.batch, w.prompt);
            expect(what, c.flops, e.prefill_flops, IDEA_PREFILL_FLOPS);
            snprintf(what, sizeof what, "%s, batch %d x prompt %d: prefill bytes", m.name, w.batch, w.prompt);
            expect(what, c.bytes, e.prefill_bytes, IDEA_PREFILL_BYTES);
        }
    }
}

/* An awkward made-up shape: 3 layers, hidden 1001 = 7 heads x 143, one KV head, MLP 6007, vocab
 * 32003, untied: 125 064 940 parameters, 20 329 309 matrix parameters a layer, a 32 035 003-entry
 * table. The real models' counts are multiples of large powers of 2, which a float holds exactly;
 * these need more than a float's 24 bits. */
static perfmodel_shape awkward_shape(void)
{
    perfmodel_shape m = {.layers = 3, .hidden = 1001, .heads = 7, .kv_heads = 1, .head_dim = 143, .intermediate = 6007,
                    .vocab = 32003, .experts = 1, .experts_per_token = 1, .listed_parameters = -1};
    snprintf(m.name, sizeof m.name, "awkward");
    return m;
}

Test(phases, counted_in_double_on_an_awkward_shape, .timeout = 10,
     .description = "An awkward shape (hidden 1001, MLP 6007, vocab 32003: 125 064 940 parameters, not a multiple of a "
                    "power of 2): the weights' bytes, the decode step's and the prefill's FLOPs and bytes equal "
                    "lib/perfmodel's exactly. A float holds 24 bits (16.7 million): count in double, every product and cast.")
{
    perfmodel_shape m = awkward_shape();
    perfmodel_hardware h = made_up_gpu();
    cr_assert(perfmodel_shape_parameters(&m) == 125064940, "the test's own shape: %lld parameters",
              (long long)perfmodel_shape_parameters(&m));
    /* the last: 4097 x 4097 = 16 785 409 prompt rows, odd and past 2^24, which a float rounds (more rows than
     * the table has: lib/perfmodel reads each of its rows at most once, lab.h one per row, so compare the FLOPs) */
    perfmodel_workload cases[] = {{DTYPE_FP32, DTYPE_FP32, 1, 3, 2}, {DTYPE_FP16, DTYPE_FP16, 3, 100, 21},
                                  {DTYPE_BF16, DTYPE_FP8, 7, 60, 9}, {DTYPE_FP16, DTYPE_FP16, 4097, 4097, 1}};
    for (int k = 0; k < 4; k++) {
        perfmodel_workload w = cases[k];
        uint64_t inputs = inputs_of(&m, NULL, &w);
        double weights = weights_bytes(&m, w.weights);
        phase_cost decode = decode_step_cost(&m, &w), prefill = prefill_cost(&m, &w);
        expect_inputs_unchanged("weights_bytes, decode_step_cost or prefill_cost", inputs, inputs_of(&m, NULL, &w));
        perfmodel_prediction e = book(&m, &h, w);
        char what[160];
        snprintf(what, sizeof what, "awkward shape, %s: weights_bytes", perfmodel_dtype_name(w.weights));
        expect(what, weights, e.weights_bytes, IDEA_WEIGHTS ", in double");
        snprintf(what, sizeof what, "awkward shape, %s, batch %d: decode step flops", perfmodel_dtype_name(w.weights), w.batch);
        expect(what, decode.flops, e.decode_step_flops, IDEA_DECODE_FLOPS ", in double");
        snprintf(what, sizeof what, "awkward shape, %s, batch %d: decode step bytes", perfmodel_dtype_name(w.weights), w.batch);
        expect(what, decode.bytes, e.decode_step_bytes, IDEA_DECODE_BYTES ", in double");
        snprintf(what, sizeof what, "awkward shape, batch %d x prompt %d: prefill flops", w.batch, w.prompt);
        expect(what, prefill.flops, e.prefill_flops, IDEA_PREFILL_FLOPS ", in double");
        if (w.batch * (double)w.prompt > m.vocab) continue;
        snprintf(what, sizeof what, "awkward shape, batch %d x prompt %d: prefill bytes", w.batch, w.prompt);
        expect(what, prefill.bytes, e.prefill_bytes, IDEA_PREFILL_BYTES ", in double");
    }
}

/* ---------------------------------------------------------------------------------
 * 3. The roofline */

Test(roofline, bound_is_the_longer_time, .timeout = 5,
     .description = "compute_seconds = FLOPs / peak, memory_seconds = bytes / bandwidth; the bound is the LONGER of the "
                    "two (a kernel overlaps them: it can be no faster than either), and memory_bound = 1 when the memory "
                    "time is the longer.")
{
    bound b = roofline_bound((phase_cost){3e12, 1e9}, 1e15, 2e12);   /* compute 3 ms, memory 0.5 ms */
    expect("compute_seconds (3e12 FLOPs at 1e15 FLOP/s)", b.compute_seconds, 3e-3, "FLOPs / peak");
    expect("memory_seconds (1e9 bytes at 2e12 byte/s)", b.memory_seconds, 5e-4, "bytes / bandwidth");
    expect("seconds (compute 3 ms, memory 0.5 ms)", b.seconds, 3e-3, "the longer of the two, not the sum or the shorter");
    cr_assert(b.memory_bound == 0, "compute 3 ms against memory 0.5 ms: compute-bound, memory_bound must be 0");
    b = roofline_bound((phase_cost){1e9, 7e9}, 1e15, 2e12);   /* compute 1 us, memory 3.5 ms */
    expect("seconds (compute 1 us, memory 3.5 ms)", b.seconds, 3.5e-3, "the longer of the two");
    cr_assert(b.memory_bound == 1, "memory 3.5 ms against compute 1 us: memory_bound must be 1");
    b = roofline_bound((phase_cost){2e12, 1e9}, 1e15, 5e11);   /* compute 2 ms, memory 2 ms: a tie */
    expect("seconds (compute 2 ms, memory 2 ms)", b.seconds, 2e-3, "the longer of the two, here both");
    cr_assert(b.memory_bound == 0, "compute and memory both 2 ms: memory_bound = %d, want 0 (1 only when the memory time "
              "is the LONGER)", b.memory_bound);
}

Test(roofline, predict_is_lib_perfmodel_where_they_count_alike, .timeout = 10,
     .description = "predict(): the budget against the machine's memory, TTFT and TPOT the roofline bounds of the two "
                    "phases at peak_flops_for(h, weights) and the bandwidth; equal to lib/perfmodel's, bounds included.")
{
    const char *gpus[] = {"h100-sxm", "a100-80gb", "l4", "v100"};
    for (int g = 0; g < 4; g++) {
        perfmodel_hardware h = gpu(gpus[g]);
        for (int i = 0; i < DENSE; i++) {
            perfmodel_shape m = model(dense_models[i]);
            perfmodel_workload cases[] = {{DTYPE_FP16, DTYPE_FP16, 1, 128, 128}, {DTYPE_BF16, DTYPE_FP16, 16, 8, 64},
                                {DTYPE_FP8, DTYPE_FP8, 256, 2, 30}, {DTYPE_FP32, DTYPE_FP32, 2, 200, 2}};
            for (int k = 0; k < 4; k++) {
                perfmodel_workload w = cases[k];
                uint64_t inputs = inputs_of(&m, &h, &w);
                plan p = predict(&m, &h, &w);
                expect_inputs_unchanged("predict", inputs, inputs_of(&m, &h, &w));
                perfmodel_prediction e = book(&m, &h, w);
                char what[160];
                snprintf(what, sizeof what, "%s on %s, %s, batch %d: TPOT", m.name, h.name, perfmodel_dtype_name(w.weights), w.batch);
                expect(what, p.tpot.seconds, e.tpot_s, "the decode step's roofline bound at peak_flops_for(h, w->weights)");
                snprintf(what, sizeof what, "%s on %s, %s, batch %d: TTFT", m.name, h.name, perfmodel_dtype_name(w.weights), w.batch);
                expect(what, p.ttft.seconds, e.ttft_s, "the prefill's roofline bound");
                cr_assert(p.tpot.memory_bound == !strcmp(e.decode_bound, "memory"), "%s: decode is %s-bound, yours says "
                          "memory_bound = %d", what, e.decode_bound, p.tpot.memory_bound);
                expect("predict(...).decode_context", p.decode_context, e.decode_context, "mean_decode_context(prompt, gen)");
                cr_assert(p.memory.fits == (e.total_bytes - e.activation_bytes <= e.usable_bytes),
                          "%s: fits %d, but weights + KV cache = %.3g GB of the %.3g GB usable (%.3g GB, less the "
                          "runtime's tenth)", what, p.memory.fits, (e.total_bytes - e.activation_bytes) * 1e-9,
                          e.usable_bytes * 1e-9, h.memory_bytes * 1e-9);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------
 * 4. The article's worked numbers */

Test(article, llama2_70b_on_h100_is_41_ms, .timeout = 5,
     .description = "Llama-2-70B FP16 on an H100 SXM, prompt 128 + gen 128: a decode step reads 137.5 GB (not the 138.0 of "
                    "all the weights: the embedding table is looked up, one row) plus the KV of 193 positions: 41.04 ms, "
                    "memory-bound, the article's ~42 being 140 GB / 3.35 TB/s.")
{
    perfmodel_shape m = model("Llama-2-70B");
    perfmodel_hardware h = gpu("h100-sxm");
    plan p = predict(&m, &h, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 128, 128});
    double read = 2.0 * (68976648192.0 - 32000.0 * 8192) + 2.0 * 8192 + 193.0 * 327680;
    expect("Llama-2-70B decode step bytes", p.decode.bytes, read, IDEA_DECODE_BYTES);
    cr_assert(p.tpot.seconds > 0.04100 && p.tpot.seconds < 0.04105, "TPOT %.4f ms, want 41.04", p.tpot.seconds * 1e3);
    cr_assert(p.tpot.memory_bound, "decode at batch 1 is memory-bound: the Tensor Cores wait for the bytes");
}

Test(article, llama2_13b_on_a100_batch_1_and_8, .timeout = 5,
     .description = "Llama-2-13B FP16 on an A100 80GB (2039 GB/s): 12.68 ms a token at batch 1; at batch 8 a step reads "
                    "the same weights and 8 KV caches, 13.23 ms: 7.7x the tokens/s for 4 % more TPOT.")
{
    perfmodel_shape m = model("Llama-2-13B");
    perfmodel_hardware h = gpu("a100-80gb");
    plan one = predict(&m, &h, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 128, 128});
    plan eight = predict(&m, &h, &(perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 8, 128, 128});
    cr_assert(fabs(one.tpot.seconds * 1e3 - 12.6837) < 1e-3, "batch 1: TPOT %.4f ms, want 12.684", one.tpot.seconds * 1e3);
    cr_assert(fabs(eight.tpot.seconds * 1e3 - 13.2266) < 1e-3, "batch 8: TPOT %.4f ms, want 13.227 (the weights once, "
              "not 8 times)", eight.tpot.seconds * 1e3);
    cr_assert(one.tpot.memory_bound && eight.tpot.memory_bound, "both memory-bound (ridge 153 FLOP/byte)");
}

/* ---------------------------------------------------------------------------------
 * 5. The checklist */

static const char *fix_names[] = {"chunked prefill", "prefix caching", "a larger batch", "continuous batching",
                                  "quantized weights", "fewer KV heads (GQA/MQA)", "a paged KV cache", "a quantized KV cache",
                                  "CUDA graphs", "kernel fusion", "a smaller batch", "tensor parallelism"};
static const char *cause_names[] = {"prefill compute", "weight bandwidth", "KV bandwidth", "launch overhead", "KV memory",
                                    "nothing left to share", "prefill stalls decode"};

/* row: what checklist returned, called in the argument list so that the wanted row is not in a local while it
 * runs */
static void expect_row(checklist_row row, const char *name, cause want_cause, unsigned want_fixes)
{
    cr_assert(row.likely_cause == want_cause, "%s: likely_cause %d (%s), want %s", name, (int)row.likely_cause,
              row.likely_cause < CAUSES ? cause_names[row.likely_cause] : "none", cause_names[want_cause]);
    for (int f = 0; f < 12; f++) {
        unsigned bit = 1u << f;
        cr_assert(!(want_fixes & bit) || (row.fixes & bit), "%s: the fixes lack %s", name, fix_names[f]);
        cr_assert((want_fixes & bit) || !(row.fixes & bit), "%s: %s is not a fix the chapter's table gives here", name,
                  fix_names[f]);
    }
}

Test(checklist, every_row, .timeout = 5,
     .description = "The chapter's table, row by row: TTFT/long prompts -> prefill compute -> prefix caching, "
                    "tensor parallelism; TPOT/small batch -> weight bandwidth -> larger and continuous batching, "
                    "quantized weights; slower with context -> KV bandwidth -> GQA, paged KV, quantized KV; jittery -> "
                    "launch overhead -> CUDA graphs, fusion; OOM -> KV memory -> paged KV, smaller batch, quantized KV; "
                    "flat in batch -> nothing left to share -> tensor parallelism; TPOT spikes during prefill -> "
                    "prefill stalls decode -> chunked prefill.")
{
    expect_row(checklist(SYMPTOM_HIGH_TTFT_LONG_PROMPTS), "high TTFT on long prompts", CAUSE_PREFILL_COMPUTE,
               FIX_PREFIX_CACHING | FIX_TENSOR_PARALLEL);
    expect_row(checklist(SYMPTOM_HIGH_TPOT_SMALL_BATCH), "high TPOT at a small batch", CAUSE_WEIGHT_BANDWIDTH,
               FIX_LARGER_BATCH | FIX_CONTINUOUS_BATCHING | FIX_QUANTIZE_WEIGHTS);
    expect_row(checklist(SYMPTOM_SLOWER_AS_CONTEXT_GROWS), "slower as the context grows", CAUSE_KV_BANDWIDTH,
               FIX_FEWER_KV_HEADS | FIX_PAGED_KV | FIX_QUANTIZE_KV);
    expect_row(checklist(SYMPTOM_JITTERY_UTILISATION), "jittery utilisation", CAUSE_LAUNCH_OVERHEAD,
               FIX_CUDA_GRAPHS | FIX_KERNEL_FUSION);
    expect_row(checklist(SYMPTOM_OUT_OF_MEMORY), "out of memory", CAUSE_KV_MEMORY,
               FIX_PAGED_KV | FIX_SMALLER_BATCH | FIX_QUANTIZE_KV);
    expect_row(checklist(SYMPTOM_THROUGHPUT_FLAT_IN_BATCH), "throughput flat in the batch", CAUSE_NOTHING_LEFT_TO_SHARE,
               FIX_TENSOR_PARALLEL);
    expect_row(checklist(SYMPTOM_TPOT_SPIKES_DURING_PREFILL), "TPOT spikes during prefill", CAUSE_PREFILL_STALLS_DECODE,
               FIX_CHUNKED_PREFILL);
}

static const char *symptom_names[] = {"high TTFT on long prompts", "high TPOT at a small batch", "slower as the context grows",
                                      "jittery utilisation", "out of memory", "throughput flat in the batch",
                                      "TPOT spikes during prefill"};

static const perfmodel_targets interactive = {PERFMODEL_INTERACTIVE_TTFT_S, PERFMODEL_INTERACTIVE_TPOT_S};

/* the rows lib/perfmodel's advice (perfmodel_suggest_next_steps) shows for the same workload and
 * target: its lines that start with a row's name in brackets */
static unsigned advised_symptoms(const perfmodel_shape *m, const perfmodel_hardware *h, perfmodel_workload w,
                                 const perfmodel_targets *targets)
{
    perfmodel_prediction e = book(m, h, w);
    char lines[8][256];
    int count = perfmodel_suggest_next_steps(m, h, &w, &e, targets, lines, 8);
    unsigned shown = 0;
    for (int i = 0; i < count; i++)
        for (int s = 0; s < SYMPTOMS; s++) {
            char tag[64];
            snprintf(tag, sizeof tag, "[%s]", symptom_names[s]);
            if (!strncmp(lines[i], tag, strlen(tag))) shown |= 1u << s;
        }
    return shown;
}

static void expect_symptoms(const char *what, unsigned got, unsigned want, const char *against)
{
    for (int s = 0; s < SYMPTOMS; s++) {
        unsigned bit = 1u << s;
        cr_assert((got & bit) == (want & bit), "%s: your prediction %s [%s], %s %s it. (lab.h: when each row shows)",
                  what, got & bit ? "shows" : "does not show", symptom_names[s], against,
                  want & bit ? "shows" : "does not show");
    }
}

Test(checklist, predicted_symptoms_match_the_advice, .timeout = 10,
     .description =
         "Against the interactive target (TTFT 450 ms, TPOT 40 ms): out of memory when the budget does not fit; "
         "high TPOT when TPOT misses its target, decode is memory-bound and more sequences fit; slower with "
         "context when TPOT misses, decode is memory-bound and the KV cache is over 30 % of its bytes; flat in "
         "batch when decode is compute-bound; high TTFT when TTFT misses and prefill is compute-bound. The "
         "same rows as lib/perfmodel's advice, at the same target and at a tight one.")
{
    enum { OOM = 1u << SYMPTOM_OUT_OF_MEMORY, TPOT = 1u << SYMPTOM_HIGH_TPOT_SMALL_BATCH,
           KV = 1u << SYMPTOM_SLOWER_AS_CONTEXT_GROWS, FLAT = 1u << SYMPTOM_THROUGHPUT_FLAT_IN_BATCH,
           TTFT = 1u << SYMPTOM_HIGH_TTFT_LONG_PROMPTS };
    /* static: the chapter's rows are in the program's data, not in a local the code under test could read off its
     * caller's stack; every workload is FP16 weights and KV cache, batch x (prompt + gen) */
    static const struct { const char *model, *gpu, *what; int batch, prompt, gen; unsigned want; } cases[] = {
        {"Llama-2-70B", "h100-sxm", "70B FP16 on one H100", 1, 128, 128, OOM},
        {"Llama-2-13B", "a100-80gb", "13B, batch 1, short prompt: 12.7 ms meets 40", 1, 128, 128, 0},
        {"Llama-2-7B", "h100-sxm", "7B, 1 x 4000-token prompt: TTFT 57 ms meets 450", 1, 4000, 96, 0},
        {"Llama-2-7B", "h100-sxm", "7B, batch 600 of short sequences", 600, 16, 16, FLAT},
        {"Llama-2-7B", "a100-80gb", "7B, 40 x 4096 tokens: TPOT 48 ms", 40, 4000, 96, OOM | KV | TTFT},
        {"Llama-2-7B", "h100-sxm", "7B, 16 x 4000-token prompts, TTFT 0.9 s", 16, 4000, 96, TTFT},
        {"Llama-2-70B", "h200", "70B FP16 on an H200: 138.0 GB of 136.3 usable", 1, 128, 128, OOM},
        {"Llama-2-7B", "l4", "7B on an L4, batch 1: TPOT 44.4 ms misses 40", 1, 128, 128, TPOT},
        {"Llama-2-7B", "l4", "7B on an L4, 4 x 3096 tokens: TPOT 65 ms", 4, 3000, 96, TPOT | KV | TTFT},
        {"Llama-2-7B", "a100-40gb", "7B, 8 x 4096, A100 40GB: TPOT 19 ms meets 40", 8, 4000, 96, TTFT},
    };
    const perfmodel_targets tight = {1e-3, 1e-3};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        perfmodel_shape m = model(cases[i].model);
        perfmodel_hardware h = gpu(cases[i].gpu);
        perfmodel_workload w = {DTYPE_FP16, DTYPE_FP16, cases[i].batch, cases[i].prompt, cases[i].gen};
        plan p = predict(&m, &h, &w);
        unsigned got = predicted_symptoms(&p, &w, &interactive);
        cr_assert(!(got & (1u << SYMPTOM_JITTERY_UTILISATION)), "%s: jittery utilisation is never predicted: a roofline "
                  "has no timeline", cases[i].what);
        cr_assert(!(got & (1u << SYMPTOM_TPOT_SPIKES_DURING_PREFILL)), "%s: TPOT spikes during prefill are never "
                  "predicted: a roofline has no timeline", cases[i].what);
        expect_symptoms(cases[i].what, got, advised_symptoms(&m, &h, w, &interactive),
                        "lib/perfmodel's advice at the interactive target");
        expect_symptoms(cases[i].what, got, cases[i].want, "the chapter's table at the interactive target");
        char what[160];
        snprintf(what, sizeof what, "%s, at a 1 ms target for both", cases[i].what);
        expect_symptoms(what, predicted_symptoms(&p, &w, &tight), advised_symptoms(&m, &h, w, &tight),
                        "lib/perfmodel's advice");
    }
}

/* a plan made by hand: everything fits, both phases memory-bound at 1 s each, `max_batch` sequences
 * would fit, and a decode step of `step_bytes` of which the KV cache is batch x (context + 1) x 1 byte */
static plan hand_plan(int64_t max_batch, double context, double step_bytes)
{
    plan p = {.memory = {.weights_bytes = 1000, .kv_bytes_per_token = 1, .kv_bytes_total = 10, .needed_bytes = 1010,
                         .fits = 1, .max_batch = max_batch},
              .decode_context = context, .decode = {.flops = 1, .bytes = step_bytes}, .prefill = {.flops = 1, .bytes = 1000},
              .ttft = {.seconds = 1, .compute_seconds = 0.5, .memory_seconds = 1, .memory_bound = 1},
              .tpot = {.seconds = 1, .compute_seconds = 0.5, .memory_seconds = 1, .memory_bound = 1}};
    return p;
}

/* one row of predicted_symptoms for a hand-made plan and target, shown or not; `rows`: what predicted_symptoms
 * returned, called in the argument list so that `want` is not in a local while it runs */
static void expect_row_shown(const char *what, unsigned rows, symptom s, int want, const char *rule)
{
    int shown = (rows >> s & 1u) != 0;
    cr_assert(shown == want, "%s: your prediction %s [%s], want it %s: %s", what, shown ? "shows" : "does not show",
              symptom_names[s], want ? "shown" : "not shown", rule);
}

Test(checklist, predicted_symptoms_at_their_edges, .timeout = 5,
     .description =
         "The rows' conditions are strict: high TPOT only when MORE sequences fit than run (max_batch 4 at "
         "batch 4 is full: no), slower with context only when the KV cache is MORE than 30 % of a step's bytes "
         "(3 bytes of 10: no; 3 of 9: yes), and a latency row only when the plan takes LONGER than its target "
         "(1 s against a 1 s target: met).")
{
    const char *more_fit =
        "high TPOT at a small batch when TPOT misses its target, decode is memory-bound and max_batch > "
        "batch (more would fit)";
    const char *over_30 =
        "slower as the context grows when TPOT misses its target, decode is memory-bound and the KV read, "
        "batch x (context + 1) x kv_bytes_per_token, is more than 0.3 x the step's bytes";
    const char *missed = "a latency row shows only when the plan's time is more than its target: equal meets it";
    perfmodel_workload four = {DTYPE_FP16, DTYPE_FP16, 4, 2, 1}, one = {DTYPE_FP16, DTYPE_FP16, 1, 2, 1};
    const perfmodel_targets under = {0.5, 0.5}, exact = {1, 1}, ttft_only = {0.5, 1}, tpot_only = {1, 0.5};
    plan p = hand_plan(4, 2, 1e6);
    expect_row_shown("memory-bound, max_batch 4 at batch 4 (the memory holds no more)",
                     predicted_symptoms(&p, &four, &under), SYMPTOM_HIGH_TPOT_SMALL_BATCH, 0, more_fit);
    p = hand_plan(5, 2, 1e6);
    expect_row_shown("memory-bound, max_batch 5 at batch 4, TPOT 1 s over a 0.5 s target",
                     predicted_symptoms(&p, &four, &under), SYMPTOM_HIGH_TPOT_SMALL_BATCH, 1, more_fit);
    expect_row_shown("memory-bound, max_batch 5 at batch 4, TPOT 1 s at a 1 s target",
                     predicted_symptoms(&p, &four, &exact), SYMPTOM_HIGH_TPOT_SMALL_BATCH, 0, missed);
    expect_row_shown("memory-bound, max_batch 5 at batch 4, only TTFT over its target",
                     predicted_symptoms(&p, &four, &ttft_only), SYMPTOM_HIGH_TPOT_SMALL_BATCH, 0,
                     "the TPOT rows follow the TPOT target, not the TTFT one");
    p = hand_plan(1, 2, 10);
    expect_row_shown("batch 1 at context 2, 1 KV byte a token: a KV read of 3 bytes in a step of 10 (exactly 30 %)",
                     predicted_symptoms(&p, &one, &under), SYMPTOM_SLOWER_AS_CONTEXT_GROWS, 0, over_30);
    p = hand_plan(1, 2, 9);
    expect_row_shown("batch 1 at context 2, 1 KV byte a token: a KV read of 3 bytes in a step of 9 (33 %)",
                     predicted_symptoms(&p, &one, &under), SYMPTOM_SLOWER_AS_CONTEXT_GROWS, 1, over_30);
    expect_row_shown("a KV read of 3 bytes in 9, TPOT 1 s at a 1 s target", predicted_symptoms(&p, &one, &exact),
                     SYMPTOM_SLOWER_AS_CONTEXT_GROWS, 0, missed);
    expect_row_shown("a KV read of 3 bytes in 9, only TTFT over its target", predicted_symptoms(&p, &one, &ttft_only),
                     SYMPTOM_SLOWER_AS_CONTEXT_GROWS, 0, "the TPOT rows follow the TPOT target, not the TTFT one");
    /* a compute-bound prefill: the TTFT row follows the TTFT target */
    p.ttft.memory_bound = 0, p.ttft.compute_seconds = 1, p.ttft.memory_seconds = 0.5;
    expect_row_shown("a compute-bound prefill of 1 s, a 1 s TTFT target", predicted_symptoms(&p, &one, &exact),
                     SYMPTOM_HIGH_TTFT_LONG_PROMPTS, 0, missed);
    expect_row_shown("a compute-bound prefill of 1 s, a 0.5 s TTFT target", predicted_symptoms(&p, &one, &ttft_only),
                     SYMPTOM_HIGH_TTFT_LONG_PROMPTS, 1,
                     "high TTFT when TTFT misses its target and prefill is compute-bound");
    expect_row_shown("a compute-bound prefill of 1 s, only TPOT over its target",
                     predicted_symptoms(&p, &one, &tpot_only), SYMPTOM_HIGH_TTFT_LONG_PROMPTS, 0,
                     "the TTFT row follows the TTFT target, not the TPOT one");
    p.ttft.memory_bound = 1;
    expect_row_shown("a memory-bound prefill of 1 s, a 0.5 s TTFT target", predicted_symptoms(&p, &one, &ttft_only),
                     SYMPTOM_HIGH_TTFT_LONG_PROMPTS, 0, "high TTFT's cause is a compute-bound prefill");
    /* the KV share counted in double: 2^24 + 1 bytes read against 0.3 x 55 924 055 = 16 777 216.5 */
    perfmodel_workload single = {DTYPE_FP16, DTYPE_FP16, 1, 2, 1};
    plan big = hand_plan(1, 16777216.0, 55924055.0);
    expect_row_shown("a KV read of 2^24 + 1 bytes in a step of 55 924 055 (a float holds 2^24)",
                     predicted_symptoms(&big, &single, &under), SYMPTOM_SLOWER_AS_CONTEXT_GROWS, 1,
                     "count the KV read in double: a float rounds 2^24 + 1 down");
    /* throughput flat in the batch has no latency target */
    p.tpot.memory_bound = 0;
    expect_row_shown(
        "a compute-bound decode step that meets its target", predicted_symptoms(&p, &one, &exact),
        SYMPTOM_THROUGHPUT_FLAT_IN_BATCH, 1,
        "throughput flat in the batch whenever decode is compute-bound: it is about throughput, not latency");
}

/* ---------------------------------------------------------------------------------
 * 6. The batch a TPOT target allows */

/* the largest batch whose lib/perfmodel TPOT meets the target and whose budget, activations left out, fits */
static int64_t largest_by_search(const perfmodel_shape *m, const perfmodel_hardware *h, perfmodel_workload w,
                                 double target)
{
    int64_t best = 0;
    for (w.batch = 1; w.batch < 100000; w.batch++) {
        perfmodel_prediction e = book(m, h, w);
        if (e.tpot_s > target || e.total_bytes - e.activation_bytes > e.usable_bytes) break;
        best = w.batch;
    }
    return best;
}

/* largest_batch_within_tpot, held to leaving its inputs as they were: some answers are worked out from them after */
static int64_t largest_within(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w,
                              double target_s)
{
    uint64_t inputs = inputs_of(m, h, w);
    int64_t got = largest_batch_within_tpot(m, h, w, target_s);
    expect_inputs_unchanged("largest_batch_within_tpot", inputs, inputs_of(m, h, w));
    return got;
}

Test(target, largest_batch_within_tpot_by_hand, .timeout = 5,
     .description =
         "The hand shape on a made-up GPU, 3 + 2 tokens: a step of B sequences is 4320 + 352 B bytes and 2336 B "
         "FLOPs; at 333.3 GB/s and 77.77 TFLOP/s a target of (4320 + 352 x 7) / 333.3e9 s allows exactly 7, "
         "a hair less 6; the compute line limits it once FLOPs dominate, the memory capacity once the card is "
         "small, and 0 when one sequence misses.")
{
    perfmodel_shape m = hand_shape(0);
    perfmodel_hardware h = made_up_gpu();
    perfmodel_workload w = {DTYPE_FP32, DTYPE_FP32, 1, 3, 2};
    phase_cost c1 = decode_step_cost(&m, &w);
    w.batch = 2;
    phase_cost c2 = decode_step_cost(&m, &w);
    double each = c2.bytes - c1.bytes, shared = c1.bytes - each, flops = c2.flops - c1.flops;
    cr_assert(each == 352 && shared == 4320 && flops == 2336,
              "decode_step_cost(hand, batch 1 and 2) gives a step of %g + %g B bytes and %g B FLOPs, want 4320 + 352 B "
              "and 2336 B (phases/decode_by_hand first)",
              shared, each, flops);
    double at_7 = (shared + 7 * each) / h.bandwidth;
    int64_t got = largest_within(&m, &h, &w, at_7 * (1 + 1e-9));
    cr_assert(got == 7,
              "a TPOT target just above batch 7's memory time: %lld, want 7 (the memory line, (T x bandwidth - "
              "shared) / each, rounded down)",
              (long long)got);
    got = largest_within(&m, &h, &w, at_7 * (1 - 1e-9));
    cr_assert(got == 6, "a TPOT target just below batch 7's memory time: %lld, want 6", (long long)got);
    double at_1 = (shared + each) / h.bandwidth;
    got = largest_within(&m, &h, &w, at_1 * (1 + 1e-9));
    cr_assert(got == 1, "a TPOT target just above one sequence's memory time: %lld, want 1 (one sequence meets it)",
              (long long)got);
    got = largest_within(&m, &h, &w, shared / h.bandwidth);
    cr_assert(got == 0, "a target that only the shared bytes meet: %lld, want 0 (no sequence meets it)",
              (long long)got);
    /* a GPU whose compute is slow: the compute line binds first */
    perfmodel_hardware slow = h;
    slow.fp32_flops = 1e9;
    double compute_at_5 = 5 * flops / slow.fp32_flops;
    got = largest_within(&m, &slow, &w, compute_at_5 * (1 + 1e-9));
    cr_assert(got == 5,
              "slow compute (1 GFLOP/s), a target just above 5 x 2336 FLOPs: %lld, want 5 (the compute line, T x "
              "peak / FLOPs each)",
              (long long)got);
    got = largest_within(&m, &slow, &w, compute_at_5 * (1 - 1e-9));
    cr_assert(got == 4, "slow compute, a target just below 5 sequences' FLOPs: %lld, want 4", (long long)got);
    /* a small card: room for exactly 3 sequences beside the weights */
    perfmodel_hardware small = h;
    small.memory_bytes = (4640 + 3 * 5 * 64.0) / PERFMODEL_MEMORY_UTILIZATION;
    got = largest_within(&m, &small, &w, 1.0);
    cr_assert(got == 3, "a card with room for 3 sequences and a loose target: %lld, want 3 (the budget, max_batch)",
              (long long)got);
    small.memory_bytes = 4000 / PERFMODEL_MEMORY_UTILIZATION;
    got = largest_within(&m, &small, &w, 1.0);
    cr_assert(got == 0, "a card too small for the weights: %lld, want 0", (long long)got);
}

Test(target, largest_batch_within_tpot_beside_lib_perfmodel, .timeout = 20,
     .description = "Llama-2-13B on an A100 80GB, Llama-2-7B and Llama-3-8B on an H100, short and long contexts, "
                    "targets 5 to 60 ms: "
                    "the largest batch whose lib/perfmodel TPOT meets the target and whose budget fits (weights and KV "
                    "cache), found by trying every batch, is yours.")
{
    struct {
        const char *model, *gpu;
        int prompt, gen;
        double target_s;
    } cases[] = {
        {"Llama-2-13B", "a100-80gb", 128, 128, 0.0133}, {"Llama-2-13B", "a100-80gb", 128, 128, 0.040},
        {"Llama-2-7B", "h100-sxm", 16, 16, 0.005},      {"Llama-2-7B", "h100-sxm", 16, 16, 0.060},
        {"Llama-2-7B", "h100-sxm", 1024, 128, 0.010},   {"Llama-2-7B", "a100-80gb", 3000, 96, 0.040},
        {"Llama-3-8B", "h100-sxm", 16, 16, 0.060}, /* GQA's small cache: the compute line binds first */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        perfmodel_shape m = model(cases[i].model);
        perfmodel_hardware h = gpu(cases[i].gpu);
        perfmodel_workload w = {DTYPE_FP16, DTYPE_FP16, 1, cases[i].prompt, cases[i].gen};
        int64_t got = largest_within(&m, &h, &w, cases[i].target_s);
        int64_t want = largest_by_search(&m, &h, w, cases[i].target_s);
        cr_assert(got == want, "%s on %s, %d + %d tokens, TPOT within %.1f ms: %lld, want %lld (%s)", cases[i].model,
                  h.name, cases[i].prompt, cases[i].gen, cases[i].target_s * 1e3, (long long)got, (long long)want,
                  got > want ? "too many: check both lines of the roofline and the memory budget"
                             : "too few: round down only once, at the end, and only the limits that bind");
    }
}

Test(target, largest_batch_within_tpot_in_closed_form, .timeout = 5,
     .description =
         "The hand shape on a 10 PB card with a 10 s target allows some 9.5 billion sequences: the closed form "
         "answers at once, where trying batch after batch runs out of time.")
{
    perfmodel_shape m = hand_shape(0);
    perfmodel_hardware h = made_up_gpu();
    h.memory_bytes = 1e16;
    perfmodel_workload w = {DTYPE_FP32, DTYPE_FP32, 1, 3, 2};
    int64_t got = largest_within(&m, &h, &w, 10.0);
    int64_t want = (int64_t)floor((10.0 * h.bandwidth - 4320) / 352);
    want = (int64_t)fmin((double)want, floor(10.0 * h.fp32_flops / 2336));
    cr_assert(got == want, "10 s on the hand shape: %lld sequences, want %lld", (long long)got, (long long)want);
    /* the compute line binds (a memory of 1e18 byte/s), then the budget (a target of a million seconds):
     * answers past a float's 24 bits, counted in double */
    h.bandwidth = 1e18;
    got = largest_within(&m, &h, &w, 10.0);
    want = (int64_t)floor(10.0 * h.fp32_flops / 2336);
    cr_assert(got == want, "10 s, the compute line binding: %lld sequences, want %lld (T x peak / FLOPs each, in double)",
              (long long)got, (long long)want);
    got = largest_within(&m, &h, &w, 1e6);
    want = (int64_t)floor((1e16 * PERFMODEL_MEMORY_UTILIZATION - 4640) / 320);
    cr_assert(got == want, "a million seconds, the memory budget binding: %lld sequences, want %lld (max_batch, in double)",
              (long long)got, (long long)want);
    /* the awkward shape: shared and per-sequence bytes that a float cannot hold */
    perfmodel_shape awkward = awkward_shape();
    perfmodel_hardware card = made_up_gpu();
    card.memory_bytes = 1e16;
    perfmodel_workload aw = {DTYPE_FP16, DTYPE_FP16, 2, 1000, 501};
    got = largest_within(&awkward, &card, &aw, 1.0);
    perfmodel_prediction one = book(&awkward, &card, (perfmodel_workload){DTYPE_FP16, DTYPE_FP16, 1, 1000, 501});
    perfmodel_prediction two = book(&awkward, &card, aw);
    double each = two.decode_step_bytes - one.decode_step_bytes, shared = one.decode_step_bytes - each;
    want = (int64_t)floor((card.bandwidth - shared) / each);
    cr_assert(got == want, "the awkward shape, 1 s: %lld sequences, want %lld (its bytes need more than a float's 24 bits)",
              (long long)got, (long long)want);
    /* a byte either side of exactly 1000 sequences' bytes: the shared bytes (1.9e8) counted in double */
    double exact = shared + 1000 * each;
    got = largest_within(&awkward, &card, &aw, (exact + 1) / card.bandwidth);
    cr_assert(got == 1000, "the awkward shape, a target a byte above 1000 sequences' step: %lld, want 1000 (in double)",
              (long long)got);
    got = largest_within(&awkward, &card, &aw, (exact - 1) / card.bandwidth);
    cr_assert(got == 999, "the awkward shape, a target a byte below 1000 sequences' step: %lld, want 999 (in double)",
              (long long)got);
}

/* ---------------------------------------------------------------------------------
 * 7. The toy engine on this CPU, measured */

Test(engine, predicted_against_measured_on_this_cpu, .timeout = 120,
     .description = "The toy engine (15M, FP32, one thread) on this CPU: a decode step at batch 1 is memory-bound and a "
                    "128-token prefill compute-bound in your model; the measured times are no faster than half your bound "
                    "(a bound is a floor) and within 8 times it.")
{
    /* The model's bounds come from this CPU's probes; under an emulator neither side is a machine's. */
    lab_skip_timing_under_emulator("the toy engine against its predicted bounds");
    llama_transformer t;
    perfmodel_shape toy;
    cr_assert(build_toy_engine(&t, &toy, error, sizeof error) == 0, "%s", error);
    perfmodel_hardware cpu;
    perfmodel_measure_cpu(&cpu, (size_t)t.weights_bytes);
    plan decode = predict(&toy, &cpu, &(perfmodel_workload){DTYPE_FP32, DTYPE_FP32, 1, 16, 3 * 2 + 1});
    plan prefill = predict(&toy, &cpu, &(perfmodel_workload){DTYPE_FP32, DTYPE_FP32, 1, 128, 1});
    cr_assert(decode.tpot.memory_bound && !prefill.ttft.memory_bound, "on this CPU (ridge %.1f FLOP/byte) decode should be "
              "memory-bound (yours: %d) and a 128-token prefill compute-bound (yours: memory_bound %d)",
              cpu.fp32_flops / cpu.bandwidth, decode.tpot.memory_bound, prefill.ttft.memory_bound);
    double step = measure_decode_step(&t, 1, 16, 3, 2, error, sizeof error);
    cr_assert(step > 0, "%s", error);
    double whole = measure_prefill(&t, 128, 3, error, sizeof error);
    cr_assert(whole > 0, "%s", error);
    double r_decode = step / decode.tpot.seconds, r_prefill = whole / prefill.ttft.seconds;
    cr_assert(r_decode > 0.5 && r_decode < 8, "decode step: measured %.3f ms, your bound %.3f ms (ratio %.2f)", step * 1e3,
              decode.tpot.seconds * 1e3, r_decode);
    cr_assert(r_prefill > 0.5 && r_prefill < 8, "prefill of 128 tokens: measured %.3f ms, your bound %.3f ms (ratio %.2f)",
              whole * 1e3, prefill.ttft.seconds * 1e3, r_prefill);
    llama_free_transformer(&t);
}
