/* Start file for RV64 programs (docs/rv64.md §7): every register zeroed
 * (they come out of reset undefined), the stack at __stack_top, .bss
 * cleared, main() called, and its result stored to the exit register, which
 * ends the run: 0x1000_0008 on the flat harness, the control region's
 * R_EXIT (0x2_0000) on the node and the mesh unit (-DEXIT_ADDR=0x20000).
 * The trailing ECALL stops a program whose exit store went astray. */
#ifndef EXIT_ADDR
#define EXIT_ADDR 0x10000008
#endif
    .section .text.start, "ax"
    .globl _start
_start:
    .irp r,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    li      x\r, 0
    .endr
    la      sp, __stack_top
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       1b
2:  call    main
    li      t0, EXIT_ADDR
    sd      a0, 0(t0)
    ecall
3:  j       3b
