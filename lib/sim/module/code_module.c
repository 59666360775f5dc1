/* code_module.c — linked into every shared library that holds a lab's code (tools/build/build-lab
 * builds the code a learner edits as one, so that the test runner never loads it). The linker names
 * the ends of each module's own list of kernels (the section sim_kernels, written by
 * lib/sim/tools/cu2sim); the simulator, in the main program, sees only the main program's, so this
 * tells it where the library's is. Hidden: these names are this library's, never the program's. */
#include "sim.h"

extern const sim_listed_kernel __start_sim_kernels[] __attribute__((weak, visibility("hidden")));
extern const sim_listed_kernel __stop_sim_kernels[] __attribute__((weak, visibility("hidden")));

__attribute__((constructor)) static void add_this_librarys_kernels(void)
{
    if (__start_sim_kernels) sim_add_kernel_list(__start_sim_kernels, __stop_sim_kernels);
}
