/* give_up.c — lib/lab's memory (give_up.h says how the library gives up). */
#include "give_up.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *lab_alloc_or_exit(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu x %zu bytes)\n", count, size);
        exit(EXIT_FAILURE);
    }
    return p;
}

char *lab_strdup_or_exit(const char *text)
{
    size_t bytes = strlen(text) + 1;
    return memcpy(lab_alloc_or_exit(bytes, 1), text, bytes);
}

void *lab_try_alloc(size_t count, size_t size) { return calloc(count ? count : 1, size ? size : 1); }

char *lab_try_strdup(const char *text)
{
    size_t bytes = strlen(text) + 1;
    char *copy = lab_try_alloc(bytes, 1);
    return copy ? memcpy(copy, text, bytes) : NULL;
}
