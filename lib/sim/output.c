/* output.c — what kernels print (printf, and the simulator's report of a failing block), in
 * block order, however many cores run the blocks.
 *
 * When blocks run on several cores (threads.c), the oldest unfinished block writes straight
 * to stdout and stderr; every later block keeps what it writes until all blocks before it
 * have finished. So a launch prints exactly what running its blocks one after another
 * prints, as it happens for the block a sequential run would be in. When a block fails,
 * nothing after it in block order is printed: a sequential run would have stopped there.
 *
 * The kernels' printf is this file's printf: a program built by simcc links it before the C
 * library's, and host code's calls pass straight through to stdout. */
#include "internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TO_STDOUT = 1, TO_STDERR = 2 };

typedef struct finished_block { unsigned long long block; sim_output_buffer kept; } finished_block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ordering;                        /* this launch's blocks run on several cores */
static unsigned long long oldest;           /* the first block not yet finished */
static unsigned long long first_failed;     /* ULLONG_MAX while no block has failed */
static cudaError_t first_failed_error;
static finished_block *finished;            /* blocks after `oldest` that have finished, in order */
static size_t finished_count, finished_capacity;
static worker *workers[64];                 /* every worker that runs blocks */
static int worker_count;

static void write_out(int stream, const char *text, size_t bytes)
{
    fwrite(text, 1, bytes, stream == TO_STDOUT ? stdout : stderr);
}

/* Keeps `text` in the buffer: a stream byte, the length, the bytes. */
static void keep(sim_output_buffer *b, int stream, const char *text, size_t bytes)
{
    size_t need = b->bytes + 1 + sizeof bytes + bytes;
    while (need > b->capacity)
        if (sim_grow((void **)&b->data, &b->capacity, b->capacity, 1, 4096))
            sim_fatal("out of memory keeping a block's printf output until the blocks before it end");
    b->data[b->bytes] = (char)stream;
    memcpy(b->data + b->bytes + 1, &bytes, sizeof bytes);
    memcpy(b->data + b->bytes + 1 + sizeof bytes, text, bytes);
    b->bytes = need;
}

static void write_kept(sim_output_buffer *b)
{
    for (size_t at = 0; at < b->bytes;) {
        size_t bytes;
        memcpy(&bytes, b->data + at + 1, sizeof bytes);
        write_out(b->data[at], b->data + at + 1 + sizeof bytes, bytes);
        at += 1 + sizeof bytes + bytes;
    }
    b->bytes = 0;
}

static void emit(int stream, const char *text, size_t bytes)
{
    worker *w = sim_current_worker;
    if (!ordering || !w || !w->launch) {
        write_out(stream, text, bytes);
        return;
    }
    pthread_mutex_lock(&lock);
    if (w->block_number > first_failed || oldest > first_failed) {
        /* after the failed block: a sequential run would not have got here */
    } else if (w->block_number == oldest) {
        write_out(stream, text, bytes);
    } else {
        keep(&w->output, stream, text, bytes);
    }
    pthread_mutex_unlock(&lock);
}

/* Formats and emits; returns what printf returns: the length, or a negative number. */
static int vemit(int stream, const char *format, va_list args)
{
    char small[1024];
    va_list again;
    va_copy(again, args);
    int length = vsnprintf(small, sizeof small, format, args);
    if (length >= 0 && (size_t)length < sizeof small) {
        emit(stream, small, (size_t)length);
    } else if (length >= 0) {
        char *large = sim_alloc((size_t)length + 1, 1);
        vsnprintf(large, (size_t)length + 1, format, again);
        emit(stream, large, (size_t)length);
        free(large);
    }
    va_end(again);
    return length;
}

void sim_vreport(const char *format, va_list args) { vemit(TO_STDERR, format, args); }

void sim_report(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vemit(TO_STDERR, format, args);
    va_end(args);
}

/* ---------------------------------------------------------------------------------
 * The kernels' printf (clang turns some printf calls into puts or putchar) */

int vprintf(const char *format, va_list args)
{
    return ordering ? vemit(TO_STDOUT, format, args) : vfprintf(stdout, format, args);
}

int printf(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vprintf(format, args);
    va_end(args);
    return length;
}

int puts(const char *text)
{
    if (!ordering) return fputs(text, stdout) < 0 || fputc('\n', stdout) < 0 ? EOF : 1;
    emit(TO_STDOUT, text, strlen(text));
    emit(TO_STDOUT, "\n", 1);
    return 1;
}

int putchar(int c)
{
    if (!ordering) return fputc(c, stdout);
    char one = (char)c;
    emit(TO_STDOUT, &one, 1);
    return (unsigned char)c;
}

/* ---------------------------------------------------------------------------------
 * Blocks beginning and ending */

void sim_output_add_worker(worker *w)
{
    pthread_mutex_lock(&lock);
    if (worker_count == (int)(sizeof workers / sizeof workers[0])) sim_fatal("more than %d workers", worker_count);
    w->block_number = ULLONG_MAX;
    workers[worker_count++] = w;
    pthread_mutex_unlock(&lock);
}

void sim_output_begin_launch(int several_workers)
{
    ordering = several_workers;
    oldest = 0;
    first_failed = ULLONG_MAX;
    first_failed_error = cudaSuccess;
    finished_count = 0;
}

void sim_output_begin_block(worker *w, unsigned long long block)
{
    pthread_mutex_lock(&lock);
    w->block_number = block;
    w->output.bytes = 0;
    pthread_mutex_unlock(&lock);
}

/* The oldest block has finished: print the blocks after it that have finished too, in order,
 * then what the new oldest block has written so far (it writes straight out from now on). */
static void advance(void)
{
    oldest++;
    size_t passed = 0;
    while (passed < finished_count && finished[passed].block == oldest && oldest <= first_failed) {
        write_kept(&finished[passed].kept);
        free(finished[passed].kept.data);
        passed++, oldest++;
    }
    memmove(finished, finished + passed, (finished_count - passed) * sizeof *finished);
    finished_count -= passed;
    if (oldest > first_failed) return;
    for (int i = 0; i < worker_count; i++)
        if (workers[i]->block_number == oldest) write_kept(&workers[i]->output);
}

void sim_output_end_block(worker *w, cudaError_t error)
{
    pthread_mutex_lock(&lock);
    unsigned long long block = w->block_number;
    if (error != cudaSuccess && block < first_failed) {
        __atomic_store_n(&first_failed, block, __ATOMIC_RELAXED);
        first_failed_error = error;
    }
    if (!ordering || block == oldest) {
        advance();
    } else if (block <= first_failed) {
        if (sim_grow((void **)&finished, &finished_capacity, finished_count, sizeof *finished, 64))
            sim_fatal("out of memory keeping the output of finished blocks");
        size_t at = finished_count++;
        for (; at > 0 && finished[at - 1].block > block; at--) finished[at] = finished[at - 1];
        finished[at] = (finished_block){block, w->output};
        w->output = (sim_output_buffer){0};
    }
    w->block_number = ULLONG_MAX;
    pthread_mutex_unlock(&lock);
}

unsigned long long sim_output_first_failed(void) { return __atomic_load_n(&first_failed, __ATOMIC_RELAXED); }

/* The launch is over: blocks after a failed one may have finished with output; it is dropped. */
cudaError_t sim_output_end_launch(void)
{
    for (size_t i = 0; i < finished_count; i++) free(finished[i].kept.data);
    finished_count = 0;
    ordering = 0;
    return first_failed_error;
}
