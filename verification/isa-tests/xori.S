# xori: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, xori, 0x0, 0x0, 0)
TEST_RI(2, xori, 0x374f8293e5f3c497, 0x374f8293e5f3c497, 0)
TEST_RI(3, xori, 0x7ffffffffffffffe, 0x7fffffffffffffff, 1)
TEST_RI(4, xori, 0x8fa5c0a390522d6c, 0x8fa5c0a390522d6d, 1)
TEST_RI(5, xori, 0xffffffff80000000, 0x7fffffff, -1)
TEST_RI(6, xori, 0x7f873c03c7ccb321, 0x8078c3fc38334cde, -1)
TEST_RI(7, xori, 0xfffffffffffff806, 0xfffffffffffffff9, 2047)
TEST_RI(8, xori, 0xb1dbbd08089d38d2, 0xb1dbbd08089d3f2d, 2047)
TEST_RI(9, xori, 0xfffffffffffff840, 0x40, -2048)
TEST_RI(10, xori, 0xc1941474f5da55cf, 0x3e6beb8b0a25adcf, -2048)
TEST_RI(11, xori, 0xfedcba9876543745, 0xfedcba9876543210, 1365)
TEST_RI(12, xori, 0x3a2be2cd521d34bc, 0x3a2be2cd521d31e9, 1365)
TEST_RI(13, xori, 0xfffffffffffffaaa, 0x0, -1366)
TEST_RI(14, xori, 0x1fa9b6376dbff6d3, 0xe05649c892400c79, -1366)
TEST_RI(15, xori, 0x7ffffffffffffff8, 0x7fffffffffffffff, 7)
TEST_RI(16, xori, 0xafd988e9098ea871, 0xafd988e9098ea876, 7)

TEST_END
