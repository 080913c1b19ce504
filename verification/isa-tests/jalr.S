# jalr: register target plus offset with bit 0 cleared, link register, rd == rs1.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
la a1, 1f
li t3, 0
2: jalr a4, 0(a1)
li t3, 1
1: bnez t3, fail
la a5, 2b
addi a5, a5, 4
bne a4, a5, fail
li TESTNUM, 2
la a1, 3f - 7
jalr a4, 7(a1)
j fail
3: li TESTNUM, 3
la a1, 4f
jalr a1, 0(a1)
5: j fail
4: la a5, 5b
bne a1, a5, fail

TEST_END
