/* machine.h — what a lab's measurement is labelled with: the CPU it ran on. */
#ifndef LAB_MACHINE_H
#define LAB_MACHINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's model name from /proc/cpuinfo ("this CPU" where there is none), with commas and quotes
 * replaced by spaces so that it is safe inside a CSV field and a plot title. */
void lab_cpu_name(char *name, size_t size);

#ifdef __cplusplus
}
#endif

#endif
