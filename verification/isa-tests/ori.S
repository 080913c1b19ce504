# ori: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, ori, 0x0, 0x0, 0)
TEST_RI(2, ori, 0xc1f3bc912d6c8de6, 0xc1f3bc912d6c8de6, 0)
TEST_RI(3, ori, 0x7fffffffffffffff, 0x7fffffffffffffff, 1)
TEST_RI(4, ori, 0x57f140ad99a829a3, 0x57f140ad99a829a3, 1)
TEST_RI(5, ori, 0xffffffffffffffff, 0x7fffffff, -1)
TEST_RI(6, ori, 0xffffffffffffffff, 0x9543903420b90d9a, -1)
TEST_RI(7, ori, 0xffffffffffffffff, 0xfffffffffffffff9, 2047)
TEST_RI(8, ori, 0x611cd8f729d0c7ff, 0x611cd8f729d0c119, 2047)
TEST_RI(9, ori, 0xfffffffffffff840, 0x40, -2048)
TEST_RI(10, ori, 0xfffffffffffffb27, 0xae21429555472327, -2048)
TEST_RI(11, ori, 0xfedcba9876543755, 0xfedcba9876543210, 1365)
TEST_RI(12, ori, 0xf4c085234839dd75, 0xf4c085234839dc60, 1365)
TEST_RI(13, ori, 0xfffffffffffffaaa, 0x0, -1366)
TEST_RI(14, ori, 0xfffffffffffffebf, 0x7cd768430d98d41d, -1366)
TEST_RI(15, ori, 0x7fffffffffffffff, 0x7fffffffffffffff, 7)
TEST_RI(16, ori, 0x74ab0e17e42d17d7, 0x74ab0e17e42d17d3, 7)

TEST_END
