/* harness.c — tests of the lab harness every day relies on: the validator (NaN and
 * infinity never pass; unwritten elements are named; the tolerance scales with the
 * reference), the CSV writer and reader (strict about malformed files), the timer. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "results.h"
#include "table.h"
#include "timer.h"

Test(compare, nan_and_infinity_never_pass, .timeout = 5)
{
    float want[3] = {1, 2, 3}, got[3] = {1, NAN, 3};
    cr_assert_eq(lab_compare_floats("x", got, want, 3, 1e30, 1e30).mismatches, 1, "NaN passed a huge tolerance");
    got[1] = INFINITY;
    cr_assert_eq(lab_compare_floats("x", got, want, 3, 1e30, 1e30).mismatches, 1, "inf passed a huge tolerance");
    float nan_reference[1] = {NAN}, zero[1] = {0};
    lab_comparison c = lab_compare_floats("x", zero, nan_reference, 1, 1, 1);
    cr_assert_eq(c.mismatches, 1, "a NaN reference must fail: the test itself is wrong");
    cr_assert(strstr(c.message, "the test itself is wrong"), "%s", c.message);
}

Test(compare, poisoned_elements_are_reported_as_never_written, .timeout = 5)
{
    float got[4] = {1, 2, 3, 4}, want[4] = {1, 2, 3, 4};
    lab_poison(&got[2], sizeof(float));
    cr_assert(lab_float_is_poison(got[2]));
    lab_comparison c = lab_compare_floats("out", got, want, 4, 0, 0);
    cr_assert_eq(c.mismatches, 1);
    cr_assert_eq(c.first_mismatch, 2);
    cr_assert(strstr(c.message, "out[2] was never written"), "%s", c.message);
    int ints[2] = {7, 0}, ints_want[2] = {7, 9};
    lab_poison(&ints[1], sizeof(int));
    cr_assert(strstr(lab_compare_ints("n", ints, ints_want, 2).message, "n[1] was never written"));
}

Test(compare, tolerance_scales_with_magnitude, .timeout = 5)
{
    double want[2] = {1e6, 1e-6}, got[2] = {1e6 + 0.5, 1e-6 + 0.5e-12};
    cr_assert_eq(lab_compare_doubles("x", got, want, 2, 1e-6, 0).mismatches, 0, "within 1e-6 relative");
    got[0] = 1e6 + 2;
    lab_comparison c = lab_compare_doubles("x", got, want, 2, 1e-6, 0);
    cr_assert_eq(c.mismatches, 1);
    cr_assert(strstr(c.message, "x[0] = 1000002"), "%s", c.message);
}

Test(compare, message_shows_three_and_counts_the_rest, .timeout = 5)
{
    float got[10], want[10];
    for (int i = 0; i < 10; i++) got[i] = (float)i, want[i] = (float)i + 1;
    lab_comparison c = lab_compare_floats("y", got, want, 10, 0, 0);
    cr_assert_eq(c.mismatches, 10);
    cr_assert(strstr(c.message, "y[2]") && !strstr(c.message, "y[3] ="), "%s", c.message);
    cr_assert(strstr(c.message, "10 of 10 elements of y wrong"), "%s", c.message);
}

static char *temporary_file(const char *contents)
{
    char *path = strdup("/tmp/harness-test-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(contents, f);
    fclose(f);
    return path;
}

Test(table, reads_quoted_fields_by_column_name, .timeout = 5)
{
    char *path = temporary_file("name,value,source\n\"A, quoted\",2.5,\"says \"\"hi\"\"\"\nB,,x\n");
    char error[256] = "";
    lab_table *t = lab_table_read(path, error, sizeof error);
    cr_assert_not_null(t, "%s", error);
    cr_assert_eq(t->rows, 2);
    cr_assert_str_eq(lab_table_text_or_exit(t, 0, "name"), "A, quoted");
    cr_assert_str_eq(lab_table_text_or_exit(t, 0, "source"), "says \"hi\"");
    cr_assert_float_eq(lab_table_number_or_exit(t, 0, "value"), 2.5, 0);
    cr_assert(isnan(lab_table_number_or_exit(t, 1, "value")), "an empty cell is NaN: not applicable");
    cr_assert_eq(lab_table_find(t, "name", "B"), 1);
    cr_assert_eq(lab_table_find(t, "name", "C"), -1);
    lab_table_free(t);
    remove(path);
}

Test(table, malformed_files_are_refused_with_the_line, .timeout = 5)
{
    struct { const char *contents, *expected; } cases[] = {
        {"a,b\n1,2\n3\n", "line 3: 1 fields, but the header has 2"},
        {"a,b\n\"1,2\n", "line 2: a quoted field is not closed"},
        {"", "is empty"},
    };
    for (int i = 0; i < 3; i++) {
        char *path = temporary_file(cases[i].contents);
        char error[256] = "";
        cr_assert_null(lab_table_read(path, error, sizeof error), "case %d was accepted", i);
        cr_assert(strstr(error, cases[i].expected), "case %d: \"%s\" lacks \"%s\"", i, error, cases[i].expected);
        remove(path);
    }
    char error[256];
    cr_assert_null(lab_table_read("/nonexistent/file.csv", error, sizeof error));
    cr_assert(strstr(error, "cannot read /nonexistent/file.csv"), "%s", error);
}

Test(table, a_checked_number_holds_its_domain_or_says_which_cell_does_not, .timeout = 5)
{
    char *path = temporary_file("name,heads,rate\nok,32,2.5\nzero,0,\nhalf,12.5,nan\nword,x,-1\n");
    char error[256] = "";
    lab_table *t = lab_table_read(path, error, sizeof error);
    cr_assert_not_null(t, "%s", error);
    const lab_domain heads = {1, 4096, 1, 0, "heads"}, rate = {0.001, 1e6, 0, 1, "GB/s"};
    double v = -1;
    cr_assert(lab_table_checked_number(t, 0, "heads", &heads, &v, error, sizeof error) == 0 && v == 32, "%s", error);
    cr_assert(lab_table_checked_number(t, 1, "rate", &rate, &v, error, sizeof error) == 0 && isnan(v),
              "an empty cell where the domain allows one is NaN: %s", error);
    struct { int row; const char *column; const char *said; } refused[] = {
        {1, "heads", "data row 2 (zero), column heads: '0' is not a whole number of heads from 1 to 4096"},
        {2, "heads", "data row 3 (half), column heads: '12.5' is not a whole number"},
        {3, "heads", "data row 4 (word), column heads: 'x' is not a whole number"},
        {2, "rate", "data row 3 (half), column rate: 'nan' is not a number of GB/s from 0.001 to 1000000, or empty"},
        {3, "rate", "'-1' is not a number of GB/s"},
        {0, "missing", "has no column missing"},
    };
    for (int i = 0; i < 6; i++) {
        v = 7;
        const lab_domain *d = strcmp(refused[i].column, "rate") == 0 ? &rate : &heads;
        cr_assert(lab_table_checked_number(t, refused[i].row, refused[i].column, d, &v, error, sizeof error) == -1,
                  "case %d was accepted as %g", i, v);
        cr_assert(strstr(error, refused[i].said) && v == 7, "case %d: \"%s\" lacks \"%s\" (or the value was written)", i,
                  error, refused[i].said);
    }
    lab_table_free(t);
    remove(path);
}

Test(table, a_cell_that_is_not_a_number_stops_the_program, .timeout = 5, .exit_code = 1)
{
    char *path = temporary_file("x\nabc\n");
    lab_table *t = lab_table_read_or_exit(path);
    lab_table_number_or_exit(t, 0, "x");
}

Test(table, no_memory_is_a_failure_returned_not_an_exit, .timeout = 30)
{
    /* 3 million rows of four cells, read in a child allowed 8 MiB more than it has: lab_table_read, a
     * data reader, must return NULL and say why (lib/perfmodel, which never exits, calls it) */
    /* qemu's user-mode emulator (make test-arm64 sets LAB_EMULATED) leaves RLIMIT_AS to itself: a
     * guest's limit would bind the emulator's own memory, so it is not applied, and the read succeeds. */
    if (getenv("LAB_EMULATED")) cr_skip_test("a memory limit is not applied under qemu's user-mode emulator");
    char *path = strdup("/tmp/harness-large-XXXXXX");
    FILE *f = fdopen(mkstemp(path), "w");
    cr_assert_not_null(f);
    fputs("a,b,c,d\n", f);
    for (int r = 0; r < 3000000; r++) fputs("1,2,3,4\n", f);
    fclose(f);
    fflush(NULL);
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (!statm || fscanf(statm, "%ld", &pages) != 1) _exit(5);
        fclose(statm);
        rlim_t bytes = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (8 << 20);
        struct rlimit limit = {bytes, bytes};
        if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(6);
        char error[256] = "";
        lab_table *t = lab_table_read(path, error, sizeof error);
        _exit(t ? 3 : strstr(error, "out of memory reading /tmp/harness-large-") ? 0 : 4);
    }
    int status = 0;
    waitpid(child, &status, 0);
    remove(path);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    cr_assert(code == 0, "a table too large for memory: the child's status %d (0: NULL with 'out of memory reading "
              "...'; 1: an exit from inside the reader; 3: a table returned; 4: another message; -1: a signal)", code);
}

/* A driver's read of one cell of a table named `file` holding `csv`, in a child: its exit status
 * (0: it returned) and what it wrote on stderr. */
static int read_cell_in_a_child(const char *file, const char *csv, int row, const char *column, char *said, size_t size)
{
    char dir[] = "/tmp/harness-data-XXXXXX", path[128], log[160];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(log, sizeof log, "%s/stderr", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(csv, f);
    fclose(f);
    fflush(NULL);
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        if (!freopen(log, "w", stderr)) _exit(99);
        lab_table *t = lab_table_read_or_exit(path);
        (void)lab_table_number_or_exit(t, row, column);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    f = fopen(log, "r");
    size_t n = f ? fread(said, 1, size - 1, f) : 0;
    said[n] = 0;
    if (f) fclose(f);
    remove(log), remove(path), rmdir(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Test(table, a_bad_cell_of_the_books_data_stops_a_driver_naming_it, .timeout = 10)
{
    const char *gpus = "key,name,memory_gib,memory_bandwidth_gb_per_s,fp8_tensor_tflops,sms,register_allocation_unit,"
                       "watts\nh100-sxm,H100 SXM,80,3350,,132,256,700\n"
                       "zero,Zero,80,0,989,132,0,700\nnan,NaN,80,nan,989,132,256,700\n"
                       "minus,Minus,80,-3350,989,132,256,700\n"
                       "huge,Huge,80,1e30,989,132.5,256,700\nempty,Empty,,3350,989,-1,256,-1\n";
    const char *models = "name,layers,attention_heads,head_dim\nLlama-2-7B,32,32,128\n"
                         "no-heads,32,0,128\nhalf,32,32,128.5\nno-layers,0,32,128\n";
    struct { const char *file, *csv; int row; const char *column, *said; } refused[] = {
#define BW "memory_bandwidth_gb_per_s"
        {"gpus.csv", gpus, 1, BW, "data row 2 (zero), column " BW ": '0' is not a number of GB/s"},
        {"gpus.csv", gpus, 2, BW, "data row 3 (nan), column " BW ": 'nan' is not a number of GB/s"},
        {"gpus.csv", gpus, 3, BW, "data row 4 (minus), column " BW ": '-3350' is not a number of GB/s"},
        {"gpus.csv", gpus, 4, BW, "data row 5 (huge), column " BW ": '1e30' is not a number of GB/s"},
#undef BW
        {"gpus.csv", gpus, 5, "memory_gib", "data row 6 (empty), column memory_gib: '' is not a number of GiB"},
        {"gpus.csv", gpus, 5, "sms", "data row 6 (empty), column sms: '-1' is not a whole number of SMs"},
        {"gpus.csv", gpus, 4, "sms", "data row 5 (huge), column sms: '132.5' is not a whole number of SMs"},
        {"gpus.csv", gpus, 1, "register_allocation_unit",
         "data row 2 (zero), column register_allocation_unit: '0' is not a whole number of registers in an allocation"},
        {"models.csv", models, 1, "attention_heads", "data row 2 (no-heads), column attention_heads: '0' is not"},
        {"models.csv", models, 2, "head_dim", "data row 3 (half), column head_dim: '128.5' is not a whole number"},
        {"models.csv", models, 3, "layers", "data row 4 (no-layers), column layers: '0' is not a whole number"},
    };
    char said[1024];
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        int status = read_cell_in_a_child(refused[i].file, refused[i].csv, refused[i].row, refused[i].column, said,
                                          sizeof said);
        cr_assert(status == 1 && strstr(said, refused[i].said),
                  "%s, %s of data row %d: exit status %d (expected 1) and \"%s\" (expected \"%s\")", refused[i].file,
                  refused[i].column, refused[i].row + 1, status, said, refused[i].said);
    }
    /* what the domains allow still reads: a number in range, an empty Tensor Core rate (none), and a
     * column the book gives no domain (watts: a copy's own column, read as it stands) */
    cr_assert_eq(read_cell_in_a_child("gpus.csv", gpus, 0, "memory_gib", said, sizeof said), 0, "%s", said);
    cr_assert_eq(read_cell_in_a_child("gpus.csv", gpus, 0, "fp8_tensor_tflops", said, sizeof said), 0, "%s", said);
    cr_assert_eq(read_cell_in_a_child("gpus.csv", gpus, 0, "sms", said, sizeof said), 0, "%s", said);
    cr_assert_eq(read_cell_in_a_child("gpus.csv", gpus, 5, "watts", said, sizeof said), 0, "%s", said);
    cr_assert_eq(read_cell_in_a_child("models.csv", models, 0, "head_dim", said, sizeof said), 0, "%s", said);
}

Test(table, the_books_data_holds_every_number_in_its_domain, .timeout = 10)
{
    const char *files[] = {"models.csv", "gpus.csv"};
    for (int f = 0; f < 2; f++) {
        lab_table *t = lab_table_read_or_exit(lab_data_path(files[f]));
        int checked = 0;
        for (int c = 0; c < t->columns; c++) {
            if (!lab_data_domain(t->path, t->header[c])) continue;
            for (int r = 0; r < t->rows; r++) (void)lab_table_number_or_exit(t, r, t->header[c]);   /* exits if not */
            checked++;
        }
        cr_assert(checked >= 6, "%s: only %d columns have a domain", files[f], checked);
        lab_table_free(t);
    }
}

Test(results, writes_header_and_rows, .timeout = 5)
{
    char path[] = "/tmp/harness-results-XXXXXX/out.csv";
    char *dir = strndup(path, strlen("/tmp/harness-results-XXXXXX"));
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.csv", dir);
    lab_results r = lab_results_open_or_exit(path, "n,time_ms");
    lab_results_row_or_exit(&r, "%d,%.1f", 3, 1.5);
    lab_results_row_or_exit(&r, "\"a, b\",%d", 2);
    lab_results_close_or_exit(&r);
    char text[128] = "";
    FILE *f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    cr_assert_str_eq(text, "n,time_ms\n3,1.5\n\"a, b\",2\n");
    remove(path);
    rmdir(dir);
}

Test(results, a_row_of_the_wrong_width_is_a_driver_bug, .timeout = 5, .exit_code = 1)
{
    lab_results r = lab_results_open_or_exit("/tmp/harness-results-width.csv", "a,b");
    lab_results_row_or_exit(&r, "1,2,3");
}

static void sleep_a_little(void *context)
{
    int *calls = context;
    (*calls)++;
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
}

Test(timer, median_of_repeats, .timeout = 5)
{
    int calls = 0;
    double seconds = lab_median_seconds(sleep_a_little, &calls, 5);
    cr_assert_eq(calls, 6, "one warm-up run and five timed runs, got %d", calls);
    cr_assert(seconds >= 0.002 && seconds < 0.05, "a 2 ms sleep measured as %g s", seconds);
}
