# beq: taken and not-taken, forward and backward.
#include "isa_test.h"

TEST_BEGIN

TEST_BR(1, beq, 1, 0x0, 0x0)
TEST_BR_BACK(2, beq, 1, 0x0, 0x0)
TEST_BR(3, beq, 0, 0x1, 0x0)
TEST_BR_BACK(4, beq, 0, 0x1, 0x0)
TEST_BR(5, beq, 0, 0x0, 0x1)
TEST_BR_BACK(6, beq, 0, 0x0, 0x1)
TEST_BR(7, beq, 0, 0xffffffffffffffff, 0x1)
TEST_BR_BACK(8, beq, 0, 0xffffffffffffffff, 0x1)
TEST_BR(9, beq, 0, 0x1, 0xffffffffffffffff)
TEST_BR_BACK(10, beq, 0, 0x1, 0xffffffffffffffff)
TEST_BR(11, beq, 0, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR_BACK(12, beq, 0, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR(13, beq, 1, 0x5, 0x5)
TEST_BR_BACK(14, beq, 1, 0x5, 0x5)
TEST_BR(15, beq, 1, 0xffffffffffffffff, 0xffffffffffffffff)
TEST_BR_BACK(16, beq, 1, 0xffffffffffffffff, 0xffffffffffffffff)

TEST_END
