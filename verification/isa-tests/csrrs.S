# csrrs: sets bits; rs1 = x0 reads without writing (legal on read-only CSRs).
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; li a1, 0xf0; csrw mscratch, a1; li a2, 0x0f; csrrs a4, mscratch, a2; CHECK(a4, 0xf0)
li TESTNUM, 2; csrr a4, mscratch; CHECK(a4, 0xff)
li TESTNUM, 3; csrrs a4, mhartid, x0; CHECK(a4, 0)
li TESTNUM, 4; li a2, 0x8000000000000000; csrrs x0, mscratch, a2; csrr a4, mscratch; CHECK(a4, 0x80000000000000ff)

TEST_END
