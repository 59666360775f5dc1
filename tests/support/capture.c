/* capture.c — stderr caught for a check's message (capture.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "capture.h"

#include <stdio.h>
#include <unistd.h>

static FILE *captured;
static int saved_stderr = -1;

void lab_capture_stderr(void)
{
    fflush(stderr);
    captured = tmpfile();
    if (!captured) return;
    saved_stderr = dup(2);
    dup2(fileno(captured), 2);
}

void lab_release_stderr(char *text, size_t size)
{
    text[0] = 0;
    if (!captured) return;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(captured);
    size_t got = fread(text, 1, size - 1, captured);
    text[got] = 0;
    fclose(captured);
    captured = NULL;
    fputs(text, stderr);
}
