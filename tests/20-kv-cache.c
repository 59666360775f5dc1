/* 20-kv-cache.c — the checks for day 20, in the order of lab.h: the size formula on a shape
 * small enough to count on paper (with hidden, heads x head_dim and kv_heads x head_dim all
 * different, so each mix-up gives its own number), then the two exact sizes, then every
 * model of data/models.csv against lib/llama's formula, past 2^32 bytes; your prediction of the
 * context at which a decode step reads more cache than weights, by hand, against the engine's
 * counters and for every model; the layout of the cache, by hand and past 2^32 floats; the
 * append, into a poisoned cache (so a float written where it should not be is seen), in order,
 * and refused, changing nothing, at any other position; the attention over the cache against a
 * double-precision reference, with scores far past expf's range either way and on two threads
 * at once; and last the toy Llama generating with your cache (the driver plugs it in as the
 * engine's hooks): 128 tokens whose logits must equal those of recomputing the whole sequence
 * for every token. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lab.h"
#include "robust.h"
#include "table.h"

static char error[512];

/* ---------------------------------------------------------------------------------
 * The size formula */

/* Tables of diagnoses are static const: wrong answers a step from the right one (half of it, ...) are
 * not on the stack while the code under test runs. */
typedef struct diagnosis {
    int64_t value;         /* a wrong answer someone is likely to give */
    const char *means;
} diagnosis;

enum { MAX_DIAGNOSES = 8 };

static void expect_bytes(const char *call, int64_t got, int64_t want, const diagnosis *known, const char *idea)
{
    int wrapped = lab_wrapped_in_32_bits((double)got, (double)want);   /* 2^32 bytes wrap to exactly 0 */
    const char *why = got != 0 || want == 0 ? ""
                    : wrapped ? "0: not written yet, or the count is a multiple of 2^32 and a product kept only its "
                                "low 32 bits; multiply in int64_t from the first factor"
                              : "still 0: is it written yet?";
    for (int i = 0; i < MAX_DIAGNOSES && known && known[i].means; i++)
        if (got == known[i].value) why = known[i].means;
    if (!*why && wrapped)
        why = "equal modulo 2^32: a product overflowed 32 bits; multiply in int64_t from the first factor";
    cr_assert(got == want, "%s = %lld, want %lld%s%s%s. %s", call, (long long)got, (long long)want, *why ? " (" : "",
              why, *why ? ")" : "", idea);
}

/* 3 layers, hidden 24, 4 query heads of 5 (20 wide, not 24), 2 K/V heads (10 wide) */
static const kv_model hand = {3, 24, 4, 2, 5};

Test(formula, hand_counted, .timeout = 10,
     .description = "2 (a key and a value) x layers x kv_heads x head_dim x bytes per element x tokens x batch: the "
                    "K/V heads, not the query heads, and not hidden.")
{
    /* 2 x 3 layers x 2 K/V heads x 5 x 4 bytes x 7 tokens x 3 sequences = 5040 */
    static const diagnosis known[] = {{2520, "half: a key and a value, 2 vectors per token and layer"},
                                      {10080, "the query heads: the cache holds kv_heads heads, 2 here, not 4"},
                                      {12096, "hidden_size used as the width: a token's K row is kv_heads x head_dim"},
                                      {1680, "the batch is missing: every sequence has its own cache"},
                                      {1260, "elements, not bytes: multiply by bytes_per_element"},
                                      {720, "the tokens are missing: every token of the context is cached"},
                                      {0}};
    expect_bytes("kv_cache_bytes(hand, FP32, 7 tokens, batch 3)", kv_cache_bytes(&hand, 4, 7, 3), 5040, known,
                 "Count one token of one layer first: a key and a value of kv_heads x head_dim elements.");
    expect_bytes("kv_cache_bytes(hand, FP16, 0 tokens, batch 3)", kv_cache_bytes(&hand, 2, 0, 3), 0, NULL,
                 "No tokens, no cache.");
}

static lab_table *read_models(void)
{
    lab_table *models = lab_table_read(lab_data_path("models.csv"), error, sizeof error);
    cr_assert(models != NULL, "cannot read data/models.csv: %s", error);
    return models;
}

static kv_model model_of_row(const lab_table *models, int row)
{
    kv_model m = {(int)lab_table_number_or_exit(models, row, "layers"), (int)lab_table_number_or_exit(models, row, "hidden_size"),
                  (int)lab_table_number_or_exit(models, row, "attention_heads"), (int)lab_table_number_or_exit(models, row, "kv_heads"),
                  (int)lab_table_number_or_exit(models, row, "head_dim")};
    return m;
}

static kv_model model(const char *name)
{
    lab_table *models = read_models();
    int row = lab_table_find(models, "name", name);
    cr_assert(row >= 0, "data/models.csv has no row %s", name);
    kv_model m = model_of_row(models, row);
    lab_table_free(models);
    return m;
}

Test(formula, llama2_7b_4096_tokens_fp16, .timeout = 10,
     .description = "Llama-2-7B (32 layers, 32 K/V heads of 128), 4096 tokens, FP16, one sequence: exactly 2 GiB, "
                    "2 147 483 648 bytes; 524 288 bytes a token.")
{
    kv_model m = model("Llama-2-7B");
    static const diagnosis known[] = {{1073741824, "half: keys and values are two caches"},
                                      {4294967296LL, "FP32's 4 bytes: FP16 is 2 bytes an element"}, {0}};
    expect_bytes("kv_cache_bytes(Llama-2-7B, FP16, 1 token, batch 1)", kv_cache_bytes(&m, 2, 1, 1), 524288, known,
                 "2 x 32 x 32 x 128 x 2 bytes.");
    expect_bytes("kv_cache_bytes(Llama-2-7B, FP16, 4096 tokens, batch 1)", kv_cache_bytes(&m, 2, 4096, 1), 2147483648LL,
                 known, "2 x 32 x 32 x 128 x 2 bytes x 4096 = 2^31.");
}

Test(formula, llama2_70b_grouped_query, .timeout = 10,
     .description = "Llama-2-70B has 64 query heads but 8 K/V heads (grouped-query attention): 4096 FP16 tokens are "
                    "1 342 177 280 bytes, not the 10 737 418 240 that 64 heads would take.")
{
    kv_model m = model("Llama-2-70B");
    static const diagnosis known[] = {{10737418240LL, "the query heads: Llama-2-70B caches 8 K/V heads, not 64"},
                                      {671088640, "half: keys and values are two caches"}, {0}};
    expect_bytes("kv_cache_bytes(Llama-2-70B, FP16, 4096 tokens, batch 1)", kv_cache_bytes(&m, 2, 4096, 1),
                 1342177280LL, known, "2 x 80 layers x 8 K/V heads x 128 x 2 bytes x 4096.");
}

Test(formula, every_model_equals_lib_llama, .timeout = 10,
     .description = "Every model of data/models.csv, in FP8, FP16 and FP32, at 1 to 131072 tokens and batches of 1 "
                    "and 64, equals lib/llama's llama_kv_cache_bytes.")
{
    lab_table *models = read_models();
    const int bytes[] = {1, 2, 4};
    const int64_t tokens[] = {1, 4096, 131072};
    const int64_t batches[] = {1, 64};
    for (int row = 0; row < models->rows; row++) {
        kv_model m = model_of_row(models, row);
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 3; t++)
                for (int s = 0; s < 2; s++) {
                    int64_t got = kv_cache_bytes(&m, bytes[b], tokens[t], batches[s]);   /* before lib/llama's */
                    int64_t want = llama_kv_cache_bytes(m.layers, m.kv_heads, m.head_dim, bytes[b], tokens[t], batches[s]);
                    char call[160];
                    snprintf(call, sizeof call, "kv_cache_bytes(%s, %d-byte elements, %lld tokens, batch %lld)",
                             lab_table_text_or_exit(models, row, "name"), bytes[b], (long long)tokens[t], (long long)batches[s]);
                    expect_bytes(call, got, want, NULL,
                                 "lib/llama's count is 2 x layers x kv_heads x head_dim x bytes x tokens x batch.");
                }
    }
    lab_table_free(models);
}

Test(formula, past_32_bits, .timeout = 10,
     .description = "Llama-2-13B, 131072 FP32 tokens, 64 sequences: 13 743 895 347 200 bytes, far past what an int "
                    "(or an unsigned one) holds. Multiply in int64_t from the first factor.")
{
    kv_model m = model("Llama-2-13B");
    /* 2 x 40 x 40 x 128 x 4 = 1 638 400 bytes a token; x 131072 x 64 */
    expect_bytes("kv_cache_bytes(Llama-2-13B, FP32, 131072 tokens, batch 64)", kv_cache_bytes(&m, 4, 131072, 64),
                 13743895347200LL, NULL, "1 638 400 bytes a token, times 131072 tokens, times 64 sequences.");
}

/* ---------------------------------------------------------------------------------
 * Your prediction: the context at which a decode step reads more cache than weights */

/* got: kv_cache_passes_weights_at(m, bytes, weights, batch), called before want was made (worked by
 * hand in static storage, or computed after the call), so that no answer is on the stack while it runs. */
static void expect_passes(const char *what, const kv_model *m, int bytes, double weights, int64_t batch, int64_t got,
                          int64_t want, const char *why)
{
    double elements = 2.0 * m->layers * m->kv_heads * m->head_dim;   /* a token's, one sequence */
    const char *hint = "";
    if (got == 0) hint = "still 0: is it written yet?";
    else if (got == want - 1) hint = "one short: at that context the cache is not more than the weights yet (equal is "
                                     "not more; the ratio rounded down is the last context below, not the first above)";
    else if (got == want + 1) hint = "one too far: the context before already reads more";
    else if (batch > 1 && got == (int64_t)floor(weights / (elements * bytes)) + 1)
        hint = "the batch is missing: each sequence reads its own cache";
    else if (got == (int64_t)floor(weights / (elements * batch)) + 1)
        hint = "elements, not bytes: multiply by bytes_per_element";
    cr_assert(got == want, "kv_cache_passes_weights_at(%s, %d-byte elements, %.17g bytes of weights, batch %lld) = "
              "%lld, want %lld: %s%s%s", what, bytes, weights, (long long)batch, (long long)got, (long long)want, why,
              *hint ? ". " : "", hint);
}

Test(predict, by_hand, .timeout = 10,
     .description = "The hand shape caches 240 FP32 bytes a token (2 x 3 layers x 2 K/V heads x 5 x 4): the first "
                    "context whose cache is MORE than the weights, each sequence of the batch with its own cache.")
{
    static const kv_model odd = {3, 8, 1, 1, 5};
    static const struct {
        const char *what;
        const kv_model *m;
        int bytes;
        double weights;
        int64_t batch, want;
        const char *why;
    } cases[] = {
        {"hand", &hand, 4, 2400, 1, 11, "10 tokens are 2400 bytes, equal to the weights, not more"},
        {"hand", &hand, 4, 2401, 1, 11, "10 tokens are 2400 bytes, 11 are 2640"},
        {"hand", &hand, 4, 2399, 1, 10, "10 tokens are 2400 bytes, already more"},
        {"hand", &hand, 4, 1, 1, 1, "one token's 240 bytes are more than 1"},
        {"hand", &hand, 4, 2400, 3, 4, "3 sequences cache 720 bytes a token: 3 tokens 2160, 4 tokens 2880"},
        {"hand", &hand, 2, 2400, 1, 21, "FP16 halves a token to 120 bytes: 20 tokens equal the weights"},
        /* 30 bytes a token and sequence, 2 000 001 sequences: 60 000 030 bytes a token, past 2^25 with low bits a
         * float drops (it holds 60 000 032); the weights 3 tokens' worth and 1 byte */
        {"3 layers, 1 K/V head of 5", &odd, 1, 180000091, 2000001, 4,
         "60 000 030 bytes a token for the batch: 3 tokens are 1 byte short of the weights. Exact in int64_t or "
         "double; a float holds whole numbers exactly only to 2^24"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = kv_cache_passes_weights_at(cases[i].m, cases[i].bytes, cases[i].weights, cases[i].batch);
        expect_passes(cases[i].what, cases[i].m, cases[i].bytes, cases[i].weights, cases[i].batch, got, cases[i].want,
                      cases[i].why);
    }
    const struct { int bytes; double weights; int64_t batch; } refused[] = {{4, 0, 1}, {4, -1, 1}, {4, 2400, 0},
                                                                          {0, 2400, 1}, {-2, 2400, 1}};
    for (int i = 0; i < 5; i++) {
        int64_t got = kv_cache_passes_weights_at(&hand, refused[i].bytes, refused[i].weights, refused[i].batch);
        cr_assert(got == -1, "kv_cache_passes_weights_at(hand, %d-byte elements, %g bytes of weights, batch %lld) = "
                  "%lld, want -1: refused, as lab.h says", refused[i].bytes, refused[i].weights,
                  (long long)refused[i].batch, (long long)got);
    }
}

/* The engine's counters for one decode step of every sequence of a session, each holding
 * `context - 1` tokens before it (so the step's attention reads `context` positions each). */
static llama_counters engine_decode_at(const llama_transformer *t, int batch, int context)
{
    llama_session s;
    cr_assert(llama_build_session(&s, t, batch, context, 1, error, sizeof error) == 0, "%s", error);
    int *tokens = malloc((size_t)context * sizeof(int)), sequences[2] = {0, 1}, next[2];
    for (int i = 0; i < context; i++) tokens[i] = (7 * i + 3) % t->config.vocab_size;
    for (int b = 0; b < batch; b++) {
        if (context > 1) cr_assert(llama_prefill(&s, b, tokens, context - 1, error, sizeof error), "%s", error);
        next[b] = tokens[context - 1];
    }
    memset(&s.counters, 0, sizeof s.counters);
    cr_assert(llama_decode_batch(&s, sequences, next, batch, error, sizeof error), "%s", error);
    llama_counters counted = s.counters;
    llama_free_session(&s);
    free(tokens);
    return counted;
}

Test(predict, against_the_engine, .timeout = 30,
     .description = "tiny-mha, FP32 cache: from the weight bytes the engine counts for a decode step, predict the "
                    "context at which the step reads more cache than weights, for 1 and 2 sequences; the engine's "
                    "counted KV reads at that context must pass the weights, at the one before not.")
{
    llama_config c;
    cr_assert(kv_check_shape(&c, error, sizeof error) == 0, "%s", error);
    c.seq_len = 400;
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 20, error, sizeof error) == 0, "%s", error);
    kv_model m = {c.n_layers, c.dim, c.n_heads, c.n_kv_heads, llama_head_dim_of(&c)};
    for (int batch = 1; batch <= 2; batch++) {
        double weights = engine_decode_at(&t, batch, 1).weight_bytes;   /* the same at every context */
        int64_t context = kv_cache_passes_weights_at(&m, 4, weights, batch);
        cr_assert(context >= 2 && context <= c.seq_len, "tiny-mha, batch %d: kv_cache_passes_weights_at(%.0f bytes of "
                  "weights) = %lld, outside 2 .. %d, the contexts the check can run", batch, weights,
                  (long long)context, c.seq_len);
        llama_counters at = engine_decode_at(&t, batch, (int)context);
        llama_counters before = engine_decode_at(&t, batch, (int)context - 1);
        cr_assert(at.kv_read_bytes > weights, "tiny-mha, batch %d: you predict that a decode step with %lld tokens "
                  "cached reads more cache than its %.0f bytes of weights, but the engine counts %.0f bytes of KV "
                  "read there: later", batch, (long long)context, weights, at.kv_read_bytes);
        cr_assert(before.kv_read_bytes <= weights, "tiny-mha, batch %d: you predict %lld, but with %lld tokens cached "
                  "the engine already counts %.0f bytes of KV read, more than the %.0f of weights: earlier", batch,
                  (long long)context, (long long)context - 1, before.kv_read_bytes, weights);
    }
    llama_free_transformer(&t);
}

Test(predict, every_model_fp16, .timeout = 10,
     .description = "Every model of data/models.csv with FP16 weights (parameters x 2 bytes, the book's convention) "
                    "and an FP16 cache, batch 1 and 16. Llama-2-7B: 25 706 tokens, 1607 for 16 sequences.")
{
    lab_table *models = read_models();
    for (int row = 0; row < models->rows; row++) {
        kv_model m = model_of_row(models, row);
        int64_t weights = 2 * (int64_t)lab_table_number_or_exit(models, row, "parameters");
        for (int64_t batch = 1; batch <= 16; batch *= 16) {
            int64_t got = kv_cache_passes_weights_at(&m, 2, (double)weights, batch);
            int64_t per_token = 2 * (int64_t)m.layers * m.kv_heads * m.head_dim * 2 * batch;
            char why[160];
            snprintf(why, sizeof why, "%lld bytes of weights, %lld of cache a token for the batch", (long long)weights,
                     (long long)per_token);
            expect_passes(lab_table_text_or_exit(models, row, "name"), &m, 2, (double)weights, batch, got,
                          weights / per_token + 1, why);
        }
    }
    lab_table_free(models);
}

/* ---------------------------------------------------------------------------------
 * The layout */

/* 2 sequences, 3 layers, 5 positions, 2 K/V heads of 3: a row is 6 floats, 180 in all */
static kv_cache shape_only(int layers, int kv_heads, int head_dim, int batch, int capacity)
{
    return (kv_cache){layers, kv_heads, head_dim, batch, capacity, NULL, NULL, NULL};
}

Test(offset, hand_counted, .timeout = 10,
     .description = "[sequence][layer][position] rows of kv_heads x head_dim floats: row (s, l, p) is row number "
                    "(s x layers + l) x capacity + p, and starts at that times kv_heads x head_dim.")
{
    kv_cache c = shape_only(3, 2, 3, 2, 5);
    /* worked by hand, in static storage: not on the stack while kv_cache_offset runs */
    static const struct { int sequence, layer, position; size_t want; const char *if_wrong; } cases[] = {
        {0, 0, 0, 0, "the first row starts at 0"},
        {0, 0, 1, 6, "the next position is one row further: kv_heads x head_dim = 6 floats, not head_dim"},
        {0, 1, 0, 30, "the next layer starts after the capacity's positions: 5 rows of 6"},
        {1, 0, 0, 90, "the next sequence starts after every layer of the first: 3 x 5 rows of 6"},
        {1, 2, 4, 174, "the last row: it ends at 180, the end of the array"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = kv_cache_offset(&c, cases[i].sequence, cases[i].layer, cases[i].position);
        cr_assert(got == cases[i].want, "kv_cache_offset(sequence %d, layer %d, position %d) = %zu, want %zu in a cache "
                  "of 2 sequences x 3 layers x 5 positions x 2 K/V heads of 3: %s", cases[i].sequence, cases[i].layer,
                  cases[i].position, got, cases[i].want, cases[i].if_wrong);
    }
}

Test(offset, every_row_once, .timeout = 10,
     .description = "Every (sequence, layer, position) has its own row, the rows tile the array exactly: no two "
                    "overlap, none passes the end.")
{
    kv_cache c = shape_only(4, 3, 2, 3, 7);
    size_t rows = 3 * 4 * 7, kv_dim = 6;
    char *seen = calloc(rows, 1);
    for (int s = 0; s < 3; s++)
        for (int l = 0; l < 4; l++)
            for (int p = 0; p < 7; p++) {
                size_t at = kv_cache_offset(&c, s, l, p);
                cr_assert(at % kv_dim == 0 && at / kv_dim < rows, "kv_cache_offset(%d, %d, %d) = %zu: not the start of one "
                          "of the %zu rows of %zu floats", s, l, p, at, rows, kv_dim);
                cr_assert(!seen[at / kv_dim], "kv_cache_offset(%d, %d, %d) = %zu is the row of another (sequence, layer, "
                          "position) too", s, l, p, at);
                seen[at / kv_dim] = 1;
            }
    free(seen);
}

Test(offset, past_32_bits, .timeout = 10,
     .description = "A cache of 64 sequences x 80 layers x 4096 positions x 1024 floats has 2^34 floats: offsets in "
                    "size_t, every factor converted before it is multiplied.")
{
    kv_cache c = shape_only(80, 8, 128, 64, 4096);
    /* ((63 x 80 + 79) x 4096 + 4095) x 1024 = 21 474 835 456 */
    size_t got = kv_cache_offset(&c, 63, 79, 4095), want = 21474835456ULL;
    cr_assert(got == want, "kv_cache_offset(sequence 63, layer 79, position 4095) of a 64 x 80 x 4096 x 8 x 128 cache = "
              "%zu, want %zu%s", got, want,
              lab_wrapped_in_32_bits((double)got, (double)want) ? " (equal modulo 2^32: an int product overflowed)"
                                                                : "");
}

/* ---------------------------------------------------------------------------------
 * The append */

static kv_cache build(int layers, int kv_heads, int head_dim, int batch, int capacity)
{
    kv_cache c;
    cr_assert(kv_cache_build(&c, layers, kv_heads, head_dim, batch, capacity, error, sizeof error) == 0, "%s", error);
    return c;
}

static size_t floats_of(const kv_cache *c)
{
    return (size_t)c->batch * c->layers * c->capacity * c->kv_heads * c->head_dim;
}

/* a token's key and value: distinct numbers, so that a row in the wrong place is seen */
static void token_vectors(float *key, float *value, int kv_dim, int tag)
{
    for (int i = 0; i < kv_dim; i++) key[i] = (float)(100 * tag + i), value[i] = -(float)(100 * tag + i) - 0.5f;
}

/* the documented place of a row, for the checks (not your function) */
static size_t row_at(const kv_cache *c, int s, int l, int p)
{
    return (((size_t)s * c->layers + l) * c->capacity + p) * (size_t)c->kv_heads * c->head_dim;
}

/* Every float of the cache is poison except the rows listed (which hold token_vectors of their tag). */
static void expect_contents(const kv_cache *c, const int (*rows)[4], int count, const char *after)
{
    size_t kv_dim = (size_t)c->kv_heads * c->head_dim, n = floats_of(c);
    char *expected = calloc(n, 1);
    for (int r = 0; r < count; r++) {
        size_t at = row_at(c, rows[r][0], rows[r][1], rows[r][2]);
        for (size_t i = 0; i < kv_dim; i++) {
            float key = (float)(100 * rows[r][3] + (int)i), value = -key - 0.5f;
            cr_assert(c->keys[at + i] == key && c->values[at + i] == value, "after %s: the key and value of sequence %d, "
                      "layer %d, position %d, element %zu are %g and %g, want %g and %g (each row is kv_heads x head_dim "
                      "floats, at its place in lab.h's layout)", after, rows[r][0], rows[r][1], rows[r][2], i,
                      c->keys[at + i], c->values[at + i], key, value);
            expected[at + i] = 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        cr_assert(expected[i] || (lab_float_is_poison(c->keys[i]) && lab_float_is_poison(c->values[i])),
                  "after %s: float %zu of the cache (sequence %zu, layer %zu, position %zu) was written, but no token "
                  "belongs there", after, i, i / kv_dim / c->capacity / c->layers,
                  i / kv_dim / c->capacity % c->layers, i / kv_dim % c->capacity);
    free(expected);
}

static int length_of(const kv_cache *c, int s, int l) { return c->length[s * c->layers + l]; }

Test(append, first_token_lands_in_its_row, .timeout = 10,
     .description = "A token appended to sequence 1, layer 1 of an empty cache: its key and value fill their row, "
                    "kv_heads x head_dim floats each, nothing else is written, and that layer holds 1 token.")
{
    kv_cache c = build(2, 2, 3, 2, 4);
    float key[6], value[6];
    token_vectors(key, value, 6, 7);
    error[0] = 0;
    cr_assert(kv_cache_append(&c, 1, 1, 0, key, value, error, sizeof error) == 0, "kv_cache_append(sequence 1, layer 1, "
              "position 0) into an empty cache was refused: %s", error);
    expect_contents(&c, (const int[][4]){{1, 1, 0, 7}}, 1, "one append");
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < 2; l++)
            cr_assert(length_of(&c, s, l) == (s == 1 && l == 1), "sequence %d, layer %d holds %d tokens after one append to "
                      "sequence 1, layer 1", s, l, length_of(&c, s, l));
    kv_cache_free(&c);
}

Test(append, tokens_in_order, .timeout = 10,
     .description = "Positions 0, 1, 2, 3 appended in order to one layer fill its rows one after the other, until "
                    "the layer holds 4 tokens.")
{
    kv_cache c = build(2, 3, 2, 1, 4);
    float key[6], value[6];
    int rows[4][4];
    for (int p = 0; p < 4; p++) {
        token_vectors(key, value, 6, p + 1);
        cr_assert(kv_cache_append(&c, 0, 1, p, key, value, error, sizeof error) == 0, "the append of position %d, the "
                  "next free one, was refused: %s", p, error);
        cr_assert(length_of(&c, 0, 1) == p + 1, "after appending positions 0 .. %d the layer holds %d tokens, want %d", p,
                  length_of(&c, 0, 1), p + 1);
        rows[p][0] = 0, rows[p][1] = 1, rows[p][2] = p, rows[p][3] = p + 1;
    }
    expect_contents(&c, (const int(*)[4])rows, 4, "four appends in order");
    kv_cache_free(&c);
}

/* An append that must be refused: -1, a message, and nothing changed (robust.h's snapshots) */
static void expect_refused(kv_cache *c, int sequence, int layer, int position, const char *why)
{
    size_t n = floats_of(c);
    lab_snapshot keys = lab_snapshot_take(c->keys, n * sizeof(float));
    lab_snapshot values = lab_snapshot_take(c->values, n * sizeof(float));
    lab_snapshot lengths = lab_snapshot_take(c->length, (size_t)c->batch * c->layers * sizeof(int));
    float key[64], value[64];
    token_vectors(key, value, c->kv_heads * c->head_dim, 9);
    error[0] = 0;
    int status = kv_cache_append(c, sequence, layer, position, key, value, error, sizeof error);
    cr_assert(status == -1, "kv_cache_append(sequence %d, layer %d, position %d) returned %d, want -1: %s", sequence, layer,
              position, status, why);
    cr_assert(error[0] != 0, "kv_cache_append(sequence %d, layer %d, position %d) refused, but wrote no message: say what "
              "was wrong (%s)", sequence, layer, position, why);
    long length = lab_snapshot_first_change(lengths), key_float = lab_snapshot_first_change(keys);
    long value_float = lab_snapshot_first_change(values);
    cr_assert(length < 0, "the refused append of sequence %d, layer %d, position %d changed a length: that of "
              "(sequence %ld, layer %ld)", sequence, layer, position, length / (long)sizeof(int) / c->layers,
              length / (long)sizeof(int) % c->layers);
    cr_assert(key_float < 0 && value_float < 0, "the refused append of sequence %d, layer %d, position %d wrote into "
              "the cache: %s float %ld first", sequence, layer, position, key_float >= 0 ? "key" : "value",
              (key_float >= 0 ? key_float : value_float) / (long)sizeof(float));
}

Test(append, wrong_position_refused, .timeout = 10,
     .description = "An append anywhere but the next free position is refused (-1 and a message) and changes "
                    "nothing: a skipped position, a repeated one, an earlier one.")
{
    kv_cache c = build(2, 2, 2, 2, 6);
    float key[4], value[4];
    expect_refused(&c, 0, 0, 1, "the layer is empty: its next position is 0, and position 1 would leave 0 unwritten");
    for (int p = 0; p < 2; p++) {
        token_vectors(key, value, 4, p + 1);
        cr_assert(kv_cache_append(&c, 0, 0, p, key, value, error, sizeof error) == 0, "position %d refused: %s", p, error);
    }
    expect_refused(&c, 0, 0, 1, "position 1 is taken: appending it again would overwrite a cached token");
    expect_refused(&c, 0, 0, 0, "position 0 is taken");
    expect_refused(&c, 0, 0, 3, "the layer holds 2 tokens: the next goes at 2, not 3");
    expect_refused(&c, 0, 0, -1, "a negative position");
    token_vectors(key, value, 4, 3);
    cr_assert(kv_cache_append(&c, 0, 0, 2, key, value, error, sizeof error) == 0, "after the refusals, position 2, the "
              "next free one, was refused: %s", error);
    expect_contents(&c, (const int[][4]){{0, 0, 0, 1}, {0, 0, 1, 2}, {0, 0, 2, 3}}, 3, "appends and refusals");
    kv_cache_free(&c);
}

Test(append, out_of_range_refused, .timeout = 10,
     .description = "A sequence or a layer the cache does not have, and a token past the capacity, are refused and "
                    "change nothing.")
{
    kv_cache c = build(2, 1, 3, 2, 2);
    float key[3], value[3];
    expect_refused(&c, 2, 0, 0, "the cache holds sequences 0 and 1");
    expect_refused(&c, -1, 0, 0, "a negative sequence");
    expect_refused(&c, 0, 2, 0, "the cache holds layers 0 and 1");
    expect_refused(&c, 0, -1, 0, "a negative layer");
    for (int p = 0; p < 2; p++) {
        token_vectors(key, value, 3, p + 1);
        cr_assert(kv_cache_append(&c, 1, 1, p, key, value, error, sizeof error) == 0, "position %d refused: %s", p, error);
    }
    expect_refused(&c, 1, 1, 2, "the layer is full: its capacity is 2 tokens, and position 2 lies past the end of its rows");
    kv_cache_free(&c);
}

Test(append, each_sequence_and_layer_counts_its_own, .timeout = 10,
     .description = "Each (sequence, layer) has its own length: three tokens in sequence 0, layer 0 leave layer 1 and "
                    "sequence 1 empty, so their next position is 0.")
{
    kv_cache c = build(2, 2, 2, 2, 4);
    float key[4], value[4];
    for (int p = 0; p < 3; p++) {
        token_vectors(key, value, 4, p + 1);
        cr_assert(kv_cache_append(&c, 0, 0, p, key, value, error, sizeof error) == 0, "position %d refused: %s", p, error);
    }
    token_vectors(key, value, 4, 4);
    cr_assert(kv_cache_append(&c, 0, 1, 0, key, value, error, sizeof error) == 0, "position 0 of sequence 0, layer 1 "
              "(empty) was refused: %s", error);
    token_vectors(key, value, 4, 5);
    cr_assert(kv_cache_append(&c, 1, 0, 0, key, value, error, sizeof error) == 0, "position 0 of sequence 1, layer 0 "
              "(empty) was refused: %s", error);
    expect_refused(&c, 1, 0, 3, "sequence 1, layer 0 holds 1 token: its next position is 1, whatever sequence 0 holds");
    expect_contents(&c, (const int[][4]){{0, 0, 0, 1}, {0, 0, 1, 2}, {0, 0, 2, 3}, {0, 1, 0, 4}, {1, 0, 0, 5}}, 5,
                    "appends to three (sequence, layer) pairs");
    kv_cache_free(&c);
}

/* ---------------------------------------------------------------------------------
 * The attention over the cache */

static float uniform(uint64_t *state, float range) { return range * (2.0f * llama_random_unit(state) - 1.0f); }

/* a cache whose [sequence][layer] holds `filled` random tokens (the rest poison) */
static kv_cache random_cache(int layers, int kv_heads, int head_dim, int batch, int capacity, int filled, float range,
                             uint64_t seed)
{
    kv_cache c = build(layers, kv_heads, head_dim, batch, capacity);
    uint64_t state = llama_seed_generator(seed);
    size_t kv_dim = (size_t)kv_heads * head_dim;
    for (int s = 0; s < batch; s++)
        for (int l = 0; l < layers; l++) {
            for (int p = 0; p < filled; p++) {
                size_t at = row_at(&c, s, l, p);
                for (size_t i = 0; i < kv_dim; i++) c.keys[at + i] = uniform(&state, range), c.values[at + i] = uniform(&state, 1);
            }
            c.length[s * layers + l] = filled;
        }
    return c;
}

/* kv_cache_attend only reads the cache and the query: each check computes what it expects after the call
 * has returned, from them, once their fingerprints (before and after) agree, so that no answer is in
 * memory while it runs and none can be made by rewriting what it reads. */
static uint64_t attend_inputs(const kv_cache *c, const float *query)
{
    size_t bytes = floats_of(c) * sizeof(float);
    return lab_fingerprint(query, (size_t)c->head_dim * sizeof(float),
                           lab_fingerprint(c->values, bytes, lab_fingerprint(c->keys, bytes, 1)));
}

static void expect_inputs_unchanged(uint64_t before, const kv_cache *c, const float *query, const char *call)
{
    cr_assert(before == attend_inputs(c, query), "%s changed the cache's keys or values, or the query: attend only "
              "reads them", call);
}

/* the attention of lab.h, in double, straight from the documented layout */
static void reference_attend(const kv_cache *c, double *out, const float *query, int s, int l, int head, int length)
{
    double *score = malloc((size_t)length * sizeof(double)), max = -INFINITY, sum = 0;
    for (int t = 0; t < length; t++) {
        const float *key = c->keys + row_at(c, s, l, t) + (size_t)head * c->head_dim;
        double dot = 0;
        for (int i = 0; i < c->head_dim; i++) dot += (double)query[i] * key[i];
        score[t] = dot / sqrt((double)c->head_dim);
        if (score[t] > max) max = score[t];
    }
    for (int t = 0; t < length; t++) sum += score[t] = exp(score[t] - max);
    for (int i = 0; i < c->head_dim; i++) out[i] = 0;
    for (int t = 0; t < length; t++) {
        const float *value = c->values + row_at(c, s, l, t) + (size_t)head * c->head_dim;
        for (int i = 0; i < c->head_dim; i++) out[i] += score[t] / sum * value[i];
    }
    free(score);
}

/* your attend beside the reference, for every head of every (sequence, layer), at `length` */
static void expect_attention(const kv_cache *c, int length, float query_range, uint64_t seed, const char *what)
{
    uint64_t state = llama_seed_generator(seed);
    enum { GUARD = 8 };   /* floats after out, which attend must leave alone: the next head's output in the engine */
    float *query = malloc((size_t)c->head_dim * sizeof(float)), *out = malloc((size_t)(c->head_dim + GUARD) * sizeof(float));
    float *scores = malloc((size_t)c->capacity * sizeof(float)), *want = malloc((size_t)c->head_dim * sizeof(float));
    double *reference = malloc((size_t)c->head_dim * sizeof(double));
    for (int s = 0; s < c->batch; s++)
        for (int l = 0; l < c->layers; l++)
            for (int h = 0; h < c->kv_heads; h++) {
                for (int i = 0; i < c->head_dim; i++) query[i] = uniform(&state, query_range);
                lab_poison(out, (size_t)c->head_dim * sizeof(float));
                for (int g = 0; g < GUARD; g++) out[c->head_dim + g] = 12345.0f;
                lab_poison(scores, (size_t)c->capacity * sizeof(float));
                uint64_t inputs = attend_inputs(c, query);
                kv_cache_attend(c, out, query, s, l, h, length, scores);
                char call[96];
                snprintf(call, sizeof call, "kv_cache_attend(sequence %d, layer %d, head %d, length %d)", s, l, h,
                         length);
                expect_inputs_unchanged(inputs, c, query, call);
                for (int g = 0; g < GUARD; g++)
                    cr_assert(out[c->head_dim + g] == 12345.0f, "head %d, sequence %d, layer %d, length %d: out[%d] "
                              "was written, past the head's %d outputs (in the engine, the next head's output)", h, s,
                              l, length, c->head_dim + g, c->head_dim);
                reference_attend(c, reference, query, s, l, h, length);
                for (int i = 0; i < c->head_dim; i++) want[i] = (float)reference[i];
                char name[160];
                snprintf(name, sizeof name, "out of head %d, sequence %d, layer %d, length %d (%s)", h, s, l, length, what);
                lab_comparison r = lab_compare_floats(name, out, want, (size_t)c->head_dim, 1e-5, 1e-6);
                cr_assert(r.mismatches == 0, "%s", r.message);
            }
    free(query), free(out), free(scores), free(want), free(reference);
}

Test(attend, one_position_is_its_value, .timeout = 10,
     .description = "With one position cached the softmax has one weight, exactly 1: the output is that position's "
                    "value, of the query's own head.")
{
    kv_cache c = random_cache(1, 3, 4, 1, 2, 1, 1, 201);
    float query[4] = {0.5f, -1, 2, 0.25f}, out[4], scores[2];
    for (int h = 0; h < 3; h++) {
        lab_poison(out, sizeof out);
        uint64_t inputs = attend_inputs(&c, query);
        kv_cache_attend(&c, out, query, 0, 0, h, 1, scores);
        expect_inputs_unchanged(inputs, &c, query, "kv_cache_attend over one position");
        const float *value = c.values + (size_t)h * 4;
        lab_comparison r = lab_compare_floats("out, one position", out, value, 4, 0, 0);
        cr_assert(r.mismatches == 0, "head %d, one position: out must be exactly that position's value of head %d "
                  "(elements %d .. %d of its row). %s", h, h, 4 * h, 4 * h + 3, r.message);
    }
    kv_cache_free(&c);
}

Test(attend, against_a_reference, .timeout = 10,
     .description = "Each head of each (sequence, layer), over 2 to 33 positions, with head_dim 5 and 8: the scores "
                    "q . k / sqrt(head_dim), their softmax, the weighted values, within 1e-5 of a double reference.")
{
    const int head_dims[] = {5, 8}, lengths[] = {2, 3, 7, 33};
    for (int d = 0; d < 2; d++) {
        kv_cache c = random_cache(2, 3, head_dims[d], 2, 40, 33, 1, 202 + d);
        for (int k = 0; k < 4; k++) expect_attention(&c, lengths[k], 1, 300 + k, "values within +-1");
        kv_cache_free(&c);
    }
}

Test(attend, only_the_first_length_positions, .timeout = 10,
     .description = "length says how far a query may look: in a prefill the cache already holds the prompt's later "
                    "tokens, and attending to them would undo the causal mask.")
{
    kv_cache c = random_cache(1, 2, 4, 1, 12, 10, 1, 204);
    for (int length = 1; length <= 9; length += 4) expect_attention(&c, length, 1, 310 + length, "10 positions cached");
    /* nothing past `length` may be read at all: poison the positions after it */
    kv_cache d = random_cache(1, 2, 4, 1, 12, 5, 1, 205);
    d.length[0] = 12;
    expect_attention(&d, 5, 1, 320, "positions 5 .. 11 are NaN, and must not be read");
    kv_cache_free(&c), kv_cache_free(&d);
}

Test(attend, large_scores, .timeout = 10,
     .description = "Keys and queries up to +-30 give scores in the hundreds, far past where expf overflows (88.7): "
                    "subtract the largest score before expf.")
{
    kv_cache c = random_cache(1, 2, 8, 1, 16, 16, 30, 206);
    expect_attention(&c, 16, 30, 330, "scores up to about +-2500");
    kv_cache_free(&c);
}

/* Scores set exactly: head 1's keys carry lab_fill_large_scores' values in their first element,
 * and a query (2, 0, 0, 0) scaled by 1/sqrt(4) turns them into the scores themselves. */
static void expect_scores_survive(float base)
{
    enum { LENGTH = 33, HEAD_DIM = 4 };
    kv_cache c = random_cache(1, 2, HEAD_DIM, 1, LENGTH, LENGTH, 1, 207);
    float scores[LENGTH], query[HEAD_DIM] = {2, 0, 0, 0}, out[HEAD_DIM], scratch[LENGTH];
    lab_fill_large_scores(scores, LENGTH, base);
    for (int t = 0; t < LENGTH; t++) c.keys[row_at(&c, 0, 0, t) + HEAD_DIM] = scores[t];
    lab_poison(out, sizeof out);
    uint64_t inputs = attend_inputs(&c, query);
    kv_cache_attend(&c, out, query, 0, 0, 1, LENGTH, scratch);
    expect_inputs_unchanged(inputs, &c, query, "kv_cache_attend over scores past expf's range");
    double probabilities[LENGTH], want[HEAD_DIM] = {0};
    lab_fill_large_scores(scores, LENGTH, base);   /* afresh: the scores the keys were given */
    lab_softmax_reference(scores, LENGTH, probabilities);
    for (int t = 0; t < LENGTH; t++)
        for (int i = 0; i < HEAD_DIM; i++) want[i] += probabilities[t] * c.values[row_at(&c, 0, 0, t) + HEAD_DIM + i];
    int where;
    double worst = lab_max_abs_error(out, want, HEAD_DIM, &where);
    cr_assert(worst <= 1e-5, "scores from %g to %g (every one %s): out[%d] = %g, want %.7g. %s", base, base + 1,
              base > 0 ? "past 88.7, where expf overflows to inf" : "below -103.9, where expf underflows to 0",
              where, out[where], want[where], base > 0 ? "Subtract the largest score before expf."
              : "Subtract the largest score, whatever its sign: start the maximum at -INFINITY (or the first score), "
                "not at 0.");
    kv_cache_free(&c);
}

Test(attend, scores_past_expf_either_way, .timeout = 10,
     .description = "Scores all near +1000, all near -1000, all near -120 (robust.h's large scores): the softmax "
                    "must subtract their maximum, whatever its sign, or expf gives inf or 0 and the output NaN.")
{
    expect_scores_survive(1000);
    expect_scores_survive(-1000);
    expect_scores_survive(-120);
}

/* One thread's share of the two-thread check: every head of every layer of one sequence, with the
 * thread's own scratch, compared bit for bit with what the same call gave alone. */
enum { CALLS_ON_TWO_THREADS = 400 };
typedef struct attend_job {
    const kv_cache *cache;
    int sequence, length;
    const float *queries;   /* layers x kv_heads x head_dim */
    float *alone;           /* layers x kv_heads x head_dim: the answers on one thread */
    float *outputs;         /* layers x kv_heads x head_dim: this call's */
    float *scores;          /* capacity floats, this thread's */
    long calls;             /* made so far */
    size_t differs;         /* the first output that differed from alone's */
    float found;            /* its value */
} attend_job;

static void attend_every_head(attend_job *job, float *outputs)
{
    const kv_cache *c = job->cache;
    for (int l = 0; l < c->layers; l++)
        for (int h = 0; h < c->kv_heads; h++) {
            size_t at = ((size_t)l * c->kv_heads + h) * c->head_dim;
            kv_cache_attend(c, outputs + at, job->queries + at, job->sequence, l, h, job->length, job->scores);
        }
}

static int attend_and_compare(void *raw)
{
    attend_job *job = raw;
    size_t floats = (size_t)job->cache->layers * job->cache->kv_heads * job->cache->head_dim;
    attend_every_head(job, job->outputs);
    job->calls++;
    for (size_t i = 0; i < floats; i++)
        if (memcmp(&job->outputs[i], &job->alone[i], sizeof(float)) != 0) {
            job->differs = i, job->found = job->outputs[i];
            return 1 + job->sequence;
        }
    return 0;
}

Test(attend, two_threads_at_once, .timeout = 60,
     .description = "The engine runs attend on several threads at once (lab.h). Two sequences of different lengths "
                    "attended on two threads together, over and over, must give, bit for bit, what each gives alone: "
                    "nothing may be kept in a static or global variable (scratch goes in `scores`, the caller's).")
{
    enum { LAYERS = 2, HEADS = 4, HEAD_DIM = 16, CAPACITY = 700 };
    kv_cache c = random_cache(LAYERS, HEADS, HEAD_DIM, 2, CAPACITY, CAPACITY, 1, 208);
    size_t floats = (size_t)LAYERS * HEADS * HEAD_DIM;
    const int lengths[2] = {CAPACITY, 301};
    attend_job jobs[2];
    uint64_t state = llama_seed_generator(209);
    for (int s = 0; s < 2; s++) {
        float *queries = malloc(floats * sizeof(float));
        for (size_t i = 0; i < floats; i++) queries[i] = uniform(&state, 1);
        jobs[s] = (attend_job){&c, s, lengths[s], queries, malloc(floats * sizeof(float)),
                               malloc(floats * sizeof(float)), malloc(CAPACITY * sizeof(float)), 0, 0, 0};
        attend_every_head(&jobs[s], jobs[s].alone);
    }
    int verdict = lab_run_on_two_threads(attend_and_compare, &jobs[0], &jobs[1], CALLS_ON_TWO_THREADS);
    cr_assert(verdict >= 0, "no threads could be started");
    if (verdict > 0) {
        const attend_job *job = &jobs[verdict - 1];
        size_t i = job->differs;
        cr_assert(0, "sequence %d (%d positions), layer %zu, head %zu, call %ld: with another sequence attended on "
                  "a second thread at the same time, out[%zu] = %.9g; alone it was %.9g. kv_cache_attend may run on "
                  "several threads at once: keep nothing in a static or global variable, and use the caller's "
                  "`scores` as scratch", job->sequence, job->length, i / (HEADS * HEAD_DIM), i / HEAD_DIM % HEADS,
                  job->calls, i % HEAD_DIM, job->found, job->alone[i]);
    }
    for (int s = 0; s < 2; s++)
        free((void *)jobs[s].queries), free(jobs[s].alone), free(jobs[s].outputs), free(jobs[s].scores);
    kv_cache_free(&c);
}

/* ---------------------------------------------------------------------------------
 * The toy Llama with your cache */

static void build_model(llama_transformer *t)
{
    llama_config c;
    cr_assert(kv_check_shape(&c, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(t, &c, 20, error, sizeof error) == 0, "%s", error);
}

static void expect_plug_fine(const kv_plug *plug, const char *when)
{
    cr_assert(plug->refused == 0, "%s, your kv_cache_append refused an append the engine made: %s", when,
              plug->first_refusal);
}

static void expect_logits(const float *got, const float *want, int vocab, const char *what)
{
    lab_comparison r = lab_compare_floats(what, got, want, (size_t)vocab, 1e-4, 1e-4);
    cr_assert(r.mismatches == 0, "%s", r.message);
}

Test(engine, a_prompt_through_your_cache, .timeout = 30,
     .description = "The toy Llama prefills an 8-token prompt with your cache in place of its own: one append per "
                    "token and layer, and the logits of its own cache (attention within the prompt is causal).")
{
    llama_transformer t;
    build_model(&t);
    int vocab = t.config.vocab_size, prompt[8] = {1, 17, 4, 60, 33, 2, 90, 12};
    llama_session own, yours;
    kv_plug plug;
    cr_assert(llama_build_session(&own, &t, 1, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&yours, &t, 1, 16, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(kv_plug_into(&yours, &plug, error, sizeof error) == 0, "%s", error);
    const float *got = llama_prefill(&yours, 0, prompt, 8, error, sizeof error);   /* before the engine's own */
    cr_assert(got, "%s", error);
    const float *want = llama_prefill(&own, 0, prompt, 8, error, sizeof error);
    cr_assert(want, "%s", error);
    expect_plug_fine(&plug, "prefilling 8 tokens");
    cr_assert(plug.appends == 8 * t.config.n_layers, "%lld appends were accepted for 8 tokens in %d layers",
              (long long)plug.appends, t.config.n_layers);
    expect_logits(got, want, vocab, "the logits after the prompt, with your cache (want: the engine's own cache)");
    kv_plug_free(&plug);
    llama_free_session(&own), llama_free_session(&yours);
    llama_free_transformer(&t);
}

/* The top two logits are closer than rounding can separate: either token is right. */
static int near_tie(const float *logits, int vocab, int a, int b)
{
    return a != b && fabsf(logits[a] - logits[b]) <= 1e-4f * (1 + fabsf(logits[a]));
}

Test(engine, tokens_128_steps_equal_recomputing, .timeout = 60,
     .description = "128 greedy tokens with your cache (each step one token, one append per layer, attention over the "
                    "cache) equal, token for token and logit for logit, what the engine computes without a cache: the "
                    "whole sequence recomputed for every token.")
{
    enum { PROMPT = 5, STEPS = 128 };
    llama_transformer t;
    build_model(&t);
    int vocab = t.config.vocab_size, tokens[PROMPT + STEPS + 1] = {1, 9, 4, 33, 2};
    llama_session cached, uncached;
    kv_plug plug;
    cr_assert(llama_build_session(&cached, &t, 1, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&uncached, &t, 1, PROMPT + STEPS, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(kv_plug_into(&cached, &plug, error, sizeof error) == 0, "%s", error);
    const float *logits = llama_prefill(&cached, 0, tokens, PROMPT, error, sizeof error);
    cr_assert(logits, "%s", error);
    for (int step = 0; step < STEPS; step++) {
        int n = PROMPT + step;   /* tokens so far; the logits are those of token n - 1 */
        char when[96];
        snprintf(when, sizeof when, "at step %d (position %d)", step, n - 1);
        expect_plug_fine(&plug, when);
        llama_reset_sequence(&uncached, 0);
        const float *recomputed = llama_prefill(&uncached, 0, tokens, n, error, sizeof error);
        cr_assert(recomputed, "%s", error);
        char what[160];
        snprintf(what, sizeof what, "the logits %s with your cache (want: the whole sequence recomputed)", when);
        expect_logits(logits, recomputed, vocab, what);
        int yours = llama_argmax(logits, vocab), without = llama_argmax(recomputed, vocab);
        cr_assert(yours == without || near_tie(recomputed, vocab, yours, without), "%s your cache's greedy token is %d, "
                  "recomputing gives %d", when, yours, without);
        tokens[n] = yours;
        if (step == STEPS - 1) break;
        int64_t before = plug.appends;
        logits = llama_decode_batch(&cached, (int[]){0}, &tokens[n], 1, error, sizeof error);
        cr_assert(logits, "%s", error);
        expect_plug_fine(&plug, when);
        cr_assert(plug.appends - before == t.config.n_layers, "one decode step made %lld appends, want one per layer (%d)",
                  (long long)(plug.appends - before), t.config.n_layers);
    }
    kv_plug_free(&plug);
    llama_free_session(&cached), llama_free_session(&uncached);
    llama_free_transformer(&t);
}

Test(engine, two_sequences_at_once, .timeout = 30,
     .description = "A batch of two sequences of different lengths, prefilled together and decoded together for 12 "
                    "steps on two threads: each keeps its own tokens in your cache, and the logits equal the engine's "
                    "own cache's.")
{
    llama_transformer t;
    build_model(&t);
    int vocab = t.config.vocab_size;
    int a[6] = {3, 1, 4, 1, 5, 9}, b[3] = {2, 7, 1};
    const int *prompts[2] = {a, b};
    int lengths[2] = {6, 3}, sequences[2] = {0, 1};
    llama_session own, yours;
    kv_plug plug;
    cr_assert(llama_build_session(&own, &t, 2, 24, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_session(&yours, &t, 2, 24, 2, error, sizeof error) == 0, "%s", error);
    cr_assert(kv_plug_into(&yours, &plug, error, sizeof error) == 0, "%s", error);
    /* each step on your cache first, then on the engine's own: its logits are not in memory while yours runs */
    const float *got = llama_prefill_batch(&yours, sequences, prompts, lengths, 2, error, sizeof error);
    cr_assert(got, "%s", error);
    const float *want = llama_prefill_batch(&own, sequences, prompts, lengths, 2, error, sizeof error);
    cr_assert(want, "%s", error);
    for (int step = 0; step < 12; step++) {
        char what[128];
        snprintf(what, sizeof what, "step %d", step);
        expect_plug_fine(&plug, what);
        snprintf(what, sizeof what, "the logits of both sequences at step %d (sequence 0 first; want: the engine's own "
                 "cache)", step);
        expect_logits(got, want, 2 * vocab, what);
        int next[2] = {llama_argmax(want, vocab), llama_argmax(want + vocab, vocab)};
        got = llama_decode_batch(&yours, sequences, next, 2, error, sizeof error);
        cr_assert(got, "%s", error);
        want = llama_decode_batch(&own, sequences, next, 2, error, sizeof error);
        cr_assert(want, "%s", error);
    }
    kv_plug_free(&plug);
    llama_free_session(&own), llama_free_session(&yours);
    llama_free_transformer(&t);
}
