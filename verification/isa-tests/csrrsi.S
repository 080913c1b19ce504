# csrrsi: sets bits from a 5-bit immediate; immediate 0 does not write.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; li a1, 0x100; csrw mscratch, a1; csrrsi a4, mscratch, 0x11; CHECK(a4, 0x100)
li TESTNUM, 2; csrr a4, mscratch; CHECK(a4, 0x111)
li TESTNUM, 3; csrrsi a4, mhartid, 0; CHECK(a4, 0)

TEST_END
