# mul: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, mul, 0x0, 0x0, 0x0)
TEST_RR(2, mul, 0x1, 0x1, 0x1)
TEST_RR(3, mul, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, mul, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, mul, 0x7fffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, mul, 0xffffffff, 0xffffffff, 0x1)
TEST_RR(7, mul, 0x7fffffff80000000, 0x80000000, 0xffffffff)
TEST_RR(8, mul, 0xffffffff80000001, 0x7fffffff, 0xffffffffffffffff)
TEST_RR(9, mul, 0x0, 0x0, 0xfffffffffffffff9)
TEST_RR(10, mul, 0x80000000, 0xffffffff80000000, 0xffffffffffffffff)
TEST_RR(11, mul, 0x17ffffffd, 0x3, 0x7fffffff)
TEST_RR(12, mul, 0x100000000, 0x100000000, 0x1)
TEST_RR(13, mul, 0x7fffffffffffffe1, 0x1f, 0x7fffffffffffffff)
TEST_RR(14, mul, 0xfffffffe80000000, 0xffffffff80000000, 0x3)
TEST_RR(15, mul, 0x8000000000000000, 0x8000000000000000, 0x7fffffffffffffff)
TEST_RR(16, mul, 0x0, 0xffffffffffffffff, 0x0)
TEST_RR_SAME(17, mul, 0x2000000000, 0x100000000, 0x20)

TEST_END
