/* model_shape.c — the model side of the performance model: data types, a model's shape
 * from data/models.csv or from the engine's config, and its parameters counted tensor by
 * tensor (the count the tests hold against the table's published totals). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "perfmodel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "table.h"

/* ----------------------------------------------------------------------------------
 * Data types */

static const struct { const char *name; double bytes; } dtypes[DTYPE_COUNT] = {
    [DTYPE_FP32] = {"fp32", 4}, [DTYPE_FP16] = {"fp16", 2}, [DTYPE_BF16] = {"bf16", 2},
    [DTYPE_FP8] = {"fp8", 1},   [DTYPE_INT8] = {"int8", 1}, [DTYPE_INT4] = {"int4", 0.5},
};

const char *perfmodel_dtype_name(perfmodel_dtype type) { return type < DTYPE_COUNT ? dtypes[type].name : "unknown"; }
double perfmodel_dtype_bytes(perfmodel_dtype type) { return type < DTYPE_COUNT ? dtypes[type].bytes : NAN; }

int perfmodel_parse_dtype(const char *name, perfmodel_dtype *type)
{
    for (int t = 0; t < DTYPE_COUNT; t++)
        if (strcasecmp(name, dtypes[t].name) == 0) {
            *type = (perfmodel_dtype)t;
            return 0;
        }
    return -1;
}

/* ----------------------------------------------------------------------------------
 * Shapes */

/* The columns of data/models.csv a shape is made of, in the order read; what each may hold is lib/lab's
 * (lab_data_domain): a bad cell is refused with its row and column, never turned into a division by
 * zero, a negative count or a fraction of a head. */
static const char *const model_columns[] = {
    "layers", "hidden_size", "attention_heads", "kv_heads", "head_dim", "intermediate_size",
    "vocab_size", "experts", "experts_per_token", "qkv_bias", "tied_embeddings", "parameters",
};

int perfmodel_load_model_shape(const char *name, perfmodel_shape *shape, char *error, size_t error_size)
{
    lab_table *t = lab_table_read(lab_data_path("models.csv"), error, error_size);
    if (!t) return -1;
    int row = -1, name_column = lab_table_column(t, "name");
    for (int r = 0; name_column >= 0 && r < t->rows && row < 0; r++)
        if (strcasecmp(t->cells[(size_t)r * (size_t)t->columns + (size_t)name_column], name) == 0) row = r;
    if (row < 0) {
        int used = snprintf(error, error_size, "unknown model '%s'; data/models.csv has:", name);
        for (int r = 0; name_column >= 0 && r < t->rows && used > 0 && (size_t)used < error_size; r++)
            used += snprintf(error + used, error_size - (size_t)used, " %s",
                             t->cells[(size_t)r * (size_t)t->columns + (size_t)name_column]);
        lab_table_free(t);
        return -1;
    }
    enum { FIELDS = sizeof model_columns / sizeof *model_columns };
    double v[FIELDS];
    for (int f = 0; f < FIELDS; f++)
        if (lab_table_checked_number(t, row, model_columns[f], lab_data_domain(t->path, model_columns[f]), &v[f], error,
                                     error_size) != 0) {
            lab_table_free(t);
            return -1;
        }
    memset(shape, 0, sizeof *shape);
    snprintf(shape->name, sizeof shape->name, "%s", t->cells[(size_t)row * (size_t)t->columns + (size_t)name_column]);
    shape->layers = (int)v[0], shape->hidden = (int)v[1], shape->heads = (int)v[2], shape->kv_heads = (int)v[3];
    shape->head_dim = (int)v[4], shape->intermediate = (int)v[5], shape->vocab = (int)v[6];
    shape->experts = isnan(v[7]) ? 1 : (int)v[7], shape->experts_per_token = isnan(v[8]) ? 1 : (int)v[8];
    shape->qkv_bias = isnan(v[9]) ? 0 : (int)v[9], shape->tied_embeddings = isnan(v[10]) ? 0 : (int)v[10];
    shape->listed_parameters = isnan(v[11]) ? -1 : (int64_t)v[11];
    shape->max_context = 0;   /* the table has no context-length column */
    /* and what the columns must be to one another */
    const char *why = shape->kv_heads > shape->heads || shape->heads % shape->kv_heads
                          ? "kv_heads must divide attention_heads (each key/value head serves a whole group of query heads)"
                      : shape->experts_per_token > shape->experts ? "experts_per_token must be at most experts" : NULL;
    if (why) snprintf(error, error_size, "%s, data row %d (%s): %s", t->path, row + 1, shape->name, why);
    lab_table_free(t);
    return why ? -1 : 0;
}

void perfmodel_shape_from_config(const llama_config *c, const char *name, perfmodel_shape *shape)
{
    memset(shape, 0, sizeof *shape);
    snprintf(shape->name, sizeof shape->name, "%s", name);
    shape->layers = c->n_layers;
    shape->hidden = c->dim;
    shape->heads = c->n_heads;
    shape->kv_heads = c->n_kv_heads;
    shape->head_dim = llama_head_dim_of(c);
    shape->intermediate = c->hidden_dim;
    shape->vocab = c->vocab_size;
    shape->experts = shape->experts_per_token = 1;
    shape->tied_embeddings = c->shared_classifier;
    shape->max_context = c->seq_len;
    shape->listed_parameters = -1;
}

/* ----------------------------------------------------------------------------------
 * Parameters */

static int64_t attention_matrix_parameters(const perfmodel_shape *m)
{
    int64_t hidden = m->hidden, q = (int64_t)m->heads * m->head_dim, kv = (int64_t)m->kv_heads * m->head_dim;
    return hidden * q + 2 * hidden * kv + q * hidden;
}

static int64_t expert_parameters(const perfmodel_shape *m) { return 3 * (int64_t)m->hidden * m->intermediate; }

static int64_t router_parameters(const perfmodel_shape *m) { return m->experts > 1 ? (int64_t)m->experts * m->hidden : 0; }

int64_t perfmodel_vector_parameters(const perfmodel_shape *m)
{
    int64_t norms = (2 * (int64_t)m->layers + 1) * m->hidden;
    int64_t biases = m->qkv_bias ? (int64_t)m->layers * ((int64_t)m->heads + 2 * (int64_t)m->kv_heads) * m->head_dim : 0;
    return norms + biases;
}

int64_t perfmodel_shape_parameters(const perfmodel_shape *m)
{
    int64_t per_layer = attention_matrix_parameters(m) + m->experts * expert_parameters(m) + router_parameters(m);
    int64_t embeddings = (int64_t)m->vocab * m->hidden * (m->tied_embeddings ? 1 : 2);
    return embeddings + m->layers * per_layer + perfmodel_vector_parameters(m);
}

int64_t perfmodel_active_layer_matrix_parameters(const perfmodel_shape *m)
{
    return attention_matrix_parameters(m) + m->experts_per_token * expert_parameters(m) + router_parameters(m);
}
