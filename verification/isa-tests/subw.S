# subw: register-register, edge values and fixed random operands.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, subw, 0x0, 0x0, 0x0)
TEST_RR(2, subw, 0x0, 0x1, 0x1)
TEST_RR(3, subw, 0xfffffffffffffffe, 0xffffffffffffffff, 0x1)
TEST_RR(4, subw, 0x1, 0x8000000000000000, 0xffffffffffffffff)
TEST_RR(5, subw, 0xfffffffffffffffe, 0x7fffffffffffffff, 0x1)
TEST_RR(6, subw, 0xfffffffffffffffe, 0xffffffff, 0x1)
TEST_RR(7, subw, 0xffffffff80000001, 0x80000000, 0xffffffff)
TEST_RR(8, subw, 0xffffffffffffffe0, 0x7fffffffffffffff, 0x1f)
TEST_RR(9, subw, 0xffffffffdea378a5, 0xffffffff80000000, 0x72a209daa15c875b)
TEST_RR(10, subw, 0x9abcdf0, 0x80000000, 0xfedcba9876543210)
TEST_RR(11, subw, 0x65432109, 0xfffffffffffffff9, 0x123456789abcdef0)
TEST_RR(12, subw, 0x7fffffff, 0xffffffffffffffff, 0xffffffff80000000)
TEST_RR(13, subw, 0xffffffff80000007, 0xffffffff80000000, 0xfffffffffffffff9)
TEST_RR(14, subw, 0xffffffffffffffc0, 0x100000000, 0x40)
TEST_RR(15, subw, 0x1d, 0x20, 0x3)
TEST_RR(16, subw, 0xffffffffffffffe1, 0x20, 0x3f)
TEST_RR_SAME(17, subw, 0x7fffffc0, 0xffffffff80000000, 0x40)

TEST_END
