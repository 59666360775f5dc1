/* table.h — reading the book's data tables (data/gpus.csv, data/models.csv, results).
 *
 * A table is a CSV file with a header row; fields may be quoted ("a, b"). Reading is
 * strict: a row with the wrong number of fields, an unterminated quote or an empty
 * file is refused with the file, the line and what to fix. Cells are looked up by
 * column name, so adding a column never breaks a reader. How lib/lab gives up: give_up.h. */
#ifndef LAB_TABLE_H
#define LAB_TABLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_table {
    char *path;
    int columns, rows;
    char **header;        /* columns names */
    char **cells;         /* rows * columns strings, row-major */
} lab_table;

/* Returns NULL and writes the reason into `error` when the file is missing or malformed. */
lab_table *lab_table_read(const char *path, char *error, size_t error_size);
/* The same, but prints the reason and exits: for drivers, where bad data ends the run. */
lab_table *lab_table_read_or_exit(const char *path);
void lab_table_free(lab_table *t);

/* Column index, or -1. */
int lab_table_column(const lab_table *t, const char *column);
/* The cell as text; exits with a message if the column does not exist (drivers, tests). */
const char *lab_table_text_or_exit(const lab_table *t, int row, const char *column);
/* The cell as a number; an empty cell is NaN (not applicable, e.g. FP8 on an A100); anything else
 * that is not a number, or a number outside the column's domain in the book's data tables
 * (lab_data_domain), exits with a message naming file, row, column and what is allowed. */
double lab_table_number_or_exit(const lab_table *t, int row, const char *column);

/* What a field may hold: a number from low to high (a whole one if whole), or nothing when
 * may_be_empty (then NaN). `meaning` names it in the message ("attention heads"). */
typedef struct lab_domain {
    double low, high;
    int whole, may_be_empty;
    const char *meaning;
} lab_domain;
/* The cell as a number in `domain`: 0, or -1 with the file, the row (and its first cell, which names
 * it), the column, what was found and what is allowed written into `error`. For libraries, which
 * return their errors (lib/perfmodel): a bad table must not crash them or make them lie. */
int lab_table_checked_number(const lab_table *t, int row, const char *column, const lab_domain *domain, double *value,
                             char *error, size_t error_size);
/* The domain of `column` in the book's data table the file at `path` is (models.csv, gpus.csv, by its
 * name, wherever LAB_DATA_DIR puts it), or NULL where the book states none (data_domains.c). */
const lab_domain *lab_data_domain(const char *path, const char *column);
/* First row whose `column` equals `value`, or -1. */
int lab_table_find(const lab_table *t, const char *column, const char *value);

/* Where the book's data lives: $LAB_DATA_DIR, else "data" (make runs labs from the top). */
const char *lab_data_path(const char *file_name);

#ifdef __cplusplus
}
#endif

#endif
