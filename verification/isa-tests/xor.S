# xor: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, xor, 0x0, 0x0, 0x0)
TEST_RR(2, xor, 0x0, 0x1, 0x1)
TEST_RR(3, xor, 0xfffffffffffffffe, 0xffffffffffffffff, 0x1)
TEST_RR(4, xor, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, xor, 0x7ffffffffffffffe, 0x7fffffffffffffff, 0x1)
TEST_RR(6, xor, 0xfffffffe, 0xffffffff, 0x1)
TEST_RR(7, xor, 0x7fffffff, 0x80000000, 0xffffffff)
TEST_RR(8, xor, 0x8000000000000020, 0x8000000000000000, 0x20)
TEST_RR(9, xor, 0xffffffffffffffc6, 0x3f, 0xfffffffffffffff9)
TEST_RR(10, xor, 0xece8ece0ece8ece0, 0x123456789abcdef0, 0xfedcba9876543210)
TEST_RR(11, xor, 0xffffffff00000000, 0xffffffffffffffff, 0xffffffff)
TEST_RR(12, xor, 0x8000000080000000, 0x8000000000000000, 0x80000000)
TEST_RR(13, xor, 0xca5a6e3065dd409a, 0xca5a6e3165dd409a, 0x100000000)
TEST_RR(14, xor, 0xfffffffe80000000, 0x100000000, 0xffffffff80000000)
TEST_RR(15, xor, 0x7ffffffffffffffc, 0x7fffffffffffffff, 0x3)
TEST_RR(16, xor, 0xedcba98765432109, 0x123456789abcdef0, 0xfffffffffffffff9)
TEST_RR_SAME(17, xor, 0x10000001f, 0x100000000, 0x1f)

TEST_END
