/* report_file.c — the reader described in report_file.h. */
#define _DEFAULT_SOURCE
#include "report_file.h"
#include "give_up.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Undoes the \t \n \\ escapes of the report, in place. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *out++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *out++ = *s;
        }
    }
    *out = 0;
}

int lab_report_read(const char *path, lab_report_line *lines, int capacity)
{
    FILE *report = fopen(path, "r");
    if (!report) return 0;
    int count = 0;
    char *text = NULL;
    size_t text_capacity = 0;
    while (count < capacity && getline(&text, &text_capacity, report) > 0) {
        text[strcspn(text, "\n")] = 0;
        char *fields[5] = {0}, *cursor = text;
        for (int i = 0; i < 5; i++) fields[i] = strsep(&cursor, "\t");
        if (!fields[1]) continue;
        lab_report_line *l = &lines[count++];
        *l = (lab_report_line){lab_strdup_or_exit(fields[0]), lab_strdup_or_exit(fields[1]),
                           lab_strdup_or_exit(fields[2] ? fields[2] : ""), lab_strdup_or_exit(fields[3] ? fields[3] : ""),
                           fields[4] ? atol(fields[4]) : 0};
        unescape(l->reason);
        unescape(l->hint);
    }
    free(text);
    fclose(report);
    return count;
}

void lab_report_free(lab_report_line *lines, int count)
{
    for (int i = 0; i < count; i++) free(lines[i].status), free(lines[i].name), free(lines[i].reason), free(lines[i].hint);
}
