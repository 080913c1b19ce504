# sraiw: shift by constant amounts 0..31.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, sraiw, 0x1, 0x8000000000000001, 0)
TEST_RI(2, sraiw, 0x76543210, 0xfedcba9876543210, 0)
TEST_RI(3, sraiw, 0xffffffff80000000, 0x80000000, 0)
TEST_RI(4, sraiw, 0x69f87254, 0x7f75354c69f87254, 0)
TEST_RI(5, sraiw, 0x0, 0x8000000000000001, 1)
TEST_RI(6, sraiw, 0x3b2a1908, 0xfedcba9876543210, 1)
TEST_RI(7, sraiw, 0xffffffffc0000000, 0x80000000, 1)
TEST_RI(8, sraiw, 0xffffffffd1cb7a20, 0x6c32e88a396f440, 1)
TEST_RI(9, sraiw, 0x0, 0x8000000000000001, 15)
TEST_RI(10, sraiw, 0xeca8, 0xfedcba9876543210, 15)
TEST_RI(11, sraiw, 0xffffffffffff0000, 0x80000000, 15)
TEST_RI(12, sraiw, 0xdde8, 0x60059a3d6ef45950, 15)
TEST_RI(13, sraiw, 0x0, 0x8000000000000001, 17)
TEST_RI(14, sraiw, 0x3b2a, 0xfedcba9876543210, 17)
TEST_RI(15, sraiw, 0xffffffffffffc000, 0x80000000, 17)
TEST_RI(16, sraiw, 0xffffffffffffdd07, 0x819a38d2ba0f417b, 17)
TEST_RI(17, sraiw, 0x0, 0x8000000000000001, 30)
TEST_RI(18, sraiw, 0x1, 0xfedcba9876543210, 30)
TEST_RI(19, sraiw, 0xfffffffffffffffe, 0x80000000, 30)
TEST_RI(20, sraiw, 0x0, 0xf237b1930e08c008, 30)
TEST_RI(21, sraiw, 0x0, 0x8000000000000001, 31)
TEST_RI(22, sraiw, 0x0, 0xfedcba9876543210, 31)
TEST_RI(23, sraiw, 0xffffffffffffffff, 0x80000000, 31)
TEST_RI(24, sraiw, 0x0, 0x3100a0894a229df3, 31)

TEST_END
