/* Start file for programs on the node control processor (docs/cpu.md).
 * The kick starts the core at the ELF entry (_start, instruction word 0)
 * with the general registers as the previous run left them: set the stack
 * at the top of the scratchpad, clear .bss, call main(CTL_ARG) and halt
 * with ECALL, main's return value in a0 (the completion's argument). */
    .section .text.start, "ax"
    .globl _start
_start:
    la      sp, __stack_top
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  li      t0, 0x20000000      /* local control region */
    lw      a0, 0x14(t0)        /* CTL_ARG: the kick's argument */
    call    main
    ecall                       /* a0 = main's result */
3:  j       3b                  /* not reached: the core halts at the ECALL */
