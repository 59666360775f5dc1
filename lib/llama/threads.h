/* threads.h — inside the engine: a pool of worker threads that run one task together, each
 * thread taking its share. The forward pass calls it several times per layer, so a call
 * costs a few hundred nanoseconds (workers spin between tasks) instead of a thread start. */
#ifndef LLAMA_THREADS_H
#define LLAMA_THREADS_H

#include "llama.h"

/* A task: do share `thread` of `threads` of the work described by `context`. */
typedef void (*llama_parallel_task)(void *context, int thread, int threads);

/* threads >= 2 (the calling thread is one of them); NULL when out of resources. */
llama_thread_pool *llama_build_thread_pool(int threads);
void llama_free_thread_pool(llama_thread_pool *pool);
/* Runs task on every thread of the pool (or once, on the caller, when pool is NULL) and
 * returns when all shares are done. */
void llama_run_parallel(llama_thread_pool *pool, llama_parallel_task task, void *context);

/* The share [*first, *last) of `count` items for one thread, in whole multiples of `grain`. */
void llama_share_of(int count, int grain, int thread, int threads, int *first, int *last);

#endif
