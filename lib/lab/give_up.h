/* give_up.h — how lib/lab gives up, in one place. lib/lab serves the drivers, the tests and the
 * book's tools, for which a run that cannot go on should end at once, with the reason:
 *   - reading data returns its failure with a message (lab_table_read: NULL; lab_table_checked_number:
 *     -1), so that a library built on it (lib/perfmodel) can return its own;
 *   - anything else that cannot go on (a results file that cannot be written, a driver's bug, no
 *     memory) prints the reason on stderr and exits with status 1, and the function says so in its
 *     name: *_or_exit;
 *   - memory comes from lab_alloc_or_exit (zeroed) and lab_strdup_or_exit; a data reader, which
 *     returns its failures, takes it from lab_try_alloc and lab_try_strdup (NULL when there is none).
 * tools/ci/give-up-check holds lib/lab to it: exit() only inside a function named *_or_exit, no
 * allocation but through these. */
#ifndef LAB_GIVE_UP_H
#define LAB_GIVE_UP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *lab_alloc_or_exit(size_t count, size_t size);
char *lab_strdup_or_exit(const char *text);
void *lab_try_alloc(size_t count, size_t size);
char *lab_try_strdup(const char *text);

#ifdef __cplusplus
}
#endif

#endif
