/* lab.h — Day 30: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * Today you write the core of the book's performance model: a model (a row of
 * data/models.csv, or the toy engine's shape) and a machine (a row of data/gpus.csv, or this
 * CPU measured) and a workload in, and out: the memory budget and whether it fits, the FLOPs
 * and bytes of the prefill and of one decode step, their roofline bounds and which resource
 * binds each, the troubleshooting checklist as a decision table against a latency target, and the
 * largest batch that target allows. lib/perfmodel holds the
 * book's full model (tools/perfmodel); the checks compare yours with it, exactly where you
 * count the same things, and with the Day 30 article's worked numbers.
 *
 * What you count, in the conventions of lib/perfmodel (perfmodel.h):
 *   weights       every parameter once, in the weights' type (FP32 4 bytes, FP16 and BF16 2,
 *                 FP8 1). Dense models and float types only: INT8/INT4 scales and
 *                 mixture-of-experts routing are the library's.
 *   KV cache      K and V, for every layer and KV head, head_dim values each, per token.
 *   the budget    weights + the KV cache of batch x (prompt + gen) tokens. Activations are
 *                 left out (the library counts them; at most a few hundred MB here).
 *   a step reads  every matrix once however many rows it has, the norm vectors, and of the
 *                 embedding table only the rows looked up (one per row) — unless the table is
 *                 tied to the classifier, which then reads all of it anyway; plus the KV cache
 *                 the rows attend, and the KV they write.
 *   FLOPs         2 per weight of every layer matrix per row, 2 per classifier weight per row
 *                 that gets logits (a prefill: each prompt's last token), attention 4 x head_dim
 *                 per query head per position attended per layer (the token at position p of a
 *                 prompt attends p + 1 positions).
 *   a bound       the roofline: the larger of FLOPs / peak and bytes / bandwidth. */
#ifndef DAY30_LAB_H
#define DAY30_LAB_H

#include <math.h>
#include <stdint.h>

#include "llama.h"
#include "perfmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- model.c (yours): 1. the memory budget ---- */

/* Bytes of all the model's parameters stored as `type` (FP32, FP16, BF16 or FP8). */
double weights_bytes(const perfmodel_shape *m, perfmodel_dtype type);
/* Bytes of one token's K and V in every layer, stored as `type`. */
double kv_bytes_per_token(const perfmodel_shape *m, perfmodel_dtype type);

typedef struct memory_plan {
    double weights_bytes;
    double kv_bytes_per_token;
    double kv_bytes_total;     /* batch x (prompt + gen) tokens */
    double needed_bytes;       /* weights + KV cache */
    int fits;                  /* needed_bytes <= usable_bytes */
    int64_t max_batch;         /* the most sequences of prompt + gen tokens that fit beside the
                                  weights; 0 when the weights alone do not fit */
} memory_plan;
/* usable_bytes: what the book's one memory budget gives the model — the capacity less the runtime's
 * reserve, h->memory_bytes x PERFMODEL_MEMORY_UTILIZATION (lib/perfmodel/perfmodel.h says why). */
memory_plan plan_memory(const perfmodel_shape *m, const perfmodel_workload *w, double usable_bytes);

/* ---- model.c (yours): 2. the two phases, counted ---- */

typedef struct phase_cost {
    double flops, bytes;
} phase_cost;

/* Positions a decode step attends, on average over the generation: step i of the gen - 1 steps
 * attends prompt + i positions (and its own). With gen = 1 there is no step: the next one,
 * prompt + 1, is shown. */
double mean_decode_context(int prompt, int gen);
/* The prefill of the whole batch's prompts as one forward step on a GPU (batch x prompt rows,
 * one GEMM per matrix): FLOPs, and bytes = the step's weights (one embedding row per token)
 * + each token's KV, written and read back (2 x batch x prompt x kv_bytes_per_token). */
phase_cost prefill_cost(const perfmodel_shape *m, const perfmodel_workload *w);
/* One decode step of the batch at the mean context: one row per sequence; each sequence
 * reads the KV of the positions it attends and writes one more. */
phase_cost decode_step_cost(const perfmodel_shape *m, const perfmodel_workload *w);

/* ---- model.c (yours): 3. the roofline, and which resource binds ---- */

typedef struct bound {
    double seconds;            /* the least time: the larger of the two below */
    double compute_seconds;    /* FLOPs at the peak */
    double memory_seconds;     /* bytes at the bandwidth */
    int memory_bound;          /* 1 when the memory time is the longer */
} bound;
bound roofline_bound(phase_cost cost, double peak_flop_per_s, double bandwidth_byte_per_s);

/* Everything at once: the budget against the machine's memory, both phases on its roofline
 * (the peak of peak_flops_for below), TTFT = the prefill's bound, TPOT = a decode step's. */
typedef struct plan {
    memory_plan memory;
    double decode_context;
    phase_cost prefill, decode;
    bound ttft, tpot;
} plan;
plan predict(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w);

/* ---- model.c (yours): 4. the troubleshooting checklist, a decision table ---- */

typedef enum symptom {
    SYMPTOM_HIGH_TTFT_LONG_PROMPTS,       /* the first token comes late, and prompts are long */
    SYMPTOM_HIGH_TPOT_SMALL_BATCH,        /* every token comes slowly, and few sequences run */
    SYMPTOM_SLOWER_AS_CONTEXT_GROWS,      /* tokens slow down as the conversation grows */
    SYMPTOM_JITTERY_UTILISATION,          /* the GPU's utilisation jumps up and down */
    SYMPTOM_OUT_OF_MEMORY,                /* OOM, or too few sequences fit */
    SYMPTOM_THROUGHPUT_FLAT_IN_BATCH,     /* a larger batch no longer adds tokens/s */
    SYMPTOM_TPOT_SPIKES_DURING_PREFILL,   /* p99 TPOT jumps while a long prompt is prefilled */
    SYMPTOMS
} symptom;

typedef enum cause {
    CAUSE_PREFILL_COMPUTE,        /* prefill is compute-bound: FLOPs grow with the prompt */
    CAUSE_WEIGHT_BANDWIDTH,       /* decode is memory-bound: every step reads every weight */
    CAUSE_KV_BANDWIDTH,           /* decode's bytes are the KV cache's, growing with the context */
    CAUSE_LAUNCH_OVERHEAD,        /* the host cannot launch kernels as fast as they finish */
    CAUSE_KV_MEMORY,              /* the KV cache (and its fragmentation) fills the memory */
    CAUSE_NOTHING_LEFT_TO_SHARE,  /* each new sequence brings its own bytes or FLOPs: the step
                                     grows with the batch, bandwidth or compute saturated */
    CAUSE_PREFILL_STALLS_DECODE,  /* a long prompt's prefill fills a step, and every decode
                                     batched with it waits for that step */
    CAUSES
} cause;

enum fix {
    FIX_CHUNKED_PREFILL = 1 << 0,  FIX_PREFIX_CACHING = 1 << 1, FIX_LARGER_BATCH = 1 << 2,
    FIX_CONTINUOUS_BATCHING = 1 << 3, FIX_QUANTIZE_WEIGHTS = 1 << 4, FIX_FEWER_KV_HEADS = 1 << 5,
    FIX_PAGED_KV = 1 << 6, FIX_QUANTIZE_KV = 1 << 7, FIX_CUDA_GRAPHS = 1 << 8, FIX_KERNEL_FUSION = 1 << 9,
    FIX_SMALLER_BATCH = 1 << 10, FIX_TENSOR_PARALLEL = 1 << 11
};

typedef struct checklist_row {
    cause likely_cause;
    unsigned fixes;           /* FIX_... values or'ed together */
} checklist_row;

/* The row of the chapter's checklist for `s`. */
checklist_row checklist(symptom s);

/* The symptoms a prediction already shows against a service-level target (lib/perfmodel's
 * perfmodel_targets: a TTFT and a TPOT budget), as a bitmask (1u << SYMPTOM_...). A row about a
 * latency is a symptom only when its target is missed (a target met exactly is met):
 *   out of memory                   the budget does not fit
 *   high TPOT at a small batch      TPOT misses its target, decode is memory-bound and more
 *                                   sequences would fit
 *   slower as the context grows     TPOT misses its target, decode is memory-bound and the KV cache
 *                                   is more than 30 % of its step's bytes
 *   throughput flat in the batch    decode is compute-bound (a throughput symptom: no latency target)
 *   high TTFT on long prompts       TTFT misses its target and prefill is compute-bound
 * (Jittery utilisation and TPOT spikes during prefill never: a roofline has no timeline; only a
 * profile, or day 26's step-by-step replay, shows them.) */
unsigned predicted_symptoms(const plan *p, const perfmodel_workload *w, const perfmodel_targets *targets);

/* ---- model.c (yours): 5. the batch a TPOT target allows ---- */

/* The largest batch of the workload's sequences (prompt + gen tokens each; w->batch is not used)
 * whose TPOT bound on `h` meets `tpot_target_s` and whose budget fits: 0 when one sequence
 * already misses the target or does not fit. The chapter's two lines of the roofline give it in
 * closed form; trying batch after batch is too slow for a small model on a large card. */
int64_t largest_batch_within_tpot(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w,
                                  double tpot_target_s);

/* ---- engine.c (driver): the toy engine, measured on this CPU ---- */

/* The toy Llama's 15M shape with seeded FP32 weights (lib/llama), and its shape for the model. */
int build_toy_engine(llama_transformer *t, perfmodel_shape *shape, char *error, size_t error_size);
/* The median seconds of one decode step of `batch` sequences, each prefilled with `prompt`
 * tokens first: `rounds` rounds of `steps` steps, timed by this thread's CPU time (what the
 * engine costs, not the time other programs hold the core). The steps attend prompt + 1 to
 * prompt + rounds x steps positions: the mean context of gen = rounds x steps + 1.
 * Returns a negative value with the engine's complaint in `error`. */
double measure_decode_step(const llama_transformer *t, int batch, int prompt, int rounds, int steps, char *error, size_t error_size);
/* The median seconds of the prefill of one `prompt`-token sequence, over `rounds` runs. */
double measure_prefill(const llama_transformer *t, int prompt, int rounds, char *error, size_t error_size);

/* ---- helpers (driver) ---- */

/* The peak a workload's matrix products run at, as lib/perfmodel chooses it: on a CPU its FP32
 * FMA peak (the engine computes in FP32); on a GPU the tensor cores of the weights' type
 * (FP16 where the GPU has no BF16 or FP8 ones), and FP32 weights on the CUDA cores. */
static inline double peak_flops_for(const perfmodel_hardware *h, perfmodel_dtype weights)
{
    if (h->is_cpu || weights == DTYPE_FP32) return h->fp32_flops;
    if (weights == DTYPE_BF16 && !isnan(h->bf16_tensor_flops)) return h->bf16_tensor_flops;
    if (weights == DTYPE_FP8 && !isnan(h->fp8_tensor_flops)) return h->fp8_tensor_flops;
    return h->fp16_tensor_flops;
}

#ifdef __cplusplus
}
#endif

#endif
