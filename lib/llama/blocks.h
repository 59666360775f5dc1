/* blocks.h — inside the engine: the small blocks of a Llama layer, on one row (one token)
 * at a time. The matrix multiplications are in matmul.h; the order in which the blocks are
 * applied is forward.c. */
#ifndef LLAMA_BLOCKS_H
#define LLAMA_BLOCKS_H

/* out = x / sqrt(mean(x^2) + 1e-5) * weight   (out may be x) */
void llama_rmsnorm(float *out, const float *x, const float *weight, int size);

/* Rotates each pair (v[2i], v[2i+1]) of every head by RoPE's angle for pair i at one
 * position: angle_cos and angle_sin hold head_dim / 2 values (a row of the Transformer's table). */
void llama_rope(float *vector, int size, int head_dim, const float *angle_cos, const float *angle_sin);

/* x = exp(x - max) / sum, in place, over `size` values */
void llama_softmax(float *x, int size);

/* One head of causal attention for one query: the query attends to `length` cached keys
 * and values (positions 0 .. length-1, `stride` floats apart); scores is `length` floats of
 * scratch. out = sum_t softmax(q . k_t / sqrt(head_dim))_t v_t. */
void llama_attend(float *out, const float *query, const float *keys, const float *values, int length, int stride, int head_dim,
            float *scores);

/* The SwiGLU gate: gate = silu(gate) * up, silu(g) = g / (1 + exp(-g)). */
void llama_swiglu(float *gate, const float *up, int size);

/* x += y */
void llama_add_into(float *x, const float *y, int size);

#endif
