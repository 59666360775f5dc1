/* capture.h — for the days' checks: catch what the code under test (or the simulator, when it stops
 * a launch) writes to stderr, so that a failed check can quote it. Linked into every day's tests. */
#ifndef LAB_TEST_CAPTURE_H
#define LAB_TEST_CAPTURE_H

#include <stddef.h>

/* Sends stderr to a temporary file until lab_release_stderr. */
void lab_capture_stderr(void);
/* Restores stderr, copies what was written meanwhile into text (size bytes at most), and echoes it. */
void lab_release_stderr(char *text, size_t size);

/* For a check's message: "... The simulator said:\n<text>", or nothing when it said nothing. */
#define SIMULATOR_SAID(text) (*(text) ? " The simulator said:\n" : ""), (text)

#endif
