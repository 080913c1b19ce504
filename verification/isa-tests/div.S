# div: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, div, 0xffffffffffffffff, 0x0, 0x0)
TEST_RR(2, div, 0x1, 0x1, 0x1)
TEST_RR(3, div, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, div, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, div, 0x7fffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, div, 0xffffffff, 0xffffffff, 0x1)
TEST_RR(7, div, 0x0, 0x80000000, 0xffffffff)
TEST_RR(8, div, 0xffffffffffffffff, 0x123456789, 0x0)
TEST_RR(9, div, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
TEST_RR(10, div, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)
TEST_RR(11, div, 0x80000000, 0xffffffff80000000, 0xffffffffffffffff)
TEST_RR(12, div, 0xfffffffffffffffd, 0xffffffffffffffec, 0x6)
TEST_RR(13, div, 0xfffffffffffffffd, 0x14, 0xfffffffffffffffa)
TEST_RR(14, div, 0x0, 0x40, 0x8000000000000000)
TEST_RR(15, div, 0xffffffff80000001, 0x7fffffff, 0xffffffffffffffff)
TEST_RR(16, div, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
TEST_RR_SAME(17, div, 0xffffffff80000000, 0x80000000, 0xffffffffffffffff)

TEST_END
