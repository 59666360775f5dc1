/* intensity.c — Day 13: how many FLOPs each operator of a Transformer does for each byte it
 * must move. The ratio, arithmetic intensity, decides whether the operator waits for memory
 * or for arithmetic (day 14's roofline); today you count both sides of it.
 *
 * What you write today, in the order of lab.h (whose comments fix every convention):
 *   1. dtype_bytes: the size of one element of each type (INT4 is half a byte).
 *   2. The cost of each operator: its FLOPs and its compulsory bytes (every input read once,
 *      every output written once): elementwise_cost, reduction_cost, gemv_cost, gemm_cost,
 *      softmax_cost, rmsnorm_cost, layernorm_cost, attention_scores_cost and
 *      attention_values_cost.
 *
 * Rules: plain C, no libraries; count in double (the counts of a prefill reach 10^13, past
 * what an int holds); one element type per operator, inputs and outputs alike. The tests
 * compare each count exactly with one made by hand, Llama-2-7B's decode (M = 1) and prefill
 * (M = 2048) shapes among them, and the bytes of the vector add with what the simulator counts.
 *
 * Check:  make check DAY=13        Stuck?  make hint DAY=13
 */
#include "lab.h"

#include <math.h>

double dtype_bytes(dtype type)
{
    // TODO: a switch over the six types of lab.h. Sizes are in bytes and INT4 packs two
    //       elements into one, so the answer is not always a whole number: return a double.
    //       Any other value of `type` has no size: return NAN.
    (void)type;
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Each cost is two numbers: the FLOPs, and the elements that cross the memory bus times
 * dtype_bytes(type). Count in double: (double)m * n * k, not m * n * k in an int. */

op_cost elementwise_cost(long long n, int inputs, int flops_per_element, dtype type)
{
    // TODO: `inputs` tensors of n elements are read, one of n elements is written.
    (void)n, (void)inputs, (void)flops_per_element, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost reduction_cost(long long n, dtype type)
{
    // TODO: n - 1 additions (but never fewer than none); n elements in, one out.
    (void)n, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost gemv_cost(long long n, long long k, dtype type)
{
    // TODO: y = W x, W is n x k. What does a GEMV have in common with a GEMM?
    (void)n, (void)k, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost gemm_cost(long long m, long long n, long long k, dtype type)
{
    // TODO: m x n outputs, each a dot product of length k (a multiply and an add per step).
    //       Bytes: all three matrices, A (m x k), B (k x n) and C (m x n), once each.
    (void)m, (void)n, (void)k, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost softmax_cost(long long rows, long long cols, dtype type)
{
    // TODO: lab.h counts 5 FLOPs per element; the input is read once, the output written once.
    (void)rows, (void)cols, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost rmsnorm_cost(long long rows, long long hidden, dtype type)
{
    // TODO: FLOPs per element and per row as lab.h lists them. Bytes: x in, y out, and the
    //       weight vector, which every row shares.
    (void)rows, (void)hidden, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost layernorm_cost(long long rows, long long hidden, dtype type)
{
    // TODO: as RMSNorm, with lab.h's counts for LayerNorm and two shared vectors, gamma and beta.
    (void)rows, (void)hidden, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost attention_scores_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type)
{
    // TODO: one GEMM per query head: (queries x head_dim) times (head_dim x keys). Count the
    //       bytes of each tensor as it is stored: how many K heads are there?
    (void)queries, (void)keys, (void)heads, (void)kv_heads, (void)head_dim, (void)type;
    op_cost cost = {0, 0};
    return cost;
}

op_cost attention_values_cost(long long queries, long long keys, int heads, int kv_heads, int head_dim, dtype type)
{
    // TODO: one GEMM per query head: (queries x keys) times (keys x head_dim).
    (void)queries, (void)keys, (void)heads, (void)kv_heads, (void)head_dim, (void)type;
    op_cost cost = {0, 0};
    return cost;
}
