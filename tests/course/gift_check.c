/* gift_check.c — a strict validator of Moodle's GIFT format, for the course kit's question bank
 * (Debian packages no GIFT parser; this follows Moodle's documentation of the format and its
 * importer, question/format/gift/format.php), and a comparison of the bank's GIFT with its CSV.
 *
 *   gift_check BANK.gift [BANK.csv]
 *
 * The grammar held: a file of paragraphs separated by blank lines; lines starting with // are
 * comments; a paragraph is a "$CATEGORY: path" line or one question: an optional ::title::, the
 * question text, one answer block {...} at its end. Inside titles, text and feedback the characters
 * ~ = # { } : appear only escaped (\~ \= \# \{ \} \:; \\ and \n are the other escapes). The bank
 * has numeric questions only, so an answer block must be numeric: {#N}, {#N:T}, {#N..M}, or
 * {#=N:T#feedback =%50%N:T ...}, optionally followed by ####general feedback; numbers are plain
 * decimals, tolerances 0 or more, ranges increasing. With the CSV, every question must be the
 * CSV's row of the same id: the text (with " (answer in UNIT)"), answer, tolerance and worked
 * solution as the general feedback. Prints "ok ..." or "FAIL line N: ..."; exits 1 on a fault. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

static int faults;
static int line_number;   /* the first line of the paragraph being read */

static void fault(const char *what, const char *detail)
{
    if (faults < 20) printf("FAIL line %d: %s%s\n", line_number, what, detail ? detail : "");
    faults++;
}

static int special(char c) { return c && strchr("~=#{}:", c) != NULL; }

/* Text of a title, question or feedback: every special character escaped, every backslash an
 * escape. Writes the unescaped text to `out`. */
static void plain_text(const char *s, size_t length, char *out, size_t out_size, const char *where)
{
    size_t n = 0;
    for (size_t i = 0; i < length; i++) {
        char c = s[i];
        if (c == '\\') {
            char next = i + 1 < length ? s[i + 1] : 0;
            if (special(next) || next == '\\') c = next;
            else if (next == 'n') c = '\n';
            else { fault("a backslash that escapes nothing in the ", where); return; }
            i++;
        } else if (special(c)) {
            char message[160];
            snprintf(message, sizeof message, "an unescaped '%c' in the %s (write \\%c): ", c, where, c);
            fault(message, "");
            return;
        }
        if (n + 1 < out_size) out[n++] = c;
    }
    out[n] = 0;
}

/* A plain decimal: optional minus, digits, optionally a point and digits. */
static const char *decimal(const char *s, double *value)
{
    const char *p = s;
    if (*p == '-') p++;
    if (!isdigit((unsigned char)*p)) return NULL;
    while (isdigit((unsigned char)*p)) p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    *value = atof(s);
    return p;
}

/* One numeric answer, "N", "N:T" or "N..M"; returns the end, NULL when malformed. */
static const char *numeric_answer(const char *s, double *answer, double *tolerance)
{
    const char *p = decimal(s, answer);
    if (!p) return NULL;
    *tolerance = 0;
    if (*p == ':') {
        p = decimal(p + 1, tolerance);
        if (!p || *tolerance < 0) return NULL;
    } else if (p[0] == '.' && p[1] == '.') {
        double high;
        p = decimal(p + 2, &high);
        if (!p || high < *answer) return NULL;
        *tolerance = (high - *answer) / 2;
        *answer = (high + *answer) / 2;
    }
    return p;
}

typedef struct {
    char title[256], text[4096], feedback[8192];
    double answer, tolerance;
    int line;
} Question;

static Question questions[10000];
static int question_count, category_count;

/* The answer block's inside: #..., numeric. */
static void answer_block(const char *s, size_t length, Question *q)
{
    char inside[16384];
    if (length >= sizeof inside) { fault("an answer block too long", NULL); return; }
    memcpy(inside, s, length);
    inside[length] = 0;
    /* general feedback: after the first #### (escaped characters are never part of it) */
    char *general = NULL;
    for (char *p = inside; *p; p++) {
        if (*p == '\\' && p[1]) { p++; continue; }
        if (!strncmp(p, "####", 4)) { *p = 0; general = p + 4; break; }
    }
    q->feedback[0] = 0;
    if (general) plain_text(general, strlen(general), q->feedback, sizeof q->feedback, "general feedback");
    char *p = inside;
    while (isspace((unsigned char)*p)) p++;
    if (*p != '#') { fault("not a numeric answer block (it must start with #): {", inside); return; }
    p++;
    while (isspace((unsigned char)*p)) p++;
    if (*p != '=') {   /* one answer */
        const char *end = numeric_answer(p, &q->answer, &q->tolerance);
        if (!end) { fault("a malformed number in the answer (want N, N:T or N..M, plain decimals): ", p); return; }
        while (isspace((unsigned char)*end)) end++;
        if (*end) fault("something after the numeric answer: ", end);
        return;
    }
    int answers = 0;   /* =N:T#feedback =%50%N:T#feedback ... ; the first full-credit one is kept */
    while (*p == '=') {
        p++;
        int full = 1;
        if (*p == '%') {
            char *close = strchr(p + 1, '%');
            if (!close) { fault("an unclosed %weight% in the answer", NULL); return; }
            full = atof(p + 1) == 100;
            p = close + 1;
        }
        double answer, tolerance;
        const char *end = numeric_answer(p, &answer, &tolerance);
        if (!end) { fault("a malformed number in the answer: ", p); return; }
        if (full && !answers++) { q->answer = answer; q->tolerance = tolerance; }
        p = (char *)end;
        if (*p == '#') {   /* feedback up to the next unescaped = */
            char *start = ++p;
            while (*p && !(*p == '=' && p[-1] != '\\')) p++;
            char feedback[4096];
            plain_text(start, (size_t)(p - start), feedback, sizeof feedback, "answer's feedback");
        }
        while (isspace((unsigned char)*p)) p++;
    }
    if (*p) fault("something in the answer block that is no answer: ", p);
    if (!answers) fault("no answer with full credit", NULL);
}

static void question(char *paragraph)
{
    Question *q = &questions[question_count];
    memset(q, 0, sizeof *q);
    q->line = line_number;
    char *p = paragraph;
    while (isspace((unsigned char)*p)) p++;
    if (!strncmp(p, "::", 2)) {
        char *end = p + 2;
        while (*end && !(end[0] == ':' && end[1] == ':' && end[-1] != '\\')) end++;
        if (!*end) { fault("a title opened with :: and never closed", NULL); return; }
        plain_text(p + 2, (size_t)(end - p - 2), q->title, sizeof q->title, "title");
        p = end + 2;
    }
    /* the answer block: the first unescaped {, and its unescaped } */
    char *open = p;
    while (*open && !(*open == '{' && (open == paragraph || open[-1] != '\\'))) open++;
    if (!*open) { fault("a question without an answer block {...}", NULL); return; }
    char *close = open + 1;
    while (*close && !(*close == '}' && close[-1] != '\\')) {
        if (*close == '{' && close[-1] != '\\') { fault("a { inside the answer block", NULL); return; }
        close++;
    }
    if (!*close) { fault("an answer block opened with { and never closed", NULL); return; }
    for (char *rest = close + 1; *rest; rest++)
        if (!isspace((unsigned char)*rest)) { fault("text after the answer block (this bank has no missing-word questions): ", rest); return; }
    char *text_end = open;
    while (text_end > p && isspace((unsigned char)text_end[-1])) text_end--;
    while (isspace((unsigned char)*p)) p++;
    if (text_end <= p) { fault("a question without text", NULL); return; }
    if (*p == '[') { fault("a text format marker ([html], [markdown]...) that the bank does not use", NULL); return; }
    plain_text(p, (size_t)(text_end - p), q->text, sizeof q->text, "question text");
    answer_block(open + 1, (size_t)(close - open - 1), q);
    if (!q->title[0]) { fault("a question without a ::title:: (the bank names each by its id)", NULL); return; }
    for (int i = 0; i < question_count; i++)
        if (!strcmp(questions[i].title, q->title)) { fault("a title used twice: ", q->title); return; }
    if (question_count < 10000) question_count++;
}

static void paragraph(char *text)
{
    if (!*text) return;
    if (!strncmp(text, "$CATEGORY:", 10)) {
        if (strchr(text, '\n')) fault("a $CATEGORY line must be a paragraph of its own", NULL);
        char *path = text + 10;
        while (*path == ' ') path++;
        if (!*path) fault("a $CATEGORY without a path", NULL);
        category_count++;
        return;
    }
    question(text);
}

/* The question's text without the " (answer in UNIT)" the export adds, compared with the CSV row */
static void compare_with_csv(const char *csv_path)
{
    Csv csv = read_csv(csv_path);
    if (csv.count - 1 != question_count) {
        char count[64];
        snprintf(count, sizeof count, "%d questions in the GIFT, %d rows in ", question_count, csv.count - 1);
        line_number = 0;
        fault(count, csv_path);
        return;
    }
    for (int r = 1; r < csv.count; r++) {
        Question *q = &questions[r - 1];
        line_number = q->line;
        char id_space[64], text[4200];
        snprintf(id_space, sizeof id_space, "%s ", cell(&csv, r, "id"));
        snprintf(text, sizeof text, "%s (answer in %s)", cell(&csv, r, "question"), cell(&csv, r, "unit"));
        if (strncmp(q->title, id_space, strlen(id_space))) fault("the title does not start with the CSV's id ", id_space);
        else if (strcmp(q->text, text)) fault("the text differs from the CSV's question ", id_space);
        else if (q->answer != atof(cell(&csv, r, "answer"))) fault("the answer differs from the CSV's, question ", id_space);
        else if (q->tolerance != atof(cell(&csv, r, "tolerance"))) fault("the tolerance differs from the CSV's, question ", id_space);
        else if (strcmp(q->feedback, cell(&csv, r, "solution"))) fault("the general feedback is not the CSV's worked solution, question ", id_space);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) die("usage: gift_check BANK.gift [BANK.csv]", "");
    FILE *f = fopen(argv[1], "rb");
    if (!f) die("cannot read ", argv[1]);
    static char text[1 << 20], line[1 << 16];
    size_t used = 0;
    int number = 0;
    for (;;) {
        char *got = fgets(line, sizeof line, f);
        number++;
        int blank = 1;
        if (got) {
            size_t n = strlen(line);
            if (n && line[n - 1] != '\n' && !feof(f)) die("a line too long in ", argv[1]);
            if (memchr(line, '\r', n)) { line_number = number; fault("a carriage return (write Unix line ends)", NULL); }
            for (char *c = line; *c; c++) blank &= isspace((unsigned char)*c) != 0;
            char *start = line;
            while (*start == ' ' || *start == '\t') start++;
            if (!strncmp(start, "//", 2)) continue;   /* a comment: not part of any paragraph */
        }
        if (!got || blank) {
            while (used && isspace((unsigned char)text[used - 1])) used--;
            text[used] = 0;
            paragraph(text);
            used = 0;
            if (!got) break;
            continue;
        }
        if (!used) line_number = number;
        size_t n = strlen(line);
        if (used + n >= sizeof text) die("a paragraph too long in ", argv[1]);
        memcpy(text + used, line, n);
        used += n;
    }
    fclose(f);
    if (!question_count && !faults) { line_number = 0; fault("no question in ", argv[1]); }
    if (argc == 3 && !faults) compare_with_csv(argv[2]);
    if (faults) {
        printf("FAIL %d faults in %s\n", faults, argv[1]);
        return 1;
    }
    printf("ok %d numeric questions in %d categories are valid GIFT (strict: escapes, titles, one numeric answer block each)%s\n",
           question_count, category_count, argc == 3 ? ", each equal to its CSV row (text, answer, tolerance, worked solution)" : "");
    return 0;
}
