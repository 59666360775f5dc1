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
    switch (type) {
    case DTYPE_FP32: return 4;
    case DTYPE_FP16: return 2;
    case DTYPE_BF16: return 2;
    case DTYPE_FP8: return 1;
    case DTYPE_INT8: return 1;
    case DTYPE_INT4: return 0.5;
    default: return NAN;
    }
}

/* Every cost below is "FLOPs, and elements moved times the size of one". */
static op_cost cost_of(double flops, double elements_moved, dtype type)
{
    op_cost cost = {flops, elements_moved * dtype_bytes(type)};
    return cost;
}

op_cost elementwise_cost(long long n, int inputs, int flops_per_element, dtype type)
{
    double elements = (double)n;
    return cost_of(elements * flops_per_element, elements * (inputs + 1), type);
}

op_cost reduction_cost(long long n, dtype type)
{
    double additions = n > 1 ? (double)n - 1 : 0;
    return cost_of(additions, (double)n + 1, type);
}

op_cost gemv_cost(long long n, long long k, dtype type)
{
    return gemm_cost(1, n, k, type);   /* a GEMV is a GEMM with one row */
}

op_cost gemm_cost(long long m, long long n, long long k, dtype type)
{
    double rows = (double)m, columns = (double)n, depth = (double)k;
    double a = rows * depth, b = depth * columns, c = rows * columns;
    return cost_of(2 * rows * columns * depth, a + b + c, type);
}

op_cost softmax_cost(long long rows, long long cols, dtype type)
{
    double elements = (double)rows * (double)cols;
    return cost_of(5 * elements, 2 * elements, type);
}

op_cost rmsnorm_cost(long long rows, long long hidden, dtype type)
{
    double elements = (double)rows * (double)hidden;
    return cost_of(4 * elements + 3 * (double)rows, 2 * elements + (double)hidden, type);
}

op_cost layernorm_cost(long long rows, long long hidden, dtype type)
{
    double elements = (double)rows * (double)hidden;
    return cost_of(7 * elements + 4 * (double)rows, 2 * elements + 2 * (double)hidden, type);
}

op_cost attention_scores_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type)
{
    double q = (double)heads * (double)queries * head_dim, k = (double)kv_heads * (double)keys * head_dim;
    double scores = (double)heads * (double)queries * (double)keys;
    return cost_of(2 * scores * head_dim, q + k + scores, type);
}

op_cost attention_values_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type)
{
    double probabilities = (double)heads * (double)queries * (double)keys;
    double v = (double)kv_heads * (double)keys * head_dim, out = (double)heads * (double)queries * head_dim;
    return cost_of(2 * probabilities * head_dim, probabilities + v + out, type);
}

/* The intensity is 2 / (b (1/M + 1/n + 1/k)): it reaches the ridge r once 1/M is at most
 * 2 / (b r) - 1/n - 1/k, what the ridge leaves for the 1/M term. */
long long least_m_reaching_ridge(double ridge_flop_per_byte, long long n, long long k, dtype type)
{
    double room = 2 / (dtype_bytes(type) * ridge_flop_per_byte) - 1 / (double)n - 1 / (double)k;
    if (!(room > 0)) return 0;   /* even an endless M leaves the intensity below the ridge */
    return (long long)ceil(1 / room);   /* the least whole M with 1/M <= room; room > 0 makes it >= 1 */
}
