# ebreak: mcause 3, mtval = pc of the ebreak.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
1: ebreak
li TESTNUM, 1; CHECK(s2, 3)
la t2, 1b; bne s3, t2, fail; bne s4, t2, fail

TEST_END
