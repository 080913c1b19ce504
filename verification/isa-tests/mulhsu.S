# mulhsu: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, mulhsu, 0x0, 0x0, 0x0)
TEST_RR(2, mulhsu, 0x0, 0x1, 0x1)
TEST_RR(3, mulhsu, 0xffffffffffffffff, 0xffffffffffffffff, 0x1)
TEST_RR(4, mulhsu, 0x8000000000000000, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, mulhsu, 0x0, 0x7fffffffffffffff, 0x1)
TEST_RR(6, mulhsu, 0x0, 0xffffffff, 0x1)
TEST_RR(7, mulhsu, 0x0, 0x80000000, 0xffffffff)
TEST_RR(8, mulhsu, 0x2, 0x3, 0xffffffff80000000)
TEST_RR(9, mulhsu, 0xffffffffffffffff, 0xfedcba9876543210, 0x3f)
TEST_RR(10, mulhsu, 0x1d1b5d15, 0x3a36ba2ae0e78fa2, 0x80000000)
TEST_RR(11, mulhsu, 0xffffffffffffffff, 0xfffffffffffffff9, 0x100000000)
TEST_RR(12, mulhsu, 0xfedcba97, 0xffffffff, 0xfedcba9876543210)
TEST_RR(13, mulhsu, 0xffffffffffffffff, 0xffffffff80000000, 0x1f)
TEST_RR(14, mulhsu, 0x7fffffff, 0x100000000, 0x7fffffffffffffff)
TEST_RR(15, mulhsu, 0x0, 0x0, 0x1f)
TEST_RR(16, mulhsu, 0xffeb49923cc09532, 0xfedcba9876543210, 0x123456789abcdef0)
TEST_RR_SAME(17, mulhsu, 0xffffffffffffffe0, 0x8000000000000000, 0x40)

TEST_END
