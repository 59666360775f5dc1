/* machine.c — the CPU's name for a measurement's label (machine.h). */
#include "machine.h"

#include <stdio.h>
#include <string.h>

void lab_cpu_name(char *name, size_t size)
{
    snprintf(name, size, "this CPU");
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (!file) return;
    char line[512];
    while (fgets(line, sizeof line, file)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        snprintf(name, size, "%s", colon + 2);
        name[strcspn(name, "\n")] = 0;
        for (char *p = name; *p; p++)
            if (*p == ',' || *p == '\'' || *p == '"') *p = ' ';
        break;
    }
    fclose(file);
}
