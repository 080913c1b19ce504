# sraw: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, sraw, 0x0, 0x0, 0x0)
TEST_RR(2, sraw, 0x0, 0x1, 0x1)
TEST_RR(3, sraw, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, sraw, 0x0, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, sraw, 0xffffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, sraw, 0xffffffffffffffff, 0xffffffff, 0x1)
TEST_RR(7, sraw, 0xffffffffffffffff, 0x80000000, 0xffffffff)
TEST_RR(8, sraw, 0x7fffffff, 0x7fffffff, 0x20)
TEST_RR(9, sraw, 0xffffffffffff8000, 0xffffffff80000000, 0x123456789abcdef0)
TEST_RR(10, sraw, 0x0, 0x3f, 0x123456789abcdef0)
TEST_RR(11, sraw, 0x76543210, 0xfedcba9876543210, 0x100000000)
TEST_RR(12, sraw, 0x76543210, 0xfedcba9876543210, 0x8000000000000000)
TEST_RR(13, sraw, 0x7654, 0xfedcba9876543210, 0x123456789abcdef0)
TEST_RR(14, sraw, 0x76543210, 0xfedcba9876543210, 0x8000000000000000)
TEST_RR(15, sraw, 0xffffffffffffffff, 0xffffffff, 0xffffffff80000000)
TEST_RR(16, sraw, 0x3f, 0x3f, 0x40)
TEST_RR_SAME(17, sraw, 0x7fffffff, 0x7fffffff, 0x80000000)

TEST_END
