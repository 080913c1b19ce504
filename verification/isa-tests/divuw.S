# divuw: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, divuw, 0xffffffffffffffff, 0x0, 0x0)
TEST_RR(2, divuw, 0x1, 0x1, 0x1)
TEST_RR(3, divuw, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, divuw, 0x0, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, divuw, 0xffffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, divuw, 0xffffffffffffffff, 0xffffffff, 0x1)
TEST_RR(7, divuw, 0x0, 0x80000000, 0xffffffff)
TEST_RR(8, divuw, 0xffffffffffffffff, 0x123456789, 0x0)
TEST_RR(9, divuw, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
TEST_RR(10, divuw, 0x0, 0x80000000, 0xffffffffffffffff)
TEST_RR(11, divuw, 0x0, 0xffffffff80000000, 0xffffffffffffffff)
TEST_RR(12, divuw, 0x2aaaaaa7, 0xffffffffffffffec, 0x6)
TEST_RR(13, divuw, 0x0, 0x14, 0xfffffffffffffffa)
TEST_RR(14, divuw, 0x3d12ae7, 0xfedcba9876543210, 0x1f)
TEST_RR(15, divuw, 0x2aaaaaaa, 0xffffffff80000000, 0x3)
TEST_RR(16, divuw, 0x0, 0x20, 0x80000000)
TEST_RR_SAME(17, divuw, 0x0, 0x80000000, 0xffffffffffffffff)

TEST_END
