# slti: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, slti, 0x0, 0x0, 0)
TEST_RI(2, slti, 0x1, 0x8e6b5085f129d5ec, 0)
TEST_RI(3, slti, 0x0, 0x7fffffffffffffff, 1)
TEST_RI(4, slti, 0x1, 0xf5a8ff2c71847f8f, 1)
TEST_RI(5, slti, 0x0, 0x7fffffff, -1)
TEST_RI(6, slti, 0x0, 0x1e9965f533161914, -1)
TEST_RI(7, slti, 0x1, 0xfffffffffffffff9, 2047)
TEST_RI(8, slti, 0x0, 0x652fa1bb6d3d0ba, 2047)
TEST_RI(9, slti, 0x0, 0x40, -2048)
TEST_RI(10, slti, 0x0, 0x2cda0e99d1e2e013, -2048)
TEST_RI(11, slti, 0x1, 0xfedcba9876543210, 1365)
TEST_RI(12, slti, 0x0, 0x51d02d473cf5cb37, 1365)
TEST_RI(13, slti, 0x0, 0x0, -1366)
TEST_RI(14, slti, 0x1, 0xfc4701d49591afa6, -1366)
TEST_RI(15, slti, 0x0, 0x7fffffffffffffff, 7)
TEST_RI(16, slti, 0x0, 0x20cf5f79363210ff, 7)

TEST_END
