/* anatomy.c — Day 16: a Llama-style decoder taken apart, tensor by tensor: how many
 * parameters each part holds, and how many FLOPs each part costs one token.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. The parameters: attention_parameters, mlp_parameters, layer_parameters,
 *      embedding_parameters, model_parameters, and multiplied_parameters (the part a token
 *      is multiplied by).
 *   2. forward_flops_per_token: one token's FLOPs, by component, over `context` positions.
 *
 * Rules: plain C, no libraries; count parameters in int64_t (Llama-2-70B's 69 billion do not
 * fit an int, and neither do some products of two of its sizes) and FLOPs in double. The
 * tests compare your counts exactly with the published totals of data/models.csv
 * (Llama-2-7B: 6 738 415 616), with the tensors of seeded engine models (lib/llama), counted
 * element by element, and with counts made by hand.
 *
 * Check:  make check DAY=16        Stuck?  make hint DAY=16
 */
#include "lab.h"

/* ---------------------------------------------------------------------------------
 * Parameters */

int64_t attention_parameters(const decoder_shape *s)
{
    // TODO: Wq maps hidden to heads x head_dim; Wk and Wv map hidden to kv_heads x head_dim
    //       (grouped-query attention makes them smaller); Wo maps heads x head_dim back to
    //       hidden. With qkv_bias, Q, K and V each add one bias per output.
    (void)s;
    return 0;
}

int64_t mlp_parameters(const decoder_shape *s)
{
    // TODO: SwiGLU has three matrices, not two: gate and up (hidden -> intermediate), down.
    (void)s;
    return 0;
}

int64_t layer_parameters(const decoder_shape *s)
{
    // TODO: attention, MLP, and the weight vectors of the layer's two RMSNorms.
    (void)s;
    return 0;
}

int64_t embedding_parameters(const decoder_shape *s)
{
    // TODO: the token embedding is vocab x hidden; an untied classifier is a second one.
    (void)s;
    return 0;
}

int64_t model_parameters(const decoder_shape *s)
{
    // TODO: embeddings + layers x one layer + the final RMSNorm. Multiply in int64_t.
    (void)s;
    return 0;
}

int64_t multiplied_parameters(const decoder_shape *s)
{
    // TODO: the seven matrices of every layer and the classifier; no norm weights, no biases,
    //       and no untied embedding (a lookup multiplies nothing).
    (void)s;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * FLOPs: 2 per weight of each product, and attention's two products over the context */

token_flops forward_flops_per_token(const decoder_shape *s, int64_t context)
{
    // TODO: each component summed over the layers (the classifier is once, after them):
    //       a product with an r x c matrix is 2 r c FLOPs. Attention: every query head — how
    //       many are there, with grouped-query attention? — scores `context` keys and sums
    //       `context` values, a head_dim-long multiply-add for each.
    (void)s, (void)context;
    token_flops f = {0, 0, 0, 0, 0};
    return f;
}
