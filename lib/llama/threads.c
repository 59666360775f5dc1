/* threads.c — the worker pool of threads.h.
 *
 * A task is published by bumping `generation`; workers waiting for it spin for a while
 * (a decode step publishes dozens of tasks a millisecond) and then sleep on a condition
 * variable, so an idle pool costs no CPU. The caller runs share 0 itself and then waits
 * for `pending` to reach zero. All atomics are sequentially consistent: the proof that no
 * wake-up is lost (a worker either sees the new generation before sleeping or is counted
 * in `sleeping` before the publisher looks) relies on it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { SPINS_BEFORE_SLEEP = 200000 };

struct llama_thread_pool {
    int threads;
    pthread_t *workers;
    llama_parallel_task task;
    void *context;
    atomic_uint generation;     /* bumped once per task */
    atomic_int pending;         /* workers still running the current task */
    atomic_int sleeping;        /* workers waiting on `wake` */
    atomic_int stopping;
    pthread_mutex_t lock;
    pthread_cond_t wake;
};

typedef struct {
    llama_thread_pool *pool;
    int thread;
} WorkerStart;

/* ----------------------------------------------------------------------------------
 * A worker: wait for a new generation, run its share, report, repeat */

static unsigned wait_for_task(llama_thread_pool *pool, unsigned seen)
{
    for (int spin = 0; spin < SPINS_BEFORE_SLEEP; spin++) {
        unsigned now = atomic_load(&pool->generation);
        if (now != seen) return now;
        if (spin % 64 == 63) sched_yield();   /* more threads than cores must still progress */
    }
    pthread_mutex_lock(&pool->lock);
    atomic_fetch_add(&pool->sleeping, 1);
    while (atomic_load(&pool->generation) == seen) pthread_cond_wait(&pool->wake, &pool->lock);
    atomic_fetch_sub(&pool->sleeping, 1);
    pthread_mutex_unlock(&pool->lock);
    return atomic_load(&pool->generation);
}

static void *run_worker(void *argument)
{
    WorkerStart start = *(WorkerStart *)argument;
    free(argument);
    llama_thread_pool *pool = start.pool;
    unsigned seen = 0;
    for (;;) {
        seen = wait_for_task(pool, seen);
        if (atomic_load(&pool->stopping)) return NULL;
        pool->task(pool->context, start.thread, pool->threads);
        atomic_fetch_sub(&pool->pending, 1);
    }
}

/* ----------------------------------------------------------------------------------
 * The pool */

static void publish(llama_thread_pool *pool)
{
    atomic_fetch_add(&pool->generation, 1);
    if (atomic_load(&pool->sleeping) > 0) {
        pthread_mutex_lock(&pool->lock);
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->lock);
    }
}

llama_thread_pool *llama_build_thread_pool(int threads)
{
    if (threads < 2) return NULL;
    llama_thread_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->threads = threads;
    pool->workers = calloc((size_t)threads, sizeof *pool->workers);
    if (!pool->workers) {
        free(pool);
        return NULL;
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    for (int t = 1; t < threads; t++) {
        WorkerStart *start = malloc(sizeof *start);
        if (start) *start = (WorkerStart){pool, t};
        if (!start || pthread_create(&pool->workers[t], NULL, run_worker, start) != 0) {
            free(start);
            pool->threads = t;   /* stop the ones started, then give up */
            llama_free_thread_pool(pool);
            return NULL;
        }
    }
    return pool;
}

void llama_free_thread_pool(llama_thread_pool *pool)
{
    if (!pool) return;
    atomic_store(&pool->stopping, 1);
    publish(pool);
    for (int t = 1; t < pool->threads; t++) pthread_join(pool->workers[t], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    free(pool->workers);
    free(pool);
}

void llama_run_parallel(llama_thread_pool *pool, llama_parallel_task task, void *context)
{
    if (!pool) {
        task(context, 0, 1);
        return;
    }
    pool->task = task;
    pool->context = context;
    atomic_store(&pool->pending, pool->threads - 1);
    publish(pool);
    task(context, 0, pool->threads);
    for (int spin = 0; atomic_load(&pool->pending) > 0; spin++)
        if (spin % 64 == 63) sched_yield();
}

void llama_share_of(int count, int grain, int thread, int threads, int *first, int *last)
{
    int units = (count + grain - 1) / grain;
    int begin = (int)((long long)units * thread / threads), end = (int)((long long)units * (thread + 1) / threads);
    *first = begin * grain < count ? begin * grain : count;
    *last = end * grain < count ? end * grain : count;
}
