/* grade-report.c — the grader's scoring and its outputs (tools/grader/grade and tools/grader/grade-one call it).
 *
 *   grade-report rubric TESTS [RUBRIC...]
 *       TESTS lists a day's tests, one name a line (the book's as suite/test, the instructor's hidden
 *       ones as hidden/suite/test). Prints each test's points and visibility (name TAB points TAB
 *       visibility) after applying the rubric files in order. A rubric line is
 *           PATTERN POINTS [VISIBILITY]    every test whose name matches the shell pattern PATTERN is
 *                                          worth POINTS (the last matching line wins); VISIBILITY is
 *                                          visible, hidden, after_due_date or after_published
 *           total POINTS                   the day is worth POINTS, shared in proportion to the above
 *       and # starts a comment. A test no line matches is worth 1 point; the book's tests are visible,
 *       hidden tests hidden. A line that matches no test is an error (a typo would silently score 0).
 *
 *   grade-report submission RESULTS REF OUT NAME ISOLATION SECONDS
 *       Scores one graded submission. RESULTS/DAY/ holds what tools/grader/grade-one found (state, reason,
 *       report.tsv, hidden.tsv, verdict-now.txt, verdict-after-due-date.txt, build.log, notes.txt,
 *       output.log) and RESULTS/ignored.txt;
 *       REF/DAY/rubric.tsv the rubric. Writes OUT/feedback/NAME.txt (what a student may see now),
 *       OUT/feedback/NAME.after-due-date.txt (adds the after_due_date tests), OUT/gradescope/NAME/
 *       results.json (Gradescope's format), OUT/autolab/NAME.json (Autolab's scores line) and prints
 *       NAME TAB DAY=SCORE/MAX ... TAB TOTAL for the gradebook.
 *
 * Everything read from RESULTS came through the sandbox from learner-influenced programs (compiler
 * messages, test messages): it is treated as text to escape, never as anything to interpret. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_file.h"

/* ---------------------------------------------------------------------------------
 * Small helpers */

static void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("grade-report: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}

/* The whole file, NUL-terminated (at most limit bytes); "" when it does not exist. */
static char *slurp(const char *path, size_t limit)
{
    FILE *f = fopen(path, "rb");
    char *data = malloc(limit + 1);
    size_t n = f ? fread(data, 1, limit, f) : 0;
    if (f) fclose(f);
    data[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!data[i]) data[i] = ' ';
    return data;
}

static char *path_of(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + (c ? strlen(c) : 0) + 3;
    char *s = malloc(n);
    if (c) snprintf(s, n, "%s/%s/%s", a, b, c);
    else snprintf(s, n, "%s/%s", a, b);
    return s;
}

static FILE *create(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s: %s", path, strerror(errno));
    return f;
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("cannot make %s: %s", path, strerror(errno));
}

/* A number of points with `decimals` decimals at most, trailing zeros dropped (one of 8 rotating buffers). */
static const char *points_with(double value, int decimals)
{
    static char buffers[8][32];
    static int next;
    char *s = buffers[next++ % 8];
    snprintf(s, 32, "%.*f", decimals, value + 0.0);
    char *dot = strchr(s, '.');
    if (dot) {
        char *end = s + strlen(s) - 1;
        while (end > dot && *end == '0') *end-- = 0;
        if (end == dot) *end = 0;
    }
    return s;
}

/* Points as a person writes them: 13, 6.5, 0.33. */
static const char *points_text(double value) { return points_with(value, 2); }

/* Four decimals, for results.json: Gradescope adds the tests' scores itself, and with many weighted
 * tests a sum of values rounded to two decimals drifts from the total. */
static const char *points_precise(double value) { return points_with(value, 4); }

/* Writes text for a person: control characters (terminal escapes) become '?', tabs and newlines stay. */
/* The code point of a bidirectional control at s (UTF-8: U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069), or 0: in a name or a program's output one would reorder the rest of the line in a
 * viewer, so it is written as <U+XXXX>, seen but not obeyed. */
static unsigned bidi_control(const unsigned char *s)
{
    if (s[0] == 0xd8 && s[1] == 0x9c) return 0x061c;
    if (s[0] != 0xe2 || (s[1] != 0x80 && s[1] != 0x81) || !s[2]) return 0;
    unsigned c = 0x2000 + ((s[1] & 0x3f) << 6) + (s[2] & 0x3f);
    return c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ? c : 0;
}

static void put_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned bidi = bidi_control((const unsigned char *)s);
        if (bidi) { fprintf(out, "<U+%04X>", bidi); s += bidi == 0x061c ? 1 : 2; continue; }
        fputc(((unsigned char)*s < 32 && *s != '\n' && *s != '\t') || *s == 127 ? '?' : *s, out);
    }
}

/* Writes s as a JSON string: valid UTF-8 out whatever came in (bad bytes become U+FFFD). */
static void put_json(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') { fputc('\\', out); fputc(c, out); p++; }
        else if (c == '\n') { fputs("\\n", out); p++; }
        else if (c == '\t') { fputs("\\t", out); p++; }
        else if (c < 32 || c == 127) { fprintf(out, "\\u%04x", c); p++; }
        else if (c < 128) { fputc(c, out); p++; }
        else {
            int length = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = length > 0;
            for (int i = 1; ok && i < length; i++) ok = (p[i] & 0xc0) == 0x80;
            if (ok && length == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) ok = 0;
            if (ok && length == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) ok = 0;
            if (ok) { fwrite(p, 1, (size_t)length, out); p += length; }
            else { fputs("\\ufffd", out); p++; }
        }
    }
    fputc('"', out);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = 0;
    return s;
}

/* ---------------------------------------------------------------------------------
 * The rubric */

typedef struct test { char *name; double points; char visibility[20]; int matched; } test;

static int valid_visibility(const char *v)
{
    return !strcmp(v, "visible") || !strcmp(v, "hidden") || !strcmp(v, "after_due_date") ||
           !strcmp(v, "after_published");
}

static int rubric(int argc, char **argv)
{
    if (argc < 1) die("usage: grade-report rubric TESTS [RUBRIC...]");
    test tests[1024];
    int count = 0;
    FILE *f = fopen(argv[0], "r");
    if (!f) die("cannot read %s", argv[0]);
    char line[4096];
    while (count < 1024 && fgets(line, sizeof line, f)) {
        char *name = trim(line);
        if (!*name) continue;
        int hidden = strncmp(name, "hidden/", 7) == 0;
        tests[count] = (test){strdup(name), 1.0, "", 0};
        strcpy(tests[count].visibility, hidden ? "hidden" : "visible");
        count++;
    }
    fclose(f);
    double total = -1;
    for (int r = 1; r < argc; r++) {
        FILE *rf = fopen(argv[r], "r");
        if (!rf) die("cannot read the rubric %s", argv[r]);
        int number = 0;
        while (fgets(line, sizeof line, rf)) {
            number++;
            char *hash = strchr(line, '#');
            if (hash) *hash = 0;
            char *words[4] = {0};
            int n = 0;
            for (char *w = strtok(line, " \t\r\n"); w && n < 4; w = strtok(NULL, " \t\r\n")) words[n++] = w;
            if (n == 0) continue;
            char *end;
            if (strcmp(words[0], "total") == 0) {
                total = n == 2 ? strtod(words[1], &end) : -1;
                if (n != 2 || *end || total <= 0)
                    die("%s line %d: 'total' takes one positive number of points", argv[r], number);
                continue;
            }
            if (n < 2 || n > 3)
                die("%s line %d: a line is PATTERN POINTS [VISIBILITY], for example: vector_add/* 2 visible", argv[r], number);
            double points = strtod(words[1], &end);
            if (*end || points < 0) die("%s line %d: POINTS must be a number of 0 or more, not '%s'", argv[r], number, words[1]);
            if (n == 3 && !valid_visibility(words[2]))
                die("%s line %d: visibility is visible, hidden, after_due_date or after_published, not '%s'", argv[r],
                    number, words[2]);
            int hits = 0;
            for (int i = 0; i < count; i++) {
                if (fnmatch(words[0], tests[i].name, 0) != 0) continue;
                hits++;
                tests[i].points = points;
                if (n == 3) strcpy(tests[i].visibility, words[2]);
            }
            if (!hits) {
                fprintf(stderr, "grade-report: %s line %d: '%s' matches no test. The tests are:\n", argv[r], number, words[0]);
                for (int i = 0; i < count; i++) fprintf(stderr, "  %s\n", tests[i].name);
                exit(2);
            }
        }
        fclose(rf);
    }
    double sum = 0;
    for (int i = 0; i < count; i++) sum += tests[i].points;
    if (total > 0 && sum <= 0) die("the rubric gives every test 0 points, so 'total' cannot be shared out");
    for (int i = 0; i < count; i++) {
        double points = total > 0 ? tests[i].points * total / sum : tests[i].points;
        printf("%s\t%.6g\t%s\n", tests[i].name, points, tests[i].visibility);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Scoring one submission */

typedef struct outcome {
    char *name, *status, *reason, *hint;
    double points;
    char visibility[20];
} outcome;

typedef struct day_result {
    char *day, *state, *reason, *verdict, *verdict_after_due, *build_log, *notes, *output;
    outcome tests[1024];
    int count;
    double score, max;
} day_result;

/* Reads REF/DAY/rubric.tsv, then fills in each test's outcome from report.tsv and hidden.tsv. A
 * test with no line in the report did not run (the build failed): it scores 0. */
static void load_day(day_result *d, const char *results, const char *ref, const char *day)
{
    d->day = strdup(day);
    char *dir = path_of(results, day, NULL);
    d->state = trim(slurp(path_of(dir, "state", NULL), 100));
    d->reason = trim(slurp(path_of(dir, "reason", NULL), 4000));
    d->verdict = slurp(path_of(dir, "verdict-now.txt", NULL), 200000);
    d->verdict_after_due = slurp(path_of(dir, "verdict-after-due-date.txt", NULL), 200000);
    d->build_log = slurp(path_of(dir, "build.log", NULL), 20000);
    d->notes = slurp(path_of(dir, "notes.txt", NULL), 20000);
    d->output = slurp(path_of(dir, "output.log", NULL), 8000);

    char *rubric_path = path_of(ref, day, "rubric.tsv");
    FILE *f = fopen(rubric_path, "r");
    if (!f) die("cannot read %s", rubric_path);
    char line[8192];
    while (d->count < 1024 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *cursor = line, *name = strsep(&cursor, "\t"), *points = strsep(&cursor, "\t"), *vis = strsep(&cursor, "\t");
        if (!name || !points || !vis) continue;
        outcome *o = &d->tests[d->count++];
        *o = (outcome){strdup(name), strdup("not-run"), strdup(""), strdup(""), atof(points), ""};
        snprintf(o->visibility, sizeof o->visibility, "%s", vis);
        d->max += o->points;
    }
    fclose(f);

    const char *reports[2] = {"report.tsv", "hidden.tsv"};
    static lab_report_line lines[4096];
    for (int r = 0; r < 2; r++) {
        int count = lab_report_read(path_of(dir, reports[r], NULL), lines, 4096);
        for (int k = 0; k < count; k++) {
            char name[4200];
            snprintf(name, sizeof name, "%s%s", r ? "hidden/" : "", lines[k].name);
            for (int i = 0; i < d->count; i++) {
                outcome *o = &d->tests[i];
                if (strcmp(o->name, name) != 0 || strcmp(o->status, "not-run") != 0) continue;
                o->status = strdup(lines[k].status);
                o->reason = strdup(lines[k].reason);
                o->hint = strdup(lines[k].hint);
            }
        }
        lab_report_free(lines, count);
    }
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->tests[i].status, "passed") == 0) d->score += d->tests[i].points;
}

static const char *day_number(const char *day) { static char n[8]; snprintf(n, sizeof n, "%.2s", day); return n; }

/* The feedback file. after_due: also show the after_due_date tests. Hidden tests are only counted. */
static void write_feedback(const char *path, const char *name, const char *isolation, day_result *days, int day_count,
                           double total, double total_max, const char *ignored, int after_due)
{
    FILE *out = create(path);
    fprintf(out, "Grading of ");
    put_text(out, name);
    fprintf(out, "%s\nTotal: %s of %s points\nIsolation: %s\n", after_due ? " (after the due date)" : "",
            points_text(total), points_text(total_max), isolation);
    for (int k = 0; k < day_count; k++) {
        day_result *d = &days[k];
        fprintf(out, "\n== Day %s (%s): %s of %s points\n", day_number(d->day), d->day + 3, points_text(d->score),
                points_text(d->max));
        if (*d->notes) put_text(out, d->notes);
        if (strcmp(d->state, "graded") != 0) {
            fprintf(out, "0 points for this day: ");
            put_text(out, d->reason);
            fputc('\n', out);
            if (*d->build_log) {
                fprintf(out, "-- what the build printed:\n");
                put_text(out, d->build_log);
                fputc('\n', out);
            }
            continue;
        }
        /* the verdict exactly as `make check` prints it (on the tests that may be shown) */
        put_text(out, after_due ? d->verdict_after_due : d->verdict);
        fprintf(out, "-- points\n");
        int withheld = 0, withheld_passed = 0;
        double withheld_points = 0, withheld_max = 0;
        for (int i = 0; i < d->count; i++) {
            outcome *o = &d->tests[i];
            int passed = strcmp(o->status, "passed") == 0;
            int shown = !strcmp(o->visibility, "visible") || (after_due && !strcmp(o->visibility, "after_due_date"));
            if (!shown) {
                withheld++, withheld_passed += passed, withheld_max += o->points;
                if (passed) withheld_points += o->points;
                continue;
            }
            fprintf(out, "  %5s / %-5s %s %s\n", points_text(passed ? o->points : 0), points_text(o->points),
                    passed ? "PASS" : "FAIL", o->name);
            if (!passed && strncmp(o->name, "hidden/", 7) == 0) {
                /* the verdict above covers the book's tests; the instructor's get their reasons here */
                if (*o->reason) { fprintf(out, "         "); put_text(out, o->reason); fputc('\n', out); }
                if (*o->hint) { fprintf(out, "         hint: "); put_text(out, o->hint); fputc('\n', out); }
            }
        }
        if (withheld)
            fprintf(out, "  %d more test%s (%s): %d passed, %s of %s points\n", withheld, withheld == 1 ? "" : "s",
                    after_due ? "hidden" : "hidden until the due date or for good", withheld_passed,
                    points_text(withheld_points), points_text(withheld_max));
        if (*d->output) {
            fprintf(out, "-- what your code printed while tested (the start of it):\n");
            put_text(out, d->output);
            fputc('\n', out);
        }
    }
    if (*ignored) {
        fprintf(out, "\nIgnored (the grader takes only the files each lab.conf names):\n");
        put_text(out, ignored);
        if (ignored[strlen(ignored) - 1] != '\n') fputc('\n', out);
    }
    fclose(out);
}

static int submission(int argc, char **argv)
{
    if (argc != 6) die("usage: grade-report submission RESULTS REF OUT NAME ISOLATION SECONDS");
    const char *results = argv[0], *ref = argv[1], *out_dir = argv[2], *name = argv[3], *isolation = argv[4];
    int seconds = atoi(argv[5]);

    /* the days, in the order of RESULTS/days */
    static day_result days[64];
    int day_count = 0;
    char *day_list = slurp(path_of(results, "days", NULL), 4000), *saveptr = NULL;
    for (char *day = strtok_r(day_list, " \n", &saveptr); day && day_count < 64; day = strtok_r(NULL, " \n", &saveptr))
        load_day(&days[day_count++], results, ref, day);
    double total = 0, total_max = 0;
    for (int i = 0; i < day_count; i++) total += days[i].score, total_max += days[i].max;
    char *ignored = slurp(path_of(results, "ignored.txt", NULL), 20000);

    /* feedback */
    char *feedback = path_of(out_dir, "feedback", NULL);
    make_dir(feedback);
    char file[4096];
    snprintf(file, sizeof file, "%s/%s.txt", feedback, name);
    write_feedback(file, name, isolation, days, day_count, total, total_max, ignored, 0);
    snprintf(file, sizeof file, "%s/%s.after-due-date.txt", feedback, name);
    write_feedback(file, name, isolation, days, day_count, total, total_max, ignored, 1);

    /* Gradescope: https://gradescope-autograders.readthedocs.io/en/latest/specs/ */
    char *gradescope = path_of(out_dir, "gradescope", NULL);
    make_dir(gradescope);
    char *folder = path_of(gradescope, name, NULL);
    make_dir(folder);
    FILE *json = create(path_of(folder, "results.json", NULL));
    char summary[8192];
    int used = snprintf(summary, sizeof summary, "Isolation: %s\n", isolation);
    for (int i = 0; i < day_count && used < (int)sizeof summary - 200; i++)
        used += snprintf(summary + used, sizeof summary - (size_t)used, "Day %s (%s): %s of %s points%s%s\n",
                         day_number(days[i].day), days[i].day + 3, points_text(days[i].score), points_text(days[i].max),
                         strcmp(days[i].state, "graded") ? " — " : "", strcmp(days[i].state, "graded") ? days[i].reason : "");
    /* Gradescope shows students the total, hidden tests' points included, unless the submission's
     * own visibility says otherwise (each test's visibility overrides it for that test): with any
     * test held back, the total waits for the due date, and the visible tests stay visible. */
    int held_back = 0;
    for (int i = 0; i < day_count; i++)
        for (int t = 0; t < days[i].count; t++) held_back |= strcmp(days[i].tests[t].visibility, "visible") != 0;
    if (held_back && used < (int)sizeof summary - 200)
        used += snprintf(summary + used, sizeof summary - (size_t)used,
                         "Some tests are held back until the due date or for good, so the total is shown after the due date.\n");
    fprintf(json, "{\n  \"score\": %s,\n  \"execution_time\": %d,\n", points_text(total), seconds);
    if (held_back) fprintf(json, "  \"visibility\": \"after_due_date\",\n");
    fprintf(json, "  \"output\": ");
    put_json(json, summary);
    fprintf(json, ",\n  \"tests\": [");
    int first = 1;
    for (int i = 0; i < day_count; i++) {
        day_result *d = &days[i];
        /* a 0-point entry per day carries what the student needs when the day did not build */
        char build_output[30000];
        snprintf(build_output, sizeof build_output, "%s%s%s%s%s", d->notes,
                 strcmp(d->state, "graded") ? d->reason : "The lab built.", strcmp(d->state, "graded") ? "\n" : "",
                 *d->build_log ? "\n" : "", d->build_log);
        char test_name[512];
        snprintf(test_name, sizeof test_name, "%s: build", d->day);
        fprintf(json, "%s\n    {\"name\": ", first ? "" : ",");
        first = 0;
        put_json(json, test_name);
        fprintf(json, ", \"score\": 0, \"max_score\": 0, \"status\": \"%s\", \"output\": ",
                strcmp(d->state, "graded") == 0 ? "passed" : "failed");
        put_json(json, build_output);
        fprintf(json, ", \"visibility\": \"visible\"}");
        for (int t = 0; t < d->count; t++) {
            outcome *o = &d->tests[t];
            int passed = strcmp(o->status, "passed") == 0;
            char output[12000];
            if (passed) snprintf(output, sizeof output, "passed");
            else if (strcmp(o->status, "not-run") == 0) snprintf(output, sizeof output, "not run: %s", d->reason);
            else
                snprintf(output, sizeof output, "%s%s%s%s%s", o->status, *o->reason ? ": " : "", o->reason,
                         *o->hint ? "\nHint: " : "", o->hint);
            snprintf(test_name, sizeof test_name, "%s: %s", d->day, o->name);
            fprintf(json, ",\n    {\"name\": ");
            put_json(json, test_name);
            fprintf(json, ", \"score\": %s, \"max_score\": %s, \"status\": \"%s\", \"output\": ",
                    points_precise(passed ? o->points : 0), points_precise(o->points), passed ? "passed" : "failed");
            put_json(json, output);
            fprintf(json, ", \"visibility\": \"%s\"}", o->visibility);
        }
    }
    fprintf(json, "\n  ]\n}\n");
    fclose(json);

    /* Autolab reads the last line its autograder prints: {"scores": {...}, "scoreboard": [...]} */
    char *autolab = path_of(out_dir, "autolab", NULL);
    make_dir(autolab);
    snprintf(file, sizeof file, "%s/%s.json", autolab, name);
    FILE *line = create(file);
    fprintf(line, "{\"scores\": {");
    for (int i = 0; i < day_count; i++) {
        fprintf(line, "%s", i ? ", " : "");
        put_json(line, days[i].day);
        fprintf(line, ": %s", points_text(days[i].score));
    }
    fprintf(line, "}, \"scoreboard\": [%s", points_text(total));
    for (int i = 0; i < day_count; i++) fprintf(line, ", %s", points_text(days[i].score));
    fprintf(line, "]}\n");
    fclose(line);

    /* for the gradebook */
    printf("%s", name);
    for (int i = 0; i < day_count; i++) printf("\t%s\t%s", points_text(days[i].score), points_text(days[i].max));
    printf("\t%s\t%s\n", points_text(total), points_text(total_max));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "rubric") == 0) return rubric(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "submission") == 0) return submission(argc - 2, argv + 2);
    die("usage: grade-report rubric TESTS [RUBRIC...] | grade-report submission RESULTS REF OUT NAME ISOLATION SECONDS");
    return 2;
}
