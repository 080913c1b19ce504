# bgeu: taken and not-taken, forward and backward.
#include "isa_test.h"

TEST_BEGIN

TEST_BR(1, bgeu, 1, 0x0, 0x0)
TEST_BR_BACK(2, bgeu, 1, 0x0, 0x0)
TEST_BR(3, bgeu, 1, 0x1, 0x0)
TEST_BR_BACK(4, bgeu, 1, 0x1, 0x0)
TEST_BR(5, bgeu, 0, 0x0, 0x1)
TEST_BR_BACK(6, bgeu, 0, 0x0, 0x1)
TEST_BR(7, bgeu, 1, 0xffffffffffffffff, 0x1)
TEST_BR_BACK(8, bgeu, 1, 0xffffffffffffffff, 0x1)
TEST_BR(9, bgeu, 0, 0x1, 0xffffffffffffffff)
TEST_BR_BACK(10, bgeu, 0, 0x1, 0xffffffffffffffff)
TEST_BR(11, bgeu, 1, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR_BACK(12, bgeu, 1, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR(13, bgeu, 1, 0x5, 0x5)
TEST_BR_BACK(14, bgeu, 1, 0x5, 0x5)
TEST_BR(15, bgeu, 1, 0xffffffffffffffff, 0xffffffffffffffff)
TEST_BR_BACK(16, bgeu, 1, 0xffffffffffffffff, 0xffffffffffffffff)

TEST_END
