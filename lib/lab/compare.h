/* compare.h — checking a result against a reference, the one way the whole book does it.
 *
 * An element passes when |got - want| <= absolute + relative * |want|: the tolerance
 * grows with the magnitude of the reference, so large and small values are judged
 * alike. NaN and infinity never pass, in either array. Outputs are poisoned before a
 * run (every byte 0xff, which is a NaN as a float and -1 as an integer), so an element
 * the code under test never wrote fails and is reported as "never written". */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_comparison {
    size_t mismatches;           /* elements that failed */
    size_t first_mismatch;       /* index of the first one */
    char message[512];           /* the first few failures, readable; "" when all passed */
} lab_comparison;

lab_comparison lab_compare_floats(const char *name, const float *got, const float *want, size_t n,
                          double relative, double absolute);
lab_comparison lab_compare_doubles(const char *name, const double *got, const double *want, size_t n,
                           double relative, double absolute);
lab_comparison lab_compare_ints(const char *name, const int *got, const int *want, size_t n);

/* Fills memory with the poison pattern, and recognises it. */
void lab_poison(void *memory, size_t bytes);
int lab_float_is_poison(float x);

#ifdef __cplusplus
}
#endif

#endif
