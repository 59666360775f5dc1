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

int64_t attention_parameters(const decoder_shape *s)
{
    // TODO: the elements of one layer's four attention projections, and, when qkv_bias, of the
    //       bias vectors Q, K and V add (O has none). Exact, in int64_t. The idea: the heads set
    //       the widths, not hidden, and grouped-query attention makes K and V narrower than Q.
    (void)s;
    return 0;
}

int64_t mlp_parameters(const decoder_shape *s)
{
    // TODO: the elements of one layer's SwiGLU MLP (gate, up, down). Exact for any model of the
    //       table and for Llama-3.1-405B, whose MLP alone is past 2^31. The idea: three matrices
    //       where the original Transformer had two.
    (void)s;
    return 0;
}

int64_t layer_parameters(const decoder_shape *s)
{
    // TODO: one whole layer: its attention, its MLP and the weight vectors of its norms. The
    //       idea: a norm's weights are few, but an exact count needs them.
    (void)s;
    return 0;
}

int64_t embedding_parameters(const decoder_shape *s)
{
    // TODO: the token embedding, and the classifier when it is a matrix of its own
    //       (tied_embeddings = 0). The idea: tied, one matrix serves both ends of the model.
    (void)s;
    return 0;
}

int64_t model_parameters(const decoder_shape *s)
{
    // TODO: every parameter of the model: the published count of data/models.csv to the last
    //       one (Llama-2-7B: 6 738 415 616). The idea: the layers repeat; the ends and the final
    //       norm come once.
    (void)s;
    return 0;
}

int64_t multiplied_parameters(const decoder_shape *s)
{
    // TODO: the parameters one token is multiplied by (lab.h says which): 2 x this is the FLOPs
    //       of every product but attention's. The idea: a lookup, a scale or an add is no
    //       multiply-add.
    (void)s;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * FLOPs: 2 per weight of each product, and attention's two products over the context */

token_flops forward_flops_per_token(const decoder_shape *s, int64_t context)
{
    // TODO: one token's FLOPs by component, each summed over the layers (the classifier runs
    //       once), for a token that attends to `context` positions, itself included (0 allowed;
    //       up to past 2^31). Exact whole numbers in double. The idea: every weight costs 2
    //       FLOPs a token; attention alone grows with the context, and its cost is set by the
    //       query heads.
    (void)s, (void)context;
    token_flops f = {0, 0, 0, 0, 0};
    return f;
}

/* ---------------------------------------------------------------------------------
 * A derivation: where attention catches up */

double attention_equals_the_rest_at(const decoder_shape *s)
{
    // TODO: the context at which one token's attention FLOPs equal all its other FLOPs, derived
    //       from the shape with the chapter's two formulas, not searched for (in general a
    //       fraction). The checks hold it against your own forward_flops_per_token for every dense
    //       model. The idea: a cost per position against a cost that has no position in it.
    (void)s;
    return 0;
}
