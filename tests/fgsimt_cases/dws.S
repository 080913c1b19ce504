# Kernels for the DWS model's directed tests (tests/fgsimt_dws_model.rs; seed 001,
# spec section 7). Launches, in order:
#   0: fig3, 8 threads: Fig. 3's divergent branch, masks 0xf9 (B, fall-through) and
#      0x06 (C, taken), re-converging at D.
#   1: mem, 16 threads: one load (dws_load), two adds, one store.
#   2: mem, 32 threads (two warps of 16).
#   3: loop, 16 threads: 8 iterations of a load (dws_loop_load) and an add.
#   4: nest, 8 threads: an outer branch on bit 0 (post-dominator nest_join, 6
#      instructions after it) around an inner one on bit 1 (nest_c, 2 after it).
#define TIDX(rd) .insn r 0x0b, 4, 0, rd, x0, x0
    .text
    .globl main
main:
    addi sp, sp, -16
    sw ra, 12(sp)
    li a0, 8
    la a1, fig3
    call launch_kernel
    li a0, 16
    la a1, mem
    call launch_kernel
    li a0, 32
    la a1, mem
    call launch_kernel
    li a0, 16
    la a1, loop
    call launch_kernel
    li a0, 8
    la a1, nest
    call launch_kernel
    lw ra, 12(sp)
    addi sp, sp, 16
    li a0, 0
    ret

    .align 2
    .globl fig3, fig3_b, fig3_c, fig3_d
fig3:                       # A
    TIDX(t0)
    slli t2, t0, 2
    la t3, out
    add t3, t3, t2
    li t1, 0x06
    srl t1, t1, t0
    andi t1, t1, 1
    bnez t1, fig3_c
fig3_b:                     # B: threads 0xf9
    addi t4, t0, 100
    addi t4, t4, 1
    j fig3_d
fig3_c:                     # C: threads 0x06
    addi t4, t0, 200
    addi t4, t4, 2
fig3_d:                     # D: the post-dominator
    sw t4, 0(t3)
    ret

    .align 2
    .globl mem, dws_load
mem:
    TIDX(t0)
    slli t1, t0, 2
    la t2, data
    add t2, t2, t1
dws_load:
    lw t3, 0(t2)
    addi t3, t3, 1
    addi t3, t3, 1
    sw t3, 0(t2)
    ret

    .align 2
    .globl loop, dws_loop_load
loop:
    TIDX(t0)
    slli t1, t0, 2
    la t2, data
    add t2, t2, t1
    li t4, 8
    li t5, 0
dws_loop_load:
    lw t3, 0(t2)
    add t5, t5, t3
    addi t2, t2, 256
    addi t4, t4, -1
    bnez t4, dws_loop_load
    la t2, out
    add t2, t2, t1
    sw t5, 0(t2)
    ret

    .align 2
    .globl nest, nest_c, nest_join
nest:
    TIDX(t0)
    andi t1, t0, 1
    bnez t1, nest_odd
    andi t2, t0, 2
    bnez t2, nest_b
    li t4, 1
nest_c:
    addi t4, t4, 10
    j nest_join
nest_b:
    li t4, 2
    j nest_c
nest_odd:
    li t4, 3
nest_join:
    slli t2, t0, 2
    la t3, out
    add t3, t3, t2
    sw t4, 0(t3)
    ret

    .data
    .align 4
    .globl out, data
out:
    .space 128
data:
    .word 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
    .word 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
    .space 2048
