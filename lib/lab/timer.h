/* timer.h — timing on the host: a monotonic clock, and the median of repeated runs.
 * The median, not the mean, because one run disturbed by the OS should not move it. */
#ifndef LAB_TIMER_H
#define LAB_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

double lab_now_seconds(void);

/* The median of n values (n >= 1), which it sorts in place. */
double lab_median(double *values, int n);

/* Runs work(context) once to warm caches, then `repeats` times, and returns the median
 * time of one run in seconds. */
double lab_median_seconds(void (*work)(void *context), void *context, int repeats);

#ifdef __cplusplus
}
#endif

#endif
