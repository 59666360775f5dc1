/* lab.h — Day 27: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * One decode step of a batch of B sequences, each attending `context` cached positions, as
 * the roofline sees it (lib/perfmodel counts it the same way, perfmodel.h):
 *
 *   FLOPs  B x (flops_per_token + attention_flops_per_position x context)
 *   bytes  weight_bytes                                   read once, whatever B is
 *          + B x token_bytes                              each token's embedding row
 *          + B x (context + 1) x kv_bytes_per_position    each sequence reads its own cache
 *                                                         and writes one new position
 *   time   max(FLOPs / peak, bytes / bandwidth)           the roofline: the two overlap
 *
 * TPOT is that time (every sequence of the batch gets one token a step); the batch's tokens
 * per second are B / TPOT. The knee is the batch at which the compute time catches up with
 * the memory time: below it the step is memory-bound and TPOT barely moves, above it TPOT
 * grows in proportion to B. */
#ifndef DAY27_LAB_H
#define DAY27_LAB_H

#include <time.h>

#include "llama.h"
#include "perfmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A model's decode step, per piece (built from a shape by decode_model_of, model.c). */
typedef struct decode_model {
    double weight_bytes;                  /* read once a step: every layer matrix, the classifier, the norms */
    double token_bytes;                   /* read once per token of the batch: its embedding row (0 when tied) */
    double flops_per_token;               /* 2 x the matrix values one token multiplies, the classifier included */
    double attention_flops_per_position;  /* 4 x head_dim x query heads x layers, per position attended */
    double kv_bytes_per_position;         /* one position's keys and values, every layer */
} decode_model;

/* A machine as the roofline sees it, in base units. */
typedef struct machine {
    double peak_flop_per_s;
    double bandwidth_byte_per_s;
} machine;

/* ---- batch.c (yours): 1. the predicted step ---- */

/* FLOPs and bytes of one decode step of `batch` sequences, each attending `context` positions. */
double step_flops(const decode_model *m, int batch, double context);
double step_bytes(const decode_model *m, int batch, double context);
/* The roofline's TPOT: the least time that step can take on `hw`. */
double predicted_tpot(const decode_model *m, const machine *hw, int batch, double context);
/* The batch's tokens per second at that TPOT. */
double predicted_tokens_per_s(const decode_model *m, const machine *hw, int batch, double context);

/* ---- batch.c (yours): 2. the knee, in closed form ---- */

/* The batch (a real number) at which the step's compute time equals its memory time, KV
 * traffic and attention included. INFINITY when there is none: when one more sequence adds
 * more memory time than compute time, the step stays memory-bound at every batch. */
double knee_batch(const decode_model *m, const machine *hw, double context);

/* ---- batch.c (yours): 3. batched decode on the engine, timed ---- */

typedef struct decode_run {
    const char *error;          /* NULL, or what the engine refused (its error text) */
    double seconds_per_step;    /* this thread's CPU time (lab_thread_seconds) over the steps, per step */
} decode_run;

/* `steps` decode steps of sequences 0 .. batch-1 of session `s` together, one forward step
 * each: tokens[i] is the token appended to sequence i; after each step tokens[i] becomes the
 * greedy choice (llama_argmax) of sequence i's logits, so that the sequences go on generating. */
decode_run decode_steps(llama_session *s, int batch, int steps, int *tokens);

/* ---- model.c (driver) ---- */

/* The decode_model of a dense row of data/models.csv (or an engine shape), counted as
 * lib/perfmodel counts it, with weights and KV cache stored as `weights` and `kv` (FP32, FP16
 * or BF16: no group scales). */
decode_model decode_model_of(const perfmodel_shape *shape, perfmodel_dtype weights, perfmodel_dtype kv);
/* A row of data/gpus.csv, or this CPU measured (perfmodel_measure_cpu), as the roofline sees
 * it for `shape` with weights of type `weights`: the peak and bandwidth perfmodel_estimate
 * uses (FP16 Tensor Cores for FP16 weights on a GPU, the measured FMA peak on a CPU). */
machine machine_of(const perfmodel_shape *shape, const perfmodel_hardware *h, perfmodel_dtype weights);

/* ---- helpers (driver) ---- */

/* This thread's CPU time, in seconds: what the probes time by, so that other programs holding
 * the core for a while do not count. */
static inline double lab_thread_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

#ifdef __cplusplus
}
#endif

#endif
