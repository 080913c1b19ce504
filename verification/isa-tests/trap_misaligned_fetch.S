# Jumps and taken branches to an address that is not 4-byte aligned trap on the jump
# (mcause 0, mepc = the jump, mtval = the target); rd is not written. Not-taken
# branches do not trap.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
li a4, 55
la a1, 9f
1: jalr a4, 2(a1)
TRAP_CHECK_ADDR(1, 0, 1b, 9f+2)
li TESTNUM, 2; CHECK(a4, 55)
3: jal a4, .+6
TRAP_CHECK_ADDR(3, 0, 3b, 3b+6)
li TESTNUM, 4; CHECK(a4, 55)
5: beq x0, x0, .+10
TRAP_CHECK_ADDR(5, 0, 5b, 5b+10)
li s2, -1
6: bne x0, x0, .+10
li TESTNUM, 6; CHECK(s2, -1)
# jalr clears bit 0 only, so an odd target with bit 1 clear is fine
la a1, 7f
jalr x0, 1(a1)
j fail
7:
9: nop

TEST_END
