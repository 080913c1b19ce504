# sra: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, sra, 0x0, 0x0, 0x0)
TEST_RR(2, sra, 0x0, 0x1, 0x1)
TEST_RR(3, sra, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, sra, 0xffffffffffffffff, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, sra, 0x3fffffffffffffff, 0x7fffffffffffffff, 0x1)
TEST_RR(6, sra, 0x7fffffff, 0xffffffff, 0x1)
TEST_RR(7, sra, 0x0, 0x80000000, 0xffffffff)
TEST_RR(8, sra, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffff80000000)
TEST_RR(9, sra, 0xffffffffffffffff, 0xfffffffffffffff9, 0x1f)
TEST_RR(10, sra, 0x0, 0x7fffffff, 0x1f)
TEST_RR(11, sra, 0x2468acf1, 0x123456789abcdef0, 0x1f)
TEST_RR(12, sra, 0x0, 0x1f, 0x7fffffff)
TEST_RR(13, sra, 0xffffffff80000000, 0xffffffff80000000, 0x40)
TEST_RR(14, sra, 0xfffffffffffffff9, 0xfffffffffffffff9, 0x8000000000000000)
TEST_RR(15, sra, 0x3, 0x3, 0x80000000)
TEST_RR(16, sra, 0x0, 0x7fffffff, 0x123456789abcdef0)
TEST_RR_SAME(17, sra, 0xffffffffffffffff, 0xffffffff80000000, 0x7fffffffffffffff)

TEST_END
