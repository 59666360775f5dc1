/* config.c — a model's shape: the named shapes, the checks that refuse impossible
 * dimensions, and every size derived from a shape (parameters, weight bytes in each
 * format, the KV cache by the book's formula, a session's activation buffers). */
#include "llama.h"

#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------------------------------
 * Named shapes: llama2.c's TinyStories models (its README's table, and the 260K model of
 * doc/stories260K.md, which uses grouped-query attention), and two small shapes for tests. */

typedef struct {
    const char *name;
    llama_config config;
} NamedShape;

static const NamedShape named_shapes[] = {
    /*            dim  hidden layers heads kv  vocab  seq  tied */
    {"260K",     {64,   172,   5,   8,    4,  512,   512, 1}},
    {"15M",      {288,  768,   6,   6,    6,  32000, 256, 1}},
    {"42M",      {512,  1376,  8,   8,    8,  32000, 1024, 1}},
    {"110M",     {768,  2048,  12,  12,   12, 32000, 1024, 1}},
    {"tiny",     {48,   112,   2,   6,    2,  96,    40,  0}},
    {"tiny-mha", {48,   112,   2,   6,    6,  96,    40,  0}},
};
enum { NAMED_SHAPES = sizeof named_shapes / sizeof named_shapes[0] };

const char *llama_named_shape_list(void)
{
    static char list[256];
    size_t used = 0;
    for (int i = 0; i < NAMED_SHAPES && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", named_shapes[i].name);
    return list;
}

int llama_named_shape(const char *name, llama_config *config, char *error, size_t error_size)
{
    for (int i = 0; i < NAMED_SHAPES; i++)
        if (strcmp(name, named_shapes[i].name) == 0) {
            *config = named_shapes[i].config;
            return 0;
        }
    snprintf(error, error_size, "unknown shape '%s'; the named shapes are: %s", name, llama_named_shape_list());
    return -1;
}

/* ----------------------------------------------------------------------------------
 * Impossible dimensions. The limits are generous (a 405B model passes) but keep every
 * index of the engine inside 64-bit arithmetic and every count inside an int. */

enum { MAX_WIDTH = 1 << 24, MAX_COUNT = 1 << 16, MAX_SEQ_LEN = 1 << 22 };

int llama_validate_config(const llama_config *c, char *error, size_t error_size)
{
    const struct { const char *name; int value, limit; } fields[] = {
        {"dim", c->dim, MAX_WIDTH},           {"hidden_dim", c->hidden_dim, MAX_WIDTH},
        {"n_layers", c->n_layers, MAX_COUNT}, {"n_heads", c->n_heads, MAX_COUNT},
        {"n_kv_heads", c->n_kv_heads, MAX_COUNT}, {"vocab_size", c->vocab_size, MAX_WIDTH},
        {"seq_len", c->seq_len, MAX_SEQ_LEN},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].value < 1 || fields[i].value > fields[i].limit) {
            snprintf(error, error_size, "impossible dimensions: %s = %d (it must be between 1 and %d)",
                     fields[i].name, fields[i].value, fields[i].limit);
            return -1;
        }
    if (c->dim % c->n_heads != 0) {
        snprintf(error, error_size, "impossible dimensions: dim %d is not a multiple of n_heads %d "
                 "(each head takes dim / n_heads of the residual stream)", c->dim, c->n_heads);
        return -1;
    }
    if ((c->dim / c->n_heads) % 2 != 0) {
        snprintf(error, error_size, "impossible dimensions: head_dim %d (dim %d / n_heads %d) is odd; "
                 "RoPE rotates pairs of values", c->dim / c->n_heads, c->dim, c->n_heads);
        return -1;
    }
    if (c->n_heads % c->n_kv_heads != 0) {
        snprintf(error, error_size, "impossible dimensions: n_kv_heads %d does not divide n_heads %d "
                 "(grouped-query attention shares each KV head among n_heads / n_kv_heads query heads)",
                 c->n_kv_heads, c->n_heads);
        return -1;
    }
    if (c->shared_classifier != 0 && c->shared_classifier != 1) {
        snprintf(error, error_size, "impossible flag: shared_classifier = %d (0 or 1)", c->shared_classifier);
        return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Sizes derived from the shape */

int llama_head_dim_of(const llama_config *c) { return c->dim / c->n_heads; }
int llama_kv_dim_of(const llama_config *c) { return c->n_kv_heads * llama_head_dim_of(c); }

int64_t llama_matrix_parameter_count(const llama_config *c)
{
    int64_t dim = c->dim, hidden = c->hidden_dim, kv_dim = llama_kv_dim_of(c);
    int64_t per_layer = dim * dim            /* wq */
                      + 2 * kv_dim * dim     /* wk, wv */
                      + dim * dim            /* wo */
                      + 3 * hidden * dim;    /* w1, w2, w3 */
    int64_t embeddings = (int64_t)c->vocab_size * dim * (c->shared_classifier ? 1 : 2);
    return embeddings + c->n_layers * per_layer;
}

int64_t llama_parameter_count(const llama_config *c)
{
    int64_t norms = (2 * (int64_t)c->n_layers + 1) * c->dim;  /* attention and MLP norm per layer, final norm */
    return llama_matrix_parameter_count(c) + norms;
}

static int greatest_common_divisor(int a, int b) { return b ? greatest_common_divisor(b, a % b) : a; }

int llama_check_group_size(const llama_config *c, int group_size, char *error, size_t error_size)
{
    if (group_size < 1) {
        snprintf(error, error_size, "group size %d: a group holds at least 1 value", group_size);
        return -1;
    }
    int dim_fits = c->dim % group_size == 0, hidden_fits = c->hidden_dim % group_size == 0;
    if (dim_fits && hidden_fits) return 0;
    snprintf(error, error_size, "group size %d does not divide %s %d: the values of a group share one scale and lie "
             "within one row (rows have dim %d values, w2's rows hidden_dim %d); use a divisor of %d, the greatest "
             "common divisor of dim and hidden_dim", group_size, dim_fits ? "hidden_dim" : "dim",
             dim_fits ? c->hidden_dim : c->dim, c->dim, c->hidden_dim, greatest_common_divisor(c->dim, c->hidden_dim));
    return -1;
}

int llama_check_int4_group_size(const llama_config *c, int group_size, char *error, size_t error_size)
{
    if (group_size >= 1 && group_size % 2 != 0) {
        snprintf(error, error_size, "group size %d is odd: INT4 packs two values a byte, and a byte may not hold values "
                 "of two groups; use an even group size that divides dim %d and hidden_dim %d (32 or 64 are usual)",
                 group_size, c->dim, c->hidden_dim);
        return -1;
    }
    return llama_check_group_size(c, group_size, error, error_size);
}

int llama_int8_group_size(const llama_config *c, int wanted)
{
    int group = wanted < 1 ? 1 : wanted;
    while (group > 1 && (c->dim % group != 0 || c->hidden_dim % group != 0)) group /= 2;
    return group;
}

int64_t llama_weights_bytes_of(const llama_config *c, llama_weight_format format, int group_size)
{
    int64_t matrices = llama_matrix_parameter_count(c), norms = llama_parameter_count(c) - matrices;
    if (format == WEIGHTS_FP32) return 4 * (matrices + norms);
    if (format == WEIGHTS_INT4) return matrices / 2 + 5 * (matrices / group_size) + 4 * norms;
    return matrices + 4 * (matrices / group_size) + 4 * norms;
}

int64_t llama_kv_cache_bytes(int layers, int kv_heads, int head_dim, int bytes_per_element, int64_t tokens, int64_t batch)
{
    return 2 * (int64_t)layers * kv_heads * head_dim * bytes_per_element * tokens * batch;
}

int64_t llama_kv_bytes_per_token(const llama_config *c, int bytes_per_element)
{
    return llama_kv_cache_bytes(c->n_layers, c->n_kv_heads, llama_head_dim_of(c), bytes_per_element, 1, 1);
}

int llama_step_rows_of(int batch, int capacity)
{
    int64_t rows = (int64_t)batch * capacity;
    return rows < LLAMA_MAX_STEP_ROWS ? (int)rows : LLAMA_MAX_STEP_ROWS;
}

int64_t llama_activation_bytes_of(const llama_config *c, int batch, int capacity, int threads)
{
    /* must add up what llama_build_session allocates: per row of a step x, xb, xb2, q (dim
     * each), k, v (kv_dim), hb, hb2 (hidden_dim) and three ints; per thread a row of
     * attention scores; a row of logits per sequence */
    int64_t rows = llama_step_rows_of(batch, capacity);
    int64_t per_row = 4 * (int64_t)c->dim + 2 * (int64_t)llama_kv_dim_of(c) + 2 * (int64_t)c->hidden_dim;
    int64_t floats = rows * per_row + (int64_t)threads * capacity + (int64_t)batch * c->vocab_size;
    return 4 * floats + 3 * 4 * rows;
}
