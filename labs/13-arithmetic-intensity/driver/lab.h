/* lab.h — Day 13: the interface between your code, the driver and the tests.
 * Driver file: do not edit.
 *
 * Every function of intensity.c returns an op_cost: the FLOPs an operator performs and the
 * bytes it must move, under one convention the whole day keeps:
 *   FLOPs  a multiply and an add are two FLOPs (a fused multiply-add is two); a comparison,
 *          a division, an exponential and a square root (or reciprocal square root) are one
 *          each, as the element-wise counts below spell out.
 *   bytes  the compulsory traffic: every input tensor read from memory once and every output
 *          tensor written once, each element `dtype_bytes(type)` bytes. Nothing is read twice
 *          and nothing in between (a running sum, a row's maximum) ever leaves the chip: the
 *          least traffic any kernel could get away with, so flops / bytes is the most
 *          intensity any kernel of the operator can reach. */
#ifndef DAY13_LAB_H
#define DAY13_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- intensity.c (yours) ---- */

/* The element types of the book (the same list as lib/perfmodel). */
typedef enum dtype { DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8, DTYPE_INT8, DTYPE_INT4, DTYPE_COUNT } dtype;

/* Bytes of one element: FP32 4, FP16 and BF16 2, FP8 and INT8 1, INT4 half a byte.
 * Anything else (DTYPE_COUNT, a stray number) has no size: NaN, so that it can never pass
 * for a plausible one. */
double dtype_bytes(dtype type);

typedef struct op_cost {
    double flops;   /* floating-point operations */
    double bytes;   /* compulsory bytes: inputs read once, outputs written once */
} op_cost;

/* out[i] = f(in_1[i], ..., in_inputs[i]) for n elements: `inputs` input tensors of n
 * elements each, one output of n elements, flops_per_element FLOPs for each element.
 * (A residual add is inputs = 2, 1 FLOP; SiLU(g) x u is inputs = 2, 4 FLOPs.) */
op_cost elementwise_cost(long long n, int inputs, int flops_per_element, dtype type);

/* The sum of n elements: n - 1 additions (none for n = 0 or 1); n elements read, the one
 * sum written. */
op_cost reduction_cost(long long n, dtype type);

/* y = W x with W an n x k matrix: n dot products of length k. Reads W and x, writes y. */
op_cost gemv_cost(long long n, long long k, dtype type);

/* C = A B with A m x k, B k x n, C m x n: m x n dot products of length k. Reads A and B,
 * writes C. (For a linear layer: m tokens, k inputs, n outputs; B holds the weights.) */
op_cost gemm_cost(long long m, long long n, long long k, dtype type);

/* A softmax over each of `rows` rows of `cols` elements, the numerically stable way:
 * m = max x_j, e_j = exp(x_j - m), s = sum e_j, y_j = e_j / s. Counted per element: one
 * comparison (for the max), one subtraction, one exponential, one addition (for the sum),
 * one division — 5 FLOPs. Reads the input, writes the output. */
op_cost softmax_cost(long long rows, long long cols, dtype type);

/* RMSNorm of `rows` rows of `hidden` elements: y_j = x_j * r * w_j, r = 1 / sqrt(mean(x^2) + eps).
 * Per element 4 FLOPs (square, add to the sum, multiply by r, multiply by w_j); per row 3
 * (divide the sum by hidden, add eps, reciprocal square root). Reads x and the weight
 * vector w (hidden elements, once for all rows), writes y. */
op_cost rmsnorm_cost(long long rows, long long hidden, dtype type);

/* LayerNorm of `rows` rows: mu = mean(x), d_j = x_j - mu, v = mean(d^2),
 * y_j = d_j * r * gamma_j + beta_j with r = 1 / sqrt(v + eps). Per element 7 FLOPs (add to
 * the sum for mu, subtract mu, square, add to the sum for v, multiply by r, multiply by
 * gamma_j, add beta_j); per row 4 (two divisions by hidden, add eps, reciprocal square root).
 * Reads x, gamma and beta (hidden elements each, once for all rows), writes y. */
op_cost layernorm_cost(long long rows, long long hidden, dtype type);

/* Attention's two matrix products, for one sequence: `queries` new tokens attend to `keys`
 * tokens (keys = the context, cache included); `heads` query heads of head_dim elements
 * share kv_heads key/value heads (heads = kv_heads: multi-head attention; fewer kv_heads:
 * grouped-query attention, each K and V head serving heads / kv_heads query heads). No mask:
 * every query scores every key, in a prefill (queries = keys) as in a decode step (queries =
 * 1). A causal kernel may skip the pairs it masks; the count here is the unmasked one.
 *   scores  S = Q K^T per query head: reads Q (heads x queries x head_dim) and K (kv_heads x
 *           keys x head_dim), writes S (heads x queries x keys). The 1/sqrt(head_dim) scale is
 *           folded into Q beforehand and not counted.
 *   values  O = P V per query head, P = softmax(S): reads P (heads x queries x keys) and V
 *           (kv_heads x keys x head_dim), writes O (heads x queries x head_dim). */
op_cost attention_scores_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type);
op_cost attention_values_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type);

/* The prediction, derived before anything is searched: the least number of rows M at which
 * the GEMM (M x k) times (k x n) in `type` reaches `ridge_flop_per_byte`, its intensity
 * (gemm_cost's FLOPs over its bytes) at or above the ridge. 1 when M = 1 already reaches it;
 * 0 when no M does: as M grows the intensity only approaches a limit set by n, k and `type`. */
long long least_m_reaching_ridge(double ridge_flop_per_byte, long long n, long long k, dtype type);

/* ---- helpers (driver) ---- */

/* FLOPs per byte. */
static inline double arithmetic_intensity(op_cost cost) { return cost.flops / cost.bytes; }

static inline const char *dtype_name(dtype type)
{
    static const char *const names[DTYPE_COUNT] = {"FP32", "FP16", "BF16", "FP8", "INT8", "INT4"};
    return type >= 0 && type < DTYPE_COUNT ? names[type] : "?";
}

/* The FP16 ridge point of a GPU of data/gpus.csv, in FLOP/byte: its dense FP16 Tensor Core
 * peak (fp16_tensor_tflops) over its memory bandwidth (memory_bandwidth_gb_per_s). An
 * operator whose intensity is below it cannot keep the Tensor Cores busy: it is memory-bound. */
static inline double fp16_ridge_flop_per_byte(double fp16_tensor_tflops, double memory_bandwidth_gb_per_s)
{
    return fp16_tensor_tflops * 1e12 / (memory_bandwidth_gb_per_s * 1e9);
}

/* ---- run.cu (driver): two kernels of known access pattern, counted on the simulator ---- */
typedef struct counted_traffic {
    const char *error;      /* NULL, or the CUDA error the run ended with */
    int counted;            /* 1 on the simulator; 0 on a real GPU, which counts nothing here */
    double load_bytes;      /* 32 x the 32-byte global sectors loaded, every request counted */
    double store_bytes;     /* 32 x the sectors stored */
} counted_traffic;

/* c[i] = a[i] + b[i] over n floats, one thread per element, blocks of 256. */
counted_traffic count_vector_add(int n);
/* C = A B for m x k by k x n floats (row-major), one thread per element of C, each thread
 * reading its row of A and its column of B straight from global memory: no reuse in
 * shared memory (day 12 adds it). 16 x 16 blocks. */
counted_traffic count_naive_gemm(int m, int n, int k);

#ifdef __cplusplus
}
#endif

#endif
