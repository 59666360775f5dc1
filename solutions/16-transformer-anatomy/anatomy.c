/* anatomy.c — Day 16: a Llama-style decoder taken apart, tensor by tensor: how many
 * parameters each part holds, and how many FLOPs each part costs one token.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. The parameters: attention_parameters, mlp_parameters, layer_parameters,
 *      embedding_parameters, model_parameters, and multiplied_parameters (the part a token
 *      is multiplied by).
 *   2. forward_flops_per_token: one token's FLOPs, by component, over `context` positions.
 *   3. attention_equals_the_rest_at: a derivation, from the shape alone, of the context at
 *      which attention costs a token as much as all its other products together.
 *
 * Rules: plain C, no libraries; count parameters in int64_t and FLOPs in double. An int holds
 * 2 147 483 647: every total of data/models.csv is past it (Llama-2-70B's layers hold 80 x
 * 855 654 400 = 68 452 352 000), and so, in a large enough model, is a single product of two
 * sizes: no product of two of Llama-2-70B's sizes is (the largest, vocab x hidden, is
 * 262 144 000), but Llama-3.1-405B's MLP, 3 x 16 384 x 53 248 = 2 617 245 696, is, and so are
 * its two embedding matrices, 2 x 128 256 x 16 384 = 4 202 692 608. A product formed in int is
 * undefined past that, and usually wraps, before any int64_t sees it: convert the first factor.
 * The tests compare your counts exactly with the published totals of data/models.csv (Llama-2-7B:
 * 6 738 415 616) and Llama-3.1-405B's, with the tensors of seeded engine models (lib/llama),
 * counted element by element, and with counts made by hand.
 *
 * Check:  make check DAY=16        Stuck?  make hint DAY=16
 */
#include "lab.h"

/* ---------------------------------------------------------------------------------
 * Parameters */

/* Widths of the attention's projections: every query head has its own head_dim columns,
 * key and value heads are shared by groups of query heads. */
static int64_t q_width(const decoder_shape *s) { return (int64_t)s->heads * s->head_dim; }
static int64_t kv_width(const decoder_shape *s) { return (int64_t)s->kv_heads * s->head_dim; }

/* The four projections' matrices, without biases. */
static int64_t attention_matrix_parameters(const decoder_shape *s)
{
    int64_t hidden = s->hidden;
    return hidden * q_width(s)          /* Wq */
           + 2 * hidden * kv_width(s)   /* Wk, Wv */
           + q_width(s) * hidden;       /* Wo */
}

int64_t attention_parameters(const decoder_shape *s)
{
    int64_t biases = s->qkv_bias ? q_width(s) + 2 * kv_width(s) : 0;
    return attention_matrix_parameters(s) + biases;
}

int64_t mlp_parameters(const decoder_shape *s)
{
    return 3 * (int64_t)s->hidden * s->intermediate;   /* gate W1 and up W3: hidden x intermediate; down W2 */
}

int64_t layer_parameters(const decoder_shape *s)
{
    return attention_parameters(s) + mlp_parameters(s) + 2 * (int64_t)s->hidden;   /* two RMSNorm weight vectors */
}

int64_t embedding_parameters(const decoder_shape *s)
{
    int64_t matrix = (int64_t)s->vocab * s->hidden;
    return s->tied_embeddings ? matrix : 2 * matrix;   /* untied: the classifier is a second matrix */
}

int64_t model_parameters(const decoder_shape *s)
{
    return embedding_parameters(s) + s->layers * layer_parameters(s) + s->hidden;   /* + the final RMSNorm */
}

int64_t multiplied_parameters(const decoder_shape *s)
{
    int64_t per_layer = attention_matrix_parameters(s) + mlp_parameters(s);
    return s->layers * per_layer + (int64_t)s->vocab * s->hidden;   /* the classifier, tied or not */
}

/* ---------------------------------------------------------------------------------
 * FLOPs: 2 per weight of each product, and attention's two products over the context */

token_flops forward_flops_per_token(const decoder_shape *s, int64_t context)
{
    double layers = s->layers, hidden = s->hidden;
    token_flops f;
    f.qkv = layers * 2 * hidden * (double)(q_width(s) + 2 * kv_width(s));
    /* scores and values: each query head, GQA or not, does a head_dim dot product per position */
    f.attention = layers * 2 * (2.0 * (double)q_width(s) * (double)context);
    f.o_proj = layers * 2 * (double)q_width(s) * hidden;
    f.mlp = layers * 2 * (double)mlp_parameters(s);
    f.classifier = 2 * (double)s->vocab * hidden;
    return f;
}

/* ---------------------------------------------------------------------------------
 * Where attention catches up: attention costs 4 x head_dim FLOPs per query head per layer for
 * each position (scores and values), everything else 2 per multiplied weight, whatever the
 * context. The two are equal at their ratio. Grouped-query attention is not in it: every
 * query head scores every position. */

double attention_equals_the_rest_at(const decoder_shape *s)
{
    double per_position = 4.0 * s->layers * (double)q_width(s);
    return 2.0 * (double)multiplied_parameters(s) / per_position;
}
