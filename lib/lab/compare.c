/* compare.c — the validator described in compare.h. */
#include "compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { SHOWN = 3 };   /* mismatches spelled out in the message; the rest are counted */

void lab_poison(void *memory, size_t bytes) { memset(memory, 0xff, bytes); }

int lab_float_is_poison(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == 0xffffffffu;
}

static void note(lab_comparison *c, size_t index, const char *line)
{
    if (c->mismatches == 0) c->first_mismatch = index;
    c->mismatches++;
    size_t used = strlen(c->message);
    if (c->mismatches <= SHOWN) snprintf(c->message + used, sizeof c->message - used, "%s%s", used ? "; " : "", line);
}

static void finish(lab_comparison *c, const char *name, size_t n)
{
    if (c->mismatches > SHOWN) {
        size_t used = strlen(c->message);
        snprintf(c->message + used, sizeof c->message - used, "; ... %zu of %zu elements of %s wrong in all",
                 c->mismatches, n, name);
    }
}

static void compare_one(lab_comparison *c, const char *name, size_t i, double got, double want,
                        int never_written, double relative, double absolute)
{
    char line[160];
    if (!isfinite(want)) {
        snprintf(line, sizeof line, "the reference %s[%zu] is %g: the test itself is wrong", name, i, want);
    } else if (never_written) {
        snprintf(line, sizeof line, "%s[%zu] was never written (want %.9g)", name, i, want);
    } else if (!isfinite(got)) {
        snprintf(line, sizeof line, "%s[%zu] = %g, want %.9g", name, i, got, want);
    } else if (fabs(got - want) > absolute + relative * fabs(want)) {
        snprintf(line, sizeof line, "%s[%zu] = %.9g, want %.9g (off by %.3g)", name, i, got, want, got - want);
    } else {
        return;
    }
    note(c, i, line);
}

lab_comparison lab_compare_floats(const char *name, const float *got, const float *want, size_t n,
                          double relative, double absolute)
{
    lab_comparison c = {0};
    for (size_t i = 0; i < n; i++)
        compare_one(&c, name, i, got[i], want[i], lab_float_is_poison(got[i]), relative, absolute);
    finish(&c, name, n);
    return c;
}

lab_comparison lab_compare_doubles(const char *name, const double *got, const double *want, size_t n,
                           double relative, double absolute)
{
    lab_comparison c = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &got[i], sizeof bits);
        compare_one(&c, name, i, got[i], want[i], bits == UINT64_MAX, relative, absolute);
    }
    finish(&c, name, n);
    return c;
}

lab_comparison lab_compare_ints(const char *name, const int *got, const int *want, size_t n)
{
    lab_comparison c = {0};
    for (size_t i = 0; i < n; i++) {
        if (got[i] == want[i]) continue;
        char line[160];
        if (got[i] == -1) snprintf(line, sizeof line, "%s[%zu] was never written (want %d)", name, i, want[i]);
        else snprintf(line, sizeof line, "%s[%zu] = %d, want %d", name, i, got[i], want[i]);
        note(&c, i, line);
    }
    finish(&c, name, n);
    return c;
}
