# divw: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, divw, 0xffffffffffffffff, 0x0, 0x0)
TEST_RR(2, divw, 0x1, 0x1, 0x1)
TEST_RR(3, divw, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, divw, 0x0, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, divw, 0xffffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, divw, 0xffffffffffffffff, 0xffffffff, 0x1)
TEST_RR(7, divw, 0xffffffff80000000, 0x80000000, 0xffffffff)
TEST_RR(8, divw, 0xffffffffffffffff, 0x123456789, 0x0)
TEST_RR(9, divw, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
TEST_RR(10, divw, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)
TEST_RR(11, divw, 0xffffffff80000000, 0xffffffff80000000, 0xffffffffffffffff)
TEST_RR(12, divw, 0xfffffffffffffffd, 0xffffffffffffffec, 0x6)
TEST_RR(13, divw, 0xfffffffffffffffd, 0x14, 0xfffffffffffffffa)
TEST_RR(14, divw, 0x0, 0x40, 0xfedcba9876543210)
TEST_RR(15, divw, 0x0, 0xffffffff, 0x123456789abcdef0)
TEST_RR(16, divw, 0xffffffff89abcdf0, 0xfedcba9876543210, 0x7fffffffffffffff)
TEST_RR_SAME(17, divw, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)

TEST_END
