# WARL fields of an M-only hart: mstatus (MIE/MPIE writable, MPP fixed at M), mie,
# mtvec (mode bit 1 reads 0), mepc (bits 1:0 read 0 without C), misa.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; csrr a4, mstatus; CHECK(a4, 0x1800)
li TESTNUM, 2; li a1, -1; csrw mstatus, a1; csrr a4, mstatus; CHECK(a4, 0x1888)
li TESTNUM, 3; csrw mstatus, x0; csrr a4, mstatus; CHECK(a4, 0x1800)
li TESTNUM, 4; csrw mie, a1; csrr a4, mie; CHECK(a4, 0x888)
csrw mie, x0
li TESTNUM, 5; csrr s5, mtvec; csrw mtvec, a1; csrr a4, mtvec; CHECK(a4, 0xfffffffffffffffd)
csrw mtvec, s5
li TESTNUM, 6; csrw mepc, a1; csrr a4, mepc; CHECK(a4, 0xfffffffffffffffc)
li TESTNUM, 7; csrw mcause, a1; csrr a4, mcause; CHECK(a4, -1)
li TESTNUM, 8; csrw mtval, a1; csrr a4, mtval; CHECK(a4, -1)
li TESTNUM, 9; csrr a4, misa; CHECK(a4, 0x8000000000001101)
li TESTNUM, 10; csrr a4, mhartid; CHECK(a4, 0)

TEST_END
