/* symbols.c — turning a code address into "file.cu:42" for messages, with addr2line.
 * Only used when something is being reported, so its cost does not matter. Programs are
 * compiled with -g; the rewritten .cu files carry #line directives, so the answer names
 * the learner's file and line. Returns "" when it cannot tell. */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Is the main program position-independent (addresses relative to its load base)? This
 * file is linked into the main program, so _DYNAMIC is the main program's. */
static int main_is_pie(void)
{
    for (const ElfW(Dyn) *d = _DYNAMIC; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_PIE)) return 1;
    return 0;
}

const char *sim_source_line(const void *code_address)
{
    static __thread char answer[600];   /* workers may report at once */
    answer[0] = 0;
    Dl_info info;
    if (!code_address || !dladdr(code_address, &info)) return answer;
    Dl_info main_info;
    int in_main = dladdr((void *)main_is_pie, &main_info) && main_info.dli_fbase == info.dli_fbase;
    char program[512];
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);   /* not the popen'd shell's */
    program[length > 0 ? length : 0] = 0;
    const char *file = in_main || !info.dli_fname || !*info.dli_fname ? program : info.dli_fname;
    uintptr_t address = (uintptr_t)code_address - 1;   /* inside the call, not after it */
    if (!in_main || main_is_pie()) address -= (uintptr_t)info.dli_fbase;

    char command[1024];
    snprintf(command, sizeof command, "addr2line -i -e '%s' 0x%lx 2>/dev/null", file, (unsigned long)address);
    FILE *pipe = popen(command, "r");
    if (!pipe) return answer;
    char line[512];
    /* With -i, inlined frames come innermost first: keep the first that is not the
     * simulator's own header. */
    while (fgets(line, sizeof line, pipe)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '?' || strstr(line, "/lib/sim/include/")) continue;
        char *discriminator = strstr(line, " (discriminator");
        if (discriminator) *discriminator = 0;
        snprintf(answer, sizeof answer, "%s", line);
        break;
    }
    pclose(pipe);
    return answer;
}
