/* scaled_timeouts.c — LAB_TIMEOUT_SCALE=N (a whole number, 1 to 100) multiplies every Criterion test's
 * time limit by N: make test-arm64 runs the tests under an emulator, several times slower than the
 * machine they were written for. The runner enforces the limits, so they are changed in the runner,
 * by a hook that runs before any worker starts. Linked into every Criterion program make test runs:
 * the days' tests (tools/build/build-lab), and the simulator's, the lab harness's and the engine's
 * suites. Without LAB_TIMEOUT_SCALE it changes nothing. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/internal/ordered-set.h>
#include <criterion/options.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    const char *text = getenv("LAB_TIMEOUT_SCALE");
    if (!text || !*text) return;
    char *end;
    long scale = strtol(text, &end, 10);
    if (*end || scale < 1 || scale > 100) {
        fprintf(stderr, "the test runner refuses to run: LAB_TIMEOUT_SCALE is not a whole number from 1 to 100\n");
        _exit(2);
    }
    if (criterion_options.timeout > 0) criterion_options.timeout *= scale;
    struct criterion_suite_set *suite;
    struct criterion_test *test;
    FOREACH_SET(suite, set->suites) {
        if (suite->suite.data && suite->suite.data->timeout > 0) suite->suite.data->timeout *= scale;
        FOREACH_SET(test, suite->tests) {
            if (test->data && test->data->timeout > 0) test->data->timeout *= scale;
        }
    }
}
