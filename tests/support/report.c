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
 * Under the grader (tools/grader/grade) the report goes to LAB_REPORT_FD=N, a pipe only this runner
 * process may write, which holds none of the learner's code: see report_channel and
 * send_workers_to_the_lab_code below. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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

/* Where the report goes: LAB_REPORT_FD=N, a pipe inherited from the grader (grade-sandbox hands it over
 * as fd 3), or LAB_REPORT=FILE, a file of make check's. A descriptor that is not a pipe is refused, so
 * that no one can point the report at a file the runner may write; so is a LAB_REPORT that names a
 * descriptor (/dev/fd/N, /proc/.../fd/N). BoxFort starts each test's worker with exec, so close-on-exec
 * keeps the pipe from every worker; and a runner that is not dumpable cannot be reached through
 * /proc/PID/fd or ptrace by those workers, which run as the same user. */
static int report_channel = -1;

static void refuse_to_run(const char *why)
{
    fprintf(stderr, "the test runner refuses to run: %s\n", why);
    _exit(2);
}

static void open_report_channel(void)
{
    const char *fd_text = getenv("LAB_REPORT_FD"), *path = getenv("LAB_REPORT");
    if (path && (strncmp(path, "/dev/fd/", 8) == 0 || strncmp(path, "/proc/", 6) == 0))
        refuse_to_run("LAB_REPORT names a file descriptor; hand a pipe over as LAB_REPORT_FD=N instead");
    if (!fd_text) return;
    char *end;
    long fd = strtol(fd_text, &end, 10);
    struct stat st;
    if (!*fd_text || *end || fd < 0 || fd > 1023 || fstat((int)fd, &st) != 0 || !S_ISFIFO(st.st_mode))
        refuse_to_run("LAB_REPORT_FD is not an open pipe (the grader hands the report over as one)");
    report_channel = (int)fd;
    fcntl(report_channel, F_SETFD, FD_CLOEXEC);
}

/* On the simulator the learner's code is a library of its own, liblab-code.so, and this program's
 * RUNPATH gives the runner a stand-in for it (tools/build/runner-stand-in): the runner holds none of
 * the learner's code. The workers are started from the same program file after this has put the
 * folder of the real library first on LD_LIBRARY_PATH, so they load it. Should the runner itself have
 * loaded anything but the stand-in (LD_LIBRARY_PATH naming that folder already), it refuses to run. */
static int loaded_library(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const char *slash = strrchr(info->dlpi_name, '/');
    if (slash && strcmp(slash + 1, "liblab-code.so") == 0) snprintf(found, PATH_MAX, "%s", info->dlpi_name);
    return 0;
}

static void send_workers_to_the_lab_code(void)
{
    char program[PATH_MAX], folder[PATH_MAX], code[PATH_MAX + 32], stand_in[PATH_MAX + 32], loaded[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1);
    if (n <= 0) return;
    program[n] = 0;
    snprintf(folder, sizeof folder, "%s", program);
    *strrchr(folder, '/') = 0;
    snprintf(code, sizeof code, "%s/code", folder);
    snprintf(stand_in, sizeof stand_in, "%s/runner/liblab-code.so", folder);
    dl_iterate_phdr(loaded_library, loaded);
    if (!*loaded) return;   /* a program built without the split (the cuda backend) */
    char real_loaded[PATH_MAX], real_stand_in[PATH_MAX];
    if (!realpath(loaded, real_loaded) || !realpath(stand_in, real_stand_in) || strcmp(real_loaded, real_stand_in) != 0)
        refuse_to_run("it loaded the lab's code itself, not the stand-in beside it (runner/liblab-code.so): is "
                      "LD_LIBRARY_PATH set to a folder holding a liblab-code.so?");
    const char *before = getenv("LD_LIBRARY_PATH");
    char *path = malloc(strlen(code) + (before ? strlen(before) : 0) + 2);
    if (!path) refuse_to_run("out of memory");
    sprintf(path, before && *before ? "%s:%s" : "%s", code, before);
    setenv("LD_LIBRARY_PATH", path, 1);
    free(path);
}

/* This runs in the runner before any worker starts. */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;   /* scaled_timeouts.c's hook scales the tests' time limits */
    open_report_channel();
    send_workers_to_the_lab_code();
#ifdef __linux__
    prctl(PR_SET_DUMPABLE, 0);
#endif
}

/* POST_ALL, not POST_TEST: Criterion 2.4.1 calls no per-test hook for a test that crashed. */
ReportHook(POST_ALL)(struct criterion_global_stats *all)
{
    const char *path = getenv("LAB_REPORT");
    if (report_channel < 0 && (!path || !*path)) return;
    FILE *out = report_channel >= 0 ? fdopen(report_channel, "w") : fopen(path, "w");
    if (!out) {
        perror(report_channel >= 0 ? "LAB_REPORT_FD" : path);
        return;
    }
    for (struct criterion_suite_stats *suite = all->suites; suite; suite = suite->next)
        for (struct criterion_test_stats *test = suite->tests; test; test = test->next) write_test(out, test);
    fclose(out);
}
