/* fiber_x86_64.S — the fiber switch for x86-64 (System V ABI).
 *
 * A switch only has to preserve what the ABI says a call preserves: the six
 * callee-saved registers and the stack pointer. Everything else the compiler already
 * assumes is clobbered by the call to sim_fiber_switch. */
#if defined(__x86_64__) && !defined(SIM_FIBER_UCONTEXT)
    .text

/* void sim_fiber_switch_stack(void **save_sp, void *load_sp) */
    .globl  sim_fiber_switch_stack
    .type   sim_fiber_switch_stack, @function
sim_fiber_switch_stack:
    pushq   %rbp
    pushq   %rbx
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
    .size   sim_fiber_switch_stack, .-sim_fiber_switch_stack

/* A new fiber "returns" here from its first switch; %r12 holds its entry function.
 * The stack is 16-byte aligned at this point, as a call requires. */
    .globl  sim_fiber_start_trampoline
    .type   sim_fiber_start_trampoline, @function
sim_fiber_start_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    xorl    %ebp, %ebp
    callq   *%r12
    ud2
    .cfi_endproc
    .size   sim_fiber_start_trampoline, .-sim_fiber_start_trampoline
#endif
    .section .note.GNU-stack,"",@progbits
