# csrrci: clears bits from a 5-bit immediate; immediate 0 does not write.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; li a1, 0x13f; csrw mscratch, a1; csrrci a4, mscratch, 0x1f; CHECK(a4, 0x13f)
li TESTNUM, 2; csrr a4, mscratch; CHECK(a4, 0x120)
li TESTNUM, 3; csrrci a4, mvendorid, 0; CHECK(a4, 0)

TEST_END
