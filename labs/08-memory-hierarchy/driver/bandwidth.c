/* bandwidth.c — Day 08 driver: how fast one core reads a working set it streams through in
 * order, the other half of the memory mountain. Do not edit.
 *
 * A sequential read is the opposite of the chase: every address is known in advance, so the core
 * keeps many loads in flight and the prefetchers run ahead. The sum is kept in four independent
 * 16-byte vector accumulators (one would be bound by the add's latency; scalar adds would bound
 * the rate by the adds, not by the memory), and a small working set is read
 * many times over in each timed run, so that a run lasts long enough for the clock's cost not to
 * count (at least 4 MiB of reading, ~70 us from L1), and short enough that other programs rarely
 * get the core in the middle of one. */
#include "lab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { HUGE_PAGE_BYTES = 2 << 20, BYTES_PER_RUN = 4 << 20, RUNS = 5 };

static volatile uint64_t sink;   /* keeps every sum alive, so the compiler cannot drop a read */

typedef uint64_t two_words __attribute__((vector_size(16)));   /* one SSE2 register: every x86-64 has it */

/* Sums `count` words, count a multiple of 8. */
static uint64_t read_all(const uint64_t *words, size_t count)
{
    const two_words *v = (const two_words *)words;
    two_words s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
    for (size_t i = 0; i + 4 <= count / 2; i += 4) s0 += v[i], s1 += v[i + 1], s2 += v[i + 2], s3 += v[i + 3];
    two_words total = s0 + s1 + s2 + s3;
    return total[0] + total[1];
}

double read_bandwidth_gb_per_s(size_t bytes)
{
    size_t count = bytes / sizeof(uint64_t) / 8 * 8;
    if (count == 0) return -1.0;
    size_t allocated = (count * sizeof(uint64_t) + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    uint64_t *words = NULL;
    if (posix_memalign((void **)&words, HUGE_PAGE_BYTES, allocated) != 0) return -1.0;
    madvise(words, allocated, MADV_HUGEPAGE);
    for (size_t i = 0; i < count; i++) words[i] = i;   /* every page touched before timing */

    size_t passes = BYTES_PER_RUN / (count * sizeof(uint64_t));
    if (passes < 1) passes = 1;
    sink = read_all(words, count);
    double best = 1e30;
    for (int run = 0; run < RUNS; run++) {
        double start = chase_cpu_seconds();
        uint64_t total = 0;
        for (size_t pass = 0; pass < passes; pass++) {
            total += read_all(words, count);
            __asm__ volatile("" ::: "memory");   /* the words may have changed: read them again, every pass */
        }
        double elapsed = chase_cpu_seconds() - start;
        sink = total;
        if (elapsed < best) best = elapsed;
    }
    free(words);
    return (double)passes * (double)count * sizeof(uint64_t) / best / 1e9;
}
