/* 19-prefill-decode.c — the checks for day 19, in the order of lab.h: the bytes of stored
 * weights; one forward step counted by hand on a shape small enough for paper (written out
 * beside each case), then a chunked prefill; your counts against the engine's own counters
 * (llama_session.counters) for grouped-query and multi-head shapes, tied and untied classifiers,
 * FP32 and INT8 weights, and a prompt longer than one step; your instrumented run of the two
 * phases (each phase's counters alone, and the decode step's logits equal to the whole
 * sequence recomputed); intensity, and prefill's over decode's against the chapter's estimate;
 * your prediction of the prompt at which a prefill's KV reads pass its weights, against the
 * engine's counters on three shapes and against Llama-2-7B worked out here; and, measured in one
 * run, that prefill is cheaper per token and decode cheaper per step.
 * Every count is a whole number below 2^53: the comparisons are exact. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "robust.h"
#include "table.h"

static char error[512];

/* The hand shape: dim 8, MLP 12 wide, 2 layers, 4 query heads of 2 sharing 2 KV heads (kv_dim
 * 4), 10 tokens, room for 16, untied. One layer's matrices: Wq 64 + Wk 32 + Wv 32 + Wo 64 +
 * W1, W2, W3 96 each = 480 values; the classifier 80. */
static const llama_config hand = {8, 12, 2, 4, 2, 10, 16, 0};

static stored_model fp32_model(llama_config c) { return (stored_model){c, WEIGHTS_FP32, 0}; }
static stored_model int8_model(llama_config c, int group) { return (stored_model){c, WEIGHTS_INT8, group}; }

/* ---------------------------------------------------------------------------------
 * Comparing counts field by field, with what each field is made of */

typedef struct field {
    const char *name;
    double got, want;
    const char *idea;
} field;

/* Every caller calls the code under test first and only then makes what it expects (a count worked
 * out by hand, in 64-bit integers, or by the engine): while that code runs, no expected count is in
 * memory for it to copy (tests/grader/forgeries/reads-expected-values.patch). */
static void expect_counts(const char *what, phase_counts got, phase_counts want)
{
    field fields[] = {
        {"steps", (double)got.steps, (double)want.steps,
         "1 for one step (a decode step); a prefill takes one per step_rows rows of the prompt, the last one shorter: round up"},
        {"rows", (double)got.rows, (double)want.rows, "one row per token the phase processes"},
        {"matmul_flops", got.matmul_flops, want.matmul_flops,
         "2 x rows x the layers' matrix values (Wq, Wk, Wv, Wo, W1, W2, W3 in every layer), plus 2 x vocab x dim "
         "for each row that gets logits (a prefill: the last token only)"},
        {"attention_flops", got.attention_flops, want.attention_flops,
         "4 x head_dim x n_heads (every query head) x positions attended x layers; the token at position p attends "
         "p + 1 positions"},
        {"weight_bytes", got.weight_bytes, want.weight_bytes,
         "every layer matrix once per step however many rows it has, the classifier once in the step that computes "
         "logits, and one embedding row (dim values) per row, all as stored"},
        {"kv_write_bytes", got.kv_write_bytes, want.kv_write_bytes, "2 x kv_dim x 4 bytes per row and layer"},
        {"kv_read_bytes", got.kv_read_bytes, want.kv_read_bytes,
         "2 x kv_dim x 4 bytes per position attended, per row and layer: kv_dim (the KV heads), not dim"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const field *f = &fields[i];
        if (f->got == f->want) continue;
        char times[96] = "still 0: is it written yet?";
        if (f->got != 0 && fabs(f->got / f->want - 1) < 1e-4)
            snprintf(times, sizeof times, "off by %.17g: low bits lost, to a float or an int?", f->got - f->want);
        else if (f->got != 0) snprintf(times, sizeof times, "%.4g times it", f->got / f->want);
        cr_assert(0, "%s: %s = %.17g, want %.17g (%s). It is %s.", what, f->name, f->got, f->want, times, f->idea);
    }
}

/* ---------------------------------------------------------------------------------
 * 1. Stored bytes */

Test(stored_bytes, fp32_and_int8, .timeout = 5,
     .description = "FP32: 4 bytes a value. INT8: 1 byte a value plus one 4-byte FP32 scale per group_size values, "
                    "so 64 values in groups of 64 are 68 bytes, not 64.")
{
    stored_model f = fp32_model(hand), q = int8_model(hand, 64), q4 = int8_model(hand, 4);
    cr_assert(stored_weight_bytes(&f, 480) == 1920, "FP32, 480 values: got %g bytes, want 1920 (4 each)",
              stored_weight_bytes(&f, 480));
    double got = stored_weight_bytes(&q, 128);
    cr_assert(got == 136, "INT8 in groups of 64, 128 values: got %g bytes, want 136 (128 values + 2 scales of 4)%s", got,
              got == 128 ? ": the scales are missing" : got == 512 ? ": INT8 counted as FP32" : "");
    cr_assert(stored_weight_bytes(&q4, 480) == 960, "INT8 in groups of 4, 480 values: got %g, want 960",
              stored_weight_bytes(&q4, 480));
    cr_assert(stored_weight_bytes(&f, 0) == 0 && stored_weight_bytes(&q, 0) == 0, "0 values are 0 bytes");
}

/* ---------------------------------------------------------------------------------
 * 2. By hand */

Test(step, hand_decode_step, .timeout = 5,
     .description = "One decode step at position 3: one row through every matrix (GEMV: 2 FLOPs a weight), the "
                    "classifier, attention over 4 positions; every weight read once, plus the token's embedding row.")
{
    /* matmul 2 x 960 + 2 x 80 = 2080; attention 4 x 2 x 4 heads x 4 positions x 2 layers = 256;
     * weights 4 x (960 + 80) + the embedding row 4 x 8 = 4192; KV write 2 x 4 x 4 x 2 = 64; read 64 x 4 = 256 */
    stored_model m = fp32_model(hand);
    phase_counts got = decode_counts(&m, 3);
    expect_counts("decode_counts(hand, position 3)", got, (phase_counts){1, 1, 2080, 256, 4192, 64, 256});
    got = step_counts(&m, 3, 1, 1);
    expect_counts("step_counts(hand, 3, 1 row, 1 logit row)", got, (phase_counts){1, 1, 2080, 256, 4192, 64, 256});
}

Test(step, hand_position_zero, .timeout = 5,
     .description = "The first token (position 0) attends one position, itself: p + 1, never 0.")
{
    /* attention 4 x 2 x 4 x 1 x 2 = 64; KV read 2 x 4 x 4 x 1 x 2 = 64 */
    stored_model m = fp32_model(hand);
    phase_counts got = decode_counts(&m, 0);
    expect_counts("decode_counts(hand, position 0)", got, (phase_counts){1, 1, 2080, 64, 4192, 64, 64});
}

Test(step, hand_rows_without_logits, .timeout = 5,
     .description = "A step of 3 rows at positions 2, 3, 4 with no logits: 3 rows through every matrix, the weights "
                    "still read once (not once a row), no classifier at all; the rows attend 3 + 4 + 5 positions.")
{
    /* matmul 2 x 3 x 960 = 5760; attention 4 x 2 x 4 x 12 x 2 = 768; weights 4 x 960 + 4 x 3 x 8 = 3936;
     * KV write 2 x 4 x 4 x 3 x 2 = 192; read 2 x 4 x 4 x 12 x 2 = 768 */
    stored_model m = fp32_model(hand);
    phase_counts got = step_counts(&m, 2, 3, 0);
    expect_counts("step_counts(hand, 2, 3 rows, no logits)", got, (phase_counts){1, 3, 5760, 768, 3936, 192, 768});
}

Test(step, hand_several_logit_rows, .timeout = 5,
     .description = "A step of 3 rows at positions 0, 1, 2, all 3 with logits: the classifier multiplies 3 rows "
                    "(3 times its FLOPs), but its weights are read once, as every matrix's.")
{
    /* matmul 2 x 3 x 960 + 2 x 3 x 80 = 6240; attention 4 x 2 x 4 x 6 x 2 = 384 (1 + 2 + 3 positions);
     * weights 4 x (960 + 80) + 4 x 3 x 8 = 4256; KV write 2 x 4 x 4 x 3 x 2 = 192; read 2 x 4 x 4 x 6 x 2 = 384 */
    stored_model m = fp32_model(hand);
    phase_counts got = step_counts(&m, 0, 3, 3);
    expect_counts("step_counts(hand, 0, 3 rows, 3 logit rows)", got, (phase_counts){1, 3, 6240, 384, 4256, 192, 384});
}

Test(step, hand_int8, .timeout = 5,
     .description = "INT8 in groups of 4: every stored value is 1 byte plus a quarter of a 4-byte scale, 2 bytes; the "
                    "embedding rows are stored the same way. FLOPs and the FP32 KV cache do not change.")
{
    stored_model m = int8_model(hand, 4);
    phase_counts got = decode_counts(&m, 3);
    expect_counts("decode_counts(hand INT8, position 3)", got,
                  (phase_counts){1, 1, 2080, 256, 2 * 1040 + 2 * 8, 64, 256});
}

Test(prefill, hand_in_steps_of_two, .timeout = 5,
     .description = "A 5-token prompt in steps of 2 rows: steps of 2, 2 and 1 (round up), the weights read in each "
                    "of the 3, the classifier only for the last token, in the last step.")
{
    /* matmul 2 x 5 x 960 + 2 x 80 = 9760; attention 4 x 2 x 4 x 15 x 2 = 960 (1+2+3+4+5 = 15 positions);
     * weights 3 x 4 x 960 + 4 x 80 + 4 x 5 x 8 = 12000; KV write 32 x 5 x 2 = 320; read 32 x 15 x 2 = 960 */
    stored_model m = fp32_model(hand);
    phase_counts got = prefill_counts(&m, 5, 2);
    expect_counts("prefill_counts(hand, 5 tokens, steps of 2)", got, (phase_counts){3, 5, 9760, 960, 12000, 320, 960});
    /* one step: the weights once */
    got = prefill_counts(&m, 5, 8);
    expect_counts("prefill_counts(hand, 5 tokens, steps of 8)", got,
                  (phase_counts){1, 5, 9760, 960, 4 * 1040 + 4 * 5 * 8, 320, 960});
}

Test(prefill, step_rows_dividing_the_prompt, .timeout = 5,
     .description = "A 4-token prompt in steps of 2: exactly 2 steps (no empty third step), logits in the second.")
{
    stored_model m = fp32_model(hand);
    phase_counts got = prefill_counts(&m, 4, 2);
    /* weights 2 x 3840 + 320 + 4 x 4 x 8 = 8128; 10 positions attended */
    expect_counts("prefill_counts(hand, 4 tokens, steps of 2)", got,
                  (phase_counts){2, 4, 2 * 4 * 960 + 160, 640, 8128, 256, 640});
}

/* ---------------------------------------------------------------------------------
 * 3. Against the engine's counters */

static void build(llama_transformer *t, llama_config c, int int8, uint64_t seed)
{
    cr_assert(llama_build_transformer_generated(t, &c, seed, error, sizeof error) == 0, "%s", error);
    if (int8)
        cr_assert(llama_quantize_transformer(t, llama_int8_group_size(&c, 64), error, sizeof error) == 0, "%s", error);
}

static llama_config named(const char *name)
{
    llama_config c;
    cr_assert(llama_named_shape(name, &c, error, sizeof error) == 0, "%s", error);
    return c;
}

static void make_tokens(int *tokens, int n, int vocab)
{
    for (int i = 0; i < n; i++) tokens[i] = (int)((7u * (unsigned)i + 3u) % (unsigned)vocab);
}

/* The engine's counters for a prefill of `prompt` and one decode step, run here (not by your
 * run_prefill_then_decode, which is checked on its own below), in steps of
 * llama_step_rows_of(1, prompt + 1) rows. */
static void engine_counts(const llama_transformer *t, int prompt, llama_counters *prefill, llama_counters *decode)
{
    int *tokens = malloc((size_t)(prompt + 1) * sizeof(int));
    make_tokens(tokens, prompt + 1, t->config.vocab_size);
    llama_session s;
    cr_assert(llama_build_session(&s, t, 1, prompt + 1, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_prefill(&s, 0, tokens, prompt, error, sizeof error), "%s", error);
    *prefill = s.counters;
    memset(&s.counters, 0, sizeof s.counters);
    cr_assert(llama_decode_batch(&s, (int[]){0}, &tokens[prompt], 1, error, sizeof error), "%s", error);
    *decode = s.counters;
    llama_free_session(&s);
    free(tokens);
}

static void against_engine(const char *what, llama_config c, int int8, int prompt)
{
    llama_transformer t;
    build(&t, c, int8, 19);
    stored_model m = stored_model_of(&t);
    int step_rows = llama_step_rows_of(1, prompt + 1);   /* those of engine_counts' session */
    phase_counts prefill_got = prefill_counts(&m, prompt, step_rows), decode_got = decode_counts(&m, prompt);
    llama_counters prefill, decode;
    engine_counts(&t, prompt, &prefill, &decode);
    char label[256];
    snprintf(label, sizeof label, "%s, prefill of %d tokens (steps of %d rows), against the engine", what, prompt,
             step_rows);
    expect_counts(label, prefill_got, counts_of(&prefill));
    snprintf(label, sizeof label, "%s, decode at position %d, against the engine", what, prompt);
    expect_counts(label, decode_got, counts_of(&decode));
    llama_free_transformer(&t);
}

Test(engine, hand_shape, .timeout = 30,
     .description = "The hand shape built by the engine: its counters must be your counts exactly.")
{
    against_engine("the hand shape, FP32", hand, 0, 7);
}

Test(engine, grouped_query_untied_fp32, .timeout = 30,
     .description = "The 'tiny' shape: 6 query heads share 2 KV heads (kv_dim is a third of dim), and the classifier "
                    "is a matrix of its own.")
{
    against_engine("tiny (GQA, untied), FP32", named("tiny"), 0, 12);
}

Test(engine, multi_head_int8, .timeout = 30,
     .description = "'tiny-mha' in INT8 (groups of 16): 1 byte a value and a 4-byte scale per 16 values, the "
                    "embedding rows too.")
{
    against_engine("tiny-mha (MHA, untied), INT8", named("tiny-mha"), 1, 9);
}

Test(engine, tied_grouped_query_fp32_and_int8, .timeout = 30,
     .description = "The '260K' shape: tied classifier (the embedding, read again as the classifier), 8 query heads "
                    "on 4 KV heads, FP32 and INT8 (groups of 4).")
{
    against_engine("260K (GQA, tied), FP32", named("260K"), 0, 30);
    against_engine("260K (GQA, tied), INT8", named("260K"), 1, 30);
}

Test(engine, prompt_longer_than_a_step, .timeout = 60,
     .description = "A 1030-token prompt is cut into steps of 512, 512 and 6 rows: the weights are read 3 times, "
                    "the classifier once, in the last step.")
{
    llama_config c = named("tiny");
    c.seq_len = 1100;
    against_engine("tiny with room for 1100 tokens, FP32", c, 0, 1030);
}

/* A shape far too large to build, with dimensions whose products have long odd parts: counts in
 * the billions that a double holds exactly and a float does not. The expected counts are worked
 * out here in 64-bit integers, independently of the engine. */
Test(exact, a_large_odd_shape_in_whole_numbers, .timeout = 10,
     .description = "Counts reach 10^10 and more: every product must be formed in double (or 64-bit integers), never "
                    "in float or int, which hold whole numbers exactly only up to 2^24 and 2^31.")
{
    stored_model m = {.config = {.dim = 4100, .hidden_dim = 11003, .n_layers = 33, .n_heads = 50, .n_kv_heads = 10,
                                 .vocab_size = 32003, .seq_len = 8192, .shared_classifier = 0},
                      .format = WEIGHTS_FP32, .group_size = 0};
    int64_t dim = 4100, kv = 820, head = 82, hidden = 11003, layers = 33, vocab = 32003, position = 4001;
    phase_counts got = decode_counts(&m, (int)position);
    int64_t layer_values = 2 * dim * dim + 2 * kv * dim + 3 * hidden * dim;
    phase_counts want = {1, 1, 0, 0, 0, 0, 0};
    want.matmul_flops = (double)(2 * layers * layer_values + 2 * vocab * dim);
    want.attention_flops = (double)(4 * head * 50 * (position + 1) * layers);
    want.weight_bytes = (double)(4 * (layers * layer_values + vocab * dim) + 4 * dim);
    want.kv_write_bytes = (double)(8 * kv * layers);
    want.kv_read_bytes = (double)(8 * kv * (position + 1) * layers);
    expect_counts("a 33-layer shape of dim 4100, decode at position 4001", got, want);
}

/* The same shape, a one-step prefill of 16 385 tokens: positions attended, embedding values and
 * matrix values all past 2^24 with low bits a float drops. */
Test(exact, a_long_step_of_an_odd_shape, .timeout = 10,
     .description = "One step of 16 385 rows (an engine with long steps): 134 242 305 positions attended, 67 178 500 "
                    "embedding values; every intermediate in double, none in float, or the low bits go.")
{
    stored_model m = {.config = {.dim = 4100, .hidden_dim = 11003, .n_layers = 33, .n_heads = 50, .n_kv_heads = 10,
                                 .vocab_size = 32003, .seq_len = 20000, .shared_classifier = 0},
                      .format = WEIGHTS_FP32, .group_size = 0};
    int64_t dim = 4100, kv = 820, head = 82, hidden = 11003, layers = 33, vocab = 32003, rows = 16385;
    phase_counts got = step_counts(&m, 0, (int)rows, 1);
    double estimate = intensity_ratio_estimate(&m, 7);
    int64_t layer_values = 2 * dim * dim + 2 * kv * dim + 3 * hidden * dim, attended = rows * (rows + 1) / 2;
    phase_counts want = {1, rows, 0, 0, 0, 0, 0};
    want.matmul_flops = (double)(2 * rows * layers * layer_values + 2 * vocab * dim);
    want.attention_flops = (double)(4 * head * 50 * attended * layers);
    want.weight_bytes = (double)(4 * (layers * layer_values + vocab * dim) + 4 * rows * dim);
    want.kv_write_bytes = (double)(8 * kv * rows * layers);
    want.kv_read_bytes = (double)(8 * kv * attended * layers);
    expect_counts("a 33-layer shape of dim 4100, one step of 16385 rows from position 0", got, want);
    int64_t all_layers = layers * layer_values, classifier = vocab * dim;
    double exact = (double)(7 * all_layers + classifier) / (double)(all_layers + classifier);
    cr_assert(fabs(estimate - exact) <= 1e-14 * exact, "intensity_ratio_estimate(the same shape, 7 tokens) = %.17g, "
              "want %.17g: its %lld layer values and %lld classifier values are exact in double, not in float",
              estimate, exact, (long long)all_layers, (long long)classifier);
}

/* ---------------------------------------------------------------------------------
 * 4. Your run of the two phases */

static double largest_difference(const float *a, const float *b, int n)
{
    double largest = 0;
    for (int i = 0; i < n; i++) {
        double difference = fabs((double)a[i] - b[i]);
        if (isnan(difference)) return INFINITY;   /* a logit never written (NaN) is as wrong as it gets */
        largest = fmax(largest, difference);
    }
    return largest;
}

/* prompt then one decode step, by your run; compared with the whole sequence prefilled at once.
 * `used`: the session has run a request before (and been reset), so its counters are not 0. */
static void check_run(llama_config c, int int8, int prompt, int used)
{
    llama_transformer t;
    build(&t, c, int8, 7);
    int vocab = c.vocab_size, *tokens = malloc((size_t)(prompt + 1) * sizeof(int));
    make_tokens(tokens, prompt + 1, vocab);
    float *decoded = malloc((size_t)vocab * sizeof(float)), *full = malloc((size_t)vocab * sizeof(float));
    for (int i = 0; i < vocab; i++) decoded[i] = NAN;

    llama_session s, whole;
    cr_assert(llama_build_session(&s, &t, 1, prompt + 1, 1, error, sizeof error) == 0, "%s", error);
    if (used) {
        cr_assert(llama_prefill(&s, 0, tokens, 1, error, sizeof error), "%s", error);
        llama_reset_sequence(&s, 0);
    }
    phase_run run = run_prefill_then_decode(&s, tokens, prompt, tokens[prompt], decoded);
    cr_assert(run.error == NULL, "run_prefill_then_decode reported an error: %s", run.error);
    cr_assert(s.cache.length[0] == prompt + 1,
              "after a %d-token prefill and one decode step sequence 0 holds %d tokens, want %d", prompt,
              s.cache.length[0], prompt + 1);

    cr_assert(llama_build_session(&whole, &t, 1, prompt + 1, 1, error, sizeof error) == 0, "%s", error);
    const float *logits = llama_prefill(&whole, 0, tokens, prompt + 1, error, sizeof error);
    cr_assert(logits, "%s", error);
    memcpy(full, logits, (size_t)vocab * sizeof(float));
    double difference = largest_difference(decoded, full, vocab);
    cr_assert(difference <= 1e-4, "the decode step's logits differ from the %d tokens prefilled at once by %g "
              "(logit 0: %g against %g). decode_logits must be the logits llama_decode_batch returns for the "
              "token `next`, appended after the prompt to sequence 0, copied before any other call", prompt + 1,
              difference, decoded[0], full[0]);

    llama_counters prefill, decode;
    engine_counts(&t, prompt, &prefill, &decode);
    expect_counts(used ? "run_prefill_then_decode's prefill counters, on a session that had run a 1-token request "
                         "before (zero s->counters before the prefill too: they only ever add up)"
                       : "run_prefill_then_decode's prefill counters",
                  counts_of(&run.prefill), counts_of(&prefill));
    expect_counts("run_prefill_then_decode's decode counters (zero the session's counters between the phases)",
                  counts_of(&run.decode), counts_of(&decode));
    cr_assert(run.prefill_seconds > 0 && run.decode_seconds > 0 && isfinite(run.prefill_seconds) &&
              isfinite(run.decode_seconds),
              "prefill_seconds = %g, decode_seconds = %g: time each call with lab_seconds() before and after it",
              run.prefill_seconds, run.decode_seconds);
    llama_free_session(&s), llama_free_session(&whole);
    free(tokens), free(decoded), free(full);
    llama_free_transformer(&t);
}

Test(run, decode_after_prefill_equals_recomputation_tiny, .timeout = 30,
     .description = "Prefill the prompt, decode `next`: the logits must be those of prompt + next prefilled at once, "
                    "and each phase's counters its own (zero s->counters before each).")
{
    check_run(named("tiny"), 0, 5, 0);
}

Test(run, decode_after_prefill_equals_recomputation_260k_int8, .timeout = 30,
     .description = "The same on '260K' with INT8 weights and a 37-token prompt.")
{
    check_run(named("260K"), 1, 37, 0);
}

Test(run, one_token_prompt, .timeout = 30,
     .description = "A prompt of one token: the prefill is one row, the decode step attends 2 positions.")
{
    check_run(named("tiny"), 0, 1, 0);
}

Test(run, each_phase_alone_on_a_used_session, .timeout = 30,
     .description = "A session that has already run a request keeps its counters (llama_reset_sequence forgets the "
                    "tokens, not the counts): each phase's counters must still be that phase's alone.")
{
    check_run(named("tiny"), 0, 6, 1);
}

/* What the engine itself says when a session of `capacity` tokens is asked for `prompt` tokens
 * and one more: the text run.error must carry. */
static void engine_refusal(const llama_transformer *t, const int *tokens, int prompt, int capacity, char *text,
                           size_t size)
{
    llama_session s;
    cr_assert(llama_build_session(&s, t, 1, capacity, 1, error, sizeof error) == 0, "%s", error);
    text[0] = 0;
    if (llama_prefill(&s, 0, tokens, prompt, text, size))
        cr_assert(!llama_decode_batch(&s, (int[]){0}, &tokens[prompt], 1, text, size), "the engine did not refuse");
    llama_free_session(&s);
}

Test(run, a_refusal_is_the_engines_text, .timeout = 30,
     .description = "When the engine refuses (NULL), run.error is its message: a prompt longer than the session, then "
                    "a prompt that fills it, leaving no room for the decode step (the prefill still counted).")
{
    llama_transformer t;
    build(&t, named("tiny"), 0, 5);
    int tokens[9], vocab = t.config.vocab_size;
    make_tokens(tokens, 9, vocab);
    float *logits = malloc((size_t)vocab * sizeof(float));
    const struct { int prompt; const char *case_name; } cases[] = {{8, "an 8-token prompt in a 4-token session"},
                                                                 {4, "a 4-token prompt filling a 4-token session"}};
    for (int k = 0; k < 2; k++) {
        llama_session s;
        cr_assert(llama_build_session(&s, &t, 1, 4, 1, error, sizeof error) == 0, "%s", error);
        phase_run run = run_prefill_then_decode(&s, tokens, cases[k].prompt, tokens[cases[k].prompt], logits);
        char want[512];   /* the engine's text, asked for once your run has returned */
        engine_refusal(&t, tokens, cases[k].prompt, 4, want, sizeof want);
        cr_assert(run.error != NULL, "%s: the engine refused (\"%s\"), but run.error is NULL: when llama_prefill or "
                  "llama_decode_batch returns NULL, stop and pass its message on", cases[k].case_name, want);
        cr_assert(strcmp(run.error, want) == 0, "%s: run.error is \"%s\", want the engine's own message \"%s\"",
                  cases[k].case_name, run.error, want);
        if (k == 1)
            cr_assert(run.prefill.steps == 1 && run.prefill.rows == 4, "%s: the prefill ran (1 step of 4 rows) "
                      "before the decode step was refused, but run.prefill holds %lld steps and %lld rows",
                      cases[k].case_name, (long long)run.prefill.steps, (long long)run.prefill.rows);
        llama_free_session(&s);
    }
    free(logits);
    llama_free_transformer(&t);
}

/* ---------------------------------------------------------------------------------
 * 5. Intensity */

Test(intensity, hand_counts, .timeout = 5,
     .description = "Intensity = (matmul + attention FLOPs) / (weight + KV written + KV read bytes): every FLOP over "
                    "every byte.")
{
    phase_counts c = {1, 1, 2080, 256, 4192, 64, 256};
    double got = phase_intensity(&c), want = (2080.0 + 256) / (4192.0 + 64 + 256);
    cr_assert(got == want, "phase_intensity of the hand decode step = %.17g, want %.17g = 2336 / 4512%s", got, want,
              got == 2080.0 / 4192 ? " (matmul FLOPs over weight bytes only)"
              : got == 2336.0 / 4192 ? " (the KV cache's bytes are missing)"
              : got == 4512.0 / 2336 ? " (bytes over FLOPs)" : "");
}

Test(intensity, estimate_by_hand, .timeout = 5,
     .description = "The estimate: (prompt x layer matrices + classifier) / (layer matrices + classifier), both "
                    "phases reading the same weights once; for the hand shape and 5 tokens (5 x 960 + 80) / 1040.")
{
    stored_model m = fp32_model(hand);
    double got = intensity_ratio_estimate(&m, 5), want = (5.0 * 960 + 80) / 1040;
    cr_assert(fabs(got - want) <= 1e-12 * want, "intensity_ratio_estimate(hand, 5) = %.17g, want %.17g%s", got, want,
              got == 5 ? " (the classifier runs once in a prefill, not once a token: the ratio is below the prompt)" : "");
    cr_assert(fabs(intensity_ratio_estimate(&m, 1) - 1) <= 1e-12, "a one-token prefill is a decode step: ratio 1, got %g",
              intensity_ratio_estimate(&m, 1));
}

/* prefill's intensity over decode's from the engine's counters, through your phase_intensity */
static void check_ratio(const char *name, int prompt, double margin)
{
    llama_transformer t;
    build(&t, named(name), 0, 3);
    llama_counters prefill, decode;
    engine_counts(&t, prompt, &prefill, &decode);
    phase_counts p = counts_of(&prefill), d = counts_of(&decode);
    stored_model m = stored_model_of(&t);
    double ratio = phase_intensity(&p) / phase_intensity(&d), estimate = intensity_ratio_estimate(&m, prompt);
    cr_assert(ratio > 1, "%s, %d tokens: prefill's intensity %g is not above decode's %g", name, prompt,
              phase_intensity(&p), phase_intensity(&d));
    cr_assert(ratio <= estimate * (1 + 1e-12),
              "%s, %d tokens: prefill's intensity is %.6g times decode's, above your estimate %.6g. The estimate leaves "
              "out only bytes that grow faster in prefill (its KV cache), so the real ratio cannot exceed it: does "
              "phase_intensity divide by every byte, KV written and read included?", name, prompt, ratio, estimate);
    cr_assert(ratio >= (1 - margin) * estimate,
              "%s, %d tokens: prefill's intensity is %.6g times decode's, your estimate %.6g: want it within %.0f%% "
              "while the KV cache is small (the ratio of the matrix FLOPs, the classifier once in both phases)",
              name, prompt, ratio, estimate, 100 * margin);
    llama_free_transformer(&t);
}

Test(intensity, prefill_over_decode_is_the_estimate, .timeout = 60,
     .description = "Measured by the engine's counters, prefill's intensity exceeds decode's by the chapter's factor "
                    "(prompt x the layers' FLOPs plus the classifier, over one row's) while the KV cache is small.")
{
    check_ratio("15M", 2, 0.01);
    check_ratio("15M", 8, 0.03);
    check_ratio("260K", 4, 0.05);
}

/* ---------------------------------------------------------------------------------
 * 6. Your prediction: the prompt at which a prefill's KV reads pass its weights */

/* got: kv_reads_pass_weights_at(weights, kv), called before want was made (worked by hand in static
 * storage, or computed after the call), so that no answer is on the stack while it runs. */
static void expect_crossing(double weights, double kv, int got, int want, const char *why)
{
    const char *hint = "";
    if (got == 0) hint = "still 0: is it written yet?";
    else if (got == want - 1)
        hint = "one short: that prompt's KV reads do not pass the weights yet (equal is not more; a root rounded "
               "down gives the last prompt below, not the first above)";
    else if (got == want + 1) hint = "one too far: the prompt before already reads more (n rows attend n(n + 1) / 2 "
                                     "positions, not n^2 / 2)";
    else if (got > 0 && got < want) hint = "too early: n rows attend 1 + 2 + ... + n = n(n + 1) / 2 positions";
    else if (got > want) hint = "too late: every row re-reads all the positions before it, not just its own";
    cr_assert(got == want, "kv_reads_pass_weights_at(%.17g bytes of weights, %.17g bytes of KV per position) = %d, "
              "want %d: %s%s%s", weights, kv, got, want, why, *hint ? ". " : "", hint);
}

Test(crossing, by_hand, .timeout = 5,
     .description = "Row r of a one-step prefill attends r + 1 positions, so n rows read n(n + 1) / 2 positions' "
                    "worth of KV: the answer is the smallest n for which that is MORE than the weights.")
{
    static const struct { double weights, kv; int want; const char *why; } cases[] = {
        {50, 1, 10, "9 rows read 45 positions, 10 rows 55, the first above 50"},
        {30, 2, 6, "5 rows read 15 positions, 30 bytes: equal to the weights, not more; 6 rows read 42"},
        {1, 2, 1, "one row reads one position, 2 bytes, already more than 1"},
        {2, 2, 2, "one position's 2 bytes equal the weights; 2 rows read 3 positions, 6 bytes"},
        {1e6, 3, 816, "816 x 817 / 2 x 3 = 1 000 008 bytes, the first past a million"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = kv_reads_pass_weights_at(cases[i].weights, cases[i].kv);
        expect_crossing(cases[i].weights, cases[i].kv, got, cases[i].want, cases[i].why);
    }
    const double refused[][2] = {{0, 1}, {1, 0}, {-5, 1}, {1, -1}};
    for (int i = 0; i < 4; i++)
        cr_assert(kv_reads_pass_weights_at(refused[i][0], refused[i][1]) == -1, "kv_reads_pass_weights_at(%g, %g) = "
                  "%d, want -1: an argument that is not positive is refused", refused[i][0], refused[i][1],
                  kv_reads_pass_weights_at(refused[i][0], refused[i][1]));
}

/* the engine's counters for a prefill of the first n tokens, in one step */
static llama_counters engine_prefill(const llama_transformer *t, int n)
{
    int *tokens = malloc((size_t)n * sizeof(int));
    make_tokens(tokens, n, t->config.vocab_size);
    llama_session s;
    cr_assert(llama_build_session(&s, t, 1, n, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(s.max_rows >= n, "a %d-token prompt does not fit one step of %d rows", n, s.max_rows);
    cr_assert(llama_prefill(&s, 0, tokens, n, error, sizeof error), "%s", error);
    llama_counters counted = s.counters;
    llama_free_session(&s);
    free(tokens);
    return counted;
}

/* Predicted from what a 1-token step reads, checked by the engine's prefills at n - 1 and n. */
static void crossing_against_engine(const char *name)
{
    llama_transformer t;
    build(&t, named(name), 0, 11);
    llama_counters one = engine_prefill(&t, 1);
    double weights = one.weight_bytes, kv = one.kv_read_bytes;   /* one position attended */
    int n = kv_reads_pass_weights_at(weights, kv);
    cr_assert(n >= 2 && n <= t.config.seq_len, "%s: kv_reads_pass_weights_at(%.0f bytes of weights, %.0f bytes of "
              "KV per position) = %d, outside 2 .. %d, the prompts this shape holds", name, weights, kv, n,
              t.config.seq_len);
    llama_counters at = engine_prefill(&t, n), before = engine_prefill(&t, n - 1);
    cr_assert(at.kv_read_bytes > weights, "%s: you predict that a %d-token prefill reads more KV than the %.0f bytes "
              "of weights a step reads, but the engine counts %.0f bytes of KV reads there: the crossing comes later",
              name, n, weights, at.kv_read_bytes);
    cr_assert(before.kv_read_bytes <= weights, "%s: you predict %d, but the engine's %d-token prefill already reads "
              "%.0f bytes of KV, more than the %.0f bytes of weights: the crossing comes earlier", name, n, n - 1,
              before.kv_read_bytes, weights);
    llama_free_transformer(&t);
}

Test(crossing, against_the_engine, .timeout = 60,
     .description = "From what a 1-token step reads (the engine's count: its weights, and one position's KV), "
                    "predict the prompt at which the KV reads pass the weights; the engine's prefills of that "
                    "prompt and the one before must show it. Three shapes: tiny, 260K, 15M.")
{
    crossing_against_engine("tiny");
    crossing_against_engine("260K");
    crossing_against_engine("15M");
}

Test(crossing, every_model_in_fp16, .timeout = 10,
     .description = "Every model of data/models.csv in FP16, weights and cache: weights = parameters x 2 bytes (the "
                    "book's convention), KV per position 2 x layers x kv_heads x head_dim x 2. Llama-2-7B: 227.")
{
    lab_table *models = lab_table_read(lab_data_path("models.csv"), error, sizeof error);
    cr_assert(models != NULL, "cannot read data/models.csv: %s", error);
    for (int row = 0; row < models->rows; row++) {
        int64_t weights = 2 * (int64_t)lab_table_number_or_exit(models, row, "parameters");
        int64_t kv = 2 * 2 * (int64_t)lab_table_number_or_exit(models, row, "layers") *
                     (int64_t)lab_table_number_or_exit(models, row, "kv_heads") *
                     (int64_t)lab_table_number_or_exit(models, row, "head_dim");
        int got = kv_reads_pass_weights_at((double)weights, (double)kv);
        int64_t want = 1;
        while (kv * want * (want + 1) <= 2 * weights) want++;   /* in whole numbers: exact */
        char why[160];
        snprintf(why, sizeof why, "%s (%lld bytes of FP16 weights, %lld of KV per position)",
                 lab_table_text_or_exit(models, row, "name"), (long long)weights, (long long)kv);
        expect_crossing((double)weights, (double)kv, got, (int)want, why);
    }
    lab_table_free(models);
}

/* ---------------------------------------------------------------------------------
 * 7. Timed: ratios measured in one run */

Test(timing, prefill_cheaper_per_token_decode_cheaper_per_step, .timeout = 120,
     .description = "The 15M model, a 64-token prompt, best of 3: the prefill costs far less per token than a decode "
                    "step (the weights are read once for 64 tokens), and one decode step less than the whole prefill.")
{
    /* The weights' reads this ratio is about cost next to nothing under an emulator. */
    lab_skip_timing_under_emulator("the prefill's saving");
    enum { PROMPT = 64 };
    llama_transformer t;
    build(&t, named("15M"), 0, 1);
    int tokens[PROMPT + 1];
    make_tokens(tokens, PROMPT + 1, t.config.vocab_size);
    float *logits = malloc((size_t)t.config.vocab_size * sizeof(float));
    double prefill = INFINITY, decode = INFINITY;
    for (int r = 0; r < 3; r++) {
        llama_session s;
        cr_assert(llama_build_session(&s, &t, 1, PROMPT + 1, 1, error, sizeof error) == 0, "%s", error);
        phase_run run = run_prefill_then_decode(&s, tokens, PROMPT, tokens[PROMPT], logits);
        cr_assert(run.error == NULL, "%s", run.error);
        prefill = fmin(prefill, run.prefill_seconds), decode = fmin(decode, run.decode_seconds);
        llama_free_session(&s);
    }
    cr_assert(prefill > 0 && decode > 0, "times %g and %g s: measure each phase with lab_seconds()", prefill, decode);
    cr_assert(decode < prefill, "one decode step took %.3g ms, the %d-token prefill %.3g ms: the step should be the "
              "shorter (are the two times swapped, or the decode timed around both calls?)", 1e3 * decode, PROMPT,
              1e3 * prefill);
    cr_assert(prefill / PROMPT < decode / 2, "prefill %.3g ms per token, decode %.3g ms per step: want prefill at "
              "least 2 times cheaper per token (about 10 times on a quiet core)", 1e3 * prefill / PROMPT, 1e3 * decode);
    free(logits);
    llama_free_transformer(&t);
}
