/* fiber.h — the smallest possible coroutine: a stack pointer and a switch.
 *
 * Every simulated CUDA thread runs as a fiber on its own stack. A fiber runs until it
 * calls sim_fiber_switch() to hand the CPU to another one; nothing preempts it. On x86-64
 * and arm64 the switch is a few instructions of assembly (fiber_x86_64.S, fiber_aarch64.S);
 * elsewhere it falls back to ucontext, which is correct but about ten times slower (it
 * makes a system call to save the signal mask on every switch). */
#ifndef SIM_FIBER_H
#define SIM_FIBER_H

#include <stddef.h>

#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(SIM_FIBER_UCONTEXT)
typedef struct fiber { void *stack_pointer; } fiber;
#else
#include <ucontext.h>
typedef struct fiber { ucontext_t context; } fiber;
#endif

/* Prepares `f` to start running `entry` on the stack [stack, stack + size) the first
 * time it is switched to. `entry` must never return: it ends by switching away. */
void sim_fiber_prepare(fiber *f, void *stack, size_t size, void (*entry)(void));

/* Saves the running context in `from` and resumes `to`. */
void sim_fiber_switch(fiber *from, fiber *to);

/* Asks the CPU to bring a suspended fiber's saved registers into the cache (and its page into the
 * TLB) ahead of a switch to it: a block's threads have a stack each, a page apart at least, and a
 * switch that waits for the first pop from a cold stack is most of what a barrier costs. */
static inline void sim_fiber_prefetch(const fiber *f)
{
#if defined(__x86_64__) && !defined(SIM_FIBER_UCONTEXT)
    __builtin_prefetch(f->stack_pointer);
    __builtin_prefetch((const char *)f->stack_pointer + 56);
#else
    (void)f;
#endif
}

#endif
