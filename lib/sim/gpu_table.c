/* gpu_table.c — the simulator's reader of data/gpus.csv: the header and the row of one GPU.
 * The simulator stands alone (it needs nothing from the lab harness), so it reads the table
 * itself, as strictly as the harness does: a quoted field may hold commas ("a, b") and ""
 * for a quote; a row whose field count differs from the header's is refused with its line. */
#include "gpu_table.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits `line` in place into at most `capacity` fields; -1 for an unclosed quote. */
static int split_fields(char *line, char **fields, int capacity)
{
    int count = 0;
    char *in = line;
    while (count < capacity) {
        char *out = in;
        fields[count++] = out;
        int quoted = *in == '"';
        if (quoted) in++;
        for (;; in++) {
            if (quoted && *in == '"' && in[1] == '"') { *out++ = '"'; in++; continue; }
            if (quoted && *in == '"') { quoted = 0; continue; }
            if (*in == 0) { *out = 0; return quoted ? -1 : count; }
            if (!quoted && *in == ',') break;
            *out++ = *in;
        }
        *out = 0;
        in++;
    }
    return -1;
}

static char *read_line(FILE *f, char *buffer, int size)
{
    if (!fgets(buffer, size, f)) return NULL;
    buffer[strcspn(buffer, "\r\n")] = 0;
    return buffer;
}

int sim_gpu_table_read(const char *path, const char *key, sim_gpu_row *row, char *error, size_t error_size)
{
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno)); return -1; }
    memset(row, 0, sizeof *row);
    row->known_keys[0] = 0;
    int line_number = 1, found = 0;
    if (!read_line(f, row->header_line, sizeof row->header_line) ||
        (row->columns = split_fields(row->header_line, row->header, SIM_GPU_TABLE_COLUMNS)) < 2) {
        snprintf(error, error_size, "%s: no header row (or more than %d columns)", path, SIM_GPU_TABLE_COLUMNS);
        fclose(f);
        return -1;
    }
    char line[sizeof row->row_line], *fields[SIM_GPU_TABLE_COLUMNS];
    while (read_line(f, line, sizeof line)) {
        line_number++;
        if (!*line) continue;
        int count = split_fields(line, fields, SIM_GPU_TABLE_COLUMNS);
        if (count != row->columns) {
            snprintf(error, error_size, "%s line %d: %d fields where the header has %d (a quote not closed?)", path,
                     line_number, count, row->columns);
            fclose(f);
            return -1;
        }
        size_t used = strlen(row->known_keys);
        snprintf(row->known_keys + used, sizeof row->known_keys - used, " %s", fields[0]);
        if (!found && strcmp(fields[0], key) == 0) {
            found = 1;
            memcpy(row->row_line, line, sizeof line);
            for (int c = 0; c < count; c++) row->cells[c] = row->row_line + (fields[c] - line);
        }
    }
    fclose(f);
    snprintf(row->path, sizeof row->path, "%s", path);
    return found;
}

const char *sim_gpu_text(const sim_gpu_row *row, const char *column)
{
    for (int c = 0; c < row->columns; c++)
        if (strcmp(row->header[c], column) == 0) return row->cells[c];
    sim_fatal("%s has no column '%s' (the simulator needs it)", row->path, column);
}

double sim_gpu_number(const sim_gpu_row *row, const char *column, double low, double high)
{
    const char *text = sim_gpu_text(row, column);
    char *end = NULL;
    double value = *text ? strtod(text, &end) : NAN;
    if (!*text || *end || !isfinite(value) || value < low || value > high)
        sim_fatal("%s, the row of %s: column '%s' holds '%s'; the simulator needs a number from %g to %g there",
                  row->path, sim_gpu_text(row, "key"), column, text, low, high);
    return value;
}
