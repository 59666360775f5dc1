/* cpu.c — Day 12 driver: the CPU side's reference and baseline, and how it is timed.
 * Do not edit.
 *
 * cpu_matmul_naive is the textbook i, j, p loop (day 01's): its innermost loop walks down a
 * column of B, n floats apart, so every multiply-add touches a new cache line. The reference
 * is computed in double precision, so that the rounding of the code under test is what the
 * bound measures. Timing runs the functions in turn inside each repeat and keeps each one's
 * best (the first repeat also warms the caches and the page tables, and is beaten later), so
 * that a ratio of two of them holds on a machine other jobs share. */
#include "lab.h"
#include "timer.h"

#include <math.h>
#include <stdlib.h>

void cpu_matmul_naive(const float *a, const float *b, float *c, int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int p = 0; p < k; p++) sum += a[i * k + p] * b[p * n + j];   // b: one column, k rows apart
            c[i * n + j] = sum;
        }
}

void fill_matrix(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) % 2000001) / 1e6f - 1.0f;
    }
}

double matmul_reference(const float *a, const float *b, float *want, int m, int n, int k)
{
    double u = ldexp(1.0, -24), largest_magnitude = 0, largest_value = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0, magnitude = 0;
            for (int p = 0; p < k; p++) {
                double product = (double)a[i * k + p] * b[p * n + j];
                sum += product, magnitude += fabs(product);
            }
            want[i * n + j] = (float)sum;
            largest_magnitude = fmax(largest_magnitude, magnitude);
            largest_value = fmax(largest_value, fabs(sum));
        }
    return k * u / (1 - k * u) * largest_magnitude + u * largest_value;
}

void cpu_time_side_by_side(const cpu_matmul *functions, int count, int n, int repeats, double *best_seconds)
{
    size_t elements = (size_t)n * n;
    float *a = malloc(sizeof(float) * elements), *b = malloc(sizeof(float) * elements);
    float *c = malloc(sizeof(float) * elements);
    fill_matrix(a, elements, 1), fill_matrix(b, elements, 2);
    for (int f = 0; f < count; f++) best_seconds[f] = INFINITY;
    for (int r = 0; r < repeats; r++)
        for (int f = 0; f < count; f++) {
            double start = lab_now_seconds();
            functions[f](a, b, c, n, n, n);
            double seconds = lab_now_seconds() - start;
            if (seconds < best_seconds[f]) best_seconds[f] = seconds;
        }
    free(a), free(b), free(c);
}
