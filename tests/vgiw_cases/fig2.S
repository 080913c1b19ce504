/* fig2: BB1 to BB6 of seed 004's Figure 1, one basic block each, in this order. */
  .text
  .globl fig2
  .type fig2, @function
fig2:
  .insn r CUSTOM_0, 4, 0, a0, x0, x0   /* BB1: t = tidx() */
  la a1, path
  slli a2, a0, 2
  add a1, a1, a2
  lw a3, 0(a1)
  bnez a3, 1f
  li a4, 3                             /* BB2: t * 3 */
  mul a4, a0, a4
  j 3f
1:
  li a5, 1                             /* BB3 */
  bne a3, a5, 2f
  addi a4, a0, 100                     /* BB4: t + 100 */
  j 3f
2:
  xori a4, a0, 0x55                    /* BB5: t ^ 0x55 */
3:
  la a1, out                           /* BB6 */
  add a1, a1, a2
  sw a4, 0(a1)
  ret
  .size fig2, .-fig2

/* same_word: one block that loads buf[t], stores buf[t] + 1, loads it back (through
 * another register) and stores twice that plus the first value: a store after a load
 * of its word (WAR), a load after a store (RAW), and the graph may reorder nothing
 * else. */
  .globl same_word
  .type same_word, @function
same_word:
  .insn r CUSTOM_0, 4, 0, a0, x0, x0
  la a1, buf
  slli a2, a0, 2
  add a1, a1, a2
  lw a3, 0(a1)
  addi a4, a3, 1
  sw a4, 0(a1)
  mv a5, a1
  lw a6, 0(a5)
  slli a6, a6, 1
  add a6, a6, a3
  la a7, twice
  add a7, a7, a2
  sw a6, 0(a7)
  ret
  .size same_word, .-same_word
