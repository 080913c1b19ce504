# andi: register-immediate, boundary immediates.
#include "isa_test.h"

TEST_BEGIN

TEST_RI(1, andi, 0x0, 0x0, 0)
TEST_RI(2, andi, 0x0, 0xb37e9f0242d2af58, 0)
TEST_RI(3, andi, 0x1, 0x7fffffffffffffff, 1)
TEST_RI(4, andi, 0x0, 0x7efe79372fa16be2, 1)
TEST_RI(5, andi, 0x7fffffff, 0x7fffffff, -1)
TEST_RI(6, andi, 0x5e0f347d44c5dc2d, 0x5e0f347d44c5dc2d, -1)
TEST_RI(7, andi, 0x7f9, 0xfffffffffffffff9, 2047)
TEST_RI(8, andi, 0x30c, 0x5b49020a34b830c, 2047)
TEST_RI(9, andi, 0x0, 0x40, -2048)
TEST_RI(10, andi, 0xd1a41cd535c56000, 0xd1a41cd535c561f4, -2048)
TEST_RI(11, andi, 0x10, 0xfedcba9876543210, 1365)
TEST_RI(12, andi, 0x441, 0x82710fa83d1bf44b, 1365)
TEST_RI(13, andi, 0x0, 0x0, -1366)
TEST_RI(14, andi, 0xd904fed52d5f80a0, 0xd904fed52d5f84a4, -1366)
TEST_RI(15, andi, 0x7, 0x7fffffffffffffff, 7)
TEST_RI(16, andi, 0x4, 0x57fe832ed102ca1c, 7)

TEST_END
