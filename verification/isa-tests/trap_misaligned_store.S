# Misaligned stores, AMOs and sc trap with mcause 6 and leave memory unchanged.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
la a1, tdat
li a2, -1
1: sh a2, 3(a1)
TRAP_CHECK_ADDR(1, 6, 1b, tdat+3)
2: sw a2, 6(a1)
TRAP_CHECK_ADDR(2, 6, 2b, tdat+6)
3: sd a2, 12(a1)
TRAP_CHECK_ADDR(3, 6, 3b, tdat+12)
addi a3, a1, 2
4: amoadd.w a4, a2, (a3)
TRAP_CHECK_ADDR(4, 6, 4b, tdat+2)
5: amoswap.d a4, a2, (a3)
TRAP_CHECK_ADDR(5, 6, 5b, tdat+2)
6: sc.w a4, a2, (a3)
TRAP_CHECK_ADDR(6, 6, 6b, tdat+2)
li TESTNUM, 7; ld a4, 0(a1); bnez a4, fail; ld a4, 8(a1); bnez a4, fail

TEST_END

  .align 4
tdat: .dword 0, 0
