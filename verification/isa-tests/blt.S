# blt: taken and not-taken, forward and backward.
#include "isa_test.h"

TEST_BEGIN

TEST_BR(1, blt, 0, 0x0, 0x0)
TEST_BR_BACK(2, blt, 0, 0x0, 0x0)
TEST_BR(3, blt, 0, 0x1, 0x0)
TEST_BR_BACK(4, blt, 0, 0x1, 0x0)
TEST_BR(5, blt, 1, 0x0, 0x1)
TEST_BR_BACK(6, blt, 1, 0x0, 0x1)
TEST_BR(7, blt, 1, 0xffffffffffffffff, 0x1)
TEST_BR_BACK(8, blt, 1, 0xffffffffffffffff, 0x1)
TEST_BR(9, blt, 0, 0x1, 0xffffffffffffffff)
TEST_BR_BACK(10, blt, 0, 0x1, 0xffffffffffffffff)
TEST_BR(11, blt, 1, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR_BACK(12, blt, 1, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR(13, blt, 0, 0x5, 0x5)
TEST_BR_BACK(14, blt, 0, 0x5, 0x5)
TEST_BR(15, blt, 0, 0xffffffffffffffff, 0xffffffffffffffff)
TEST_BR_BACK(16, blt, 0, 0xffffffffffffffff, 0xffffffffffffffff)

TEST_END
