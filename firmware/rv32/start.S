/* Reset entry of the control CPU: stack, .data copy, .bss clear, C++ constructors, main. */
    .section .text.start
    .globl _start
_start:
    la sp, __stack_top
    la a0, __data_load
    la a1, __data_start
    la a2, __data_end
1:  bgeu a1, a2, 2f
    lw t0, 0(a0)
    sw t0, 0(a1)
    addi a0, a0, 4
    addi a1, a1, 4
    j 1b
    /* .bss (64 KiB of tables) eight words at a time, then the rest. */
2:  la a1, __bss_start
    la a2, __bss_end
    addi a3, a2, -28
3:  bgeu a1, a3, 31f
    sw zero, 0(a1)
    sw zero, 4(a1)
    sw zero, 8(a1)
    sw zero, 12(a1)
    sw zero, 16(a1)
    sw zero, 20(a1)
    sw zero, 24(a1)
    sw zero, 28(a1)
    addi a1, a1, 32
    j 3b
31: bgeu a1, a2, 4f
    sw zero, 0(a1)
    addi a1, a1, 4
    j 31b
4:  la s0, __init_array_start
    la s1, __init_array_end
5:  bgeu s0, s1, 6f
    lw t0, 0(s0)
    jalr t0
    addi s0, s0, 4
    j 5b
6:  call main
7:  wfi
    j 7b
