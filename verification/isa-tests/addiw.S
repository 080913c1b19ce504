# addiw: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, addiw, 0x0, 0x0, 0)
TEST_RI(2, addiw, 0x13b725a7, 0xe256791c13b725a7, 0)
TEST_RI(3, addiw, 0x0, 0x7fffffffffffffff, 1)
TEST_RI(4, addiw, 0xffffffff9dd85ebc, 0xcea492739dd85ebb, 1)
TEST_RI(5, addiw, 0x7ffffffe, 0x7fffffff, -1)
TEST_RI(6, addiw, 0xffffffffd17abf7f, 0x3bc10006d17abf80, -1)
TEST_RI(7, addiw, 0x7f8, 0xfffffffffffffff9, 2047)
TEST_RI(8, addiw, 0x65216ea, 0xc748d98c06520eeb, 2047)
TEST_RI(9, addiw, 0xfffffffffffff840, 0x40, -2048)
TEST_RI(10, addiw, 0x14cd6270, 0xad3ee9414cd6a70, -2048)
TEST_RI(11, addiw, 0x76543765, 0xfedcba9876543210, 1365)
TEST_RI(12, addiw, 0xffffffffcfa01945, 0xa5068a3dcfa013f0, 1365)
TEST_RI(13, addiw, 0xfffffffffffffaaa, 0x0, -1366)
TEST_RI(14, addiw, 0xffffffffb95cac85, 0xc7b53163b95cb1db, -1366)
TEST_RI(15, addiw, 0x6, 0x7fffffffffffffff, 7)
TEST_RI(16, addiw, 0x2690309d, 0xb8a9f38426903096, 7)

TEST_END
