/* os_caches.c — Day 08 driver: what the operating system says the caches of CPU 0 are, from
 * Linux's /sys/devices/system/cpu/cpu0/cache/indexN/{level,type,size,shared_cpu_list}, and the
 * processor's name from /proc/cpuinfo. Do not edit.
 *
 * Elsewhere (macOS, a container that hides sysfs) the files are missing: the functions say so,
 * and the tests that compare your knees with these sizes are skipped rather than failed. */
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CACHE_DIR[] = "/sys/devices/system/cpu/cpu0/cache";

/* The first line of a small file, without its newline; 0 when it cannot be read. */
static int read_line(const char *path, char *text, size_t size)
{
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    int ok = fgets(text, (int)size, file) != NULL;
    fclose(file);
    if (ok) text[strcspn(text, "\n")] = 0;
    return ok;
}

/* "32K" -> 32768, "1024K" -> 1048576, "32M" -> 33554432; 0 when it is not a size. */
static size_t parse_size(const char *text)
{
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text) return 0;
    if (*end == 'K') value <<= 10;
    else if (*end == 'M') value <<= 20;
    else if (*end == 'G') value <<= 30;
    return (size_t)value;
}

/* How many CPUs a list such as "0", "0-1", "0,16" or "0-7,64-71" names. */
static int count_cpus(const char *list)
{
    int cpus = 0;
    for (const char *p = list; *p;) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p) break;
        if (*end == '-') last = strtol(end + 1, &end, 10);
        cpus += (int)(last - first + 1);
        p = *end == ',' ? end + 1 : end;
        if (*end != ',') break;
    }
    return cpus > 0 ? cpus : 1;
}

int os_cache_levels(cache_level *levels, int max_levels, char *why, size_t why_size)
{
    int found = 0;
    why[0] = 0;
    for (int index = 0; index < 16 && found < max_levels; index++) {
        char path[256], level[32], type[32], size[32], shared[256] = "0";
        snprintf(path, sizeof path, "%s/index%d/level", CACHE_DIR, index);
        if (!read_line(path, level, sizeof level)) continue;
        snprintf(path, sizeof path, "%s/index%d/type", CACHE_DIR, index);
        if (!read_line(path, type, sizeof type) || strcmp(type, "Instruction") == 0) continue;
        snprintf(path, sizeof path, "%s/index%d/size", CACHE_DIR, index);
        if (!read_line(path, size, sizeof size) || parse_size(size) == 0) continue;
        snprintf(path, sizeof path, "%s/index%d/shared_cpu_list", CACHE_DIR, index);
        read_line(path, shared, sizeof shared);
        cache_level *c = &levels[found++];
        c->level = atoi(level);
        snprintf(c->type, sizeof c->type, "%s", type);
        c->bytes = parse_size(size);
        c->cpus_sharing = count_cpus(shared);
    }
    /* sysfs lists them by index, which is by level on every machine seen; sort to be sure. */
    for (int i = 1; i < found; i++)
        for (int j = i; j > 0 && levels[j].level < levels[j - 1].level; j--) {
            cache_level t = levels[j];
            levels[j] = levels[j - 1], levels[j - 1] = t;
        }
    if (found == 0)
        snprintf(why, why_size, "the OS does not report this CPU's caches (%s/index*/{level,type,size} cannot be "
                 "read: not Linux, or sysfs hidden from this container)", CACHE_DIR);
    return found;
}

void cache_level_name(const cache_level *level, char *name, size_t size)
{
    const char *suffix = strcmp(level->type, "Data") == 0 ? "d" : "";
    if (level->bytes >= (1u << 20) && level->bytes % (1u << 20) == 0)
        snprintf(name, size, "L%d%s %zu MiB", level->level, suffix, level->bytes >> 20);
    else
        snprintf(name, size, "L%d%s %zu KiB", level->level, suffix, level->bytes >> 10);
}

