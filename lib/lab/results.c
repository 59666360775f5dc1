/* results.c — the CSV writer described in results.h. */
#define _POSIX_C_SOURCE 200809L
#include "results.h"
#include "give_up.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int count_fields(const char *row)
{
    int fields = 1, quoted = 0;
    for (const char *c = row; *c; c++) {
        if (*c == '"') quoted = !quoted;
        else if (*c == ',' && !quoted) fields++;
    }
    return fields;
}

static void make_parent_directories(const char *path)
{
    char *copy = lab_strdup_or_exit(path);
    for (char *slash = strchr(copy + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        mkdir(copy, 0777);
        *slash = '/';
    }
    free(copy);
}

lab_results lab_results_open_or_exit(const char *path, const char *header)
{
    make_parent_directories(path);
    lab_results r = {fopen(path, "w"), path, count_fields(header)};
    if (!r.file) {
        fprintf(stderr, "cannot write the results file %s: %s\n", path, strerror(errno));
        exit(EXIT_FAILURE);
    }
    fprintf(r.file, "%s\n", header);
    return r;
}

void lab_results_row_or_exit(lab_results *r, const char *format, ...)
{
    char row[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(row, sizeof row, format, args);
    va_end(args);
    if (count_fields(row) != r->columns) {
        fprintf(stderr, "bug in the lab driver: a row of %d fields in %s, whose header has %d: %s\n",
                count_fields(row), r->path, r->columns, row);
        exit(EXIT_FAILURE);
    }
    fprintf(r->file, "%s\n", row);
}

void lab_results_close_or_exit(lab_results *r)
{
    if (r->file && fclose(r->file) != 0) {
        fprintf(stderr, "cannot finish writing %s: %s\n", r->path, strerror(errno));
        exit(EXIT_FAILURE);
    }
    r->file = NULL;
}
