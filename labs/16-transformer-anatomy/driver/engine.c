/* engine.c — Day 16 driver: the parameters of a real model, counted without a formula. It
 * builds a model of the book's toy Llama (lib/llama) with seeded weights and adds up the
 * elements of the tensors it allocated, one matrix at a time, so that your counts can be held
 * against what an engine actually stores. Do not edit. */
#include "lab.h"
#include "llama.h"

#include <stdio.h>

static int64_t elements(const llama_weight_matrix *m) { return (int64_t)m->rows * m->cols; }

engine_count count_engine_tensors(const char *shape_name, int tied, uint64_t seed)
{
    static char error[512];
    engine_count count = {0};
    llama_config config;
    if (llama_named_shape(shape_name, &config, error, sizeof error) != 0) {
        count.error = error;
        return count;
    }
    if (tied >= 0) config.shared_classifier = tied;
    llama_transformer t;
    if (llama_build_transformer_generated(&t, &config, seed, error, sizeof error) != 0) {
        count.error = error;
        return count;
    }
    count.shape = (decoder_shape){config.n_layers, config.dim,        config.n_heads,    config.n_kv_heads,
                                  llama_head_dim_of(&config), config.hidden_dim, config.vocab_size, 0,
                                  config.shared_classifier};
    /* the classifier is a second matrix only when its storage is not the embedding's */
    count.embeddings = elements(&t.token_embedding) + (t.classifier.fp32 != t.token_embedding.fp32 ? elements(&t.classifier) : 0);
    count.total = count.embeddings + config.dim;   /* the final RMSNorm */
    for (int l = 0; l < config.n_layers; l++) {
        const llama_layer_weights *w = &t.layers[l];
        int64_t attention = elements(&w->wq) + elements(&w->wk) + elements(&w->wv) + elements(&w->wo);
        int64_t mlp = elements(&w->w1) + elements(&w->w2) + elements(&w->w3);
        if (l == 0) count.attention = attention, count.mlp = mlp;
        count.total += attention + mlp + 2 * (int64_t)config.dim;   /* rms_attention, rms_ffn */
    }
    count.library_count = llama_parameter_count(&config);
    llama_free_transformer(&t);
    return count;
}
