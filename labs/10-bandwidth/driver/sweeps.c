/* sweeps.c — Day 10 driver: how many times your C kernel walks each array, counted rather than
 * timed. Do not edit.
 *
 * Every page of the three arrays starts with no access allowed, so the first touch of a page
 * stops the kernel in the handler below, which notes the entry, opens that page, and closes the
 * page of the same array opened two entries before (two open pages per array, so that an access
 * that spans a page boundary can finish). A loop that walks an array once, in any order that
 * finishes with a page before it moves on, enters each of its pages once; a loop that walks it
 * twice (a = b, then a += q * c) enters each of a's pages twice; a loop that walks it in eight
 * interleaved passes enters each page eight times. For arrays far larger than the caches, each
 * entry is the page's bytes crossing the memory bus again: this is the byte count of the loop,
 * on any machine, busy or quiet. */
#include "lab.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { ARRAYS = 3, OPEN_PAGES = 2 };

static struct {
    char *start[ARRAYS];
    size_t bytes, page;
    char *open[ARRAYS][OPEN_PAGES];   /* the pages open now, the latest first */
    long long entered[ARRAYS];
} watch;
static struct sigaction before;

/* A fault inside a watched array is an entry: open the page, close the oldest open one. Any other
 * fault is not ours: the handler that was there before takes it back, and the access faults again. */
static void on_fault(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)context;
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int k = 0; k < ARRAYS; k++) {
        uintptr_t start = (uintptr_t)watch.start[k];
        if (address - start >= watch.bytes) continue;
        char *page = watch.start[k] + (address - start) / watch.page * watch.page;
        if (watch.open[k][OPEN_PAGES - 1]) mprotect(watch.open[k][OPEN_PAGES - 1], watch.page, PROT_NONE);
        memmove(&watch.open[k][1], &watch.open[k][0], (OPEN_PAGES - 1) * sizeof(char *));
        watch.open[k][0] = page;
        mprotect(page, watch.page, PROT_READ | PROT_WRITE);
        watch.entered[k]++;
        return;
    }
    sigaction(SIGSEGV, &before, NULL);
}

static char *map_array(size_t bytes)
{
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        fprintf(stderr, "sweeps.c: cannot map %zu bytes for an array\n", bytes);
        exit(1);
    }
    madvise(memory, bytes, MADV_NOHUGEPAGE);   /* one page is 4 KiB, the unit of the count */
    return memory;
}

stream_sweeps count_stream_sweeps(int kernel, size_t n)
{
    memset(&watch, 0, sizeof watch);
    watch.page = (size_t)sysconf(_SC_PAGESIZE);
    watch.bytes = (n * sizeof(double) + watch.page - 1) / watch.page * watch.page;
    for (int k = 0; k < ARRAYS; k++) watch.start[k] = map_array(watch.bytes);
    stream_arrays arrays = {(double *)watch.start[0], (double *)watch.start[1], (double *)watch.start[2], n};
    for (size_t i = 0; i < n; i++) arrays.a[i] = 1.0, arrays.b[i] = 2.0, arrays.c[i] = 0.5;

    struct sigaction handler;
    memset(&handler, 0, sizeof handler);
    handler.sa_sigaction = on_fault;
    handler.sa_flags = SA_SIGINFO;
    sigemptyset(&handler.sa_mask);
    sigaction(SIGSEGV, &handler, &before);
    for (int k = 0; k < ARRAYS; k++) mprotect(watch.start[k], watch.bytes, PROT_NONE);
    cpu_stream_run(kernel, &arrays, n);
    sigaction(SIGSEGV, &before, NULL);

    stream_sweeps sweeps = {watch.bytes / watch.page, {0, 0, 0}};
    for (int k = 0; k < ARRAYS; k++) {
        sweeps.entered[k] = watch.entered[k];
        munmap(watch.start[k], watch.bytes);
    }
    return sweeps;
}
