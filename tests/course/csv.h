/* csv.h — the course tests' own CSV reader (tests/course/recompute.c, gift_check.c): a header row,
 * fields separated by commas, quoted with "" when they hold a comma, a quote or a line break.
 * Deliberately not lib/lab's table reader: the tests check the bank without the book's code. */
#ifndef COURSE_CSV_H
#define COURSE_CSV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int count; char **fields; } Row;
typedef struct { int count; Row *rows; } Csv;

static void die(const char *message, const char *detail)
{
    fprintf(stderr, "%s%s\n", message, detail);
    exit(2);
}

static Csv read_csv(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot read ", path);
    Csv csv = {0, NULL};
    Row row = {0, NULL};
    char *field = malloc(1 << 16);
    size_t length = 0;
    int quoted = 0, c, any = 0;
    for (;;) {
        c = fgetc(f);
        if (quoted) {
            if (c == EOF) die("an unterminated quote in ", path);
            if (c == '"') {
                int next = fgetc(f);
                if (next == '"') field[length++] = '"';
                else { quoted = 0; ungetc(next, f); }
            } else field[length++] = (char)c;
            continue;
        }
        if (c == '"' && length == 0) { quoted = 1; any = 1; continue; }
        if (c == ',' || c == '\n' || c == EOF) {
            if (c == EOF && !any && length == 0 && row.count == 0) break;
            field[length] = 0;
            row.fields = realloc(row.fields, sizeof(char *) * (size_t)(row.count + 1));
            row.fields[row.count++] = strdup(field);
            length = 0;
            any = 0;
            if (c != ',') {
                csv.rows = realloc(csv.rows, sizeof(Row) * (size_t)(csv.count + 1));
                csv.rows[csv.count++] = row;
                row = (Row){0, NULL};
            }
            if (c == EOF) break;
            continue;
        }
        if (c == '\r') continue;
        field[length++] = (char)c;
        any = 1;
        if (length >= (1 << 16) - 1) die("a field too long in ", path);
    }
    fclose(f);
    free(field);
    for (int r = 1; r < csv.count; r++)
        if (csv.rows[r].count != csv.rows[0].count) die("a row with the wrong number of fields in ", path);
    return csv;
}

static const char *cell(const Csv *csv, int row, const char *column)
{
    for (int i = 0; i < csv->rows[0].count; i++)
        if (!strcmp(csv->rows[0].fields[i], column)) return csv->rows[row].fields[i];
    die("no column ", column);
    return NULL;
}

#endif
