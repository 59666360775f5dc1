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

const char *perfmodel_dtype_name(DataType type) { return type < DTYPE_COUNT ? dtypes[type].name : "unknown"; }
double perfmodel_dtype_bytes(DataType type) { return type < DTYPE_COUNT ? dtypes[type].bytes : NAN; }

int perfmodel_parse_dtype(const char *name, DataType *type)
{
    for (int t = 0; t < DTYPE_COUNT; t++)
        if (strcasecmp(name, dtypes[t].name) == 0) {
            *type = (DataType)t;
            return 0;
        }
    return -1;
}

/* ----------------------------------------------------------------------------------
 * Shapes */

static int whole_number(const table *t, int row, const char *column)
{
    double value = lab_table_number(t, row, column);
    return isnan(value) ? 0 : (int)value;
}

int perfmodel_load_model_shape(const char *name, ModelShape *shape, char *error, size_t error_size)
{
    table *t = lab_table_read(lab_data_path("models.csv"), error, error_size);
    if (!t) return -1;
    int row = -1;
    for (int r = 0; r < t->rows && row < 0; r++)
        if (strcasecmp(lab_table_text(t, r, "name"), name) == 0) row = r;
    if (row < 0) {
        int used = snprintf(error, error_size, "unknown model '%s'; data/models.csv has:", name);
        for (int r = 0; r < t->rows && used > 0 && (size_t)used < error_size; r++)
            used += snprintf(error + used, error_size - (size_t)used, " %s", lab_table_text(t, r, "name"));
        lab_table_free(t);
        return -1;
    }
    memset(shape, 0, sizeof *shape);
    snprintf(shape->name, sizeof shape->name, "%s", lab_table_text(t, row, "name"));
    shape->layers = whole_number(t, row, "layers");
    shape->hidden = whole_number(t, row, "hidden_size");
    shape->heads = whole_number(t, row, "attention_heads");
    shape->kv_heads = whole_number(t, row, "kv_heads");
    shape->head_dim = whole_number(t, row, "head_dim");
    shape->intermediate = whole_number(t, row, "intermediate_size");
    shape->vocab = whole_number(t, row, "vocab_size");
    shape->experts = whole_number(t, row, "experts");
    shape->experts_per_token = whole_number(t, row, "experts_per_token");
    shape->qkv_bias = whole_number(t, row, "qkv_bias");
    shape->tied_embeddings = whole_number(t, row, "tied_embeddings");
    shape->listed_parameters = (int64_t)lab_table_number(t, row, "parameters");
    shape->max_context = 0;   /* the table has no context-length column */
    lab_table_free(t);
    if (shape->experts < 1) shape->experts = 1;
    if (shape->experts_per_token < 1) shape->experts_per_token = 1;
    return 0;
}

void perfmodel_shape_from_config(const LlamaConfig *c, const char *name, ModelShape *shape)
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

static int64_t attention_matrix_parameters(const ModelShape *m)
{
    int64_t hidden = m->hidden, q = (int64_t)m->heads * m->head_dim, kv = (int64_t)m->kv_heads * m->head_dim;
    return hidden * q + 2 * hidden * kv + q * hidden;
}

static int64_t expert_parameters(const ModelShape *m) { return 3 * (int64_t)m->hidden * m->intermediate; }

static int64_t router_parameters(const ModelShape *m) { return m->experts > 1 ? (int64_t)m->experts * m->hidden : 0; }

int64_t perfmodel_vector_parameters(const ModelShape *m)
{
    int64_t norms = (2 * (int64_t)m->layers + 1) * m->hidden;
    int64_t biases = m->qkv_bias ? (int64_t)m->layers * ((int64_t)m->heads + 2 * (int64_t)m->kv_heads) * m->head_dim : 0;
    return norms + biases;
}

int64_t perfmodel_shape_parameters(const ModelShape *m)
{
    int64_t per_layer = attention_matrix_parameters(m) + m->experts * expert_parameters(m) + router_parameters(m);
    int64_t embeddings = (int64_t)m->vocab * m->hidden * (m->tied_embeddings ? 1 : 2);
    return embeddings + m->layers * per_layer + perfmodel_vector_parameters(m);
}

int64_t perfmodel_active_layer_matrix_parameters(const ModelShape *m)
{
    return attention_matrix_parameters(m) + m->experts_per_token * expert_parameters(m) + router_parameters(m);
}
