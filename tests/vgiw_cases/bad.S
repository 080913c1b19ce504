/* calls: a call that survived inlining; jumps: an indirect jump. */
  .text
  .globl calls, jumps, leaf
  .type leaf, @function
leaf:
  ret
  .size leaf, .-leaf
  .type calls, @function
calls:
  addi sp, sp, -16
  sw ra, 12(sp)
  call leaf
  lw ra, 12(sp)
  addi sp, sp, 16
  ret
  .size calls, .-calls
  .type jumps, @function
jumps:
  la a0, 1f
  jr a0
1:
  ret
  .size jumps, .-jumps
