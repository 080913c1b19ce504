# Misaligned loads trap (mcause 4, mtval = address) and leave rd unchanged; so does a
# misaligned lr.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
la a1, tdat
li a4, 77
1: lh a4, 1(a1)
TRAP_CHECK_ADDR(1, 4, 1b, tdat+1)
2: lw a4, 2(a1)
TRAP_CHECK_ADDR(2, 4, 2b, tdat+2)
3: ld a4, 4(a1)
TRAP_CHECK_ADDR(3, 4, 3b, tdat+4)
4: lhu a4, 7(a1)
TRAP_CHECK_ADDR(4, 4, 4b, tdat+7)
5: lwu a4, 1(a1)
TRAP_CHECK_ADDR(5, 4, 5b, tdat+1)
li TESTNUM, 6; CHECK(a4, 77)
addi a2, a1, 4
7: lr.d a4, (a2)
TRAP_CHECK_ADDR(7, 4, 7b, tdat+4)

TEST_END

  .align 4
tdat: .dword 0, 0
