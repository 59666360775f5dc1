/* report.c — linked into every test program: writes one line per test to the file named
 * by $LAB_REPORT, which the verdict (lib/lab/verdict.c) reads. This, not Criterion's own
 * text or JSON output (whose JSON does not escape quotes), is what decides a verdict.
 *
 * Each line: status <TAB> suite/test <TAB> what went wrong <TAB> hint <TAB> source line
 * status is passed, failed, crashed, timeout or skipped; the source line of the test
 * orders the verdict as the tests are written; tabs and newlines inside the texts are
 * written as \t and \n. The hint is the test's .description.
 *
 * A test passes only when its body ran to its end: the worker then reports the test's end, with
 * its time, to this runner. A worker that ended the process before (exit(0) or _exit(0) in the
 * code under test) never does, and Criterion would count it as passed; here it fails.
 *
 * Under the grader (tools/grader/grade) LAB_REPORT is /dev/fd/N, a pipe only this runner process may
 * write: see report_channel below. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static void write_escaped(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\t') fputs("\\t", out);
        else if (*s == '\n') fputs("\\n", out);
        else if (*s == '\\') fputs("\\\\", out);
        else fputc(*s, out);
    }
}

static void write_test(FILE *out, struct criterion_test_stats *stats)
{
    const char *status = "passed";
    char reason[512] = "";
    if (stats->timed_out) {
        status = "timeout";
        snprintf(reason, sizeof reason, "did not finish within its time limit (an endless loop? a thread "
                 "waiting for something that never happens?)");
    } else if (stats->crashed) {
        status = "crashed";
        snprintf(reason, sizeof reason, "the test program crashed with signal %d (%s)", stats->signal,
                 strsignal(stats->signal));
    } else if (stats->test_status == CR_STATUS_FAILED) {
        status = "failed";
        if (stats->failed_asserts == 0)
            snprintf(reason, sizeof reason, "the test program exited with code %d before finishing",
                     stats->exit_code);
    } else if (stats->test_status == CR_STATUS_SKIPPED) {
        status = "skipped";
        snprintf(reason, sizeof reason, "%s", stats->message ? stats->message : "");
    } else if (stats->elapsed_time <= 0.0f) {   /* no end of the test body was ever reported */
        status = "failed";
        snprintf(reason, sizeof reason, "the code under test ended the process (exit status %d) inside %s/%s before "
                 "the test could finish: a check passes only when it runs to its end", stats->exit_code,
                 stats->test->category, stats->test->name);
    }
    fprintf(out, "%s\t%s/%s\t", status, stats->test->category, stats->test->name);
    write_escaped(out, reason);
    int first = !*reason;
    for (struct criterion_assert_stats *a = stats->asserts; a; a = a->next) {
        if (a->passed) continue;
        if (!first) fputs("\\n", out);
        write_escaped(out, a->message && *a->message ? a->message : "an assertion failed");
        first = 0;
    }
    fputc('\t', out);
    write_escaped(out, stats->test->data ? stats->test->data->description : "");
    fprintf(out, "\t%u\n", stats->test->data ? stats->test->data->line_ : 0);
}

/* The grader hands the report over as an inherited pipe, LAB_REPORT=/dev/fd/N, which the code under
 * test must not reach. BoxFort starts each test's worker with exec, so close-on-exec keeps the pipe
 * from every worker; and a runner that is not dumpable cannot be reached through /proc/PID/fd or
 * ptrace by those workers, which run as the same user. This runs before any worker starts. */
static int report_channel = -1;

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *path = getenv("LAB_REPORT");
    if (!path || strncmp(path, "/dev/fd/", 8) != 0) return;
    report_channel = atoi(path + 8);
    fcntl(report_channel, F_SETFD, FD_CLOEXEC);
#ifdef __linux__
    prctl(PR_SET_DUMPABLE, 0);
#endif
}

/* POST_ALL, not POST_TEST: Criterion 2.4.1 calls no per-test hook for a test that crashed. */
ReportHook(POST_ALL)(struct criterion_global_stats *all)
{
    const char *path = getenv("LAB_REPORT");
    if (!path || !*path) return;
    FILE *out = report_channel >= 0 ? fdopen(report_channel, "w") : fopen(path, "w");
    if (!out) {
        perror(path);
        return;
    }
    for (struct criterion_suite_stats *suite = all->suites; suite; suite = suite->next)
        for (struct criterion_test_stats *test = suite->tests; test; test = test->next) write_test(out, test);
    fclose(out);
}
