/* model.c — Day 27 driver: a model's decode step in the pieces of lab.h's decode_model,
 * counted exactly as lib/perfmodel/estimate.c counts a decode step (so that your
 * predictions and perfmodel_estimate's can be compared to the last bit), and a machine's
 * roofline as perfmodel_estimate picks it. Do not edit. */
#include "lab.h"

#include <math.h>

/* the norm vectors (and Q, K, V biases where the model has them): read once a step */
static double vector_values(const perfmodel_shape *m)
{
    double norms = (2.0 * m->layers + 1.0) * m->hidden;
    double biases = m->qkv_bias ? (double)m->layers * (m->heads + 2.0 * m->kv_heads) * m->head_dim : 0.0;
    return norms + biases;
}

decode_model decode_model_of(const perfmodel_shape *m, perfmodel_dtype weights, perfmodel_dtype kv)
{
    double bytes = perfmodel_dtype_bytes(weights);
    double layer_matrices = (double)m->layers * (double)perfmodel_active_layer_matrix_parameters(m);
    double classifier = (double)m->vocab * m->hidden;   /* the embedding table itself when tied */
    decode_model d;
    d.weight_bytes = (layer_matrices + classifier) * bytes + vector_values(m) * bytes;
    d.token_bytes = m->tied_embeddings ? 0.0 : m->hidden * bytes;   /* untied: one embedding row a token */
    d.flops_per_token = 2.0 * (layer_matrices + classifier);
    d.attention_flops_per_position = 4.0 * m->layers * m->heads * m->head_dim;
    d.kv_bytes_per_position = (double)llama_kv_cache_bytes(m->layers, m->kv_heads, m->head_dim, 1, 1, 1) *
                              perfmodel_dtype_bytes(kv);
    return d;
}

machine machine_of(const perfmodel_shape *shape, const perfmodel_hardware *h, perfmodel_dtype weights)
{
    perfmodel_workload w = {.weights = weights, .kv = weights, .batch = 1, .prompt = 1, .gen = 1};
    perfmodel_prediction e;
    perfmodel_estimate(shape, h, &w, &e);
    return (machine){e.peak_flops, e.bandwidth};
}
