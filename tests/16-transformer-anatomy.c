/* 16-transformer-anatomy.c — the checks for day 16, in the order of lab.h: each parameter
 * counter on a shape small enough to count on paper (written out beside each case, with heads
 * x head_dim unlike hidden and fewer K/V heads than query heads, so that each kind of mix-up
 * gives a different number); then the published totals of data/models.csv, exactly, and of
 * Llama-3.1-405B, whose MLP and embeddings alone are past 2^31 (a product formed in int wraps
 * there, nowhere in the table), and the tensors of seeded models of the toy Llama (lib/llama),
 * counted element by element, tied and untied; then the FLOPs of one token, by hand, for
 * Llama-2-7B, past 2^31 positions, and against lib/perfmodel's decode and prefill FLOPs; last
 * the derivation of the context where attention catches up, against the learner's own counts.
 * Every count is a whole number below 2^53, so every comparison, in int64_t or in double, is
 * exact; the derivation alone is a fraction, held to 1e-12 relative. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lab.h"
#include "llama.h"
#include "perfmodel.h"
#include "robust.h"
#include "table.h"

/* ---------------------------------------------------------------------------------
 * Comparing a count with one made by hand, and naming the known mistake it matches */

typedef struct diagnosis {
    double value;          /* a wrong answer someone is likely to give */
    const char *means;     /* what it means */
} diagnosis;

enum { MAX_DIAGNOSES = 6 };

/* Every hand count, and the mistakes beside it, is static const: in the test program's data, never in the
 * test's own stack frame, where the code under test could read it off its caller's locals and return it
 * (tests/grader/forgeries/reads-expected-values.patch). What a check computes, it computes after the code
 * under test has returned. */
typedef struct expected {
    double value;
    const char *idea;                   /* what the count is made of, without the formula */
    diagnosis known[MAX_DIAGNOSES];     /* means NULL ends the list */
} expected;

static const char *diagnose(double got, const expected *want)
{
    if (got == 0) return "still 0: is it written yet?";
    for (int i = 0; i < MAX_DIAGNOSES && want->known[i].means; i++)
        if (got == want->known[i].value) return want->known[i].means;
    return "";
}

static void expect_count(const char *call, double got, const expected *want)
{
    const char *why = diagnose(got, want);
    cr_assert(got == want->value, "%s = %.17g, want %.17g%s%s%s. %s", call, got, want->value, *why ? " (" : "", why,
              *why ? ")" : "", want->idea);
}

/* The hand shape: 3 layers, hidden 8, 4 query heads of 3 (Q is 12 wide, not 8), 1 K/V head
 * (K and V are 3 wide), an MLP 12 wide, 10 tokens; untied, no biases. */
static const decoder_shape hand = {3, 8, 4, 1, 3, 12, 10, 0, 0};

/* Llama-3.1-405B, which data/models.csv does not list (meta-llama/Llama-3.1-405B, config.json: 126
 * layers, hidden 16384, 128 query heads and 8 K/V heads of 128, intermediate 53248, vocabulary
 * 128256, untied, no biases): 405 853 388 800 parameters, the 405.85 B its checkpoint is published
 * with. Large enough that single products of two sizes pass an int's 2 147 483 647. */
static const decoder_shape llama31_405b = {126, 16384, 128, 8, 128, 53248, 128256, 0, 0};

static decoder_shape with(decoder_shape s, int qkv_bias, int tied)
{
    s.qkv_bias = qkv_bias, s.tied_embeddings = tied;
    return s;
}

/* Rows of data/models.csv */
static int model_row(const lab_table *models, const char *name)
{
    int row = lab_table_find(models, "name", name);
    cr_assert(row >= 0, "data/models.csv has no row %s", name);
    return row;
}

static lab_table *read_models(void)
{
    char error[512];
    lab_table *models = lab_table_read(lab_data_path("models.csv"), error, sizeof error);
    cr_assert(models != NULL, "cannot read data/models.csv: %s", error);
    return models;
}

static decoder_shape shape_of_row(const lab_table *models, int row)
{
    decoder_shape s = {(int)lab_table_number_or_exit(models, row, "layers"), (int)lab_table_number_or_exit(models, row, "hidden_size"),
                       (int)lab_table_number_or_exit(models, row, "attention_heads"), (int)lab_table_number_or_exit(models, row, "kv_heads"),
                       (int)lab_table_number_or_exit(models, row, "head_dim"),
                       (int)lab_table_number_or_exit(models, row, "intermediate_size"),
                       (int)lab_table_number_or_exit(models, row, "vocab_size"), (int)lab_table_number_or_exit(models, row, "qkv_bias"),
                       (int)lab_table_number_or_exit(models, row, "tied_embeddings")};
    return s;
}

static decoder_shape model(const char *name)
{
    lab_table *models = read_models();
    decoder_shape s = shape_of_row(models, model_row(models, name));
    lab_table_free(models);
    return s;
}

/* What a wrong total of a real model most likely left out, from its shape. */
static const char *diagnose_total(const decoder_shape *s, int64_t got, int64_t want)
{
    int64_t embedding = (int64_t)s->vocab * s->hidden, q = (int64_t)s->heads * s->head_dim;
    int64_t kv = (int64_t)s->kv_heads * s->head_dim;
    if (got == 0) return "still 0: is it written yet?";
    if (got == want - s->hidden) return "the final RMSNorm's weights are missing";
    if (got == want - 2 * (int64_t)s->layers * s->hidden) return "the layers' RMSNorm weights are missing, two a layer";
    if (got == want - 2 * (int64_t)s->layers * s->hidden - s->hidden) return "every RMSNorm's weights are missing";
    if (got == want - embedding) return "one vocab x hidden matrix short: an untied classifier is a matrix of its own";
    if (got == want + embedding) return "one vocab x hidden matrix too many: a tied classifier is the embedding itself";
    if (got == want + 2 * (int64_t)s->layers * s->hidden * (q - kv))
        return "Wk and Wv counted as wide as Wq: with grouped-query attention they have kv_heads heads";
    if (got == want - (int64_t)s->layers * s->hidden * s->intermediate) return "an MLP of two matrices: SwiGLU has three";
    if (lab_wrapped_in_32_bits((double)got, (double)want)) return "equal to the count modulo 2^32: a product overflowed 32 bits; multiply in int64_t";
    return "";
}

/* ---------------------------------------------------------------------------------
 * Parameters, counted by hand */

Test(attention, hand_counted, .timeout = 10,
     .description = "Wq is hidden x (heads x head_dim), Wk and Wv hidden x (kv_heads x head_dim), Wo (heads x head_dim) "
                    "x hidden: the heads set the widths, not hidden.")
{
    /* Wq 8 x 12 = 96, Wk 8 x 3 = 24, Wv 24, Wo 12 x 8 = 96: 240 */
    static const expected want = {
        240, "Wq + Wk + Wv + Wo, each rows x cols.",
        {{384, "Wk and Wv counted as wide as Wq: they have kv_heads heads, not heads"},
         {176, "Wq and Wo as hidden x hidden: their width is heads x head_dim, 12 here, not 8"},
         {144, "Wo is missing"},
         {192, "Wq, Wk, Wv only: Wo, the output projection, is a fourth matrix"}}};
    expect_count("attention_parameters(hand)", (double)attention_parameters(&hand), &want);
}

Test(attention, qkv_bias, .timeout = 10,
     .description = "With qkv_bias, Q, K and V each add one bias per output (12 + 3 + 3 here); the output "
                    "projection has none.")
{
    decoder_shape biased = with(hand, 1, 0);
    /* 240 + 12 + 3 + 3 = 258 */
    static const expected want = {
        258, "The four matrices, plus one bias per output of Q, K and V.",
        {{240, "the biases are missing: qkv_bias = 1 adds heads x head_dim + 2 x kv_heads x head_dim"},
         {266, "a bias on Wo too: only Q, K and V have them"},
         {276, "biases as wide as Q for K and V: K and V have kv_heads heads"}}};
    expect_count("attention_parameters(hand with biases)", (double)attention_parameters(&biased), &want);
}

Test(attention, grouped_query_llama2_70b, .timeout = 10,
     .description = "Llama-2-70B has 64 query heads and 8 K/V heads of 128: Wk and Wv are 8192 x 1024, an eighth "
                    "of Wq.")
{
    decoder_shape s = model("Llama-2-70B");
    /* Wq 8192 x 8192 = 67 108 864, Wk and Wv 8192 x 1024 = 8 388 608 each, Wo 67 108 864: 150 994 944 */
    static const expected want = {150994944, "Wq and Wo 8192 x 8192, Wk and Wv 8192 x 1024.",
                                  {{268435456, "Wk and Wv counted as wide as Wq: 8 K/V heads, not 64"}}};
    expect_count("attention_parameters(Llama-2-70B)", (double)attention_parameters(&s), &want);
}

Test(mlp, three_matrices, .timeout = 10,
     .description = "SwiGLU's MLP has three matrices: gate and up (hidden -> intermediate), and down back.")
{
    /* 3 x 8 x 12 = 288; Llama-2-7B: 3 x 4096 x 11008 = 135 266 304 */
    static const expected want = {288, "Three matrices of hidden x intermediate.",
                                  {{192, "two matrices: that is a plain MLP; SwiGLU has a gate and an up projection"}}};
    expect_count("mlp_parameters(hand)", (double)mlp_parameters(&hand), &want);
    decoder_shape s = model("Llama-2-7B");
    static const expected llama = {
        135266304, "Three matrices of 4096 x 11008.",
        {{90177536, "two matrices: that is a plain MLP; SwiGLU has a gate and an up projection"}}};
    expect_count("mlp_parameters(Llama-2-7B)", (double)mlp_parameters(&s), &llama);
}

Test(mlp, llama31_405b_past_2_31, .timeout = 10,
     .description = "Llama-3.1-405B's MLP alone, 3 x 16384 x 53248 = 2 617 245 696, is past what an int holds: "
                    "a product formed in int wraps before it is stored in an int64_t, even though no model of "
                    "data/models.csv shows it.")
{
    static const expected want = {
        2617245696.0, "Three matrices of 16384 x 53248, multiplied in int64_t from the first factor.",
        {{-1677721600.0, "the product was formed in int and wrapped to 2 617 245 696 - 2^32: convert "
                         "a factor to int64_t before the first multiplication, not the result after"},
         {1744830464.0, "two matrices, and that in int64_t: SwiGLU has three"}}};
    expect_count("mlp_parameters(Llama-3.1-405B)", (double)mlp_parameters(&llama31_405b), &want);
}

Test(layer, attention_mlp_and_two_norms, .timeout = 10,
     .description = "A layer is its attention, its MLP and the weight vectors of its two RMSNorms, hidden each.")
{
    /* 240 + 288 + 2 x 8 = 544 */
    static const expected want = {544, "attention + MLP + 2 x hidden.",
                                  {{528, "the two RMSNorms' weights (hidden each) are missing"},
                                   {536, "one RMSNorm: there is one before attention and one before the MLP"}}};
    expect_count("layer_parameters(hand)", (double)layer_parameters(&hand), &want);
}

Test(embeddings, untied_and_tied, .timeout = 10,
     .description = "The token embedding is vocab x hidden; an untied classifier is a second such matrix, a tied "
                    "one is the embedding itself.")
{
    /* untied: 2 x 10 x 8 = 160; tied: 80 */
    static const expected untied = {
        160, "Untied: the embedding and the classifier, vocab x hidden each.",
        {{80, "that is one matrix: untied (tied_embeddings = 0), the classifier is a second one"}}};
    static const expected tied = {80, "Tied: one vocab x hidden matrix serves both.",
                                  {{160, "two matrices: tied (tied_embeddings = 1), the classifier is the embedding"}}};
    decoder_shape tied_shape = with(hand, 0, 1);
    expect_count("embedding_parameters(hand, untied)", (double)embedding_parameters(&hand), &untied);
    expect_count("embedding_parameters(hand, tied)", (double)embedding_parameters(&tied_shape), &tied);
}

Test(model, hand_counted, .timeout = 10,
     .description = "The model: embeddings, every layer, and the final RMSNorm before the classifier.")
{
    /* untied: 160 + 3 x 544 + 8 = 1800; tied: 80 + 1632 + 8 = 1720 */
    static const expected untied = {1800, "embeddings + layers x layer + hidden (the final RMSNorm).",
                                    {{1792, "the final RMSNorm's weights (hidden) are missing"},
                                     {1720, "the classifier is missing: untied, it is a matrix of its own"},
                                     {712, "one layer: multiply by layers"}}};
    expect_count("model_parameters(hand, untied)", (double)model_parameters(&hand), &untied);
    decoder_shape tied_shape = with(hand, 0, 1);
    static const expected tied = {1720, "embeddings (one matrix, tied) + layers x layer + hidden.",
                                  {{1800, "two embedding matrices: tied, the classifier is the embedding"}}};
    expect_count("model_parameters(hand, tied)", (double)model_parameters(&tied_shape), &tied);
}

/* ---------------------------------------------------------------------------------
 * Parameters of the models of data/models.csv: the published totals, exactly */

/* *published_count is static const (see expected), and the row's own count is read after model_parameters has
 * returned. */
static void expect_published(const char *name, const int64_t *published_count)
{
    lab_table *models = read_models();
    int row = model_row(models, name);
    decoder_shape s = shape_of_row(models, row);
    int64_t got = model_parameters(&s);
    int64_t listed = (int64_t)lab_table_number_or_exit(models, row, "parameters"), published = *published_count;
    lab_table_free(models);
    cr_assert(listed == published, "data/models.csv lists %lld parameters for %s, the test expects %lld: the table "
              "was changed", (long long)listed, name, (long long)published);
    const char *why = diagnose_total(&s, got, published);
    cr_assert(got == published, "model_parameters(%s) = %lld, want the published %lld (off by %lld)%s%s%s", name,
              (long long)got, (long long)published, (long long)(got - published), *why ? ": " : "", why,
              *why ? "" : ". Check each part against the chapter's table for this model.");
}

Test(model, llama2_7b_published, .timeout = 10,
     .description = "Llama-2-7B: 32 layers of 4096, 32 heads, MLP 11008, 32000 tokens, untied: 6 738 415 616 parameters.")
{
    static const int64_t published = 6738415616LL;
    expect_published("Llama-2-7B", &published);
}

Test(model, llama2_13b_published, .timeout = 10,
     .description = "Llama-2-13B: 40 layers of 5120, 40 heads, MLP 13824: 13 015 864 320 parameters.")
{
    static const int64_t published = 13015864320LL;
    expect_published("Llama-2-13B", &published);
}

Test(model, llama2_70b_published, .timeout = 10,
     .description = "Llama-2-70B: 80 layers of 8192, 64 query heads but 8 K/V heads (GQA), MLP 28672: 68 976 648 192 "
                    "parameters, far past what an int holds.")
{
    static const int64_t published = 68976648192LL;
    expect_published("Llama-2-70B", &published);
}

Test(model, llama3_8b_published, .timeout = 10,
     .description = "Llama-3-8B: Llama-2-7B's width with 8 K/V heads, MLP 14336 and 128 256 tokens: 8 030 261 248 "
                    "parameters, 1.05 billion of them in the embedding and the classifier.")
{
    static const int64_t published = 8030261248LL;
    expect_published("Llama-3-8B", &published);
}

Test(model, llama31_405b_published, .timeout = 10,
     .description = "Llama-3.1-405B: 126 layers of 16384, 128 query heads and 8 K/V heads, MLP 53248, 128 256 "
                    "tokens, untied: 405 853 388 800 parameters. Its two embedding matrices, 4 202 692 608, and "
                    "its MLP are each past 2^31 on their own.")
{
    static const expected embeddings = {
        4202692608.0, "Two matrices of 128256 x 16384, multiplied in int64_t.",
        {{-92274688.0, "the product was formed in int and wrapped to 4 202 692 608 - 2^32: "
                       "convert a factor to int64_t before multiplying"},
         {2101346304.0, "one matrix: untied, the classifier is a second one"}}};
    expect_count("embedding_parameters(Llama-3.1-405B)", (double)embedding_parameters(&llama31_405b), &embeddings);
    int64_t got = model_parameters(&llama31_405b), published = 405853388800LL;
    const char *why = diagnose_total(&llama31_405b, got, published);
    cr_assert(got == published, "model_parameters(Llama-3.1-405B) = %lld, want the published %lld (off by %lld)%s%s",
              (long long)got, (long long)published, (long long)(got - published), *why ? ": " : "", why);
    /* 126 x (570 425 344 + 2 617 245 696) + 128 256 x 16384 = 403 747 897 344 */
    static const expected multiplied = {
        403747897344.0, "126 layers' seven matrices and the classifier, in int64_t.", {{0}}};
    expect_count("multiplied_parameters(Llama-3.1-405B)", (double)multiplied_parameters(&llama31_405b), &multiplied);
}

Test(model, every_dense_row_and_lib_perfmodel, .timeout = 10,
     .description = "Every dense model of data/models.csv (Qwen2-7B with its Q/K/V biases among them) adds up to "
                    "its published count, and to lib/perfmodel's.")
{
    lab_table *models = read_models();
    int dense = 0;
    for (int row = 0; row < models->rows; row++) {
        if (lab_table_number_or_exit(models, row, "experts") > 1) continue;
        dense++;
        const char *name = lab_table_text_or_exit(models, row, "name");
        decoder_shape s = shape_of_row(models, row);
        int64_t got = model_parameters(&s), published = (int64_t)lab_table_number_or_exit(models, row, "parameters");
        const char *why = diagnose_total(&s, got, published);
        cr_assert(got == published, "model_parameters(%s) = %lld, want the published %lld (off by %lld)%s%s", name,
                  (long long)got, (long long)published, (long long)(got - published), *why ? ": " : "", why);
        char error[512];
        perfmodel_shape m;
        cr_assert(perfmodel_load_model_shape(name, &m, error, sizeof error) == 0, "%s", error);
        cr_assert(got == perfmodel_shape_parameters(&m), "model_parameters(%s) = %lld, lib/perfmodel counts %lld", name,
                  (long long)got, (long long)perfmodel_shape_parameters(&m));
    }
    lab_table_free(models);
    cr_assert(dense >= 7, "data/models.csv has %d dense models, the test expects at least 7", dense);
}

/* ---------------------------------------------------------------------------------
 * Parameters of the engine's own models: their tensors, counted */

/* The shape count_engine_tensors builds (lib/llama's named shape, as the driver converts it), without
 * counting anything: the engine's tensors are counted after the code under test has returned, so that
 * while it runs no count is in memory, not even in a frame that has returned. */
static decoder_shape engine_shape(const char *shape_name, int tied)
{
    char error[512];
    llama_config config;
    cr_assert(llama_named_shape(shape_name, &config, error, sizeof error) == 0, "lib/llama has no shape %s: %s",
              shape_name, error);
    if (tied >= 0) config.shared_classifier = tied;
    return (decoder_shape){config.n_layers, config.dim, config.n_heads, config.n_kv_heads, llama_head_dim_of(&config),
                           config.hidden_dim, config.vocab_size, 0, config.shared_classifier};
}

static void expect_engine(const char *shape_name, int tied)
{
    decoder_shape s = engine_shape(shape_name, tied);
    int64_t attention = attention_parameters(&s), mlp = mlp_parameters(&s);
    int64_t embeddings = embedding_parameters(&s), total = model_parameters(&s);
    engine_count c = count_engine_tensors(shape_name, tied, 16);
    cr_assert(c.error == NULL, "lib/llama could not build %s: %s", shape_name, c.error);
    cr_assert(memcmp(&c.shape, &s, sizeof s) == 0, "%s: the engine built another shape than the one your functions "
              "were handed: they changed it (they only read it), or the driver's engine.c was changed", shape_name);
    const char *kind = c.shape.tied_embeddings ? "tied" : "untied";
    cr_assert(attention == c.attention, "%s (%s): attention_parameters = %lld, the engine's layer holds %lld in Wq, "
              "Wk, Wv and Wo (%d query heads, %d K/V heads of %d)", shape_name, kind, (long long)attention,
              (long long)c.attention, c.shape.heads, c.shape.kv_heads, c.shape.head_dim);
    cr_assert(mlp == c.mlp, "%s (%s): mlp_parameters = %lld, the engine's layer holds %lld in W1, W2 and W3",
              shape_name, kind, (long long)mlp, (long long)c.mlp);
    cr_assert(embeddings == c.embeddings, "%s (%s): embedding_parameters = %lld, the engine holds %lld (%s)",
              shape_name, kind, (long long)embeddings, (long long)c.embeddings,
              c.shape.tied_embeddings ? "tied: its classifier is the embedding's own storage"
                                      : "untied: its classifier is a second matrix");
    cr_assert(total == c.total, "%s (%s): model_parameters = %lld, the engine's tensors hold %lld elements",
              shape_name, kind, (long long)total, (long long)c.total);
    cr_assert(c.total == c.library_count, "%s: the engine's tensors hold %lld, its formula says %lld", shape_name,
              (long long)c.total, (long long)c.library_count);
}

Test(engine, tiny_untied_grouped_query, .timeout = 20,
     .description = "lib/llama's 'tiny' shape (6 query heads, 2 K/V heads, untied), built from a seed: your counts "
                    "equal the elements of its tensors.")
{
    expect_engine("tiny", -1);
}

Test(engine, tiny_multi_head, .timeout = 20,
     .description = "lib/llama's 'tiny-mha' shape (6 heads, 6 K/V heads): your counts equal its tensors' elements.")
{
    expect_engine("tiny-mha", -1);
}

Test(engine, tied_and_untied_260k, .timeout = 20,
     .description = "llama2.c's 260K model (tied, 8 query heads, 4 K/V heads), and the same shape untied: one "
                    "vocab x hidden matrix apart.")
{
    expect_engine("260K", -1);
    expect_engine("260K", 0);
}

/* ---------------------------------------------------------------------------------
 * The multiplied parameters */

Test(multiplied, matrices_only, .timeout = 10,
     .description = "A token is multiplied by each layer's seven matrices and by the classifier; norm weights and "
                    "biases are no products, and an untied embedding is only looked up.")
{
    /* 3 x (240 + 288) + 10 x 8 = 1664, untied, tied or with biases */
    static const expected want = {
        1664, "layers x (Wq Wk Wv Wo W1 W2 W3) + the classifier (vocab x hidden).",
        {{1800, "that is every parameter: the norms and the looked-up embedding are not multiplied"},
         {1744, "the untied embedding counted: a lookup multiplies nothing"},
         {1584, "the classifier is missing: the logits are a vocab x hidden product"},
         {1720, "the norm weights counted: they scale, element by element, no multiply-add"},
         {1718, "the biases counted: a bias is an add, not a product"}}};
    decoder_shape tied_shape = with(hand, 0, 1), biased = with(hand, 1, 0);
    expect_count("multiplied_parameters(hand, untied)", (double)multiplied_parameters(&hand), &want);
    expect_count("multiplied_parameters(hand, tied)", (double)multiplied_parameters(&tied_shape), &want);
    expect_count("multiplied_parameters(hand with biases)", (double)multiplied_parameters(&biased), &want);
    /* Llama-2-7B: 6 738 415 616 - 131 072 000 (the embedding) - 65 x 4096 (the norms) = 6 607 077 376 */
    decoder_shape s = model("Llama-2-7B");
    static const expected llama = {
        6607077376.0, "every parameter but the embedding's 131 072 000 and the norms' 65 x 4096.",
        {{6738415616.0, "that is every parameter: the norms and the looked-up embedding are not multiplied"}}};
    expect_count("multiplied_parameters(Llama-2-7B)", (double)multiplied_parameters(&s), &llama);
}

/* ---------------------------------------------------------------------------------
 * FLOPs of one token */

Test(flops, hand_counted_components, .timeout = 10,
     .description = "Each product costs 2 FLOPs per weight per layer; attention costs 2 x head_dim per query head "
                    "per position, twice (scores and values); the classifier is once, after the layers.")
{
    token_flops f = forward_flops_per_token(&hand, 5);
    /* QKV: 3 layers x 2 x 8 x (12 + 3 + 3) = 864 */
    static const expected qkv = {864, "layers x 2 x hidden x (Q, K and V widths).",
                                 {{1728, "K and V as wide as Q: they have kv_heads heads"},
                                  {432, "a multiply-add is 2 FLOPs, not 1"},
                                  {288, "one layer: every layer has its projections"}}};
    /* attention: 3 layers x 2 products x 2 x 4 heads x 3 x 5 positions = 720 */
    static const expected attention = {
        720, "layers x 2 products x 2 x heads x head_dim x context.",
        {{180, "K/V heads counted: every query head scores and sums every position, GQA or not"},
         {360, "half: both products count (S = Q K^T and P V), in every layer"},
         {576, "context - 1 positions: the token attends to itself too, `context` in all"},
         {864, "context + 1 positions: `context` already includes the token itself"},
         {240, "one layer: every layer attends"}}};
    /* O: 3 x 2 x 12 x 8 = 576; MLP: 3 x 2 x 288 = 1728; classifier: 2 x 10 x 8 = 160 */
    static const expected o_proj = {576, "layers x 2 x (heads x head_dim) x hidden.",
                                    {{384, "Wo as hidden x hidden: its input is heads x head_dim wide"},
                                     {288, "a multiply-add is 2 FLOPs, not 1"}}};
    static const expected mlp = {1728, "layers x 2 x the MLP's three matrices.",
                                 {{1152, "two matrices: SwiGLU has three"}, {864, "a multiply-add is 2 FLOPs, not 1"}}};
    static const expected classifier = {160, "2 x vocab x hidden, once: the logits come after the last layer.",
                                        {{480, "once per layer: the classifier runs once, after the final norm"},
                                         {80, "a multiply-add is 2 FLOPs, not 1"}}};
    expect_count("forward_flops_per_token(hand, 5).qkv", f.qkv, &qkv);
    expect_count("forward_flops_per_token(hand, 5).attention", f.attention, &attention);
    expect_count("forward_flops_per_token(hand, 5).o_proj", f.o_proj, &o_proj);
    expect_count("forward_flops_per_token(hand, 5).mlp", f.mlp, &mlp);
    expect_count("forward_flops_per_token(hand, 5).classifier", f.classifier, &classifier);
}

Test(flops, llama2_7b_at_4096, .timeout = 10,
     .description = "One token of Llama-2-7B attending to 4096 positions: 15.36 GFLOP, 2.15 of them attention's.")
{
    decoder_shape s = model("Llama-2-7B");
    token_flops f = forward_flops_per_token(&s, 4096);
    static const expected qkv = {3221225472.0, "32 x 2 x 4096 x 12288.", {{0}}};
    static const expected attention = {2147483648.0, "32 layers x 2 x 2 x 32 heads x 128 x 4096.",
                                       {{1073741824.0, "half: both products count, the scores and the values"}}};
    static const expected o_proj = {1073741824.0, "32 x 2 x 4096 x 4096.", {{0}}};
    static const expected mlp = {8657043456.0, "32 x 2 x 3 x 4096 x 11008.", {{0}}};
    static const expected classifier = {262144000.0, "2 x 32000 x 4096.", {{0}}};
    static const expected total = {15361638400.0, "the five components together.", {{0}}};
    expect_count("forward_flops_per_token(Llama-2-7B, 4096).qkv", f.qkv, &qkv);
    expect_count("forward_flops_per_token(Llama-2-7B, 4096).attention", f.attention, &attention);
    expect_count("forward_flops_per_token(Llama-2-7B, 4096).o_proj", f.o_proj, &o_proj);
    expect_count("forward_flops_per_token(Llama-2-7B, 4096).mlp", f.mlp, &mlp);
    expect_count("forward_flops_per_token(Llama-2-7B, 4096).classifier", f.classifier, &classifier);
    expect_count("the total of forward_flops_per_token(Llama-2-7B, 4096)", token_flops_total(f), &total);
}

Test(flops, no_context_is_two_flops_per_multiplied_parameter, .timeout = 10,
     .description = "With no context attention costs nothing, and the rest is exactly 2 FLOPs per multiplied "
                    "parameter: the exact form of the 2-FLOPs-per-parameter rule. One position adds attention's "
                    "per-position cost.")
{
    lab_table *models = read_models();
    for (int row = 0; row < models->rows; row++) {
        if (lab_table_number_or_exit(models, row, "experts") > 1) continue;
        const char *name = lab_table_text_or_exit(models, row, "name");
        decoder_shape s = shape_of_row(models, row);
        token_flops none = forward_flops_per_token(&s, 0), one = forward_flops_per_token(&s, 1);
        cr_assert(none.attention == 0, "forward_flops_per_token(%s, 0).attention = %.17g, want 0: no positions, no "
                  "scores", name, none.attention);
        double per_position = 4.0 * s.layers * s.heads * s.head_dim;
        cr_assert(one.attention == per_position, "forward_flops_per_token(%s, 1).attention = %.17g, want %.17g: one "
                  "position is 2 products x 2 x head_dim for each query head of each layer", name, one.attention,
                  per_position);
        double rest = token_flops_total(none), want = 2.0 * (double)multiplied_parameters(&s);
        cr_assert(rest == want, "%s: the FLOPs at context 0 are %.17g, 2 x multiplied_parameters is %.17g: the two "
                  "should be one count, every weight multiplied once", name, rest, want);
    }
    lab_table_free(models);
}

Test(flops, grouped_query_does_not_shrink_attention, .timeout = 10,
     .description = "Grouped-query attention shrinks Wk and Wv (and the KV cache), not attention's arithmetic: every "
                    "query head still scores every position.")
{
    decoder_shape gqa = model("Llama-2-70B"), mha = gqa;
    mha.kv_heads = mha.heads;
    token_flops grouped = forward_flops_per_token(&gqa, 4096), full = forward_flops_per_token(&mha, 4096);
    cr_assert(grouped.attention == full.attention, "attention FLOPs of Llama-2-70B at 4096: %.17g with 8 K/V heads, "
              "%.17g with 64: they must be equal, each of the 64 query heads does the same dot products",
              grouped.attention, full.attention);
    /* QKV: 80 x 2 x 8192 x (8192 + 2 x 1024) = 13 421 772 800; with 64 K/V heads 32 212 254 720 */
    static const expected qkv = {13421772800.0, "80 x 2 x 8192 x (8192 + 1024 + 1024).",
                                 {{32212254720.0, "K and V as wide as Q: Llama-2-70B has 8 K/V heads"}}};
    expect_count("forward_flops_per_token(Llama-2-70B, 4096).qkv", grouped.qkv, &qkv);
    cr_assert(full.qkv == 32212254720.0, "with 64 K/V heads the QKV FLOPs are %.17g, want 32212254720", full.qkv);
}

Test(flops, contexts_past_what_an_int_holds, .timeout = 10,
     .description = "The context is an int64_t: 2^31 + 1 positions must not wrap around (count in double).")
{
    decoder_shape s = model("Llama-2-70B");
    int64_t context = (1LL << 31) + 1;
    /* 80 x 4 x 64 x 128 = 2 621 440 FLOPs per position; x 2 147 483 649 = 5 629 499 536 834 560 */
    static const expected attention = {
        5629499536834560.0, "2 621 440 FLOPs per position, times 2^31 + 1 positions.",
        {{-5629499531591680.0, "the context went through an int: 2^31 + 1 wrapped to -2^31 + 1"}}};
    expect_count("forward_flops_per_token(Llama-2-70B, 2^31 + 1).attention", forward_flops_per_token(&s, context).attention,
                 &attention);
}

Test(flops, widths_past_what_a_float_holds, .timeout = 10,
     .description = "A float holds integers exactly only up to 2^24 = 16 777 216: every width and count goes "
                    "through double (or int64_t), never float, so the FLOPs stay exact integers.")
{
    /* one layer, every dimension just past 2^24 and odd, so a float rounds each of them */
    const decoder_shape wide = {1, 16777217, 1, 1, 16777219, 3, 16777221, 0, 0};
    const int64_t h = 16777217, q = 16777219, context = 16777223, vocab = 16777221;
    token_flops f = forward_flops_per_token(&wide, context);
    const struct { const char *part; double got; int64_t want; } parts[] = {
        {"qkv", f.qkv, 2 * h * (3 * q)},
        {"attention", f.attention, 2 * 2 * q * context},
        {"o_proj", f.o_proj, 2 * q * h},
        {"mlp", f.mlp, 2 * 3 * h * 3},
        {"classifier", f.classifier, 2 * vocab * h},
    };
    for (int i = 0; i < 5; i++)
        cr_assert(parts[i].got == (double)parts[i].want, "forward_flops_per_token(widths of 2^24 + 1 and more, context "
                  "2^24 + 7).%s = %.17g, want %lld exactly: was a width or a count converted to float on the way?",
                  parts[i].part, parts[i].got, (long long)parts[i].want);
}

/* lib/perfmodel's FLOPs for a model, with one prompt and `gen` generated tokens */
static perfmodel_prediction library_estimate(const char *name, int prompt, int gen)
{
    char error[512];
    perfmodel_shape m;
    perfmodel_hardware h;
    cr_assert(perfmodel_load_model_shape(name, &m, error, sizeof error) == 0, "%s", error);
    cr_assert(perfmodel_load_gpu("h100-sxm", &h, error, sizeof error) == 0, "%s", error);
    perfmodel_workload w = {DTYPE_FP16, DTYPE_FP16, 1, prompt, gen};
    perfmodel_prediction e;
    perfmodel_estimate(&m, &h, &w, &e);
    return e;
}

Test(flops, decode_and_prefill_agree_with_lib_perfmodel, .timeout = 10,
     .description = "One decode step (a token after a 1000-token prompt attends to 1001 positions) and a 64-token "
                    "causal prefill (token p attends to p + 1; logits for the last token only), summed from your "
                    "counts, equal lib/perfmodel's FLOPs.")
{
    /* Qwen2-7B's biases are added, not multiplied: neither count has FLOPs for them */
    const char *names[] = {"Llama-2-7B", "Llama-2-70B", "Llama-3-8B", "Qwen2-7B"};
    for (int i = 0; i < 4; i++) {
        decoder_shape s = model(names[i]);
        double yours = token_flops_total(forward_flops_per_token(&s, 1001));
        perfmodel_prediction decode = library_estimate(names[i], 1000, 1);   /* after yours: see expected */
        cr_assert(yours == decode.decode_step_flops, "%s: a token attending to 1001 positions costs %.17g FLOPs by your "
                  "count, %.17g by lib/perfmodel's", names[i], yours, decode.decode_step_flops);
        enum { PROMPT = 64 };
        double prefill = 0;
        for (int p = 0; p < PROMPT; p++) {
            token_flops f = forward_flops_per_token(&s, p + 1);
            prefill += token_flops_total(f) - (p + 1 < PROMPT ? f.classifier : 0);
        }
        perfmodel_prediction library = library_estimate(names[i], PROMPT, 1);
        cr_assert(prefill == library.prefill_flops, "%s: a %d-token prefill costs %.17g FLOPs by your counts, %.17g by "
                  "lib/perfmodel's", names[i], PROMPT, prefill, library.prefill_flops);
    }
}

/* ---------------------------------------------------------------------------------
 * The derivation: the context at which attention's FLOPs equal all the others' */

/* got against want, to 1e-12 relative; `known` names the likely mistakes (value, meaning), ended by NULL. */
static void expect_fraction(const char *call, double got, double want, const char *idea, const diagnosis *known)
{
    const char *why = got == 0 ? "still 0: is it written yet?" : "";
    for (int i = 0; known[i].means && !*why; i++)
        if (fabs(got - known[i].value) <= 1e-9 * fabs(known[i].value)) why = known[i].means;
    cr_assert(fabs(got - want) <= 1e-12 * fabs(want), "%s = %.17g, want %.17g%s%s%s. %s", call, got, want,
              *why ? " (" : "", why, *why ? ")" : "", idea);
}

Test(derivation, hand_shape, .timeout = 10,
     .description = "attention_equals_the_rest_at: the context at which a token's attention FLOPs equal all its "
                    "other products' FLOPs, derived from the shape. On the hand shape: 2 x 1664 = 3328 FLOPs for "
                    "the weights, 144 a position for attention.")
{
    /* the weights: 2 x 1664 = 3328; attention: 3 layers x 2 products x 2 x 4 heads x 3 = 144 a position */
    static const diagnosis known[] = {   /* each a multiple of the answer: see expected */
        {3328.0 / 36, "attention counted per K/V head: every query head scores and sums every position"},
        {3600.0 / 144, "2 x every parameter for the rest: the norms and the looked-up embedding are no products"},
        {3328.0 / 72, "attention's scores only: the values P V are a second product of the same size"},
        {3328.0 / 48, "attention in one layer: every layer attends"},
        {0, NULL}};
    expect_fraction("attention_equals_the_rest_at(hand)", attention_equals_the_rest_at(&hand), 3328.0 / 144,
                    "The weights' FLOPs (no context in them) over attention's FLOPs per position.", known);
}

Test(derivation, every_dense_model_against_your_counts, .timeout = 10,
     .description = "For every dense model of data/models.csv and Llama-3.1-405B, the context you derived is where "
                    "your own forward_flops_per_token puts it: its FLOPs at context 0 over attention's at context 1. "
                    "Llama-2-7B: 25 204 positions.")
{
    lab_table *models = read_models();
    for (int row = 0; row <= models->rows; row++) {
        if (row < models->rows && lab_table_number_or_exit(models, row, "experts") > 1) continue;
        const char *name = row < models->rows ? lab_table_text_or_exit(models, row, "name") : "Llama-3.1-405B";
        decoder_shape s = row < models->rows ? shape_of_row(models, row) : llama31_405b;
        double per_position = forward_flops_per_token(&s, 1).attention;
        double rest = token_flops_total(forward_flops_per_token(&s, 0));
        cr_assert(per_position > 0, "forward_flops_per_token(%s, 1).attention = %g: the derivation is held to your "
                  "counts, so they come first (the flops checks say what is wrong with them)", name, per_position);
        char call[96];
        snprintf(call, sizeof call, "attention_equals_the_rest_at(%s)", name);
        double kv_per_position = per_position * s.kv_heads / s.heads;
        const diagnosis known[] = {
            {rest / kv_per_position, "attention counted per K/V head: grouped-query attention shrinks K and V, "
                                     "not the dot products every query head takes"},
            {2.0 * (double)model_parameters(&s) / per_position,
             "2 x every parameter for the rest: the looked-up embedding and the norms are no products"},
            {rest / (per_position / 2), "attention's scores only: the values P V are a second product"},
            {0, NULL}};
        expect_fraction(call, attention_equals_the_rest_at(&s), rest / per_position,
                        "Your own counts put it at forward_flops_per_token(s, 0)'s total over "
                        "forward_flops_per_token(s, 1).attention.", known);
    }
    lab_table_free(models);
    decoder_shape llama = model("Llama-2-7B");
    const diagnosis none[] = {{0, NULL}};
    expect_fraction("attention_equals_the_rest_at(Llama-2-7B)", attention_equals_the_rest_at(&llama), 25204.0,
                    "2 x 6 607 077 376 FLOPs for the weights over 4 x 32 x 32 x 128 = 524 288 a position.", none);
}

Test(derivation, widths_past_what_a_float_holds, .timeout = 10,
     .description = "The derivation stays in double (or int64_t) on the way: a float holds integers exactly only up "
                    "to 2^24, and a width or a count past it, rounded, moves the crossover.")
{
    /* one layer, every dimension just past 2^24 and odd, so that a float rounds the counts on the way */
    const decoder_shape wide = {1, 16777217, 1, 1, 16777219, 3, 16777221, 0, 0};
    double got = attention_equals_the_rest_at(&wide);
    const int64_t h = 16777217, q = 16777219, vocab = 16777221;
    const int64_t multiplied = h * q + 2 * h * q + q * h + 3 * h * 3 + vocab * h;   /* 1 407 375 403 647 002 */
    double want = 2.0 * (double)multiplied / (4.0 * (double)q);
    const diagnosis none[] = {{0, NULL}};
    expect_fraction("attention_equals_the_rest_at(widths of 2^24 + 1 and more)", got, want, "2 x the multiplied "
                    "parameters over 4 x layers x heads x head_dim, every factor in double or int64_t: was a width "
                    "or a count converted to float on the way?", none);
}
