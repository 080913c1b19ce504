# srai: shift by constant amounts 0..63.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, srai, 0x8000000000000001, 0x8000000000000001, 0)
TEST_RI(2, srai, 0xfedcba9876543210, 0xfedcba9876543210, 0)
TEST_RI(3, srai, 0x80000000, 0x80000000, 0)
TEST_RI(4, srai, 0x51db61bf41333290, 0x51db61bf41333290, 0)
TEST_RI(5, srai, 0xc000000000000000, 0x8000000000000001, 1)
TEST_RI(6, srai, 0xff6e5d4c3b2a1908, 0xfedcba9876543210, 1)
TEST_RI(7, srai, 0x40000000, 0x80000000, 1)
TEST_RI(8, srai, 0xe4c6760df8a6042f, 0xc98cec1bf14c085f, 1)
TEST_RI(9, srai, 0xffffffff00000000, 0x8000000000000001, 31)
TEST_RI(10, srai, 0xfffffffffdb97530, 0xfedcba9876543210, 31)
TEST_RI(11, srai, 0x1, 0x80000000, 31)
TEST_RI(12, srai, 0xffffffff596746c4, 0xacb3a3620e2d7bf3, 31)
TEST_RI(13, srai, 0xffffffffffc00000, 0x8000000000000001, 41)
TEST_RI(14, srai, 0xffffffffffff6e5d, 0xfedcba9876543210, 41)
TEST_RI(15, srai, 0x0, 0x80000000, 41)
TEST_RI(16, srai, 0xffffffffffe1e2b9, 0xc3c5733d2006d42f, 41)
TEST_RI(17, srai, 0xfffffffffffffffe, 0x8000000000000001, 62)
TEST_RI(18, srai, 0xffffffffffffffff, 0xfedcba9876543210, 62)
TEST_RI(19, srai, 0x0, 0x80000000, 62)
TEST_RI(20, srai, 0xfffffffffffffffe, 0xb6f9714fd2d307fb, 62)
TEST_RI(21, srai, 0xffffffffffffffff, 0x8000000000000001, 63)
TEST_RI(22, srai, 0xffffffffffffffff, 0xfedcba9876543210, 63)
TEST_RI(23, srai, 0x0, 0x80000000, 63)
TEST_RI(24, srai, 0x0, 0x66bde9ecd50a3bba, 63)

TEST_END
