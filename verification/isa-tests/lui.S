# lui: upper immediate, sign-extended from bit 31 on RV64.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; lui a4, 0; CHECK(a4, 0)
li TESTNUM, 2; lui a4, 0x7ffff; CHECK(a4, 0x7ffff000)
li TESTNUM, 3; lui a4, 0x80000; CHECK(a4, 0xffffffff80000000)
li TESTNUM, 4; lui a4, 0xfffff; CHECK(a4, 0xfffffffffffff000)
li TESTNUM, 5; lui a4, 0x12345; addi a4, a4, 0x678; CHECK(a4, 0x12345678)
li TESTNUM, 6; lui x0, 0x12345; bnez x0, fail

TEST_END
