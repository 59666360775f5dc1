/* weights.h — inside the engine: the tensors of a model by kind, their order in each
 * llama2.c file version, and where each one sits in a Transformer. The checkpoint reader
 * and writer, the generator and the quantizer all walk the same lists, so a format is
 * described exactly once. */
#ifndef LLAMA_WEIGHTS_H
#define LLAMA_WEIGHTS_H

#include "llama.h"

typedef enum {
    TENSOR_EMBEDDING,      /* (vocab_size, dim) */
    TENSOR_RMS_ATTENTION,  /* per layer (dim) */
    TENSOR_WQ,             /* per layer (dim, dim) */
    TENSOR_WK,             /* per layer (kv_dim, dim) */
    TENSOR_WV,             /* per layer (kv_dim, dim) */
    TENSOR_WO,             /* per layer (dim, dim) */
    TENSOR_RMS_FFN,        /* per layer (dim) */
    TENSOR_W1,             /* per layer (hidden_dim, dim) */
    TENSOR_W2,             /* per layer (dim, hidden_dim) */
    TENSOR_W3,             /* per layer (hidden_dim, dim) */
    TENSOR_RMS_FINAL,      /* (dim) */
    TENSOR_ROPE_COS,       /* (seq_len, head_dim / 2): version 0 stores RoPE's table; we recompute it */
    TENSOR_ROPE_SIN,
    TENSOR_CLASSIFIER,     /* (vocab_size, dim), only when untied */
    TENSOR_KINDS
} llama_tensor_kind;

/* The kinds in a file version's order, ending with -1. The classifier is listed; it is
 * skipped when the classifier is tied. Version 2 has version 1's order (norms first), each
 * matrix stored as its INT8 values followed by its scales. */
const int *llama_tensor_order(int version);

int llama_tensor_is_per_layer(llama_tensor_kind kind);
/* export.py's name of a kind (wq, w2, attention_norm, tok_embeddings, ...), for messages */
const char *llama_tensor_name(llama_tensor_kind kind);
/* Is this kind a matrix multiplication's weight (INT8 in a quantized model)? */
int llama_tensor_is_matrix(llama_tensor_kind kind);
/* rows and columns of one tensor of this kind (one layer's, for per-layer kinds) */
void llama_tensor_shape(const llama_config *config, llama_tensor_kind kind, int *rows, int *cols);
/* Does this version's file hold this kind for this config? */
int llama_tensor_present(const llama_config *config, llama_tensor_kind kind);
/* The index-th matrix in the order a decode step reads them (layer by layer: wq, wk, wv, wo,
 * w1, w3, w2; then the classifier, then the embedding where the two are not shared), the
 * order in which quantized weights are stored: 1 and its kind and layer, or 0 past the last. */
int llama_step_matrix(const llama_config *config, int index, llama_tensor_kind *kind, int *layer);

/* Points the FP32 tensor (kind, layer) of t at `data` / reads where it points. */
void llama_set_tensor(llama_transformer *t, llama_tensor_kind kind, int layer, const float *data);
const float *llama_get_tensor(const llama_transformer *t, llama_tensor_kind kind, int layer);
/* The matrix slot of a matrix kind (embedding, classifier, wq ... w3); NULL for vectors. */
llama_weight_matrix *llama_matrix_slot(llama_transformer *t, llama_tensor_kind kind, int layer);

/* Lays FP32 tensors over a file body of `version`, consecutively from `body`. Returns the
 * number of floats the body must hold. With body == NULL it only counts. */
int64_t llama_lay_out_tensors(llama_transformer *t, const llama_config *config, int version, const float *body);

/* Allocates the per-layer table and computes RoPE's rotations; 0 or -1 (out of memory). */
int llama_prepare_transformer(llama_transformer *t, const llama_config *config, char *error, size_t error_size);

/* Memory aligned for large pages, asked for as such (fewer TLB misses and page faults where
 * it is streamed): the weights and the KV cache. */
void *llama_allocate_large_pages(size_t bytes);

#endif
