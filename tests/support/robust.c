/* robust.c — the shared robustness checks' helpers (robust.h). */
#include "robust.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lab_wrapped_in_32_bits(double got, double want)
{
    const double limit = 9223372036854775807.0;   /* past it a double is no int64_t */
    if (!(fabs(got) < limit && fabs(want) < limit) || got != floor(got) || want != floor(want)) return 0;
    return got != want && (uint32_t)(int64_t)got == (uint32_t)(int64_t)want;
}

const float lab_eps_values[LAB_EPS_COUNT] = {1e-5f, 1e-6f, 1e-2f, 0.5f};

void lab_fill_large_scores(float *scores, int n, float base)
{
    for (int i = 0; i < n; i++) scores[i] = base + (float)i / (float)n;
}

void lab_softmax_reference(const float *scores, int n, double *probabilities)
{
    double max = scores[0], sum = 0;
    for (int i = 1; i < n; i++) max = scores[i] > max ? scores[i] : max;
    for (int i = 0; i < n; i++) sum += probabilities[i] = exp((double)scores[i] - max);
    for (int i = 0; i < n; i++) probabilities[i] /= sum;
}

double lab_max_abs_error(const float *got, const double *want, int n, int *where)
{
    double worst = 0;
    int at = 0;
    for (int i = 0; i < n; i++) {
        double error = isnan(got[i]) ? INFINITY : fabs((double)got[i] - want[i]);
        if (error > worst) worst = error, at = i;
    }
    if (where) *where = at;
    return worst;
}

typedef struct {
    int (*work)(void *);
    void *argument;
    int calls;
    pthread_barrier_t *start;
    atomic_int *finished;   /* threads that have made their calls */
    atomic_int *verdict;    /* the first nonzero work returned */
} thread_task;

static void *run_task(void *raw)
{
    thread_task *task = raw;
    pthread_barrier_wait(task->start);
    for (int made = 0; atomic_load(task->verdict) == 0; ) {
        int verdict = task->work(task->argument);
        if (verdict != 0) {
            int none = 0;
            atomic_compare_exchange_strong(task->verdict, &none, verdict);
            break;
        }
        if (++made == task->calls) atomic_fetch_add(task->finished, 1);
        if (made >= task->calls && atomic_load(task->finished) == 2) break;
    }
    return NULL;
}

int lab_run_on_two_threads(int (*work)(void *), void *first, void *second, int calls)
{
    pthread_barrier_t start;
    atomic_int finished = 0, verdict = 0;
    if (calls < 1 || pthread_barrier_init(&start, NULL, 2) != 0) return -1;
    thread_task tasks[2] = {{work, first, calls, &start, &finished, &verdict},
                            {work, second, calls, &start, &finished, &verdict}};
    pthread_t thread;
    if (pthread_create(&thread, NULL, run_task, &tasks[0]) != 0) {
        pthread_barrier_destroy(&start);
        return -1;
    }
    run_task(&tasks[1]);
    pthread_join(thread, NULL);
    pthread_barrier_destroy(&start);
    return atomic_load(&verdict);
}

lab_snapshot lab_snapshot_take(const void *at, size_t size)
{
    lab_snapshot snapshot = {at, malloc(size ? size : 1), size};
    if (snapshot.copy) memcpy(snapshot.copy, at, size);
    return snapshot;
}

long lab_snapshot_first_change(lab_snapshot snapshot)
{
    long first = -1;
    if (!snapshot.copy) return 0;   // no copy could be taken: report a change rather than pass
    const unsigned char *now = snapshot.at, *then = snapshot.copy;
    for (size_t i = 0; i < snapshot.size; i++)
        if (now[i] != then[i]) { first = (long)i; break; }
    free(snapshot.copy);
    return first;
}

uint64_t lab_fingerprint(const void *data, size_t bytes, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

void lab_expect_bytes_at_most(const char *what, double counted, double reference, const char *if_more)
{
    cr_assert(counted <= reference, "%s: %.0f bytes, counted, %.2f times the reference's %.0f: more than the "
              "reference moves. %s", what, counted, counted / reference, reference, if_more);
    if (counted < reference)
        fprintf(stderr, "note: %s: %.0f bytes, counted, %.2f times the reference's %.0f: fewer than the reference "
                "moves, and still right: a cheaper route than the chapter's\n", what, counted,
                counted / reference, reference);
}

void lab_skip_timing_under_emulator(const char *what_is_measured)
{
    if (getenv("LAB_EMULATED"))
        cr_skip_test("%s is measured on a real machine, not under an emulator", what_is_measured);
}
