# sltiu: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, sltiu, 0x0, 0x0, 0)
TEST_RI(2, sltiu, 0x0, 0x857cc2dd7b26d841, 0)
TEST_RI(3, sltiu, 0x0, 0x7fffffffffffffff, 1)
TEST_RI(4, sltiu, 0x0, 0xdb31b696ccf8d780, 1)
TEST_RI(5, sltiu, 0x1, 0x7fffffff, -1)
TEST_RI(6, sltiu, 0x1, 0x4dec4e431028b14e, -1)
TEST_RI(7, sltiu, 0x0, 0xfffffffffffffff9, 2047)
TEST_RI(8, sltiu, 0x0, 0x4a8becf24191d112, 2047)
TEST_RI(9, sltiu, 0x1, 0x40, -2048)
TEST_RI(10, sltiu, 0x1, 0x366514ddf7083a1d, -2048)
TEST_RI(11, sltiu, 0x0, 0xfedcba9876543210, 1365)
TEST_RI(12, sltiu, 0x0, 0xde461f4981eda5e, 1365)
TEST_RI(13, sltiu, 0x1, 0x0, -1366)
TEST_RI(14, sltiu, 0x1, 0x9500ecd9a1fdf324, -1366)
TEST_RI(15, sltiu, 0x0, 0x7fffffffffffffff, 7)
TEST_RI(16, sltiu, 0x0, 0x8fd5a6dcead48878, 7)

TEST_END
