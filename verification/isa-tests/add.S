# add: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, add, 0x0, 0x0, 0x0)
TEST_RR(2, add, 0x2, 0x1, 0x1)
TEST_RR(3, add, 0x0, 0xffffffffffffffff, 0x1)
TEST_RR(4, add, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, add, 0x8000000000000000, 0x7fffffffffffffff, 0x1)
TEST_RR(6, add, 0x100000000, 0xffffffff, 0x1)
TEST_RR(7, add, 0x17fffffff, 0x80000000, 0xffffffff)
TEST_RR(8, add, 0x7edcba987654320f, 0x7fffffffffffffff, 0xfedcba9876543210)
TEST_RR(9, add, 0xffffffff, 0xffffffffffffffff, 0x100000000)
TEST_RR(10, add, 0x100000001, 0x1, 0x100000000)
TEST_RR(11, add, 0x123456791abcdef0, 0x80000000, 0x123456789abcdef0)
TEST_RR(12, add, 0x123456789abcdef0, 0x0, 0x123456789abcdef0)
TEST_RR(13, add, 0x7ffffff8, 0x7fffffff, 0xfffffffffffffff9)
TEST_RR(14, add, 0x42, 0x3f, 0x3)
TEST_RR(15, add, 0x7fffffff, 0xffffffff80000000, 0xffffffff)
TEST_RR(16, add, 0xffffffff, 0xffffffffffffffff, 0x100000000)
TEST_RR_SAME(17, add, 0x3e, 0x1f, 0x1f)

TEST_END
