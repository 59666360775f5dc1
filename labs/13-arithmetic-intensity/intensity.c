/* intensity.c — Day 13: how many FLOPs each operator of a Transformer does for each byte it
 * must move. The ratio, arithmetic intensity, decides whether the operator waits for memory
 * or for arithmetic (day 14's roofline); today you count both sides of it, then predict where
 * a GEMM crosses a GPU's ridge point.
 *
 * What you write today, in the order of lab.h (whose comments fix every counting convention):
 *   1. dtype_bytes: the size of one element of each type.
 *   2. The cost of each operator, FLOPs and compulsory bytes (every input read once, every
 *      output written once): elementwise_cost, reduction_cost, gemv_cost, gemm_cost,
 *      softmax_cost, rmsnorm_cost, layernorm_cost, attention_scores_cost and
 *      attention_values_cost.
 *   3. least_m_reaching_ridge: the prediction. From the GEMM's intensity as the chapter
 *      rewrites it, the least M that reaches a ridge point; the driver then searches your
 *      gemm_cost for it and prints the two side by side.
 *
 * Rules: plain C, no libraries. The tests compare each count exactly with one made by hand:
 * small shapes, Llama-2-7B's decode (M = 1) and prefill (M = 2048), Llama-2-70B's grouped
 * heads, and counts past 2^31 and 2^24.
 *
 * Check:  make check DAY=13        Stuck?  make hint DAY=13
 */
#include "lab.h"

#include <math.h>

double dtype_bytes(dtype type)
{
    // TODO: the bytes one element of `type` occupies in memory (lab.h lists them). Not every
    //       size is a whole number of bytes; a value that is none of the six types has no
    //       size at all: NAN.
    (void)type;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Each cost is two numbers, counted apart: the FLOPs of the operator's arithmetic, and the
 * bytes of the tensors it reads and writes, each counted once. */

op_cost elementwise_cost(long long n, int inputs, int flops_per_element, dtype type)
{
    // TODO: the cost of out = f(in_1, ..., in_inputs) over n elements (lab.h). Idea: each
    //       element is used once, so no n makes this anything but memory-bound.
    (void)n, (void)inputs, (void)flops_per_element, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost reduction_cost(long long n, dtype type)
{
    // TODO: the cost of summing n elements into one (lab.h), for every n >= 0: a count of
    //       FLOPs is never negative.
    (void)n, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost gemv_cost(long long n, long long k, dtype type)
{
    // TODO: the cost of y = W x (lab.h). Idea: decode is this product, each weight used once.
    (void)n, (void)k, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost gemm_cost(long long m, long long n, long long k, dtype type)
{
    // TODO: the cost of C = A B (lab.h). Sizes reach tens of thousands, so their products
    //       pass what an int holds. Idea: every weight fetched serves m rows: reuse.
    (void)m, (void)n, (void)k, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost softmax_cost(long long rows, long long cols, dtype type)
{
    // TODO: the cost of a stable softmax over each row (lab.h's FLOPs per element). Idea: the
    //       row's max and sum stay on the chip; only the row in and the row out are traffic.
    (void)rows, (void)cols, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost rmsnorm_cost(long long rows, long long hidden, dtype type)
{
    // TODO: the cost of RMSNorm over `rows` rows (lab.h: FLOPs per element and per row). Idea:
    //       the weight vector is one tensor that every row shares.
    (void)rows, (void)hidden, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost layernorm_cost(long long rows, long long hidden, dtype type)
{
    // TODO: the cost of LayerNorm, as RMSNorm with lab.h's counts for it and its two shared
    //       vectors.
    (void)rows, (void)hidden, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost attention_scores_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type)
{
    // TODO: the cost of S = Q K^T for one sequence (lab.h): every query against every key, no
    //       mask, also when queries = keys. Count each tensor as it is stored. Idea: with
    //       grouped-query heads each key serves several queries.
    (void)queries, (void)keys, (void)heads, (void)kv_heads, (void)head_dim, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost attention_values_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type)
{
    // TODO: the cost of O = P V for one sequence (lab.h), counted as the scores are.
    (void)queries, (void)keys, (void)heads, (void)kv_heads, (void)head_dim, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

/* ---------------------------------------------------------------------------------
 * The prediction */

long long least_m_reaching_ridge(double ridge_flop_per_byte, long long n, long long k, dtype type)
{
    // TODO: the least whole M whose GEMM (M x k by k x n, in `type`) has an intensity at or
    //       above the ridge, derived from the chapter's second form of the intensity, not by
    //       trying M after M. 0 when no M reaches it. Idea: the smallest size decides.
    (void)ridge_flop_per_byte, (void)n, (void)k, (void)type;
    return 0;
}
