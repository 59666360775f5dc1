/* gpu_table.h — one row of data/gpus.csv, read by the simulator itself (gpu_table.c). */
#ifndef SIM_GPU_TABLE_H
#define SIM_GPU_TABLE_H

#include <stddef.h>

enum { SIM_GPU_TABLE_COLUMNS = 64, SIM_GPU_TABLE_LINE = 8192 };

typedef struct sim_gpu_row {
    char path[1024];
    int columns;
    char *header[SIM_GPU_TABLE_COLUMNS], *cells[SIM_GPU_TABLE_COLUMNS];
    char header_line[SIM_GPU_TABLE_LINE], row_line[SIM_GPU_TABLE_LINE];
    char known_keys[1024];   /* " h100-sxm h100-pcie ...": every key of the table, for messages */
} sim_gpu_row;

/* Reads the header and the row whose first column is `key`: 1 when found, 0 when not (the
 * known keys are in row->known_keys), -1 with the reason in `error` for a missing or bad file. */
int sim_gpu_table_read(const char *path, const char *key, sim_gpu_row *row, char *error, size_t error_size);
/* A cell by column name; a missing column ends the program with a message naming it. */
const char *sim_gpu_text(const sim_gpu_row *row, const char *column);
/* A cell as a number from low to high; anything else (empty, not a number, out of range: a GPU
 * with 0 SMs) ends the program with a message naming the file, the GPU and the column. */
double sim_gpu_number(const sim_gpu_row *row, const char *column, double low, double high);

#endif
