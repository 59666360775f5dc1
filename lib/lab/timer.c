/* timer.c — the host timer described in timer.h. */
#define _POSIX_C_SOURCE 200809L
#include "timer.h"
#include "give_up.h"

#include <stdlib.h>
#include <time.h>

double lab_now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double lab_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double lab_median_seconds(void (*work)(void *context), void *context, int repeats)
{
    if (repeats < 1) repeats = 1;
    double *times = lab_alloc_or_exit((size_t)repeats, sizeof *times);
    work(context);
    for (int i = 0; i < repeats; i++) {
        double start = lab_now_seconds();
        work(context);
        times[i] = lab_now_seconds() - start;
    }
    double median = lab_median(times, repeats);
    free(times);
    return median;
}
