# mret: jumps to mepc, MIE <- MPIE, MPIE <- 1; trap entry: MPIE <- MIE, MIE <- 0.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
la a1, 1f
csrw mepc, a1
li a2, 0x80
csrw mstatus, a2
mret
j fail
1: csrr a4, mstatus; CHECK(a4, 0x1888)
li TESTNUM, 2
la t0, handler; csrw mtvec, t0
ecall
li TESTNUM, 3
CHECK(s2, 0x1880)
csrr a4, mstatus; CHECK(a4, 0x1888)
csrw mstatus, x0
j done
  .align 2
handler:
  csrr s2, mstatus
  csrr t0, mepc; addi t0, t0, 4; csrw mepc, t0
  mret
done:

TEST_END
