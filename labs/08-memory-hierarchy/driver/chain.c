/* chain.c — Day 08 driver: the buffers the chase runs over, your cycle laid into them, one
 * latency measurement, and the working sets of a sweep. Do not edit.
 *
 * The buffer is allocated once at the largest size and reused: 2 MiB aligned, with huge pages
 * asked for. Where the OS grants them and nothing beneath it splits them again, a random walk
 * over 256 MiB needs 128 TLB entries instead of 65 536 and the curve shows the caches rather than
 * page walks; a virtual machine's host may back each huge page with small pages of its own, and
 * then the TLB holds 4 KiB translations whatever the guest asked for. Every line is written
 * before a chase starts, so no page fault lands inside a timed run. */
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "compare.h"

enum { HUGE_PAGE_BYTES = 2 << 20 };

chase_line *chase_lines_new(size_t max_bytes)
{
    size_t bytes = (max_bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    void *memory = NULL;
    if (posix_memalign(&memory, HUGE_PAGE_BYTES, bytes) != 0) return NULL;
    madvise(memory, bytes, MADV_HUGEPAGE);   /* a request: where huge pages are off, 4 KiB pages it is */
    memset(memory, 0, bytes);
    return memory;
}

void chase_lines_free(chase_line *lines) { free(lines); }

uint32_t chase_lines_fill(chase_line *lines, size_t bytes, uint64_t seed, char *why, size_t why_size)
{
    uint32_t count = (uint32_t)(bytes / CHASE_LINE_BYTES);
    uint32_t *next = malloc(sizeof(uint32_t) * count);
    why[0] = 0;
    if (!next || count == 0) {
        snprintf(why, why_size, "no memory for a cycle of %u lines", count);
        free(next);
        return 0;
    }
    lab_poison(next, sizeof(uint32_t) * count);   /* 0xffffffff: never written */
    make_random_cycle(next, count, seed);
    for (uint32_t i = 0; i < count; i++) {
        if (next[i] >= count) {
            if (next[i] == 0xffffffffu)
                snprintf(why, why_size, "make_random_cycle(count = %u) never wrote next[%u]", count, i);
            else
                snprintf(why, why_size, "make_random_cycle(count = %u) wrote next[%u] = %u, outside 0 .. %u", count,
                         i, next[i], count - 1);
            free(next);
            return 0;
        }
        lines[i].next = next[i];
    }
    free(next);
    return count;
}

double measure_latency_ns(chase_line *lines, size_t bytes, uint64_t seed, char *why, size_t why_size)
{
    uint32_t count = chase_lines_fill(lines, bytes, seed, why, why_size);
    return count ? chase_latency_ns(lines, count) : NAN;
}

int sweep_working_sets(double *bytes, int max_points, size_t smallest, size_t largest)
{
    int points = 0;
    for (int step = 0; points < max_points; step++) {
        double size = floor((double)smallest * pow(2.0, step / 2.0) / CHASE_LINE_BYTES) * CHASE_LINE_BYTES;
        if (size > (double)largest * 1.0001) break;
        bytes[points++] = size;
    }
    return points;
}
