# slliw: shift by constant amounts 0..31.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, slliw, 0x1, 0x8000000000000001, 0)
TEST_RI(2, slliw, 0x76543210, 0xfedcba9876543210, 0)
TEST_RI(3, slliw, 0xffffffff80000000, 0x80000000, 0)
TEST_RI(4, slliw, 0xffffffffd1071535, 0xc5f52a39d1071535, 0)
TEST_RI(5, slliw, 0x2, 0x8000000000000001, 1)
TEST_RI(6, slliw, 0xffffffffeca86420, 0xfedcba9876543210, 1)
TEST_RI(7, slliw, 0x0, 0x80000000, 1)
TEST_RI(8, slliw, 0xffffffff8d6ec0e4, 0xdec24a2bc6b76072, 1)
TEST_RI(9, slliw, 0x80, 0x8000000000000001, 7)
TEST_RI(10, slliw, 0x2a190800, 0xfedcba9876543210, 7)
TEST_RI(11, slliw, 0x0, 0x80000000, 7)
TEST_RI(12, slliw, 0x56977980, 0x88009f7802ad2ef3, 7)
TEST_RI(13, slliw, 0x8000, 0x8000000000000001, 15)
TEST_RI(14, slliw, 0x19080000, 0xfedcba9876543210, 15)
TEST_RI(15, slliw, 0x0, 0x80000000, 15)
TEST_RI(16, slliw, 0xffffffff853b8000, 0x517358172a430a77, 15)
TEST_RI(17, slliw, 0x40000000, 0x8000000000000001, 30)
TEST_RI(18, slliw, 0x0, 0xfedcba9876543210, 30)
TEST_RI(19, slliw, 0x0, 0x80000000, 30)
TEST_RI(20, slliw, 0xffffffffc0000000, 0xd884bfd2d92fafaf, 30)
TEST_RI(21, slliw, 0xffffffff80000000, 0x8000000000000001, 31)
TEST_RI(22, slliw, 0x0, 0xfedcba9876543210, 31)
TEST_RI(23, slliw, 0x0, 0x80000000, 31)
TEST_RI(24, slliw, 0x0, 0x30502ae23576953e, 31)

TEST_END
