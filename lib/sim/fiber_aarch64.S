/* fiber_aarch64.S — the fiber switch for arm64 (AAPCS64), the twin of fiber_x86_64.S.
 *
 * A switch only has to preserve what the ABI says a call preserves: x19-x28, the frame
 * pointer x29, the link register x30 (where the switch returns to), the stack pointer, and
 * the low halves d8-d15 of v8-v15. Everything else the compiler already assumes is
 * clobbered by the call to sim_fiber_switch. The frame is 160 bytes, a multiple of 16 as
 * the stack pointer's alignment requires. */
#if defined(__aarch64__) && !defined(SIM_FIBER_UCONTEXT)
    .text

/* void sim_fiber_switch_stack(void **save_sp, void *load_sp) */
    .globl  sim_fiber_switch_stack
    .type   sim_fiber_switch_stack, %function
    .p2align 2
sim_fiber_switch_stack:
    sub     sp, sp, #160
    stp     x19, x20, [sp, #0]
    stp     x21, x22, [sp, #16]
    stp     x23, x24, [sp, #32]
    stp     x25, x26, [sp, #48]
    stp     x27, x28, [sp, #64]
    stp     x29, x30, [sp, #80]
    stp     d8, d9, [sp, #96]
    stp     d10, d11, [sp, #112]
    stp     d12, d13, [sp, #128]
    stp     d14, d15, [sp, #144]
    mov     x2, sp
    str     x2, [x0]
    mov     sp, x1
    ldp     x19, x20, [sp, #0]
    ldp     x21, x22, [sp, #16]
    ldp     x23, x24, [sp, #32]
    ldp     x25, x26, [sp, #48]
    ldp     x27, x28, [sp, #64]
    ldp     x29, x30, [sp, #80]
    ldp     d8, d9, [sp, #96]
    ldp     d10, d11, [sp, #112]
    ldp     d12, d13, [sp, #128]
    ldp     d14, d15, [sp, #144]
    add     sp, sp, #160
    ret
    .size   sim_fiber_switch_stack, .-sim_fiber_switch_stack

/* A new fiber "returns" here from its first switch; x19 holds its entry function. */
    .globl  sim_fiber_start_trampoline
    .type   sim_fiber_start_trampoline, %function
    .p2align 2
sim_fiber_start_trampoline:
    .cfi_startproc
    .cfi_undefined x30
    mov     x29, #0
    blr     x19
    brk     #1000
    .cfi_endproc
    .size   sim_fiber_start_trampoline, .-sim_fiber_start_trampoline
#endif
    .section .note.GNU-stack,"",%progbits
