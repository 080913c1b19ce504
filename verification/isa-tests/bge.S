# bge: taken and not-taken, forward and backward.
#include "isa_test.h"

TEST_BEGIN

TEST_BR(1, bge, 1, 0x0, 0x0)
TEST_BR_BACK(2, bge, 1, 0x0, 0x0)
TEST_BR(3, bge, 1, 0x1, 0x0)
TEST_BR_BACK(4, bge, 1, 0x1, 0x0)
TEST_BR(5, bge, 0, 0x0, 0x1)
TEST_BR_BACK(6, bge, 0, 0x0, 0x1)
TEST_BR(7, bge, 0, 0xffffffffffffffff, 0x1)
TEST_BR_BACK(8, bge, 0, 0xffffffffffffffff, 0x1)
TEST_BR(9, bge, 1, 0x1, 0xffffffffffffffff)
TEST_BR_BACK(10, bge, 1, 0x1, 0xffffffffffffffff)
TEST_BR(11, bge, 0, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR_BACK(12, bge, 0, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR(13, bge, 1, 0x5, 0x5)
TEST_BR_BACK(14, bge, 1, 0x5, 0x5)
TEST_BR(15, bge, 1, 0xffffffffffffffff, 0xffffffffffffffff)
TEST_BR_BACK(16, bge, 1, 0xffffffffffffffff, 0xffffffffffffffff)

TEST_END
