# sll: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, sll, 0x0, 0x0, 0x0)
TEST_RR(2, sll, 0x2, 0x1, 0x1)
TEST_RR(3, sll, 0xfffffffffffffffe, 0xffffffffffffffff, 0x1)
TEST_RR(4, sll, 0x0, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, sll, 0xfffffffffffffffe, 0x7fffffffffffffff, 0x1)
TEST_RR(6, sll, 0x1fffffffe, 0xffffffff, 0x1)
TEST_RR(7, sll, 0x0, 0x80000000, 0xffffffff)
TEST_RR(8, sll, 0xfdb97530eca86420, 0xfedcba9876543210, 0x1)
TEST_RR(9, sll, 0x8000000000000000, 0xffffffff, 0xffffffff)
TEST_RR(10, sll, 0x2468acf13579bde0, 0x123456789abcdef0, 0x1)
TEST_RR(11, sll, 0x30000, 0x3, 0x1dea467190ba65d0)
TEST_RR(12, sll, 0x8000000000000000, 0x1, 0xffffffffffffffff)
TEST_RR(13, sll, 0x35fef00d6e1b8793, 0x35fef00d6e1b8793, 0x80000000)
TEST_RR(14, sll, 0xf6e5d4c3b2a19080, 0xfedcba9876543210, 0x3)
TEST_RR(15, sll, 0x0, 0xffffffff80000000, 0x123456789abcdef0)
TEST_RR(16, sll, 0x0, 0x40, 0xffffffffffffffff)
TEST_RR_SAME(17, sll, 0x100000000, 0x1, 0x20)

TEST_END
