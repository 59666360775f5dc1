/* results.h — writing a lab's results as a tidy CSV: a header row naming each column
 * with its unit (n, time_ms, bandwidth_gb_per_s), then one observation per row. The
 * plot scripts in plots/ read these files. A file that cannot be written ends the run (give_up.h). */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_results {
    FILE *file;
    const char *path;
    int columns;
} lab_results;

/* Creates the file (and its directory) and writes the header, e.g. "device,gflop_per_s".
 * Exits with a message if the file cannot be written. */
lab_results lab_results_open_or_exit(const char *path, const char *header);

/* Writes one row, printf-style. A row whose number of fields differs from the header's
 * is a bug in the driver: it stops the program with a message. */
void lab_results_row_or_exit(lab_results *r, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Closes the file; exits with a message if it could not be written to the end. */
void lab_results_close_or_exit(lab_results *r);

#ifdef __cplusplus
}
#endif

#endif
