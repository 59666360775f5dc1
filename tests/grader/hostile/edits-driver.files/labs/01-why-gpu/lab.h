/* A hostile header: if the grader took it, flops_matmul would be a macro that is always right. */
#define flops_matmul(m, n, k) (2 * (m) * (n) * (k))
