/* lab.h — Day 19: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * An engine runs a request in two phases. Prefill pushes the whole prompt through the model
 * at once: every weight matrix multiplies `prompt` rows (a GEMM, M = prompt). Decode then
 * adds one token per step: every weight matrix multiplies one row (a GEMV, M = 1), and the
 * whole model is read again for that one row. Today you run both phases on the book's toy
 * Llama (lib/llama), instrument them, and count what each computes and moves from the shape
 * alone, under the engine's own conventions (llama.h, llama_counters):
 *
 *   matmul FLOPs     2 x rows x outputs x inputs for each weight matrix a step multiplies:
 *                    per layer Wq, Wk, Wv, Wo, W1, W2, W3; the classifier (vocab x dim) only
 *                    for the rows whose logits are wanted — in a prefill, the last token's.
 *   attention FLOPs  4 x head_dim per query head, per position attended, per row and layer
 *                    (q.k and p.v); the token at position p attends positions 0 .. p.
 *   weight bytes     each weight matrix once per forward step, as stored (FP32: 4 bytes a
 *                    value; INT8: 1 byte a value plus one 4-byte scale per group_size
 *                    values), the classifier only in a step that computes logits, and the
 *                    embedding rows looked up, one per row, stored the same way.
 *   KV write bytes   each row's key and value, 2 x kv_dim x 4 bytes, per layer.
 *   KV read bytes    2 x kv_dim x 4 bytes per position attended, per row and layer (the query
 *                    heads that share a KV head share its read).
 *
 * A prefill longer than `step_rows` rows is cut into steps of step_rows rows (the last one
 * shorter); the weights are read again in every step. One sequence, starting empty. */
#ifndef DAY19_LAB_H
#define DAY19_LAB_H

#include <stdint.h>
#include <time.h>

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A model as the counts see it: its shape and how its weights are stored. */
typedef struct stored_model {
    llama_config config;
    llama_weight_format format;   /* WEIGHTS_FP32 or WEIGHTS_INT8 */
    int group_size;        /* INT8: values per FP32 scale (ignored for FP32) */
} stored_model;

/* What one phase computes and moves: llama_counters' fields, from the shape. */
typedef struct phase_counts {
    int64_t steps;            /* forward steps */
    int64_t rows;             /* token rows */
    double matmul_flops;
    double attention_flops;
    double weight_bytes;
    double kv_write_bytes;
    double kv_read_bytes;
} phase_counts;

/* ---- phases.c (yours): 1. running the two phases, instrumented ---- */

/* What one request's two phases did, measured on the engine. */
typedef struct phase_run {
    const char *error;          /* NULL, or what the engine refused (the text of its error) */
    llama_counters prefill;      /* the session's counters for the prefill alone */
    llama_counters decode;       /* ... and for the one decode step alone */
    double prefill_seconds;     /* wall-clock time of llama_prefill (lab_seconds) */
    double decode_seconds;      /* ... of llama_decode_batch */
} phase_run;

/* On session `s` (built for one sequence, sequence 0 empty): prefill `prompt` (n tokens),
 * then one decode step that appends `next`; copies that decode step's logits (vocab_size
 * floats) into decode_logits. */
phase_run run_prefill_then_decode(llama_session *s, const int *prompt, int n, int next, float *decode_logits);

/* ---- phases.c (yours): 2. the counts, from the shape ---- */

/* Bytes of `values` weight values stored in the model's format. */
double stored_weight_bytes(const stored_model *m, double values);

/* One forward step of `rows` consecutive tokens of one sequence, the first at position
 * `first_position`; `logit_rows` of them (0 or more) get logits. */
phase_counts step_counts(const stored_model *m, int first_position, int rows, int logit_rows);

/* The prefill of a prompt of `prompt` tokens into an empty sequence, in steps of at most
 * `step_rows` rows; the last token gets logits. */
phase_counts prefill_counts(const stored_model *m, int prompt, int step_rows);

/* One decode step: the token at `position` (the sequence holds `position` tokens) gets logits. */
phase_counts decode_counts(const stored_model *m, int position);

/* ---- phases.c (yours): 3. intensity ---- */

/* FLOPs (matrix products and attention) over bytes (weights, KV written, KV read). */
double phase_intensity(const phase_counts *c);

/* The chapter's estimate of prefill's intensity over decode's: both phases read the same
 * weights once (one step), so the ratio is the ratio of their matrix FLOPs — `prompt` rows
 * through every layer against one, and the classifier once in both. Attention, the KV cache
 * and the embedding rows are left out. For prompt <= step_rows. */
double intensity_ratio_estimate(const stored_model *m, int prompt);

/* ---- phases.c (yours): 4. a prediction, checked against the engine's counters ---- */

/* The shortest prompt whose prefill, run as one step, reads more bytes of KV cache than
 * `weight_bytes`, when attending one position costs `kv_bytes_per_position` (K and V, all
 * layers): row r of the step attends r + 1 positions. Returns that prompt length (1 or more),
 * or -1 when either argument is not positive. */
int kv_reads_pass_weights_at(double weight_bytes, double kv_bytes_per_position);

/* ---- helpers (driver) ---- */

/* A monotonic clock, in seconds. */
static inline double lab_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* llama_counters as a phase_counts, so that the engine's and yours compare field by field. */
static inline phase_counts counts_of(const llama_counters *c)
{
    phase_counts p = {c->steps, c->rows, c->matmul_flops, c->attention_flops, c->weight_bytes, c->kv_write_bytes,
                      c->kv_read_bytes};
    return p;
}

/* The model of a built transformer. */
static inline stored_model stored_model_of(const llama_transformer *t)
{
    stored_model m = {t->config, t->format, t->group_size};
    return m;
}

#ifdef __cplusplus
}
#endif

#endif
