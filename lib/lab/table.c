/* table.c — the strict CSV reader described in table.h. */
#define _POSIX_C_SOURCE 200809L
#include "table.h"
#include "give_up.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits one line into fields in place; returns the count, or -1 for a bad quote. */
static int split_line(char *line, char **fields, int capacity)
{
    int count = 0;
    char *c = line;
    for (;;) {
        if (count == capacity) return -2;
        char *out = c;
        fields[count++] = c;
        if (*c == '"') {                      /* quoted: "" is a literal quote */
            for (c++;; c++) {
                if (*c == 0) return -1;
                if (*c == '"' && c[1] == '"') { *out++ = '"'; c++; continue; }
                if (*c == '"') { c++; break; }
                *out++ = *c;
            }
            if (*c != ',' && *c != 0) return -1;
        } else {
            while (*c && *c != ',') *out++ = *c++;
        }
        int more = *c == ',';
        *out = 0;
        if (!more) return count;
        c++;
    }
}

/* A data reader returns its failures (give_up.h): no memory is one of them, never an exit. */
lab_table *lab_table_read(const char *path, char *error, size_t error_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t capacity = 0, line_capacity = 0;
    char *line = NULL, *fields[256];
    int line_number = 0;
    ssize_t n;
    lab_table *t = lab_try_alloc(1, sizeof *t);
    if (!t || !(t->path = lab_try_strdup(path))) goto no_memory;
    while (errno = 0, (n = getline(&line, &line_capacity, f)) >= 0) {
        line_number++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        if (n == 0) continue;
        int count = split_line(line, fields, 256);
        if (count < 0) {
            snprintf(error, error_size, "%s line %d: %s", path, line_number,
                     count == -1 ? "a quoted field is not closed (or text follows its closing quote)"
                                 : "more than 256 fields");
            goto fail;
        }
        if (!t->header) {
            if (!(t->header = lab_try_alloc((size_t)count, sizeof *t->header))) goto no_memory;
            t->columns = count;
            for (int i = 0; i < count; i++)
                if (!(t->header[i] = lab_try_strdup(fields[i]))) goto no_memory;
            continue;
        }
        if (count != t->columns) {
            snprintf(error, error_size, "%s line %d: %d fields, but the header has %d (a stray comma? "
                     "quote fields that contain commas)", path, line_number, count, t->columns);
            goto fail;
        }
        if ((size_t)(t->rows + 1) * (size_t)t->columns > capacity) {
            size_t wider = capacity ? 2 * capacity : 64 * (size_t)t->columns;
            char **cells = lab_try_alloc(wider, sizeof *cells);
            if (!cells) goto no_memory;
            if (t->cells) memcpy(cells, t->cells, capacity * sizeof *cells);
            free(t->cells);
            t->cells = cells, capacity = wider;
        }
        char **row = t->cells + (size_t)t->rows * (size_t)t->columns;
        for (int i = 0; i < count; i++)
            if (!(row[i] = lab_try_strdup(fields[i]))) {
                while (i-- > 0) free(row[i]), row[i] = NULL;
                goto no_memory;
            }
        t->rows++;
    }
    if (errno == ENOMEM) goto no_memory;   /* getline could not grow its line: not the end of the file */
    free(line);
    fclose(f);
    if (!t->header) {
        snprintf(error, error_size, "%s is empty: it needs a header row", path);
        lab_table_free(t);
        return NULL;
    }
    return t;
no_memory:
    snprintf(error, error_size, "out of memory reading %s", path);
fail:
    free(line);
    fclose(f);
    lab_table_free(t);
    return NULL;
}

lab_table *lab_table_read_or_exit(const char *path)
{
    char error[512];
    lab_table *t = lab_table_read(path, error, sizeof error);
    if (!t) {
        fprintf(stderr, "%s\n", error);
        exit(EXIT_FAILURE);
    }
    return t;
}

void lab_table_free(lab_table *t)
{
    if (!t) return;
    for (int i = 0; t->header && i < t->columns; i++) free(t->header[i]);
    for (size_t i = 0; i < (size_t)t->rows * (size_t)t->columns; i++) free(t->cells[i]);
    free(t->header);
    free(t->cells);
    free(t->path);
    free(t);
}

int lab_table_column(const lab_table *t, const char *column)
{
    for (int i = 0; i < t->columns; i++)
        if (strcmp(t->header[i], column) == 0) return i;
    return -1;
}

const char *lab_table_text_or_exit(const lab_table *t, int row, const char *column)
{
    int c = lab_table_column(t, column);
    if (c < 0 || row < 0 || row >= t->rows) {
        fprintf(stderr, "%s has no %s %s\n", t->path, c < 0 ? "column" : "row for column", column);
        exit(EXIT_FAILURE);
    }
    return t->cells[(size_t)row * (size_t)t->columns + (size_t)c];
}

double lab_table_number_or_exit(const lab_table *t, int row, const char *column)
{
    const char *text = lab_table_text_or_exit(t, row, column);
    const lab_domain *domain = lab_data_domain(t->path, column);
    char error[512];
    double value;
    if (domain) {   /* a column of the book's data: its domain says what may be there, empty included */
        if (lab_table_checked_number(t, row, column, domain, &value, error, sizeof error) != 0) {
            fprintf(stderr, "%s\n", error);
            exit(EXIT_FAILURE);
        }
        return value;
    }
    if (*text == 0) return NAN;
    char *end;
    value = strtod(text, &end);
    if (*end != 0) {
        fprintf(stderr, "%s, data row %d, column %s: '%s' is not a number\n", t->path, row + 1, column, text);
        exit(EXIT_FAILURE);
    }
    return value;
}

int lab_table_checked_number(const lab_table *t, int row, const char *column, const lab_domain *domain, double *value,
                             char *error, size_t error_size)
{
    int c = lab_table_column(t, column);
    if (c < 0 || row < 0 || row >= t->rows) {
        snprintf(error, error_size, "%s has no %s %s", t->path, c < 0 ? "column" : "row for column", column);
        return -1;
    }
    const char *text = t->cells[(size_t)row * (size_t)t->columns + (size_t)c];
    const char *name = t->cells[(size_t)row * (size_t)t->columns];
    char *end = NULL;
    double v = *text ? strtod(text, &end) : NAN;
    int ok = *text ? *end == 0 && isfinite(v) && v >= domain->low && v <= domain->high && (!domain->whole || v == floor(v))
                   : domain->may_be_empty;
    if (!ok) {
        snprintf(error, error_size, "%s, data row %d (%s), column %s: '%s' is not %s %s from %.17g to %.17g%s", t->path,
                 row + 1, name, column, text, domain->whole ? "a whole number of" : "a number of", domain->meaning,
                 domain->low, domain->high, domain->may_be_empty ? ", or empty" : "");
        return -1;
    }
    *value = v;
    return 0;
}

int lab_table_find(const lab_table *t, const char *column, const char *value)
{
    int c = lab_table_column(t, column);
    if (c < 0) return -1;
    for (int r = 0; r < t->rows; r++)
        if (strcmp(t->cells[(size_t)r * (size_t)t->columns + (size_t)c], value) == 0) return r;
    return -1;
}

const char *lab_data_path(const char *file_name)
{
    static char path[1024];
    const char *dir = getenv("LAB_DATA_DIR");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "data", file_name);
    return path;
}
