# divu: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, divu, 0xffffffffffffffff, 0x0, 0x0)
TEST_RR(2, divu, 0x1, 0x1, 0x1)
TEST_RR(3, divu, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, divu, 0x0, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, divu, 0x7fffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, divu, 0xffffffff, 0xffffffff, 0x1)
TEST_RR(7, divu, 0x0, 0x80000000, 0xffffffff)
TEST_RR(8, divu, 0xffffffffffffffff, 0x123456789, 0x0)
TEST_RR(9, divu, 0xffffffffffffffff, 0xffffffffffffffff, 0x0)
TEST_RR(10, divu, 0x0, 0x80000000, 0xffffffffffffffff)
TEST_RR(11, divu, 0x0, 0xffffffff80000000, 0xffffffffffffffff)
TEST_RR(12, divu, 0x2aaaaaaaaaaaaaa7, 0xffffffffffffffec, 0x6)
TEST_RR(13, divu, 0x0, 0x14, 0xfffffffffffffffa)
TEST_RR(14, divu, 0x48d159e26af37b, 0x123456789abcdef0, 0x40)
TEST_RR(15, divu, 0x2aaaaaaa, 0x80000000, 0x3)
TEST_RR(16, divu, 0x0, 0x7fffffff, 0xfedcba9876543210)
TEST_RR_SAME(17, divu, 0x0, 0x80000000, 0xffffffffffffffff)

TEST_END
