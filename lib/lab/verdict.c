/* verdict.c — printing the verdict described in verdict.h. */
#define _DEFAULT_SOURCE
#include "verdict.h"
#include "report_file.h"

#include <stdlib.h>
#include <string.h>

typedef lab_report_line outcome;

/* In the order the tests are written in their file, which is the order of the lab. */
static int by_source_line(const void *a, const void *b)
{
    const outcome *x = a, *y = b;
    return x->line != y->line ? (x->line < y->line ? -1 : 1) : strcmp(x->name, y->name);
}

static void print_indented(FILE *out, const char *prefix, const char *text)
{
    fputs(prefix, out);
    for (; *text; text++) {
        fputc(*text, out);
        if (*text == '\n') fputs(prefix, out);
    }
    fputc('\n', out);
}

lab_verdict_counts lab_verdict_print(FILE *out, const char *report_path, const char *day, const char *what, int color)
{
    const char *green = color ? "\033[32m" : "", *red = color ? "\033[31m" : "";
    const char *bold = color ? "\033[1m" : "", *dim = color ? "\033[2m" : "", *plain = color ? "\033[0m" : "";
    lab_verdict_counts counts = {0, 0, 0};
    outcome outcomes[512];
    counts.total = lab_report_read(report_path, outcomes, 512);
    fputc('\n', out);
    if (counts.total == 0) {
        fprintf(out, "%s%sDay %s: the tests did not run%s — the build or the test program failed; the first\n"
                "error printed above is the one to fix.\n", bold, red, day, plain);
        return counts;
    }
    qsort(outcomes, (size_t)counts.total, sizeof *outcomes, by_source_line);
    for (int i = 0; i < counts.total; i++) {
        counts.passed += strcmp(outcomes[i].status, "passed") == 0;
        counts.skipped += strcmp(outcomes[i].status, "skipped") == 0;
    }

    fprintf(out, "%sDay %s — %d of %d checks passed", bold, day, counts.passed, counts.total - counts.skipped);
    if (counts.skipped) fprintf(out, ", %d skipped", counts.skipped);
    fprintf(out, "%s %s(%s)%s\n", plain, dim, what, plain);
    for (int i = 0; i < counts.total; i++) {
        outcome *o = &outcomes[i];
        int passed = strcmp(o->status, "passed") == 0, skipped = strcmp(o->status, "skipped") == 0;
        fprintf(out, "  %s%s%s %s", passed ? green : skipped ? dim : red, passed ? "PASS" : skipped ? "SKIP" : "FAIL",
                plain, o->name);
        if (!passed && !skipped && strcmp(o->status, "failed") != 0) fprintf(out, " (%s)", o->status);
        fputc('\n', out);
        if (skipped && *o->reason) print_indented(out, "         ", o->reason);
        if (!passed && !skipped) {
            if (*o->reason) print_indented(out, "         ", o->reason);
            int hint_already_shown = 0;
            for (int j = 0; j < i; j++)
                hint_already_shown |= strcmp(outcomes[j].status, "passed") != 0 &&
                                      strcmp(outcomes[j].status, "skipped") != 0 && strcmp(outcomes[j].hint, o->hint) == 0;
            if (*o->hint && !hint_already_shown) {
                fprintf(out, "%s", dim);
                print_indented(out, "         hint: ", o->hint);
                fprintf(out, "%s", plain);
            }
        }
    }
    lab_report_free(outcomes, counts.total);
    if (counts.passed + counts.skipped == counts.total && counts.passed > 0)
        fprintf(out, "%s%sAll checks pass.%s\n", bold, green, plain);
    else
        fprintf(out, "%sNot yet.%s Fix the first FAIL above, then run the check again; `make hint DAY=%s` helps.\n",
                bold, plain, day);
    return counts;
}
