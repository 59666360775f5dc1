/* perfmodel.h — the engineer's performance model: what a model costs on a machine before
 * it runs. The book builds it up over days 13–30 and this is its whole form.
 *
 *   model     a row of data/models.csv, a llama2.c checkpoint's header, or a named shape
 *   hardware  a row of data/gpus.csv, or `cpu`: this machine, measured by cpu_probes.h
 *   workload  weight and KV-cache data types, batch, prompt and generation lengths
 *   ->        memory budget (weights, KV cache, activations; fits? largest batch that fits),
 *             prefill FLOPs and time bound, decode bytes and time bound per step, TTFT,
 *             TPOT, throughput, which resource bounds each phase, what to try next.
 *
 * Every time is a roofline bound: max(FLOPs / peak FLOP/s, bytes / bandwidth) — on a CPU
 * with INT8 or INT4 weights, the compute side is also at least the time to convert each
 * weight read once to float (a ceiling measured by cpu_probes.h). The bytes
 * counted are those that must cross the memory bus at least once: each weight once per
 * forward step (a prefill is one step on a GPU; on a CPU, one longer than LLAMA_MAX_STEP_ROWS
 * tokens takes several steps, as in the book's engine), the KV cache read by attention and
 * written for new tokens; activations are assumed to stay in caches. The FLOPs are the matrix
 * multiplications' and attention's; norms, RoPE and softmax are left out (a few percent).
 *
 * Errors, the library's one way to give up: a function that can fail (an unknown model, a table
 * cell out of its domain: lab_table_checked_number) returns -1 and writes the reason, file, row
 * and column included, into `error`; none exits (tools/ci/give-up-check). */
#ifndef PERFMODEL_H
#define PERFMODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------------------
 * Data types */

typedef enum { DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8, DTYPE_INT8, DTYPE_INT4, DTYPE_COUNT } perfmodel_dtype;

/* "fp32", "fp16", ...; parse returns -1 for an unknown name */
const char *perfmodel_dtype_name(perfmodel_dtype type);
int perfmodel_parse_dtype(const char *name, perfmodel_dtype *type);
/* bytes of one element (INT4: 0.5) */
double perfmodel_dtype_bytes(perfmodel_dtype type);

/* Quantized weight formats (INT8, INT4) keep one FP32 scale per QUANT_GROUP values of a
 * row, INT4 a 1-byte zero point beside it, and their norm vectors in FP32, as the engine's
 * INT8 and INT4 do (lib/llama/quantize.c): 1.0625 and 0.578 bytes a matrix weight. */
enum { QUANT_GROUP = 64 };

/* ----------------------------------------------------------------------------------
 * The model */

typedef struct {
    char name[64];
    int layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
    int experts, experts_per_token;   /* 1 and 1 for a dense model */
    int qkv_bias, tied_embeddings;
    int max_context;                  /* seq_len when known (checkpoints, shapes), else 0 */
    int64_t listed_parameters;        /* the table's count, or -1 */
} perfmodel_shape;

/* A row of models.csv by name (case-insensitive). -1 with the known names in `error`. */
int perfmodel_load_model_shape(const char *name, perfmodel_shape *shape, char *error, size_t error_size);
/* The shape of an engine model (a checkpoint's header or a named shape). */
void perfmodel_shape_from_config(const llama_config *config, const char *name, perfmodel_shape *shape);

/* Parameters from the shape: embeddings (and the classifier when untied); per layer Q, K,
 * V, O (and Q/K/V biases), every expert's gated MLP and the router, two norms; a final norm. */
int64_t perfmodel_shape_parameters(const perfmodel_shape *m);
/* The parameters among those that are vectors, not matrices: every norm, and the Q/K/V
 * biases where the model has them (FP32 beside quantized matrices, else the matrices' type). */
int64_t perfmodel_vector_parameters(const perfmodel_shape *m);
/* Parameters in the matrices of one layer that one token multiplies by (its experts only;
 * biases and norms are vectors, not counted here). */
int64_t perfmodel_active_layer_matrix_parameters(const perfmodel_shape *m);

/* ----------------------------------------------------------------------------------
 * The hardware */

typedef struct {
    char name[64], key[32];
    int is_cpu;
    double bandwidth;             /* bytes/s */
    double memory_bytes;          /* capacity */
    /* peak FLOP/s by compute type; NaN where the hardware has none (FP8 before Hopper/Ada) */
    double fp32_flops, fp16_tensor_flops, bf16_tensor_flops, fp8_tensor_flops;
    /* CPU: FP32 FLOP/s when each weight must first be converted from int8 (the ceiling of
     * weight-only INT8; NaN for GPUs, whose tensor cores take dequantized fp16) */
    double dequantizing_flops;
    double bandwidth_working_set; /* CPU: the bytes the bandwidth was measured over */
} perfmodel_hardware;

/* A row of gpus.csv by key or name (case-insensitive). -1 with the known keys in `error`. */
int perfmodel_load_gpu(const char *name, perfmodel_hardware *hardware, char *error, size_t error_size);
/* This machine: bandwidth by STREAM's read kernel over `working_set_bytes` (the bytes a
 * decode step reads, so the cache level they land in is the one measured), peak FLOP/s
 * by the FMA-chain probe (and by the dequantizing probe for INT8 and INT4 weights),
 * capacity = physical memory. One core. */
void perfmodel_measure_cpu(perfmodel_hardware *hardware, size_t working_set_bytes);

/* ----------------------------------------------------------------------------------
 * The workload and the estimate */

typedef struct {
    perfmodel_dtype weights, kv;
    int batch, prompt, gen;
} perfmodel_workload;

/* The memory budget, one for the whole book: whatever a day says "fits" means that weights + KV
 * cache + activations fit in the capacity less a runtime reserve — the CUDA context, the libraries'
 * workspaces, the allocator's slack and what the driver keeps for itself (an "80 GB" H100 reports
 * 81 559 MiB of its 81 920). The reserve is a tenth: vLLM's default gpu_memory_utilization, 0.9.
 * The capacity is the vendor's figure, which is binary (data/gpus.csv, memory_gib). */
#define PERFMODEL_MEMORY_UTILIZATION 0.9

typedef struct {
    /* memory budget */
    double weights_bytes;
    double kv_bytes_per_token;            /* one token of one sequence */
    double kv_bytes_total;          /* batch x (prompt + gen) tokens */
    double activation_bytes;
    double total_bytes, capacity_bytes;
    double usable_bytes;            /* capacity x PERFMODEL_MEMORY_UTILIZATION */
    int fits;                       /* total_bytes <= usable_bytes */
    int64_t max_batch;              /* the largest batch whose budget fits; 0 if the weights alone do not */
    /* prefill of the whole batch's prompts */
    double prefill_flops, prefill_bytes, prefill_time_s;
    const char *prefill_bound;      /* "compute" or "memory" */
    /* one decode step of the batch, at the mean context of the generation */
    double decode_context;          /* tokens attended per sequence */
    double decode_step_flops, decode_step_bytes, decode_step_time_s;
    const char *decode_bound;
    /* what a user sees */
    double ttft_s, tpot_s, tokens_per_s, total_time_s;
    /* the roofline */
    double peak_flops, bandwidth, ridge_flop_per_byte;
    const char *compute_type;       /* which peak was used: "fp32", "fp16 tensor", ... */
    double conversion_rate;         /* CPU, int8/int4 weights: weights converted a second (else infinite) */
} perfmodel_prediction;

/* Refuses a workload that cannot be run (batch or lengths < 1, a context longer than the
 * model's) with the reason. */
int perfmodel_validate_workload(const perfmodel_shape *m, const perfmodel_workload *w, char *error, size_t error_size);
void perfmodel_estimate(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w, perfmodel_prediction *e);
/* The bytes the budget leaves for the KV cache beside the weights and the activations (negative
 * when they alone do not fit): what a paged cache's block pool may hold. */
double perfmodel_kv_room_bytes(const perfmodel_prediction *e);

/* ----------------------------------------------------------------------------------
 * Reporting */

/* A service-level target: the latencies a deployment promises its users. A checklist row about
 * a latency is a symptom only when the prediction misses that latency's target: a compute-bound
 * prefill that meets its TTFT target is not "high TTFT", it is a prefill doing its job. */
typedef struct {
    double ttft_s;   /* the first token within this */
    double tpot_s;   /* every later token within this */
} perfmodel_targets;

/* The book's default target, a common interactive one: the 99th-percentile bounds of MLPerf
 * Inference's llama2-70b-interactive server scenario (MLCommons, v5.0), a stream faster than
 * people read. Its plain server scenario is looser. */
#define PERFMODEL_INTERACTIVE_TTFT_S 0.450
#define PERFMODEL_INTERACTIVE_TPOT_S 0.040

/* The checklist's next steps for this estimate against `targets`, one line each (up to `max`
 * lines). A line that is a row of the day 30 checklist starts with the row's name in brackets:
 *   [out of memory]                 the budget does not fit
 *   [high TPOT at a small batch]    TPOT misses its target, decode is memory-bound and more sequences fit
 *   [slower as the context grows]   TPOT misses its target, decode is memory-bound and the KV cache
 *                                   is more than 30 % of a step's bytes
 *   [throughput flat in the batch]  decode is compute-bound (a throughput symptom: no latency target)
 *   [high TTFT on long prompts]     TTFT misses its target and the prefill is compute-bound
 * A target met exactly is met. Other lines (headroom below a target, the machine) carry no row. */
int perfmodel_suggest_next_steps(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w, const perfmodel_prediction *e,
                       const perfmodel_targets *targets, char lines[][256], int max);
/* `name: value unit` lines, the targets and the checklist's next steps against them last */
void perfmodel_print_estimate_text(FILE *out, const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w, const perfmodel_prediction *e,
                                   const perfmodel_targets *targets);
/* One JSON object with exactly the fields weights_bytes, llama_kv_bytes_per_token, kv_bytes_total,
 * fits, max_batch, prefill_flops, prefill_time_s, decode_step_bytes, decode_step_time_s,
 * ttft_s, tpot_s, tokens_per_s, prefill_bound, decode_bound, ridge_flop_per_byte. */
void perfmodel_print_estimate_json(FILE *out, const perfmodel_prediction *e);

#ifdef __cplusplus
}
#endif

#endif
