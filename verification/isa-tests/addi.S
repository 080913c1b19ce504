# addi: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, addi, 0x0, 0x0, 0)
TEST_RI(2, addi, 0xb678e5579645d7b9, 0xb678e5579645d7b9, 0)
TEST_RI(3, addi, 0x8000000000000000, 0x7fffffffffffffff, 1)
TEST_RI(4, addi, 0x4aa5158354b6946f, 0x4aa5158354b6946e, 1)
TEST_RI(5, addi, 0x7ffffffe, 0x7fffffff, -1)
TEST_RI(6, addi, 0xcee4d9dc0d3dfa8f, 0xcee4d9dc0d3dfa90, -1)
TEST_RI(7, addi, 0x7f8, 0xfffffffffffffff9, 2047)
TEST_RI(8, addi, 0xa43340617e8a7181, 0xa43340617e8a6982, 2047)
TEST_RI(9, addi, 0xfffffffffffff840, 0x40, -2048)
TEST_RI(10, addi, 0x82ca79840fbc3a43, 0x82ca79840fbc4243, -2048)
TEST_RI(11, addi, 0xfedcba9876543765, 0xfedcba9876543210, 1365)
TEST_RI(12, addi, 0x7ac08a244b307b57, 0x7ac08a244b307602, 1365)
TEST_RI(13, addi, 0xfffffffffffffaaa, 0x0, -1366)
TEST_RI(14, addi, 0x4c762fe386d605e7, 0x4c762fe386d60b3d, -1366)
TEST_RI(15, addi, 0x8000000000000006, 0x7fffffffffffffff, 7)
TEST_RI(16, addi, 0xffc6e4116f451aa0, 0xffc6e4116f451a99, 7)

TEST_END
