/* llama.h — the book's toy Llama: a Llama-2/3-style decoder in plain C that days 19–30
 * measure, trace, batch and quantize.
 *
 * What it is: RMSNorm, RoPE, grouped-query attention (any n_kv_heads dividing n_heads),
 * a SwiGLU MLP and a tied or untied classifier — the architecture of llama2.c's run.c —
 * with the parts a serving engine adds: prefill as matrix-matrix work, decode steps for
 * a batch of sequences at different positions, a KV cache sized by the formula the book
 * teaches, weight-only INT8 with group-wise scales (and, on request, INT8 activations with
 * llama2.c's runq.c's arithmetic), weight-only INT4 with a scale and a zero point per group
 * (day 25's format), and optional threads.
 *
 * Where weights come from: a llama2.c checkpoint (the legacy header of export.py's
 * version 0, its version-1 FP32 export, or its version-2 INT8 export that runq.c reads),
 * memory-mapped (version 0's weights, 28 bytes off the cache lines, copied onto them, and
 * version 2's INT8 values copied in the order a decode step reads them); or
 * generated from a seed for any shape (named shapes such as llama2.c's "15M" and "110M"
 * for tests and benchmarks). Either can be written back to a checkpoint file, FP32 models
 * as version 0 or 1, INT8 models as version 2.
 *
 * Errors, the library's one way to give up: every function that can fail (bad input, no memory)
 * returns -1 (or NULL) and writes what is wrong into `error` (error_size bytes); none exits or
 * aborts, and every allocation is tested (tools/ci/give-up-check holds it to that). The order of use:
 *     build_transformer_*  ->  llama_build_session  ->  llama_prefill / llama_decode_batch  ->  llama_sample
 *     ->  llama_free_session  ->  llama_free_transformer. */
#ifndef LLAMA_H
#define LLAMA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------------------
 * The shape of a model: the seven numbers of a llama2.c header, plus whether the
 * classifier reuses the token embedding. */

typedef struct {
    int dim;                /* width of the residual stream; dim = n_heads * head_dim */
    int hidden_dim;         /* inner width of the SwiGLU MLP */
    int n_layers;
    int n_heads;            /* query heads */
    int n_kv_heads;         /* key/value heads; divides n_heads (grouped-query attention) */
    int vocab_size;
    int seq_len;            /* the longest context the model is built for */
    int shared_classifier;  /* 1: logits use the token embedding (tied); 0: own matrix */
} llama_config;

/* Named shapes, for tests and benchmarks: "260K", "15M", "42M", "110M" (llama2.c's
 * TinyStories models) and the small test shapes "tiny" and "tiny-mha". Returns 0 and fills
 * `config`, or -1 with the list of names in `error`. */
int llama_named_shape(const char *name, llama_config *config, char *error, size_t error_size);
/* A comma-separated list of the named shapes, for help texts and errors. */
const char *llama_named_shape_list(void);

/* Refuses impossible dimensions with the reason (0 = fine, -1 = refused). */
int llama_validate_config(const llama_config *config, char *error, size_t error_size);

int llama_head_dim_of(const llama_config *config);          /* dim / n_heads */
int llama_kv_dim_of(const llama_config *config);            /* n_kv_heads * head_dim */
/* Parameters, counted from the shape: embedding, classifier when untied, per layer
 * Wq Wk Wv Wo W1 W2 W3 and two norm vectors, and the final norm. */
int64_t llama_parameter_count(const llama_config *config);
/* Parameters that live in matrices used as matrix multiplications' weights — all of them
 * but the norm vectors (the embedding counts: it is the classifier when tied). */
int64_t llama_matrix_parameter_count(const llama_config *config);

/* ----------------------------------------------------------------------------------
 * The KV cache: the formula the book teaches.
 *   bytes = 2 (K and V) x layers x kv_heads x head_dim x bytes_per_element x tokens x batch */

int64_t llama_kv_cache_bytes(int layers, int kv_heads, int head_dim, int bytes_per_element, int64_t tokens, int64_t batch);
/* The same for one token of one sequence, for a model's shape and element size. */
int64_t llama_kv_bytes_per_token(const llama_config *config, int bytes_per_element);

/* ----------------------------------------------------------------------------------
 * Weights. A matrix multiplication's weight is stored row-major, one row per output
 * (PyTorch's nn.Linear layout): FP32; or INT8 values with one FP32 scale per group of
 * `group_size` consecutive values of a row (like llama2.c's runq.c: scale = max|w| / 127);
 * or INT4 as day 25 teaches it: per group of a row lo = min(0, min w), hi = max(0, max w),
 * scale = (hi - lo) / 15, zero = round(-lo / scale) in 0..15, q = clamp(round(w / scale) +
 * zero, 0, 15), w ~ (q - zero) x scale; two values a byte, the even element in the low
 * nibble (byte = q_even | q_odd << 4, cols / 2 bytes a row); one FP32 scale and one byte of
 * zero point per group, row after row. The group size of INT4 is even and divides cols, so
 * a byte never holds two groups and a group never crosses into the next row. */

typedef enum { WEIGHTS_FP32 = 0, WEIGHTS_INT8 = 1, WEIGHTS_INT4 = 2 } llama_weight_format;

typedef struct {
    int rows, cols;          /* outputs, inputs */
    llama_weight_format format;
    const float *fp32;       /* rows * cols, when FP32 */
    const int8_t *int8;      /* rows * cols, when INT8 */
    const uint8_t *int4;     /* rows * cols / 2 bytes, when INT4: low nibble first */
    const float *scales;     /* rows * cols / group_size, when INT8 or INT4 */
    const uint8_t *zeros;    /* rows * cols / group_size zero points (0..15), when INT4 */
    int group_size;
} llama_weight_matrix;

typedef struct {
    const float *rms_attention;   /* (dim) */
    const float *rms_ffn;         /* (dim) */
    llama_weight_matrix wq;              /* (n_heads * head_dim, dim) */
    llama_weight_matrix wk;              /* (n_kv_heads * head_dim, dim) */
    llama_weight_matrix wv;              /* (n_kv_heads * head_dim, dim) */
    llama_weight_matrix wo;              /* (dim, n_heads * head_dim) */
    llama_weight_matrix w1;              /* (hidden_dim, dim)  gate */
    llama_weight_matrix w2;              /* (dim, hidden_dim)  down */
    llama_weight_matrix w3;              /* (hidden_dim, dim)  up */
} llama_layer_weights;

typedef struct {
    llama_config config;
    llama_weight_format format;
    int group_size;               /* INT8 and INT4: values per scale */
    llama_weight_matrix token_embedding; /* (vocab_size, dim): rows are looked up */
    llama_weight_matrix classifier;      /* (vocab_size, dim): the embedding itself when tied */
    llama_layer_weights *layers;         /* n_layers */
    const float *rms_final;       /* (dim) */
    float *rope_cos, *rope_sin;   /* (seq_len, head_dim / 2): RoPE's rotations, precomputed */
    /* where the bytes live (freed by llama_free_transformer) */
    float *fp32_storage;          /* generated FP32 weights, or a version-0 body copied onto cache lines */
    void *mapping;                /* a memory-mapped checkpoint */
    size_t mapping_bytes;
    int8_t *int8_storage;         /* quantized values (INT8) */
    uint8_t *int4_storage;        /* packed values, then the zero points (INT4) */
    float *scale_storage;         /* their scales, and the FP32 norm vectors copied beside them */
    int64_t weights_bytes;        /* bytes of weights the forward pass can read */
} llama_transformer;

/* Seeded weights for any valid shape: the same seed gives the same bits on any machine. */
int llama_build_transformer_generated(llama_transformer *t, const llama_config *config, uint64_t seed, char *error, size_t error_size);
/* A llama2.c checkpoint, memory-mapped: version 0 (legacy 28-byte header; a negative
 * vocab_size means an untied classifier; its body is copied onto cache lines), version 1 (256-byte "ak42" header, FP32) or
 * version 2 (the same header with a group size, INT8 as runq.c reads it: the model comes
 * back INT8, its values and scales copied in the order a decode step reads the matrices). Refuses a file whose size is not its header's, and any weight that is NaN,
 * infinite or beyond LLAMA_MAX_WEIGHT_MAGNITUDE, naming the tensor. */
int llama_build_transformer_from_checkpoint(llama_transformer *t, const char *path, char *error, size_t error_size);

/* The largest |weight| a checkpoint may hold (for INT8: 127 x the largest scale). Trained
 * weights are of order 1 (llama2.c's models and Llama 2's stay far below 100). At this
 * bound a layer of an 8192-wide model with every weight at the bound still computes
 * attention scores below 1e29, far from FP32's 3.4e38; a file beyond it is corrupt, or not
 * weights at all. */
#define LLAMA_MAX_WEIGHT_MAGNITUDE 1e4f
/* Converts an FP32 transformer to weight-only INT8 in place, group_size values per scale.
 * group_size must divide dim and hidden_dim (a group lies within one row); any other is
 * refused, naming the dimension (llama_int8_group_size gives export.py's back-off from 64).
 * The FP32 bytes are released. */
int llama_quantize_transformer(llama_transformer *t, int group_size, char *error, size_t error_size);
/* The same to weight-only INT4 (the format above: a scale and a zero point per group, low
 * nibble first). group_size must also be even (two values a byte, never two groups in one);
 * an odd one is refused. The embedding is INT4 too: a lookup dequantizes its row. */
int llama_quantize_transformer_int4(llama_transformer *t, int group_size, char *error, size_t error_size);
void llama_free_transformer(llama_transformer *t);

/* Writes a transformer as a llama2.c checkpoint: an FP32 one as version 0 or 1, an INT8
 * one as version 2 (export.py's version2_export layout, which runq.c reads). An INT4 model
 * is refused: llama2.c has no INT4 format. */
int llama_write_checkpoint(const llama_transformer *t, const char *path, int version, char *error, size_t error_size);
/* Reads only a checkpoint's header: its shape and version (for the performance model). */
int llama_read_checkpoint_config(const char *path, llama_config *config, int *version, char *error, size_t error_size);

/* Bytes of weights a forward pass may read, for a shape in a format: FP32 is 4 bytes a
 * parameter; INT8 is 1 byte a matrix parameter plus a 4-byte scale per group, INT4 half a
 * byte plus a 4-byte scale and a 1-byte zero point per group, with the norm vectors kept
 * in FP32. */
int64_t llama_weights_bytes_of(const llama_config *config, llama_weight_format format, int group_size);
/* `wanted` halved until it divides dim and hidden_dim (export.py's back-off; 64 -> 16 for
 * dim 48, hidden_dim 112): the default group size of a shape. */
int llama_int8_group_size(const llama_config *config, int wanted);
/* 0 if group_size divides dim and hidden_dim; else -1, naming the dimension it does not divide. */
int llama_check_group_size(const llama_config *config, int group_size, char *error, size_t error_size);
/* The same for INT4, which also needs an even group size. */
int llama_check_int4_group_size(const llama_config *config, int group_size, char *error, size_t error_size);

/* ----------------------------------------------------------------------------------
 * A session: the KV cache for `batch` sequences of up to `capacity` tokens each, the
 * activation buffers of one forward step, and the threads. */

typedef struct llama_thread_pool llama_thread_pool;

typedef struct {
    int batch;                 /* sequence slots */
    int capacity;              /* tokens per sequence */
    int kv_dim;
    float *keys, *values;      /* (batch, n_layers, capacity, kv_dim) each */
    int *length;               /* tokens cached per sequence */
} llama_kv_cache;

/* The largest number of token rows one forward step processes; a longer prefill is cut
 * into steps of this many rows (chunked prefill), which bounds the activations. */
#define LLAMA_MAX_STEP_ROWS 512

/* What the engine counts as it runs (days 19 and 20 compare a learner's formulas with these).
 * The FLOPs are the matrix multiplications' and attention's (norms, RoPE, softmax and SwiGLU
 * are left out, as the performance model leaves them out); the bytes are what each piece of
 * work reads or writes once, as if nothing stayed in a cache between pieces. */
typedef struct {
    int64_t steps;             /* forward steps run */
    int64_t rows;              /* token rows they processed */
    double matmul_flops;       /* 2 x rows x outputs x inputs per matrix multiplication (the classifier too) */
    double attention_flops;    /* 4 x head_dim x positions attended, per row and query head (q.k and p.v) */
    double weight_bytes;       /* each weight matrix once per step, as stored (INT8: values and scales; INT4:
                                  packed values, scales and zero points),
                                  and the embedding rows looked up */
    double kv_write_bytes;     /* keys and values appended: 2 x kv_dim x 4 B per row and layer */
    double kv_read_bytes;      /* keys and values read by attention: 2 x kv_dim x 4 B per position attended,
                                  per row and layer (the query heads of a KV head share the read) */
} llama_counters;

/* A KV cache and attention of a lab's own, which the engine uses in place of its own (days 20
 * and 21 plug the learner's in, so a learner's cache produces real tokens). store() receives
 * each row's rotated key and its value (kv_dim floats each) for one layer, from the calling
 * thread; attend() writes one query head's output (head_dim floats) over positions 0 ..
 * length-1 of the sequence, and may be called from several threads at once for different
 * (row, head) pairs; scores is `capacity` floats of scratch for it. The engine still checks
 * sequences and positions and counts as usual. */
typedef struct {
    void *state;
    void (*store)(void *state, int sequence, int layer, int position, const float *key, const float *value);
    void (*attend)(void *state, float *out, const float *query, int sequence, int layer, int head, int length,
                   float *scores);
} llama_kv_hooks;

/* A tracer a lab plugs in (day 29): the engine calls begin() and end() around each part of a
 * forward step, always properly nested, from the calling thread: "step" around all of it, and
 * inside it "embedding", then for each layer "layer" around "attention_norm", "qkv", "rope_and_cache",
 * "attention", "output_projection", "ffn_norm", "ffn" (the three MLP matrices and SwiGLU), then
 * "classifier" when the step produces logits. `rows` is the step's number of token rows (for
 * "classifier", the rows that get logits). */
typedef struct {
    void *state;
    void (*begin)(void *state, const char *name, int rows);
    void (*end)(void *state, const char *name, int rows);
} llama_trace_hooks;

typedef struct {
    const llama_transformer *transformer;
    llama_kv_cache cache;
    llama_kv_hooks kv_hooks;     /* all NULL: the engine's own cache and attention */
    llama_trace_hooks trace;     /* all NULL: nothing traced */
    llama_counters counters;    /* since the session was built (zero it to start again) */
    int max_rows;              /* rows per forward step (<= LLAMA_MAX_STEP_ROWS) */
    int threads;
    llama_thread_pool *pool;          /* NULL when single-threaded */
    /* activations of one step, one row per token */
    float *x;                  /* (max_rows, dim) the residual stream */
    float *xb;                 /* (max_rows, dim) normed input of a block; attention output */
    float *xb2;                /* (max_rows, dim) a block's output before the residual add */
    float *q;                  /* (max_rows, dim) */
    float *k, *v;              /* (max_rows, kv_dim) */
    float *hb, *hb2;           /* (max_rows, hidden_dim) */
    float *scores;             /* (threads, capacity) attention scores, one buffer per thread */
    float *logits;             /* (batch, vocab_size): one row per sequence of a call */
    float *row_logits;         /* (row_logit_capacity, vocab_size): llama_prefill_rows's, allocated on first use */
    int row_logit_capacity;
    /* the rows of the step in flight */
    int *row_sequence, *row_position, *row_token;
    int64_t activation_bytes;  /* bytes of the buffers above */
    /* INT8 activations (llama_set_activations): a step's input rows quantized */
    int int8_activations;      /* 1: matrix multiplications run runq.c's arithmetic */
    int8_t *xq;                /* (max_rows, max(dim, hidden_dim)) */
    float *xq_scales;          /* one per group of xq */
} llama_session;

/* Rows of a session's forward step: min(LLAMA_MAX_STEP_ROWS, batch x capacity). */
int llama_step_rows_of(int batch, int capacity);
/* Bytes of a session's activation buffers (the same sum llama_build_session allocates; the
 * performance model uses it). */
int64_t llama_activation_bytes_of(const llama_config *config, int batch, int capacity, int threads);

/* capacity <= seq_len; batch >= 1; threads >= 1 (1 = no extra threads). Refuses a batch
 * or a capacity whose KV cache does not fit in this machine's memory, saying how much it needs. */
int llama_build_session(llama_session *s, const llama_transformer *t, int batch, int capacity, int threads, char *error, size_t error_size);
void llama_free_session(llama_session *s);
/* INT8 activations, llama2.c's runq.c's arithmetic, for a session of an INT8 model: before
 * each matrix multiplication the input rows are quantized in groups of the model's
 * group_size (scale = max|x| / 127, values rounded half away from zero), and each output
 * is an int32 dot product per group, scaled and summed group after group in float as runq.c
 * does; the other blocks, too, compute as runq.c does (runq_arithmetic.h). A version-2
 * checkpoint then gives runq.c's logits bit for bit, as runq.c computes them built without
 * fused multiply-adds (gcc -O3 for x86-64), and so its greedy tokens. Slower than the FP32
 * path: plain loops. on = 0 returns to FP32 activations. Refused (-1) for an FP32 model:
 * runq.c's dot products need INT8 weights. */
int llama_set_int8_activations(llama_session *s, int on, char *error, size_t error_size);
/* Forgets a sequence's tokens (its slot can take a new sequence). */
void llama_reset_sequence(llama_session *s, int sequence);
/* Starts the empty sequence `child` as a copy of `parent` so far (parallel samples of one prompt):
 * the engine copies its cached keys and values; with kv_hooks set it copies nothing and only
 * counts the child's tokens, since the lab's own cache shares or copies the prefix itself. */
int llama_fork_sequence(llama_session *s, int parent, int child, char *error, size_t error_size);
/* Keeps the first `length` tokens of a sequence and forgets the rest (a rejected draft of speculative
 * decoding); the next token goes at position `length`. Refused for a length beyond what it holds. */
int llama_truncate_sequence(llama_session *s, int sequence, int length, char *error, size_t error_size);

/* Appends `n` prompt tokens to sequence `sequence` (matrix-matrix work, in steps of up to
 * max_rows rows) and returns the logits of the last one (vocab_size floats, valid until
 * the next call), or NULL with the reason in `error`. */
const float *llama_prefill(llama_session *s, int sequence, const int *tokens, int n, char *error, size_t error_size);
/* Prefills several sequences at once: sequence i gets tokens[i][0..lengths[i]). Rows of
 * all sequences share each step. Returns logits (count, vocab_size): row i is the last
 * token of sequence i. */
const float *llama_prefill_batch(llama_session *s, const int *sequences, const int *const *tokens, const int *lengths, int count,
                           char *error, size_t error_size);
/* As llama_prefill, but returns the logits after every one of the n tokens: (n, vocab_size), row i
 * the next-token logits after tokens[0 .. i] (a target model verifying n - 1 draft tokens in one
 * forward step). Valid until the next call. */
const float *llama_prefill_rows(llama_session *s, int sequence, const int *tokens, int n, char *error, size_t error_size);
/* One decode step for `count` sequences, each at its own position: token i is appended to
 * sequence sequences[i]. Returns logits (count, vocab_size), row i for sequence i. */
const float *llama_decode_batch(llama_session *s, const int *sequences, const int *tokens, int count, char *error, size_t error_size);

/* ----------------------------------------------------------------------------------
 * Sampling: greedy (temperature 0) or from softmax(logits / temperature), seeded. */

typedef struct {
    float temperature;
    uint64_t state;            /* the generator's state */
    float *probabilities;      /* (vocab_size) */
    int vocab_size;
} llama_sampler;

/* 0, or -1 with the reason in error (a temperature above 0 needs room for the probabilities). */
int llama_build_sampler(llama_sampler *sampler, int vocab_size, float temperature, uint64_t seed, char *error, size_t error_size);
void llama_free_sampler(llama_sampler *sampler);
int llama_sample(llama_sampler *sampler, const float *logits);
int llama_argmax(const float *values, int n);

/* ----------------------------------------------------------------------------------
 * The maths, plainly (reference.c: read it first). Logits after each of the n tokens (n x
 * vocab_size doubles, row p the logits that predict token p + 1), in double precision and
 * recomputed from scratch, from the transformer's weights (INT8 and INT4 read back as floats):
 * what every fast path is tested against. 0, or -1 with the reason. */
int llama_reference_forward(const llama_transformer *t, const int *tokens, int n, double *logits, char *error, size_t error_size);

/* ----------------------------------------------------------------------------------
 * The seeded generator (xorshift64*, seeded through splitmix64): weights, prompts, sampling. */

uint64_t llama_seed_generator(uint64_t seed);
uint32_t llama_random_u32(uint64_t *state);
float llama_random_unit(uint64_t *state);   /* uniform in [0, 1) */

#ifdef __cplusplus
}
#endif

#endif
