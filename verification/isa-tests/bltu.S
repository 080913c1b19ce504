# bltu: taken and not-taken, forward and backward.
#include "isa_test.h"

TEST_BEGIN

TEST_BR(1, bltu, 0, 0x0, 0x0)
TEST_BR_BACK(2, bltu, 0, 0x0, 0x0)
TEST_BR(3, bltu, 0, 0x1, 0x0)
TEST_BR_BACK(4, bltu, 0, 0x1, 0x0)
TEST_BR(5, bltu, 1, 0x0, 0x1)
TEST_BR_BACK(6, bltu, 1, 0x0, 0x1)
TEST_BR(7, bltu, 0, 0xffffffffffffffff, 0x1)
TEST_BR_BACK(8, bltu, 0, 0xffffffffffffffff, 0x1)
TEST_BR(9, bltu, 1, 0x1, 0xffffffffffffffff)
TEST_BR_BACK(10, bltu, 1, 0x1, 0xffffffffffffffff)
TEST_BR(11, bltu, 0, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR_BACK(12, bltu, 0, 0x8000000000000000, 0x7fffffffffffffff)
TEST_BR(13, bltu, 0, 0x5, 0x5)
TEST_BR_BACK(14, bltu, 0, 0x5, 0x5)
TEST_BR(15, bltu, 0, 0xffffffffffffffff, 0xffffffffffffffff)
TEST_BR_BACK(16, bltu, 0, 0xffffffffffffffff, 0xffffffffffffffff)

TEST_END
