# csrrw: swaps a register and a CSR; rd = x0 still writes.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; li a1, 0x1234; csrw mscratch, a1; li a2, 0x5678; csrrw a4, mscratch, a2; CHECK(a4, 0x1234)
li TESTNUM, 2; csrr a4, mscratch; CHECK(a4, 0x5678)
li TESTNUM, 3; li a1, -1; csrrw x0, mscratch, a1; csrr a4, mscratch; CHECK(a4, -1)
li TESTNUM, 4; csrrw a1, mscratch, a1; CHECK(a1, -1)

TEST_END
