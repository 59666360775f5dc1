/* fiber_x86_64.S — the fiber switch for x86-64 (System V ABI).
 *
 * A switch only has to preserve what the ABI says a call preserves: the six
 * callee-saved registers and the stack pointer. Everything else the compiler already
 * assumes is clobbered by the call to fiber_switch. */
#if defined(__x86_64__) && !defined(SIM_FIBER_UCONTEXT)
    .text

/* void fiber_switch_stack(void **save_sp, void *load_sp) */
    .globl  fiber_switch_stack
    .type   fiber_switch_stack, @function
fiber_switch_stack:
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
    .size   fiber_switch_stack, .-fiber_switch_stack

/* A new fiber "returns" here from its first switch; %r12 holds its entry function.
 * The stack is 16-byte aligned at this point, as a call requires. */
    .globl  fiber_start_trampoline
    .type   fiber_start_trampoline, @function
fiber_start_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    xorl    %ebp, %ebp
    callq   *%r12
    ud2
    .cfi_endproc
    .size   fiber_start_trampoline, .-fiber_start_trampoline
#endif
    .section .note.GNU-stack,"",@progbits
