# csrrc: clears bits; rs1 = x0 reads without writing.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; li a1, 0xff; csrw mscratch, a1; li a2, 0x0f; csrrc a4, mscratch, a2; CHECK(a4, 0xff)
li TESTNUM, 2; csrr a4, mscratch; CHECK(a4, 0xf0)
li TESTNUM, 3; csrrc a4, mscratch, x0; CHECK(a4, 0xf0)
li TESTNUM, 4; csrrc a4, misa, x0; CHECK(a4, 0x8000000000001101)

TEST_END
