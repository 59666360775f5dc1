/* atomics.c — atomicAdd and friends, as CUDA defines them for each type.
 *
 * They live here, in the uninstrumented runtime, for two reasons: an atomic is one memory
 * operation (not a load and a store the metrics would count twice), and two threads
 * updating the same shared word atomically is not a race. Each checks that its address is
 * global or shared memory, counts one atomic, and does the operation with the compiler's
 * atomic builtins, so it stays correct with blocks running on several cores (threads.c). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_check_atomic_address(const void *address, size_t bytes, const char *operation, int reads, void *site);

#define CAS_LOOP(T, BITS, address, update)                                                      \
    do {                                                                                         \
        BITS expected = __atomic_load_n((BITS *)(address), __ATOMIC_RELAXED), desired;          \
        T old_value;                                                                             \
        do {                                                                                     \
            memcpy(&old_value, &expected, sizeof old_value);                                     \
            T new_value = (update);                                                              \
            memcpy(&desired, &new_value, sizeof desired);                                        \
        } while (!__atomic_compare_exchange_n((BITS *)(address), &expected, desired, 0,          \
                                              __ATOMIC_RELAXED, __ATOMIC_RELAXED));              \
        return old_value;                                                                        \
    } while (0)

#define INTEGER_ATOMIC(NAME, T)                                                                  \
    T NAME(sim_atomic_op op, T *address, T value, T compare)                                     \
    {                                                                                            \
        sim_check_atomic_address(address, sizeof(T), sim_atomic_name(op), op != SIM_ATOMIC_EXCH, \
                                 __builtin_return_address(0));                               \
        sim_metrics_atomic();                                                                    \
        switch (op) {                                                                            \
        case SIM_ATOMIC_ADD: return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);        \
        case SIM_ATOMIC_SUB: return __atomic_fetch_sub(address, value, __ATOMIC_RELAXED);        \
        case SIM_ATOMIC_AND: return __atomic_fetch_and(address, value, __ATOMIC_RELAXED);        \
        case SIM_ATOMIC_OR: return __atomic_fetch_or(address, value, __ATOMIC_RELAXED);          \
        case SIM_ATOMIC_XOR: return __atomic_fetch_xor(address, value, __ATOMIC_RELAXED);        \
        case SIM_ATOMIC_EXCH: return __atomic_exchange_n(address, value, __ATOMIC_RELAXED);      \
        case SIM_ATOMIC_CAS:                                                                     \
            __atomic_compare_exchange_n(address, &compare, value, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
            return compare;                                                                      \
        case SIM_ATOMIC_MIN: CAS_LOOP(T, T, address, value < old_value ? value : old_value);     \
        case SIM_ATOMIC_MAX: CAS_LOOP(T, T, address, value > old_value ? value : old_value);     \
        case SIM_ATOMIC_INC: CAS_LOOP(T, T, address, old_value >= value ? 0 : old_value + 1);    \
        case SIM_ATOMIC_DEC:                                                                     \
            CAS_LOOP(T, T, address, old_value == 0 || old_value > value ? value : old_value - 1); \
        }                                                                                        \
        sim_crash("%s: an atomic operation the simulator does not know (%d)", sim_atomic_name(op), (int)op); \
    }

static const char *sim_atomic_name(sim_atomic_op op)
{
    static const char *names[] = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
                                  "atomicInc", "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor"};
    return names[op];
}

INTEGER_ATOMIC(sim_atomic_int, int)
INTEGER_ATOMIC(sim_atomic_uint, unsigned int)
INTEGER_ATOMIC(sim_atomic_ll, long long)
INTEGER_ATOMIC(sim_atomic_ull, unsigned long long)

float sim_atomic_float(sim_atomic_op op, float *address, float value)
{
    sim_check_atomic_address(address, sizeof(float), sim_atomic_name(op), op != SIM_ATOMIC_EXCH,
                             __builtin_return_address(0));
    sim_metrics_atomic();
    switch (op) {
    case SIM_ATOMIC_ADD: CAS_LOOP(float, uint32_t, address, old_value + value);
    case SIM_ATOMIC_EXCH: CAS_LOOP(float, uint32_t, address, value);
    default: sim_kernel_fail(cudaErrorNotSupported, "%s is not defined for float", sim_atomic_name(op));
    }
}

double sim_atomic_double(sim_atomic_op op, double *address, double value)
{
    sim_check_atomic_address(address, sizeof(double), sim_atomic_name(op), 1, __builtin_return_address(0));
    sim_metrics_atomic();
    switch (op) {
    case SIM_ATOMIC_ADD: CAS_LOOP(double, uint64_t, address, old_value + value);
    default: sim_kernel_fail(cudaErrorNotSupported, "%s is not defined for double", sim_atomic_name(op));
    }
}
