# csrrwi: writes a 5-bit zero-extended immediate.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; li a1, -1; csrw mscratch, a1; csrrwi a4, mscratch, 31; CHECK(a4, -1)
li TESTNUM, 2; csrr a4, mscratch; CHECK(a4, 31)
li TESTNUM, 3; csrrwi a4, mscratch, 0; csrr a4, mscratch; CHECK(a4, 0)

TEST_END
