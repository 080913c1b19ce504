# RV32 integer arithmetic where it differs from RV64: 32-bit results, five-bit shift
# amounts, and the high multiply and divide results at 32 bits.
#include "isa_test.h"

TEST_BEGIN

TEST_RR(1, mulh, -1, -1, 1)
TEST_RR(2, mulhu, -2, 0xffffffff, 0xffffffff)
TEST_RR(3, mulhsu, -1, -1, 0xffffffff)
TEST_RR(4, div, -2147483648, 0x80000000, -1)
TEST_RR(5, divu, 1, 0x80000000, 0x80000000)
TEST_RR(6, remu, 0x7fffffff, 0xffffffff, 0x80000000)
TEST_RR(7, srl, 1, 0x80000000, 31)
TEST_RR(8, sra, -1, 0x80000000, 31)
TEST_RR(9, sll, 1, 1, 32)
TEST_RI(10, srli, 0x7fffffff, -1, 1)
TEST_RI(11, srai, -1, 0x80000000, 31)
TEST_RI(12, slli, -2147483648, 1, 31)
TEST_RR(13, add, 0, 0xffffffff, 1)
TEST_RR(14, sltu, 1, 0x7fffffff, 0x80000000)
TEST_RR(15, rem, 0, 0x80000000, -1)
TEST_RR(16, mul, 0, 0x10000, 0x10000)
TEST_RR(17, mulhu, 0x7fffffff, 0xffffffff, 0x80000000)
TEST_RR(18, divu, -1, 5, 0)
TEST_RR(19, sub, -2147483648, 0x7fffffff, -1)
TEST_RI(20, sltiu, 1, 0x7ffffffe, -1)
TEST_RR(21, srl, 0x7fffffff, -1, 33)

TEST_END
