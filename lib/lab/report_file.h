/* report_file.h — reading the per-test report that tests/support/report.c writes: one line per
 * test, "status <TAB> suite/test <TAB> what went wrong <TAB> hint <TAB> source line", with tabs,
 * newlines and backslashes inside the texts escaped. The verdict and the grader both read it
 * through here, so the format has one reader. */
#ifndef LAB_REPORT_FILE_H
#define LAB_REPORT_FILE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_report_line {
    char *status;   /* passed, failed, crashed, timeout or skipped */
    char *name;     /* suite/test */
    char *reason;   /* unescaped */
    char *hint;     /* unescaped */
    long line;      /* the test's line in its source file */
} lab_report_line;

/* Reads the report at `path` (at most `capacity` lines) into `lines`; returns how many were
 * read, 0 when the file is missing or empty. Free them with lab_report_free. */
int lab_report_read(const char *path, lab_report_line *lines, int capacity);
void lab_report_free(lab_report_line *lines, int count);

#ifdef __cplusplus
}
#endif

#endif
