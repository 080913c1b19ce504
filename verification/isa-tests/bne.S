# bne: taken and not-taken, forward and backward.
#include "isa_test.h"

TEST_BEGIN

TEST_BR(1, bne, 0, 0x0, 0x0)
TEST_BR_BACK(2, bne, 0, 0x0, 0x0)
TEST_BR(3, bne, 1, 0x1, 0x0)
TEST_BR_BACK(4, bne, 1, 0x1, 0x0)
TEST_BR(5, bne, 1, 0x0, 0x1)
TEST_BR_BACK(6, bne, 1, 0x0, 0x1)
TEST_BR(7, bne, 1, 0xffffffffffffffff, 0x1)
TEST_BR_BACK(8, bne, 1, 0xffffffffffffffff, 0x1)
TEST_BR(9, bne, 1, 0x1, 0xffffffffffffffff)
TEST_BR_BACK(10, bne, 1, 0x1, 0xffffffffffffffff)
TEST_BR(11, bne, 1, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR_BACK(12, bne, 1, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR(13, bne, 0, 0x5, 0x5)
TEST_BR_BACK(14, bne, 0, 0x5, 0x5)
TEST_BR(15, bne, 0, 0xffffffffffffffff, 0xffffffffffffffff)
TEST_BR_BACK(16, bne, 0, 0xffffffffffffffff, 0xffffffffffffffff)

TEST_END
