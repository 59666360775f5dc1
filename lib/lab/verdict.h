/* verdict.h — the end of every `make check`: what passed, what failed, why, and a hint.
 * It reads the report that the test program wrote (tests/support/report.c), so the learner's
 * `make check` and the grader judge the same code the same way. */
#ifndef LAB_VERDICT_H
#define LAB_VERDICT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Skipped checks (e.g. counts only the simulator makes, on a real GPU) are neither passed
 * nor failed; a day passes when at least one check passed and none failed. */
typedef struct lab_verdict_counts { int passed, skipped, total; } lab_verdict_counts;

/* Prints the verdict for one day and returns the counts; total == 0 means the report was
 * missing or empty (the tests never ran). */
lab_verdict_counts lab_verdict_print(FILE *out, const char *report_path, const char *day, const char *what, int color);

#ifdef __cplusplus
}
#endif

#endif
