/* lab.h — Day 16: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * A Llama-style decoder, as data/models.csv describes it, is nine numbers (decoder_shape).
 * From them alone you count its parameters, tensor by tensor, and the FLOPs one token costs,
 * component by component, under one convention the whole day keeps:
 *
 *   parameters  every element of every weight tensor: matrices, bias vectors, norm weights.
 *   FLOPs       those of the matrix products only, a multiply and an add being two: a weight
 *               matrix of r x c costs 2 r c FLOPs per token, and attention's two products
 *               cost 2 x head_dim FLOPs per query head per position attended, each. Norms,
 *               RoPE, softmax, SiLU, biases and residual adds are not counted (they are a
 *               fraction of a percent: the chapter works it out). The token embedding is a
 *               lookup, not a product: no FLOPs.
 *   context     the positions a token attends to, itself included: the token at position p
 *               (counting from 0) of a causal sequence attends to p + 1 positions.
 *
 * One layer, in the order a token goes through it (x is the residual stream, hidden wide):
 *
 *   x ─┬─ RMSNorm(w) ─ Q = x Wq   (hidden -> heads x head_dim)  ─ RoPE ─┐
 *      │              K = x Wk   (hidden -> kv_heads x head_dim) ─ RoPE ─┤ attention over
 *      │              V = x Wv   (hidden -> kv_heads x head_dim) ────────┘ the context
 *      │                                                                 │
 *      └──────────────(+)── o = att Wo (heads x head_dim -> hidden) ─────┘
 *   x ─┬─ RMSNorm(w) ─ gate = x W1, up = x W3 (hidden -> intermediate)
 *      │               down = (SiLU(gate) * up) W2 (intermediate -> hidden)
 *      └──────────────(+)── down
 *
 * and around the layers: the token embedding (vocab x hidden) before them, a final RMSNorm
 * and the classifier (hidden -> vocab) after them. */
#ifndef DAY16_LAB_H
#define DAY16_LAB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shape of a dense Llama-style decoder: a row of data/models.csv (its column names in
 * brackets), or an engine model of lib/llama. */
typedef struct decoder_shape {
    int layers;            /* decoder layers [layers] */
    int hidden;            /* width of the residual stream [hidden_size] */
    int heads;             /* query heads [attention_heads] */
    int kv_heads;          /* key/value heads [kv_heads]: heads for multi-head attention, fewer
                              for grouped-query attention (each K/V head serves heads / kv_heads) */
    int head_dim;          /* elements of one head [head_dim]; heads x head_dim need not be hidden */
    int intermediate;      /* inner width of the SwiGLU MLP [intermediate_size] */
    int vocab;             /* tokens of the vocabulary [vocab_size] */
    int qkv_bias;          /* 1: Q, K and V each add a bias vector (Qwen2) [qkv_bias]; O and the MLP never do */
    int tied_embeddings;   /* 1: the classifier is the token embedding itself [tied_embeddings] */
} decoder_shape;

/* ---- anatomy.c (yours): parameters ---- */

/* One layer's attention: Wq, Wk, Wv, Wo, and Q/K/V biases when qkv_bias. */
int64_t attention_parameters(const decoder_shape *s);
/* One layer's SwiGLU MLP: gate W1, up W3, down W2. */
int64_t mlp_parameters(const decoder_shape *s);
/* One whole layer: attention, MLP, and the weights of its two RMSNorms (hidden each). */
int64_t layer_parameters(const decoder_shape *s);
/* The token embedding, and the classifier when it is its own matrix (untied). */
int64_t embedding_parameters(const decoder_shape *s);
/* The model: embeddings, every layer, the final RMSNorm's weights. */
int64_t model_parameters(const decoder_shape *s);
/* The parameters a token is multiplied by: every layer's seven matrices and the classifier
 * (which, tied, is the embedding). Not the norm weights and biases (no multiply-add), not an
 * untied embedding (looked up). 2 x this is the FLOPs of every product but attention's. */
int64_t multiplied_parameters(const decoder_shape *s);

/* ---- anatomy.c (yours): FLOPs ---- */

/* One token's forward FLOPs, by component, summed over every layer (the classifier once). */
typedef struct token_flops {
    double qkv;          /* Q, K and V projections */
    double attention;    /* scores S = Q K^T and values P V over `context` positions */
    double o_proj;       /* the output projection */
    double mlp;          /* gate, up and down */
    double classifier;   /* the logits */
} token_flops;

/* The FLOPs of one token that attends to `context` positions (0 is allowed: no attention). */
token_flops forward_flops_per_token(const decoder_shape *s, int64_t context);

/* ---- anatomy.c (yours): a derivation ---- */

/* The context at which one token's attention FLOPs equal the FLOPs of all its other products,
 * derived from the shape (a fraction: attention grows by the same amount with each position).
 * Past it, attention costs a token more than every weight of the model together. */
double attention_equals_the_rest_at(const decoder_shape *s);

/* ---- engine.c (driver): the toy Llama's own tensors, counted ---- */

/* A model of lib/llama built with seeded weights, and the elements of the tensors it holds,
 * counted one by one from each matrix's rows x cols (a norm's weight vector is dim long). */
typedef struct engine_count {
    const char *error;       /* NULL, or why the model could not be built */
    decoder_shape shape;     /* its shape, as a decoder_shape */
    int64_t attention;       /* layer 0's Wq, Wk, Wv, Wo */
    int64_t mlp;             /* layer 0's W1, W2, W3 */
    int64_t embeddings;      /* the token embedding, and the classifier when it is another matrix */
    int64_t total;           /* every tensor of the model, each counted once */
    int64_t library_count;   /* lib/llama's own formula, llama_parameter_count */
} engine_count;

/* Builds lib/llama's named shape `shape_name` ("tiny", "tiny-mha", "260K", "15M") from `seed`,
 * with its classifier tied to the embedding (tied = 1), untied (0), or as the shape has it (-1). */
engine_count count_engine_tensors(const char *shape_name, int tied, uint64_t seed);

/* ---- helpers (driver) ---- */

static inline double token_flops_total(token_flops f)
{
    return f.qkv + f.attention + f.o_proj + f.mlp + f.classifier;
}

/* The rule of thumb: a forward pass costs 2 FLOPs per parameter per token. */
static inline double two_flops_per_parameter(const decoder_shape *s) { return 2.0 * (double)model_parameters(s); }

#ifdef __cplusplus
}
#endif

#endif
