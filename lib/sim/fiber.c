/* fiber.c — preparing a fiber's first stack frame, and the portable fallback.
 * See fiber.h for what a fiber is. */
#include "fiber.h"

#include <stdint.h>

#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(SIM_FIBER_UCONTEXT)

void sim_fiber_switch_stack(void **save_sp, void *load_sp);
void sim_fiber_start_trampoline(void);

#if defined(__x86_64__)
/* The first switch into a fiber pops six callee-saved registers and returns, so the
 * new stack is laid out as that switch expects:
 *     sp -> r15 r14 r13 r12(entry) rbx rbp  [return address: trampoline]  <aligned top>  */
void sim_fiber_prepare(fiber *f, void *stack, size_t size, void (*entry)(void))
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    void **sp = (void **)(top - 16);       /* keep 16 bytes of red zone above */
    *--sp = (void *)sim_fiber_start_trampoline;
    *--sp = 0;                             /* rbp */
    *--sp = 0;                             /* rbx */
    *--sp = (void *)entry;                 /* r12: the trampoline calls it */
    *--sp = 0;                             /* r13 */
    *--sp = 0;                             /* r14 */
    *--sp = 0;                             /* r15 */
    f->stack_pointer = sp;
}
#else
/* The first switch into a fiber loads its 160-byte frame and returns to x30, so the new
 * stack holds that frame, zeroes but for two slots:
 *     sp -> x19(entry) x20 ... x28 x29 x30(trampoline) d8 ... d15  <16-byte aligned top> */
void sim_fiber_prepare(fiber *f, void *stack, size_t size, void (*entry)(void))
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    void **sp = (void **)(top - 160);
    for (int i = 0; i < 20; i++) sp[i] = 0;
    sp[0] = (void *)entry;                         /* x19: the trampoline calls it */
    sp[11] = (void *)sim_fiber_start_trampoline;   /* x30: where the switch returns */
    f->stack_pointer = sp;
}
#endif

void sim_fiber_switch(fiber *from, fiber *to)
{
    sim_fiber_switch_stack(&from->stack_pointer, to->stack_pointer);
}

#else

void sim_fiber_prepare(fiber *f, void *stack, size_t size, void (*entry)(void))
{
    getcontext(&f->context);
    f->context.uc_stack.ss_sp = stack;
    f->context.uc_stack.ss_size = size;
    f->context.uc_link = 0;
    makecontext(&f->context, entry, 0);
}

void sim_fiber_switch(fiber *from, fiber *to)
{
    swapcontext(&from->context, &to->context);
}

#endif
