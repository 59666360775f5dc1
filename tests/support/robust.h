/* robust.h — the checks that follow the code from day to day. A hazard taught on one day (a softmax
 * without its max subtracted, a hard-coded eps, 32-bit offsets, shared scratch under two threads, a
 * refusal that changes state) returns wherever the same code returns, so the days' tests share these
 * helpers instead of each testing it once. Linked into every day's tests. */
#ifndef LAB_TEST_ROBUST_H
#define LAB_TEST_ROBUST_H

#include <stddef.h>
#include <stdint.h>

/* Scores a softmax must survive: base + i/n for i < n, so that expf overflows (base > 88.7) or
 * underflows to 0 for every entry (base < -103.9) unless the row's maximum is subtracted first. */
void lab_fill_large_scores(float *scores, int n, float base);

/* softmax(scores) in double, maximum subtracted: the reference a float softmax is held to. */
void lab_softmax_reference(const float *scores, int n, double *probabilities);

/* The largest |got[i] - want[i]| over n entries, and its index in *where (NULL to ignore);
 * NaN anywhere in got counts as infinitely far. */
double lab_max_abs_error(const float *got, const double *want, int n, int *where);

/* A count or an offset past 2^31 computed in 32 bits (an int product widened after, or an unsigned)
 * keeps its low 32 bits and loses the rest: 1 when got differs from want but agrees with it modulo
 * 2^32, so that a message can say so. Both are whole numbers (a wrapped int is negative: pass it as it
 * came, signed); anything else is 0. */
int lab_wrapped_in_32_bits(double got, double want);

/* eps values a normalisation must use as it is given them: a hard-coded 1e-5 fails on the others. */
#define LAB_EPS_COUNT 4
extern const float lab_eps_values[LAB_EPS_COUNT];

/* Calls work(first) on one thread and work(second) on another, released together at a barrier, over
 * and over: each thread goes on until both have made `calls` calls, so the two overlap for the slower
 * one's whole run however the scheduler places them (on a single free core, a switch in mid-call is
 * then all but certain). work returns 0 while its answer equals the one it gives alone, nonzero at the
 * first that does not, which stops both threads. Returns -1 when the threads could not be started,
 * else the first nonzero work returned, or 0. */
int lab_run_on_two_threads(int (*work)(void *), void *first, void *second, int calls);

/* "Refused with nothing changed": a copy of n bytes taken before the call ... */
typedef struct {
    const void *at;
    void *copy;
    size_t size;
} lab_snapshot;
lab_snapshot lab_snapshot_take(const void *at, size_t size);
/* ... and after it, the offset of the first byte that differs, or -1 when none does (the copy is freed). */
long lab_snapshot_first_change(lab_snapshot snapshot);

/* A hash (FNV-1a) of `bytes` bytes at `data`, chained through `h` (start with 1): equal before and after a
 * call that only reads them. For inputs a test rebuilds its expected answer from after the call, so that the
 * answer is not in memory while the code runs, and an answer made by changing the inputs is caught. */
uint64_t lab_fingerprint(const void *data, size_t bytes, uint64_t h);

/* A cost held as a bound: more bytes than the reference fails, saying by how much and, in if_more,
 * what that usually means; fewer passes, with a note on stderr that the code beat the reference. */
void lab_expect_bytes_at_most(const char *what, double counted, double reference, const char *if_more);

/* A check that times this machine's caches, memory or pipelines means nothing under an emulator, which
 * runs one instruction after another with memory as fast as anything (make test-arm64 sets LAB_EMULATED):
 * there the test is skipped, saying what is measured only on a real machine; the answers stay checked by
 * the other tests. Anywhere else it returns and the timing runs. */
void lab_skip_timing_under_emulator(const char *what_is_measured);

#endif
