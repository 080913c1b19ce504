# sub: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, sub, 0x0, 0x0, 0x0)
TEST_RR(2, sub, 0x0, 0x1, 0x1)
TEST_RR(3, sub, 0xfffffffffffffffe, 0xffffffffffffffff, 0x1)
TEST_RR(4, sub, 0x8000000000000001, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, sub, 0x7ffffffffffffffe, 0x7fffffffffffffff, 0x1)
TEST_RR(6, sub, 0xfffffffe, 0xffffffff, 0x1)
TEST_RR(7, sub, 0xffffffff80000001, 0x80000000, 0xffffffff)
TEST_RR(8, sub, 0x2, 0x3, 0x1)
TEST_RR(9, sub, 0x123456779abcdef1, 0x123456789abcdef0, 0xffffffff)
TEST_RR(10, sub, 0x80000000, 0x80000000, 0x0)
TEST_RR(11, sub, 0x6, 0xffffffffffffffff, 0xfffffffffffffff9)
TEST_RR(12, sub, 0xa, 0x3, 0xfffffffffffffff9)
TEST_RR(13, sub, 0x7fffffffffffffe1, 0x8000000000000000, 0x1f)
TEST_RR(14, sub, 0xffffffff80000000, 0xffffffffffffffff, 0x7fffffff)
TEST_RR(15, sub, 0xffffffffffffffb9, 0xfffffffffffffff9, 0x40)
TEST_RR(16, sub, 0x80000000, 0x80000000, 0x0)
TEST_RR_SAME(17, sub, 0x7ffffffe, 0x7fffffff, 0x1)

TEST_END
