/* verdict.c — prints a day's verdict from its test report; exits 0 only if every check
 * passed. `make check` runs it last:  verdict REPORT.tsv DAY "labs, sim backend" */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "verdict.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: verdict REPORT.tsv DAY DESCRIPTION\n");
        return 2;
    }
    int color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    lab_verdict_counts counts = lab_verdict_print(stdout, argv[1], argv[2], argv[3], color);
    return counts.passed > 0 && counts.passed + counts.skipped == counts.total ? 0 : 1;
}
